"""Schemathesis over the committed contract (``openapi/openapi.json``): every operation, over HTTP.

Every operation is fuzzed with requests generated from the schema (and, negatively, requests that violate
it), sent over HTTP to one app (``service.app.create_app``, memory store) served by uvicorn in a thread of
the test process for the whole module (one application lifespan), so that the sessions created before and
during the run live for the whole run.

Generated values would never be accepted, so hooks put real ones in most requests:

* bodies with a ``snapshot`` get real sealed snapshots at every phase of 2- to 6-player games, and often a
  ``move`` that is a legal move of that state, so the fuzzing reaches the engine: legal moves apply, illegal
  ones are answered 422, bad tokens 400. A few pool entries are broken on purpose (an inconsistent state, a
  snapshot under another key);
* operations on ``/v1/sessions/{session_id}`` get, most of the time, the id of a real session (a pool of
  sessions of 2 to 6 players, fresh, part-played and finished, created before the run) and a real token:
  its host's, one of its seats', or another session's. A session move is often the legal move of the seat to
  act, with that seat's token and, sometimes, the current or the previous version in ``If-Match`` or an
  ``Idempotency-Key`` from a small set (replays, and keys reused for other moves), so games advance during
  the run. ``DELETE`` gets a session created for it, so the pool survives; a session's creation is often
  from a real snapshot or for a game the rules can play.

The event stream cannot hang the run, twice over: the hook gives the events operation a real session id only
of a *finished* game (whose stream replays the log and ends by itself), so a valid token never opens an
endless stream; and :func:`bounded_streams` wraps the app so that any stream still open after
``STREAM_LIMIT_SECONDS`` is ended as if the client had disconnected. The test then fails, saying so: a
stream that had to be cut means the first guard failed.

Checks: no 5xx, every status code documented, every response body conforms to its schema (an event
stream's frames are checked here: see :func:`test_contract`), and every content type is the documented one.
Schemathesis runs its examples, coverage and fuzzing phases. The coverage phase sends each operation's
deterministic boundary values and schema violations (a body without its media type, a query parameter given
twice, a value just out of bounds), all of which must be answered as documented; for ``verifyRecord``, whose body
nests a whole game record, only its valid boundaries (its violations are thousands, each refused alike).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
import requests
import schemathesis
import uvicorn
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from engine import GameState, apply_move, legal_moves, new_game, resolve_options
from service.app import create_app
from service.config import Settings
from service.referee.snapshots import Sealer
from tests.records.games import record_bodies
from tests.redis_server import free_port
from tests.support import bearer

from .conftest import KEY_A, KEY_B
from .helpers import an_illegal_move, states_by_phase

#: The quick loop (``pytest -m "not slow"``) leaves these out: Schemathesis over every operation.
pytestmark = pytest.mark.slow

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
CHECKS = (not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance)
BASE_URL = f"http://127.0.0.1:{free_port()}"
EVENTS_PATH = "/v1/sessions/{session_id}/events"
STREAM_LIMIT_SECONDS = 5.0


def _pool() -> tuple[list[tuple[str, list[Any]]], list[GameState]]:
    """(sealed snapshot, legal moves as JSON) at many phases and player counts, plus a few broken ones; and
    the finished games met on the way."""
    sealer = Sealer([KEY_A])
    states: list[GameState] = list(states_by_phase().values())
    finished: list[GameState] = []
    rng = random.Random(7)
    for players in (2, 3, 4, 5, 6):
        state, _ = new_game(resolve_options(players, None, {"target": 200, "lose_at": -200}), seed=players)
        for step in range(400):
            if state.phase == "game_over":
                finished.append(state)
                break
            if step % 17 == 0 or state.phase in ("exchange", "call", "nominate"):
                states.append(state)
            state, _ = apply_move(state, rng.choice(legal_moves(state)))
        states.append(state)
    pool = []
    for s in states:
        moves: list[Any] = legal_moves(s)[:40]
        illegal = an_illegal_move(s)
        if illegal is not None:
            moves += [illegal] * max(1, len(moves) // 3)  # about a quarter of the picks: answered 422
        pool.append((sealer.seal(s), msgspec.to_builtins(moves)))
    broken = msgspec.structs.replace(states[0], kitty=())
    pool.append((sealer.seal(broken), []))  # opens, fails the integrity check
    pool.append((Sealer([KEY_B]).seal(states[0]), []))  # unknown key
    return pool, finished


POOL, FINISHED_STATES = _pool()


# ------------------------------------------------------------------------------------------ the app


@dataclass
class StreamGuard:
    cut: list[str]


def bounded_streams(app: ASGIApp, guard: StreamGuard, limit: float) -> ASGIApp:
    """``app``, but an event stream still open after ``limit`` seconds is ended: the client's ``receive``
    then answers ``http.disconnect`` (Litestar cancels the stream) and the response is completed here."""

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/events"):
            await app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        completed = False

        async def receive_until_deadline() -> Message:
            try:
                return await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                guard.cut.append(scope["path"])
                return {"type": "http.disconnect"}

        async def tracking_send(message: Message) -> None:
            nonlocal completed
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                completed = True
            await send(message)

        await app(scope, receive_until_deadline, tracking_send)
        if not completed and guard.cut:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    return bounded


APP = create_app(Settings(snapshot_keys=(KEY_A,), log_level="WARNING"), event_heartbeat_seconds=1.0)
GUARD = StreamGuard([])


def _config(mode: GenerationMode | None) -> schemathesis.Config:
    """The run's configuration: where the cases go, what is generated (``None``: positive and negative data),
    in which phases (coverage with repeated query parameters too; see the module docstring). Bad input may be
    refused with any 4xx (Schemathesis's ``negative_data_rejection`` expects a narrower set by default; 409, 413
    and 415 are refusals too)."""
    return schemathesis.Config.from_dict({
        "base-url": BASE_URL,
        "generation": {"mode": "all" if mode is None else mode.value},
        "phases": {"coverage": {"enabled": True, "generate-duplicate-query-parameters": True},
                   "stateful": {"enabled": False}},
        # A stream is read to its end (a finished game's replay), not cut after Schemathesis's default 20 events;
        # only bounded_streams cuts one, and then the test fails.
        "max-stream-events": 1_000_000,
        "request-timeout": 3 * STREAM_LIMIT_SECONDS,
        "checks": {"negative_data_rejection": {"expected-statuses": ["4XX"]}},
        # The coverage phase enumerates every boundary of every field: for a whole game record (verifyRecord's
        # body nests the record's every hand, trick and score) that is thousands of schema violations, each
        # refused alike before any record is read; its valid boundaries are kept.
        "operations": [{"include-operation-id": "verifyRecord",
                        "phases": {"coverage": {"generation": {"mode": "positive"}}}}],
    })


schema = schemathesis.openapi.from_path(CONTRACT, config=_config(None))


# ------------------------------------------------------------------------------------- the sessions


@dataclass
class Session:
    id: str
    host: str
    seats: list[str]
    finished: bool


class Client(requests.Session):
    """A session whose relative URLs are the app's (``client.get("/v1/rules")``)."""

    def __init__(self) -> None:
        super().__init__()
        self.trust_env = False  # the app on loopback: no proxy or netrc from the environment, nor a scan of it

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        text = url.decode() if isinstance(url, bytes) else url
        return super().request(method, BASE_URL + text if text.startswith("/") else text, *args, **kwargs)


#: Sessions of the run, filled by the ``client`` fixture before the first case is generated.
SESSIONS: list[Session] = []
#: The client every case goes through (the hooks use it too, to read a session's state and to create one).
CLIENTS: list[Client] = []


def _create(client: Client, body: dict[str, Any]) -> Session:
    response = client.post("/v1/sessions", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    return Session(created["session_id"], created["host_token"], created["seat_tokens"],
                   created["phase"] == "game_over")


def _play(client: Client, session: Session, rng: random.Random, moves: int) -> None:
    """Up to ``moves`` random legal moves through the API (until the game ends)."""
    for _ in range(moves):
        to_act = client.get(f"/v1/sessions/{session.id}", headers=bearer(session.host)).json()["view"]["to_act"]
        if to_act is None:
            session.finished = True
            return
        legal = client.get(f"/v1/sessions/{session.id}/legal-moves", headers=bearer(session.seats[to_act]))
        move = rng.choice(legal.json()["legal_moves"])
        response = client.post(f"/v1/sessions/{session.id}/moves", json={"move": move},
                               headers=bearer(session.seats[to_act]))
        assert response.status_code == 200, response.text


def _sessions(client: Client) -> list[Session]:
    rng = random.Random(11)
    sealer = Sealer([KEY_A])
    sessions = []
    for players in (2, 3, 4, 5, 6):
        sessions.append(_create(client, {"players": players, "seed": players, "known_deal": True}))
        part_played = _create(client, {"players": players, "seed": 100 + players, "known_deal": True})
        _play(client, part_played, rng, 25)
        sessions.append(part_played)
    short = {"target": 10, "lose_at": -10}  # over after one hand
    for players in (3, 4):
        finished = _create(client, {"players": players, "seed": 7, "known_deal": True, "options": short})
        _play(client, finished, rng, 400)
        assert finished.finished
        sessions.append(finished)
    sessions += [_create(client, {"snapshot": sealer.seal(state), "known_deal": True})
                 for state in FINISHED_STATES[:2]]
    assert sum(s.finished for s in sessions) >= 3
    return sessions


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """The app served for the module (one lifespan: startup here, shutdown at the end), and its sessions."""
    host, port = BASE_URL.removeprefix("http://").split(":")
    server = uvicorn.Server(uvicorn.Config(bounded_streams(APP, GUARD, STREAM_LIMIT_SECONDS), host=host,
                                           port=int(port), log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, name="contract-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the app did not start"
        time.sleep(0.05)
    with Client() as http:
        CLIENTS.append(http)
        try:
            SESSIONS.extend(_sessions(http))
            yield http
        finally:
            CLIENTS.clear()
            SESSIONS.clear()
            server.should_exit = True
            thread.join(30)


# ---------------------------------------------------------------------------------------------- hooks


def _with_real_snapshot(generated: Any, dice: int, entry: tuple[str, list[Any]], pick: int) -> Any:
    if not isinstance(generated, dict) or "snapshot" not in generated or dice >= 8:
        return generated  # keep what was generated: garbage snapshots must be refused cleanly too
    snapshot, moves = entry
    body = dict(generated, snapshot=snapshot)
    if "move" in body and moves and dice < 5:
        body["move"] = moves[pick % len(moves)]
    if "level" in body and moves and dice < 6:  # a suggestion: mostly for the seat to act, at a small budget
        body["seat"] = moves[0]["seat"]
        if isinstance(body.get("budget"), int) and body["budget"] > 40:
            body["budget"] = 1 + body["budget"] % 40
    return body


def _session_body(generated: Any, dice: int, entry: tuple[str, list[Any]], pick: int) -> Any:
    """A session's creation: from a real snapshot, or a new game the rules can play, or as generated."""
    if dice < 3:
        return {"snapshot": entry[0]}
    if dice < 6:
        return {"players": 2 + pick % 5, "seed": pick, "known_deal": True,
                **({"preset": "american"} if pick % 3 == 0 else {})}
    return _with_real_snapshot(generated, dice, entry, pick)


RECORD_BODIES = record_bodies()


def _record_body(generated: Any, dice: int, entry: tuple[str, list[Any]], pick: int) -> Any:
    """A record to verify: real (valid, or corrupted at a move or a derived field) most of the time."""
    return RECORD_BODIES[pick % len(RECORD_BODIES)] if dice < 7 else generated


@schema.hook
def before_generate_body(context: Any, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    path = context.operation.path
    build = {"/v1/sessions": _session_body, "/v1/records/verify": _record_body}.get(path, _with_real_snapshot)
    return st.builds(build, strategy, st.integers(0, 9), st.sampled_from(POOL), st.integers(0, 1000))


#: Accept-Language values for the cases: every supported language, ranges, wildcards and unsupported ones.
ACCEPT_LANGUAGES = ("en", "fil", "su", "sq", "th", "hr", "hr-HR, en;q=0.5", "tl-PH", "sq;q=0, th;q=0.2, *;q=0.1",
                    "de-DE, fr;q=0.9", "*", "en;q=0, *", "x-garbage;q=2, ;;")


def _with_real_session(case: schemathesis.Case, dice: int, pick: int, token_pick: int,
                       language: str) -> schemathesis.Case:
    """Most of the time: a real session id and token (see the module docstring); always an Accept-Language."""
    case.headers = {**(case.headers or {}), "Accept-Language": language}
    path = case.operation.path
    if "{session_id}" not in path or not SESSIONS or not CLIENTS or dice >= 8:
        return case  # keep what was generated: unknown ids and garbage tokens must be refused cleanly too
    client = CLIENTS[0]
    method = case.operation.method.upper()
    if method == "DELETE":
        session = _create(client, {"players": 2 + pick % 5})  # its own session: the pool survives deletes
    elif path == EVENTS_PATH:
        finished = [s for s in SESSIONS if s.finished]  # a real id only of a game whose stream ends
        session = finished[pick % len(finished)]
    else:
        session = SESSIONS[pick % len(SESSIONS)]
    tokens = [session.host, *session.seats]
    token = tokens[token_pick % len(tokens)]
    if token_pick % 7 == 6:
        token = SESSIONS[(pick + 1) % len(SESSIONS)].host  # a token of another session: 401
    headers = dict(case.headers or {})
    if path.endswith("/moves") and dice < 5 and not session.finished:
        current = client.get(f"/v1/sessions/{session.id}", headers=bearer(session.host))
        to_act = current.json()["view"]["to_act"] if current.status_code == 200 else None
        if to_act is not None:  # the legal move of the seat to act, with its token: the move applies
            token = session.seats[to_act]
            legal = client.get(f"/v1/sessions/{session.id}/legal-moves", headers=bearer(token)).json()
            case.body = {"move": legal["legal_moves"][pick % len(legal["legal_moves"])]}
            headers.pop("If-Match", None)
            if dice < 2:  # the current version (applies) or the one before (409)
                version = int(current.headers["etag"].strip('"')) - (pick % 2)
                headers["If-Match"] = f'"{version}"'
            if dice == 2:  # a key from a small set: replays of the first answer, or reused for another move
                headers["Idempotency-Key"] = f"contract-{pick % 3}"
    headers["Authorization"] = f"Bearer {token}"
    case.headers = headers
    case.path_parameters = dict(case.path_parameters or {}, session_id=session.id)
    return case


@schema.hook
def before_generate_case(context: Any, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.builds(_with_real_session, strategy, st.integers(0, 9), st.integers(0, 10_000),
                     st.integers(0, 10_000), st.sampled_from(ACCEPT_LANGUAGES))


@schema.parametrize()
@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_contract(case: schemathesis.Case, client: Client) -> None:
    try:
        response = case.call(session=client)
    except requests.exceptions.InvalidHeader:
        # The coverage phase's boundary values include header values no HTTP client sends (only whitespace,
        # leading whitespace: HTTP trims it); they never reach the service.
        return
    assert not GUARD.cut, f"event streams had to be cut after {STREAM_LIMIT_SECONDS} s: {GUARD.cut}"
    if case.operation.path == EVENTS_PATH:
        # The contract describes the stream's body as one string; Schemathesis 4 reads the ``schema`` of a
        # ``text/event-stream`` as each event's (Open API 3.2's ``itemSchema``), so the body is checked here.
        case.validate_response(response, checks=[c for c in CHECKS if c is not response_schema_conformance])
        if response.status_code == 200:
            assert_event_stream(response.text)
    else:
        case.validate_response(response, checks=list(CHECKS))


def assert_event_stream(body: str) -> None:
    """A well-formed event stream: blocks of ``field: value`` lines (or ``:`` comments), every ``data`` a JSON
    object with the session's version."""
    for block in filter(None, body.split("\n\n")):
        for line in block.splitlines():
            field, sep, value = line.partition(": ")
            assert sep or line.startswith(":"), f"not an event stream line: {line!r}"
            assert field in ("id", "data", "retry", "event", ""), f"unknown event stream field: {line!r}"
            if field == "data":
                frame = msgspec.json.decode(value)
                assert isinstance(frame, dict) and isinstance(frame.get("version"), int), frame


# ------------------------------------------------------------------------------------- negative data

#: The same contract, negative data only, and without the hooks above (which swap real snapshots, sessions and
#: moves into cases, and so could turn a case that violates the schema into a valid one).
negative_schema = schemathesis.openapi.from_path(CONTRACT, config=_config(GenerationMode.NEGATIVE))


def refused_as_problem(response: schemathesis.Response) -> None:
    """A refusal is an RFC 9457 problem: every 4xx answer to bad input is ``application/problem+json``."""
    if 400 <= response.status_code < 500:
        content_type = response.headers.get("content-type", [""])[0]
        assert content_type.startswith("application/problem+json"), (response.status_code, response.headers)


@negative_schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_contract_refuses_negative_data(case: schemathesis.Case, client: Client) -> None:
    """Bad input must be refused: a request that violates the schema is answered 4xx (never 2xx or 3xx), as an
    RFC 9457 problem. Schemathesis's ``negative_data_rejection`` leaves out cases whose violation does not
    survive serialisation, and those whose only violation is an extra query parameter or header (ignored, as
    HTTP expects)."""
    # Credentials are not what is tested here (this app has no API keys): drop generated ones.
    for name in [h for h in case.headers or {} if h.lower() in ("x-api-key", "authorization")]:
        del case.headers[name]
    case.query = {k: v for k, v in (case.query or {}).items() if k not in ("api_key", "access_token")}
    try:
        response = case.call(session=client)
    except requests.exceptions.InvalidHeader:
        return  # a header value no HTTP client sends (see test_contract)
    case.validate_response(response, checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                             negative_data_rejection])
    refused_as_problem(response)
