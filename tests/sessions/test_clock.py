"""Turn clocks (service/sessions/clock.py, sweeper.py): deadlines in every view, answer and frame; the clock's
move for a seat that does not move, made once; a late move's ``MOVE_TIMED_OUT``; the reserve; the pause at game
over; the bounds. Over the in-process store and a real Redis (and, for the clock's move, a Redis Cluster),
with short limits (a few tenths of a second) instead of sleeps.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine import GameState, legal_moves, new_game, resolve_options
from service.app import create_app
from service.config import Settings
from service.sessions.bots import BOT_MARK
from service.sessions.clock import (
    ClockOptions,
    ClockSettings,
    after_move,
    check_not_timed_out,
    clock_move,
    deadline_text,
    new_clock,
    timed_out_move,
)
from service.sessions.memory import MemoryStore
from service.sessions.redis_store import RedisStore
from service.sessions.store import Committed, SessionRecord, SessionStore, new_tag
from service.web.problems import Problem
from tests.redis_server import RedisServer
from tests.support import assert_problem, bearer

from .conftest import REDIS_FIXTURES, SNAPSHOT_KEY, serve_in_process
from .play import SHORT_GAME, Game, Mirror, SseEvent, read_stream


def fast(redis_url: str | None) -> Settings:
    """Settings with clocks as short as the tests need them."""
    return Settings(redis_url=redis_url, snapshot_keys=(SNAPSHOT_KEY,), session_idle_seconds=600,
                    clock_min_move_seconds=0.1, clock_poll_seconds=0.02, clock_claim_seconds=0.5)


#: A limit that never runs out within a test.
LONG = {"move_seconds": 600}


def _ms(text: str) -> int:
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)
    return round(moment.timestamp() * 1000)


@pytest.fixture(params=["memory", "redis"])
async def clocked(request: pytest.FixtureRequest) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    """A client of the service with fast clocks, over the in-process store or a real Redis; and the app."""
    redis: RedisServer | None = None
    if request.param != "memory":
        redis = request.getfixturevalue(REDIS_FIXTURES[request.param])
    app = create_app(fast(redis.url if redis is not None else None),
                     session_key_prefix=f"clock{random.randrange(10**9)}:", event_heartbeat_seconds=1)
    async with serve_in_process(app) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        yield client, app


async def _create(client: httpx.AsyncClient, clock: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    body = {"players": 4, "seed": 7, "known_deal": True, "first_dealer": 3, "options": SHORT_GAME, **extra}
    if clock is not None:
        body["clock"] = clock
    r = await client.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def _until_timed_out(client: httpx.AsyncClient, created: dict[str, Any], count: int = 1,
                           timeout: float = 10.0) -> list[SseEvent]:
    """The host's stream from the start until ``count`` clock moves were logged."""
    url = f"/v1/sessions/{created['session_id']}/events"
    got: list[SseEvent] = []
    async with asyncio.timeout(timeout):
        while sum(e.event == "move_timed_out" for e in got) < count:
            more, _ = await read_stream(client, url, count=1, headers={
                **bearer(created["host_token"]), **({"Last-Event-ID": got[-1].id} if got else {})})
            got += more
    return got


# ------------------------------------------------------------------------------------------ deadlines


async def test_no_clock_no_deadline(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, _ = clocked
    created = await _create(client, None)
    assert created["clock"] is None
    url = f"/v1/sessions/{created['session_id']}"
    seat = created["to_act"]
    assert (await client.get(url, headers=bearer(created["seat_tokens"][seat]))).json()["clock"] is None
    events, _ = await read_stream(client, url + "/events", count=3, headers=bearer(created["host_token"]))
    assert all(e.data.get("type") != "move_timed_out" for e in events)


async def test_deadline_in_views_answers_and_frames(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, _ = clocked
    before = int(time.time() * 1000)
    created = await _create(client, {"move_seconds": 30, "reserve_seconds": 90, "bot": "expert"})
    after = int(time.time() * 1000)
    clock = created["clock"]
    seat = created["to_act"]
    assert clock["seat"] == seat and clock["bot"] == "expert"
    assert clock["move_seconds"] == 30 and clock["reserve_seconds"] == 90 and clock["reserves"] == [90] * 4
    deadline = _ms(clock["deadline"])
    assert before + 120_000 <= deadline <= after + 120_000  # move time and the seat's whole reserve
    url = f"/v1/sessions/{created['session_id']}"
    for token in (created["host_token"], *created["seat_tokens"]):  # everyone sees the clock
        assert (await client.get(url, headers=bearer(token))).json()["clock"] == clock
    legal = (await client.get(url + "/legal-moves", headers=bearer(created["seat_tokens"][seat]))).json()
    assert legal["clock"] == clock
    move = legal["legal_moves"][0]
    r = await client.post(url + "/moves", json={"move": move}, headers=bearer(created["seat_tokens"][seat]))
    assert r.status_code == 200, r.text
    answered = r.json()["clock"]
    assert answered["seat"] == r.json()["to_act"] != seat
    assert _ms(answered["deadline"]) >= after + 120_000
    frames = await _raw_frames(client, url + "/events", created["host_token"])
    assert [(d["version"], d["to_act"]) for d in frames][::len(frames) - 1] == [(1, seat), (2, answered["seat"])]
    # every frame names the deadline of the seat to act once its version was made
    assert {(d["version"], d["deadline"]) for d in frames} == {(1, clock["deadline"]), (2, answered["deadline"])}


async def _raw_frames(client: httpx.AsyncClient, url: str, token: str,
                      through: int | None = None) -> list[dict[str, Any]]:
    """The ``data`` of every game frame logged so far, as sent (the stream sends them all, then a heartbeat);
    with ``through``, those of the versions up to it (a game the clock keeps moving may never pause)."""
    out: list[dict[str, Any]] = []
    async with asyncio.timeout(10), client.stream("GET", url, headers=bearer(token)) as r:
        async for line in r.aiter_lines():
            if line.startswith("data:") and "event" in (data := json.loads(line[5:])):  # not the end frame
                if through is not None and data["version"] > through:
                    return out
                out.append(data)
            elif line.startswith(":") and out:
                return out
    return out


# ---------------------------------------------------------------------------------------- clock moves


async def test_the_clock_moves_for_a_seat_that_does_not(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, app = clocked
    created = await _create(client, {"move_seconds": 0.3, "bot": "random"}, bots={"1": "basic", "2": "basic",
                                                                                   "3": "basic"})
    assert created["to_act"] == 0  # dealer 3: seat 0 bids first, the only human
    first_deadline = created["clock"]["deadline"]
    events = await _until_timed_out(client, created)
    marks = [e for e in events if e.event == "move_timed_out"]
    assert marks[0].data == {"type": "move_timed_out", "seat": 0, "bot": "random", "deadline": first_deadline}
    assert marks[0].id == "2-0"  # a change of its own: version 2, the clock's mark first, then its move
    log = await _raw_frames(client, f"/v1/sessions/{created['session_id']}/events", created["host_token"])
    second = [d["event"] for d in log if d["version"] == 2]
    assert second[0]["type"] == "move_timed_out" and second[1]["seat"] == 0
    assert second[1]["type"] in ("bid_made", "passed")
    # every clock move is its own version, made once: one mark per version, each for a deadline of its own
    versions = [d["version"] for d in log if d["event"]["type"] == "move_timed_out"]
    assert len(versions) == len(set(versions))
    deadlines = [d["event"]["deadline"] for d in log if d["event"]["type"] == "move_timed_out"]
    assert len(deadlines) == len(set(deadlines))
    # made after the deadline, by the named level from the seat's own view (the clock's move, deterministic)
    assert time.time() * 1000 >= _ms(first_deadline)
    sweeper = app.state.sessions.sweeper
    assert sweeper.moves_made >= 1


async def test_the_clock_reveals_nothing(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    """A clock move's events reach each reader redacted like any move's; its mark is public and the same for
    all; no reader learns another seat's cards from either."""
    client, _ = clocked
    # A game no single hand can end: seat 0 sits a partner's misère out, so its second clock move may come only
    # in the next hand.
    created = await _create(client, {"move_seconds": 0.2}, bots={"1": "random", "2": "random", "3": "random"},
                            options={"target": 100_000, "lose_at": -100_000})
    seen = await _until_timed_out(client, created, count=2)
    through = seen[-1].version
    assert through is not None
    url = f"/v1/sessions/{created['session_id']}/events"
    host = await _raw_frames(client, url, created["host_token"], through)
    seat0 = await _raw_frames(client, url, created["seat_tokens"][0], through)
    assert len(host) == len(seat0) >= len(seen)
    assert sum(h["event"]["type"] == "move_timed_out" for h in host) >= 2
    for h, s in zip(host, seat0, strict=True):
        assert (h["version"], h["event"]["type"]) == (s["version"], s["event"]["type"])
        if h["event"]["type"] == "move_timed_out":
            assert h == s and set(h["event"]) == {"type", "seat", "bot", "deadline"}
        for reader, frame in ((None, h), (0, s)):
            if frame["event"]["type"] == "cards_received" and frame["event"]["seat"] != reader:
                assert frame["event"]["cards"] is None


async def test_the_sweeper_runs_from_startup_to_shutdown() -> None:
    app = create_app(fast(None), event_heartbeat_seconds=1)
    sweeper = app.state.sessions.sweeper
    assert not sweeper.running
    async with serve_in_process(app):
        await asyncio.sleep(0.05)
        assert sweeper.running
    assert not sweeper.running


async def test_a_late_move_gets_move_timed_out(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, _ = clocked
    created = await _create(client, {"move_seconds": 0.3}, bots={"1": "basic", "2": "basic", "3": "basic"})
    url = f"/v1/sessions/{created['session_id']}"
    seat0 = bearer(created["seat_tokens"][0])
    late = (await client.get(url + "/legal-moves", headers=seat0)).json()["legal_moves"][-1]
    await _until_timed_out(client, created)
    r = await client.post(url + "/moves", json={"move": late}, headers=seat0)
    body = assert_problem(r, 409, "MOVE_TIMED_OUT")
    now = (await client.get(url, headers=seat0)).json()
    assert body["timed_out_version"] >= 2 and body["current_version"] <= now["version"]
    assert r.headers["etag"] == f'"{body["current_version"]}"'
    # With If-Match at the version before the clock's move: still MOVE_TIMED_OUT, not a mere conflict.
    r = await client.post(url + "/moves", json={"move": late}, headers={**seat0, "If-Match": '"1"'})
    assert_problem(r, 409, "MOVE_TIMED_OUT")
    # Worded in the caller's language.
    r = await client.post(url + "/moves", json={"move": late}, headers={**seat0, "Accept-Language": "hr"})
    assert "isteklo" in assert_problem(r, 409, "MOVE_TIMED_OUT")["detail"]


async def test_a_seat_that_saw_the_clock_move_moves_again(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    """After the clock's move, If-Match at (or after) it tells the service the seat knows: its move counts."""
    client, _ = clocked
    created = await _create(client, {"move_seconds": 0.5}, bots={"1": "basic", "2": "basic", "3": "basic"})
    url = f"/v1/sessions/{created['session_id']}"
    seat0 = bearer(created["seat_tokens"][0])
    await _until_timed_out(client, created)
    for _ in range(50):  # catch seat 0's next turn before its clock runs out again
        state = (await client.get(url, headers=seat0)).json()
        if state["view"]["to_act"] == 0:
            legal = (await client.get(url + "/legal-moves", headers=seat0)).json()
            if legal["version"] != state["version"] or not legal["legal_moves"]:
                continue
            r = await client.post(url + "/moves", json={"move": legal["legal_moves"][0]},
                                  headers={**seat0, "If-Match": f'"{legal["version"]}"'})
            if r.status_code == 200:
                assert r.json()["clock"]["reserves"][0] == 0
                return
            assert r.json()["code"] in ("VERSION_CONFLICT", "MOVE_TIMED_OUT")  # the clock won this one too
        await asyncio.sleep(0.02)
    pytest.fail("seat 0 never got a move in")


@pytest.mark.parametrize("kind", ["cluster"])
async def test_the_clock_moves_on_a_redis_cluster(kind: str, request: pytest.FixtureRequest) -> None:
    cluster = request.getfixturevalue(REDIS_FIXTURES[kind])
    app = create_app(fast(cluster.url), session_key_prefix=f"clock{random.randrange(10**9)}:")
    async with serve_in_process(app) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        created = await _create(client, {"move_seconds": 0.3}, bots={"1": "basic", "2": "basic", "3": "basic"})
        events = await _until_timed_out(client, created)
        assert [e.id for e in events if e.event == "move_timed_out"] == ["2-0"]


async def test_reserve_is_drawn_down_then_spent(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, _ = clocked
    created = await _create(client, {"move_seconds": 0.2, "reserve_seconds": 1.0})
    url = f"/v1/sessions/{created['session_id']}"
    seat = created["to_act"]
    token = bearer(created["seat_tokens"][seat])
    move = (await client.get(url + "/legal-moves", headers=token)).json()["legal_moves"][0]
    await asyncio.sleep(0.5)  # over the move time by ~0.3 s: drawn from the reserve, well inside the deadline
    r = await client.post(url + "/moves", json={"move": move}, headers=token)
    assert r.status_code == 200, r.text
    left = r.json()["clock"]["reserves"]
    assert 0.3 <= left[seat] <= 0.9 and [x for i, x in enumerate(left) if i != seat] == [1.0] * 3
    # The next seat does not move at all: the clock moves for it once move time and reserve ran out, and its
    # reserve is spent.
    nxt = r.json()["clock"]["seat"]
    assert _ms(r.json()["clock"]["deadline"]) - int(time.time() * 1000) > 500
    await _until_timed_out(client, created)
    clock = (await client.get(url, headers=token)).json()["clock"]
    assert clock["reserves"][nxt] == 0


async def test_the_clock_pauses_at_game_over(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, app = clocked
    created = await _create(client, LONG)
    body = {"players": 4, "seed": 7, "known_deal": True, "first_dealer": 3, "options": SHORT_GAME}
    g = Game(client, created, Mirror.from_body(body))
    rng = random.Random(3)
    last: httpx.Response | None = None
    while g.mirror.state.phase != "game_over":
        last = (await g.play(1, rng))[0]
        assert last.json()["clock"]["deadline"] is not None or last.json()["to_act"] is None
    assert last is not None
    assert last.json()["clock"]["deadline"] is None and last.json()["clock"]["seat"] is None
    assert (await client.get(g.url, headers=g.host)).json()["clock"]["deadline"] is None
    store = app.state.sessions.service.store
    assert g.id not in await _indexed(store)


async def _indexed(store: SessionStore) -> set[str]:
    if isinstance(store, MemoryStore):
        return set(store._deadlines)  # noqa: SLF001 - the index itself
    assert isinstance(store, RedisStore)
    return {m.decode() for m in await store.client.zrange(store.clock_index(), 0, -1)}


# ------------------------------------------------------------------------------------------- bounds


@pytest.mark.parametrize("clock", [
    {"move_seconds": 0}, {"move_seconds": -1}, {"move_seconds": 0.05}, {"move_seconds": 86_401},
    {"move_seconds": 5, "reserve_seconds": -1}, {"move_seconds": 5, "reserve_seconds": 86_401},
    {"move_seconds": 5, "bot": "grandmaster"}, {"reserve_seconds": 5}, {"move_seconds": 5, "colour": "red"},
    {"move_seconds": "fast"}, "fast",
])
async def test_clock_bounds(clocked: tuple[httpx.AsyncClient, Any], clock: Any) -> None:
    client, _ = clocked
    r = await client.post("/v1/sessions", json={"players": 4, "clock": clock})
    assert_problem(r, 400, "INVALID_CLOCK")


async def test_clock_bounds_at_the_edges(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, _ = clocked
    for clock in ({"move_seconds": 0.1}, {"move_seconds": 86_400, "reserve_seconds": 86_400}):
        created = await _create(client, clock)
        assert created["clock"]["move_seconds"] == clock["move_seconds"]


async def test_bounds_are_worded_in_every_language(clocked: tuple[httpx.AsyncClient, Any]) -> None:
    client, _ = clocked
    texts = set()
    for language in ("en", "fil", "su", "sq", "th", "hr"):
        r = await client.post("/v1/sessions", json={"players": 4, "clock": {"move_seconds": 0.05}},
                              headers={"Accept-Language": language})
        texts.add(assert_problem(r, 400, "INVALID_CLOCK")["detail"])
    assert len(texts) == 6


# ------------------------------------------------------------------------------------ the pure clock


def _state(players: int = 4) -> GameState:
    state, _ = new_game(resolve_options(players, None, SHORT_GAME), seed=7, first_dealer=3)
    return state


def test_reserve_arithmetic_with_a_clock_of_its_own() -> None:
    settings = ClockSettings(min_move_seconds=1)
    state = _state()
    clock = new_clock(ClockOptions(move_seconds=10, reserve_seconds=30), state, settings, 1_000_000)
    assert clock is not None and clock.seat == state.to_act == 0
    assert clock.deadline == 1_000_000 + 40_000
    moved = _after(state, 0)
    # seat 0 took 25 s: 15 s over its 10 s, drawn from its 30 s reserve
    c2 = after_move(clock, moved, 2, 1_025_000)
    assert c2 is not None and c2.reserves[0] == 15_000 and c2.seat == moved.to_act
    assert c2.deadline == 1_025_000 + 10_000 + 30_000
    # within the move time: nothing drawn
    c3 = after_move(c2, _after(moved, moved.to_act), 3, 1_030_000)
    assert c3 is not None and c3.reserves[moved.to_act or 0] == 30_000
    # a timeout spends the reserve and marks the version
    c4 = after_move(clock, moved, 2, 1_040_000, timed_out=True)
    assert c4 is not None and c4.reserves[0] == 0 and c4.timed_out[0] == 2


def _after(state: GameState, seat: int | None) -> GameState:
    from engine import apply_move

    assert seat is not None and state.to_act == seat
    return apply_move(state, legal_moves(state, seat)[0])[0]


def test_the_clock_pauses_when_nobody_is_to_act() -> None:
    state = _state()
    clock = new_clock(ClockOptions(move_seconds=10), state, ClockSettings(), 0)
    over = msgspec_replace(state, to_act=None, phase="game_over")
    paused = after_move(clock, over, 2, 5_000)
    assert paused is not None and paused.deadline is None and paused.seat is None
    assert timed_out_move(over, 2, b"\0" * 160, paused, 10**12) is None


def msgspec_replace(state: GameState, **changes: Any) -> GameState:
    import msgspec

    return msgspec.structs.replace(state, **changes)


def test_the_clock_move_is_deterministic_and_not_before_the_deadline() -> None:
    state = _state()
    auth = bytes(range(32)) * 5
    clock = new_clock(ClockOptions(move_seconds=10, bot="basic"), state, ClockSettings(), 0)
    assert clock is not None and clock.deadline == 10_000
    assert timed_out_move(state, 1, auth, clock, 9_999) is None
    a = timed_out_move(state, 1, auth, clock, 10_000)
    b = timed_out_move(state, 1, auth, clock, 10_500)
    assert a is not None and b is not None and a[0] == b[0] and a[1][1:] == b[1][1:]
    assert a[1][0].seat == 0 and a[1][0].deadline == deadline_text(10_000)  # type: ignore[union-attr]
    assert clock_move(state, 1, auth, clock) in legal_moves(state, 0)
    # a bot seat's turn is its own bot's to play, never the clock's
    botted = auth[:32] + BOT_MARK + bytes([2]) + bytes(27) + auth[64:]
    assert timed_out_move(state, 1, botted, clock, 10_000) is None


def test_move_timed_out_rule() -> None:
    state = _state()
    clock = new_clock(ClockOptions(move_seconds=10), state, ClockSettings(), 0)
    timed = after_move(clock, _after(state, 0), 2, 20_000, timed_out=True)
    with pytest.raises(Problem) as refused:
        check_not_timed_out(timed, 5, 0, None)
    assert refused.value.code == "MOVE_TIMED_OUT" and refused.value.extra["timed_out_version"] == 2
    with pytest.raises(Problem):
        check_not_timed_out(timed, 5, 0, {1})
    check_not_timed_out(timed, 5, 0, {2})  # If-Match at the clock's move: the seat has seen it
    check_not_timed_out(timed, 5, 1, None)  # another seat
    check_not_timed_out(None, 5, 0, None)  # no clock


# ------------------------------------------------------------------------------------ the index


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[SessionStore]:
    if request.param == "memory":
        yield MemoryStore(600)
        return
    redis: RedisServer = request.getfixturevalue("redis_server")
    s = RedisStore(redis.url, 600, prefix=f"idx{random.randrange(10**9)}:")
    await s.open()
    try:
        yield s
    finally:
        await s.close()


async def test_the_index_follows_every_change_and_claims_keep_replicas_apart(store: SessionStore) -> None:
    state = _state()
    clock = new_clock(ClockOptions(move_seconds=10), state, ClockSettings(), 1_000)
    record = SessionRecord(1, state, b"\0" * 160, new_tag(), clock=clock)
    sid = "s" * 22
    assert await store.create(sid, record, [])
    assert (await store.load(sid)).record.clock == clock  # type: ignore[union-attr]
    assert await store.claim_due(10_999, 20_000, 10) == ([], 11_000)
    due, _ = await store.claim_due(11_000, 13_000, 10)
    assert due == [(sid, 13_000)]
    assert (await store.claim_due(12_000, 14_000, 10))[0] == []  # claimed: the others pass it over
    # a change moves the entry to its new deadline; the stale claim then settles nothing
    moved = _after(state, 0)
    after = after_move(clock, moved, 2, 12_000)
    assert after is not None
    outcome = await store.commit(sid, record, moved, [], clock=after)
    assert isinstance(outcome, Committed)
    await store.settle_clock(sid, 13_000, None)
    assert (await store.claim_due(12_500, 20_000, 10)) == ([], after.deadline)
    loaded = await store.load(sid)
    assert loaded is not None and loaded.record.clock == after
    # a change that gives no clock (a change of the table) leaves it as it was, deadline and entry too
    table_change = await store.commit(sid, loaded.record, moved, [], table=b"t")
    assert isinstance(table_change, Committed)
    kept = await store.load(sid)
    assert kept is not None and kept.record.clock == after and kept.record.table == b"t"
    # a claim that holds settles: to the record's deadline, or out of the index
    due, _ = await store.claim_due(after.deadline or 0, 30_000, 10)
    assert due == [(sid, 30_000)]
    await store.settle_clock(sid, 30_000, None)
    assert await store.claim_due(10**12, 10**12 + 1, 10) == ([], None)


# ------------------------------------------------------------------------------------------- settings


def test_clock_settings_from_the_environment() -> None:
    from service.config import ConfigError, load_settings

    served = load_settings({})
    assert (served.clock_min_move_seconds, served.clock_poll_seconds, served.clock_claim_seconds) == (1.0, 0.1, 2.0)
    fast = load_settings({"CLOCK_MIN_MOVE_SECONDS": "0.2", "CLOCK_POLL_SECONDS": "0.05", "CLOCK_CLAIM_SECONDS": "1"})
    assert (fast.clock_min_move_seconds, fast.clock_poll_seconds, fast.clock_claim_seconds) == (0.2, 0.05, 1.0)
    for env in ({"CLOCK_MIN_MOVE_SECONDS": "0"}, {"CLOCK_POLL_SECONDS": "60"}, {"CLOCK_CLAIM_SECONDS": "soon"}):
        with pytest.raises(ConfigError, match=next(iter(env))):
            load_settings(env)
