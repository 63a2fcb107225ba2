"""The fast lane (service/ops/fastlane.py) answers its requests exactly as the middleware stack below it does:
each request is sent to an app with the lane and to the same app with the lane taken off, and the answers are
compared header by header (``Date`` aside); the lane's own bookkeeping (metrics, access line, request ids, the
in-flight count) is checked on its own."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine import GameState, Options, apply_move, legal_moves, new_game
from service.app import create_app
from service.config import Settings
from service.ops.fastlane import FastLane
from service.referee.snapshots import Sealer
from tests.support import KEY

APPLY = "/v1/games/apply"


def _app(**settings: Any) -> Litestar:
    return create_app(Settings(**{"snapshot_keys": (KEY,), "log_level": "WARNING", **settings}))


def _without_lane(app: Litestar) -> Litestar:
    assert isinstance(app.asgi_handler, FastLane)
    app.asgi_handler = app.asgi_handler.app
    return app


class _Counting:
    """Counts the requests the lane hands on to the stack."""

    def __init__(self, lane: FastLane) -> None:
        self.inner = lane.app
        self.calls = 0
        lane.app = self

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        await self.inner(scope, receive, send)


def _state(seed: int = 1, plies: int = 20) -> GameState:
    state, _ = new_game(Options(), seed=seed)
    for _ in range(plies):
        state, _ = apply_move(state, legal_moves(state)[0])
    return state


def _body(state: GameState, **extra: Any) -> dict[str, Any]:
    return {"snapshot": Sealer([KEY]).seal(state), "move": msgspec.to_builtins(legal_moves(state)[0]), **extra}


@pytest.fixture(scope="module")
def clients() -> Iterator[tuple[TestClient, TestClient, _Counting]]:  # type: ignore[type-arg]
    lane_app = _app()
    counting = _Counting(lane_app.asgi_handler)  # type: ignore[arg-type]
    with TestClient(lane_app) as lane, TestClient(_without_lane(_app())) as stack:
        for client in (lane, stack):
            client.headers.pop("accept-encoding")  # httpx offers gzip by default
        yield lane, stack, counting


def _comparable(response: Any) -> tuple[int, list[tuple[str, str]], Any]:
    body = response.content
    if response.headers.get("content-type") == "application/json":
        decoded = json.loads(body)
        if "snapshot" in decoded:  # nonces differ between two seals: compare the states
            decoded["snapshot"] = msgspec.to_builtins(Sealer([KEY]).open(decoded["snapshot"]))
        body = decoded
    headers = []
    for name, value in response.headers.items():
        if name == "x-request-id" and re.fullmatch("[0-9a-f]{32}", value):
            value = "(generated)"
        if name == "content-length" and "content-encoding" in response.headers:
            value = "(compressed: the body, decoded, is compared)"
        if name != "date":
            headers.append((name, value))
    return response.status_code, headers, body


STATE = _state()
CASES: list[tuple[str, dict[str, Any], dict[str, str], bool]] = [
    # (name, body, headers, taken by the lane)
    ("plain", _body(STATE), {}, True),
    ("views, language, request id", _body(STATE, views=[0, 1, None]),
     {"accept-language": "de", "x-request-id": "trace-1"}, True),
    ("languages", {**_body(STATE), "move": {"type": "play", "seat": 0, "card": "2S"}},
     {"accept-language": "fr-CA;q=0.9, es;q=0.8, en;q=0.1"}, True),
    ("no language of ours", _body(STATE), {"accept-language": "xx, *;q=0.1"}, True),
    ("compressed (br)", _body(STATE, views=[0, 1, 2, 3, None]), {"accept-encoding": "gzip, br"}, True),
    ("compressed (gzip)", _body(STATE, views=[0, 1, 2, 3, None]), {"accept-encoding": "gzip"}, True),
    ("identity", _body(STATE, views=[0, None]), {"accept-encoding": "identity"}, True),
    ("too small to compress", _body(STATE), {"accept-encoding": "br"}, True),
    ("illegal move", {**_body(STATE), "move": msgspec.to_builtins(legal_moves(STATE)[-1]) | {"seat": 3}},
     {"x-request-id": "trace-2"}, True),
    ("malformed move", {**_body(STATE), "move": {"type": "play", "seat": 0, "card": "2S"}}, {}, True),
    ("tampered snapshot", {**_body(STATE), "snapshot": "A" * 300}, {}, True),
    ("unknown field", {**_body(STATE), "colour": "red"}, {}, True),
    ("query string", _body(STATE), {"query": "lang=fr"}, False),
    ("not JSON", _body(STATE), {"content-type": "text/plain"}, False),
    ("odd host", _body(STATE), {"host": "a!b"}, False),
]


@pytest.mark.parametrize(("name", "body", "headers", "taken"), CASES, ids=[c[0] for c in CASES])
def test_the_lane_answers_as_the_stack(clients: tuple[TestClient, TestClient, _Counting],  # type: ignore[type-arg]
                                       name: str, body: dict[str, Any], headers: dict[str, str],
                                       taken: bool) -> None:
    lane, stack, counting = clients
    headers = dict(headers)
    query = headers.pop("query", "")
    path = APPLY + ("?" + query if query else "")
    content = json.dumps(body).encode()
    before = counting.calls
    got = lane.post(path, content=content, headers={"content-type": "application/json", **headers})
    expected = stack.post(path, content=content, headers={"content-type": "application/json", **headers})
    assert _comparable(got) == _comparable(expected)
    answered_by_lane = got.status_code == 200 and counting.calls == before
    assert answered_by_lane == (taken and got.status_code == 200)
    if got.status_code != 200:  # refusals are rendered by the stack, once
        assert counting.calls == before + 1
    if "x-request-id" in headers:
        assert got.headers["x-request-id"] == headers["x-request-id"]


def test_a_refusal_keeps_the_request_id_the_lane_gave(  # type: ignore[type-arg]
        clients: tuple[TestClient, TestClient, _Counting]) -> None:
    lane, _, _ = clients
    seen: list[str | None] = []
    state = lane.app.state  # type: ignore[attr-defined]
    original = state.sealer.acting_on

    def spying(snapshot: str) -> Any:
        from service.ops.logging import get_request_id

        seen.append(get_request_id())
        return original(snapshot)

    state.sealer.acting_on = spying
    try:
        response = lane.post(APPLY, json={**_body(STATE), "snapshot": "A" * 300})
    finally:
        del state.sealer.acting_on
    assert response.status_code >= 400
    assert seen == [response.headers["x-request-id"]]
    assert len(seen[0] or "") == 32


def test_metrics_count_the_lane_requests_once() -> None:
    app = _app()
    metrics = app.state.metrics
    with TestClient(app) as client:
        client.headers.pop("accept-encoding")
        assert client.post(APPLY, json=_body(STATE)).status_code == 200
        assert client.post(APPLY, json={**_body(STATE), "snapshot": "A" * 300}).status_code >= 400
        text = client.get("/metrics").text
    assert 'http_requests_total{method="POST",route="/v1/games/apply",status="200"} 1.0' in text
    refused = [line for line in text.splitlines()
               if line.startswith('http_requests_total{method="POST",route="/v1/games/apply",status="4')]
    assert [line.rsplit(" ", 1)[1] for line in refused] == ["1.0"]
    assert metrics.moves_applied_total._value.get() == 1


def test_the_access_line_is_the_stacks(capsys: pytest.CaptureFixture[str],
                                       restore_logging: None) -> None:
    lines = []
    for app in (_app(log_level="INFO"), _without_lane(_app(log_level="INFO"))):
        capsys.readouterr()
        with TestClient(app) as client:
            client.headers.pop("accept-encoding")
            client.post(APPLY, json=_body(STATE), headers={"x-request-id": "trace-3"})
        entries = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
        access = [e for e in entries if e["logger"] == "fivehundred.access"]
        assert len(access) == 1
        lines.append({k: v for k, v in access[0].items() if k not in ("timestamp", "duration_ms")})
    assert lines[0] == lines[1]
    assert lines[0]["request_id"] == "trace-3" and lines[0]["status"] == 200


def test_in_flight_while_answering() -> None:
    app = _app()
    shutdown = app.state.shutdown
    counts: list[int] = []
    original = app.state.sealer.seal

    def seal(*args: Any, **kwargs: Any) -> Any:
        counts.append(shutdown.in_flight)
        return original(*args, **kwargs)

    app.state.sealer.seal = seal
    with TestClient(app) as client:
        client.headers.pop("accept-encoding")
        assert client.post(APPLY, json=_body(STATE)).status_code == 200
    assert counts == [1]
    assert shutdown.in_flight == 0


def _asgi_answer(app: Litestar, chunks: list[bytes], length: int) -> list[dict[str, Any]]:
    """What ``app`` sends for a ``POST`` of ``chunks`` announced as ``length`` bytes (straight over ASGI, which
    lets a body be longer than announced)."""
    sent: list[dict[str, Any]] = []
    left = list(chunks)

    async def receive() -> dict[str, Any]:
        chunk = left.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(left)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": APPLY, "raw_path": APPLY.encode(), "root_path": "", "query_string": b"",
             "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                         (b"content-length", str(length).encode()), (b"x-request-id", b"trace-4")],
             "client": ("127.0.0.1", 5000), "server": ("testserver", 80), "state": {}}
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    return sent


def test_a_body_longer_than_announced_goes_to_the_stack() -> None:
    body = json.dumps(_body(STATE)).encode()
    chunks = [body[:100], body[100:] + b" " * 5000, b" "]
    got = _asgi_answer(_app(max_body_bytes=4096), chunks, len(body))
    expected = _asgi_answer(_without_lane(_app(max_body_bytes=4096)), chunks, len(body))
    assert got == expected
    assert got[0]["status"] == 413


@pytest.mark.parametrize("settings", [{"rate_limit_per_minute": 60}, {"api_keys": ("k" * 32,)}])
def test_no_lane_when_middleware_could_answer(settings: dict[str, Any]) -> None:
    assert not isinstance(_app(**settings).asgi_handler, FastLane)


def test_the_lane_serves_apply_and_session_moves() -> None:
    lane = _app().asgi_handler
    assert isinstance(lane, FastLane)
    assert set(lane.routes.fixed) == {APPLY}
    assert [route.template for route in lane.routes.parametrized] == ["/v1/sessions/{session_id}/moves"]
    found = lane.routes.find("/v1/sessions/abc/moves")
    assert found is not None and found[1] == {"session_id": "abc"}
    for path in ("/v1/sessions/abc/moves/", "/v1/sessions//moves", "/v1/sessions/a/b/moves", "/v1/sessions/abc",
                 "/v1/sessions/apply/moves", "/v1/games/apply/"):  # (apply: a fixed segment there elsewhere)
        assert lane.routes.find(path) is None, path


def _session_answer(client: TestClient, session: dict[str, Any], body: dict[str, Any],  # type: ignore[type-arg]
                    token: str | None, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], Any]:
    hdrs = {"content-type": "application/json", **headers}
    if token is not None:
        hdrs["authorization"] = f"Bearer {token}"
    response = client.post(f"/v1/sessions/{session['session_id']}/moves", content=json.dumps(body), headers=hdrs)
    status, kept, decoded = _comparable(response)
    if response.headers.get("content-type") == "application/problem+json":
        decoded = json.loads(decoded)
    if isinstance(decoded, dict) and "instance" in decoded:
        decoded["instance"] = decoded["instance"].replace(session["session_id"], "{session_id}")
    return status, kept, decoded


def test_session_moves_on_the_lane_answer_as_the_stack() -> None:
    lane_app = _app()
    counting = _Counting(lane_app.asgi_handler)  # type: ignore[arg-type]
    with TestClient(lane_app) as lane, TestClient(_without_lane(_app())) as stack:
        clients = (lane, stack)
        for client in clients:
            client.headers.pop("accept-encoding")
        sessions = [c.post("/v1/sessions", json={"players": 4, "seed": 7, "known_deal": True,
                                                 "first_dealer": 1}).json() for c in clients]
        state, _ = new_game(Options(), seed=7, first_dealer=1)
        version = sessions[0]["version"]
        lane_answers = 0
        for step in range(12):
            seat = state.to_act
            assert seat is not None
            move = msgspec.to_builtins(legal_moves(state)[0])
            other = (seat + 1) % 4
            cases: list[tuple[dict[str, Any], int | None, dict[str, str]]] = [
                ({"move": move}, None, {}),  # 401: no token
                ({"move": move}, other, {}),  # 403: not this seat's turn
                ({"move": move}, seat, {"if-match": f'"{version + 5}"'}),  # 409: stale
                ({"move": {"type": "play", "seat": seat, "card": "2S"}}, seat, {}),  # 400: malformed
                ({"move": move}, seat, {"if-match": f'"{version}"', "idempotency-key": f"k{step}",
                                        "accept-encoding": "br"}),  # 200
                ({"move": move}, seat, {"if-match": f'"{version}"', "idempotency-key": f"k{step}"}),  # replayed
            ]
            for body, token_seat, headers in cases:
                before = counting.calls
                answers = [_session_answer(c, s, body, None if token_seat is None else s["seat_tokens"][token_seat],
                                           headers) for c, s in zip(clients, sessions, strict=True)]
                assert answers[0] == answers[1], (step, body, headers)
                if answers[0][0] == 200:
                    assert counting.calls == before
                    lane_answers += 1
            state, _ = apply_move(state, legal_moves(state)[0])
            version += 1
    assert lane_answers == 24
