"""Helpers for turn clocks across real processes: three uvicorn replicas on one real ``redis-server``, a session
whose human seat never moves, and its whole event log as sent (tests/sessions/test_clock_replicas.py and
tests/bench/bench_clock.py)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from tests.redis_server import RedisServer
from tests.support import bearer

from .conftest import ServiceProcess, service_env

#: The replicas' clock settings: short limits, a quick sweeper, claims that outlive a dead replica briefly.
CLOCK_ENV = {"CLOCK_MIN_MOVE_SECONDS": "0.1", "CLOCK_POLL_SECONDS": "0.02", "CLOCK_CLAIM_SECONDS": "0.5"}
#: Three seats of random bots and one human seat (0) that never moves, in a game of one hand or so. The bot
#: seats' secrets are random, so the hand differs from run to run; without misère the human seat plays every
#: trick of it (a partner's misère would sit it out after its calls, leaving the clock two turns to make).
ABSENT_PLAYER = {"players": 4, "first_dealer": 3, "options": {"target": 10, "lose_at": -10, "misere_enabled": False},
                 "bots": {"1": "random", "2": "random", "3": "random"}}


@contextlib.contextmanager
def replicas(redis: RedisServer, count: int = 3, prefix: str = "clock:",
             env: dict[str, str] | None = None) -> Iterator[list[ServiceProcess]]:
    procs = [ServiceProcess({**service_env(redis, prefix), **CLOCK_ENV, **(env or {})}) for _ in range(count)]
    try:
        for p in procs:
            p.launch()
        for p in procs:
            p.wait_ready()
        yield procs
    finally:
        for p in procs:
            p.stop()


@contextlib.asynccontextmanager
async def live_clients(procs: list[ServiceProcess]) -> AsyncIterator[list[httpx.AsyncClient]]:
    """A client of each replica still running (a test may have killed one)."""
    live = [p for p in procs if p.process is not None and p.process.poll() is None]
    out = [httpx.AsyncClient(base_url=p.url, timeout=10) for p in live]
    try:
        yield out
    finally:
        for c in out:
            await c.aclose()


async def create(client: httpx.AsyncClient, move_seconds: float, seed: int = 1) -> dict[str, Any]:
    r = await client.post("/v1/sessions", json={**ABSENT_PLAYER, "seed": seed, "known_deal": True,
                                                "clock": {"move_seconds": move_seconds, "bot": "random"}})
    assert r.status_code == 201, r.text
    return dict(r.json())


async def whole_log(client: httpx.AsyncClient, created: dict[str, Any], timeout: float = 10, *,
                    so_far: bool = False) -> list[dict[str, Any]]:
    """Every game frame's ``data`` of a finished session, from the start to the stream's ``end``; with
    ``so_far``, of a live one, up to the first heartbeat (the stream sends everything logged, then waits)."""
    out: list[dict[str, Any]] = []
    url = f"/v1/sessions/{created['session_id']}/events"
    async with asyncio.timeout(timeout), client.stream("GET", url, headers=bearer(created["host_token"])) as r:
        assert r.status_code == 200
        async for line in r.aiter_lines():
            if line.startswith("data:"):
                data = json.loads(line[5:])
                if "event" not in data:  # the end frame
                    return out
                out.append(data)
            elif so_far and line.startswith(":") and out:
                return out
    return out


async def wait_for(clients: list[httpx.AsyncClient], created: dict[str, Any], done: Any,
                   timeout: float = 30) -> dict[str, Any]:
    """Poll the session (through each client in turn; a store outage's 503 is waited out) until ``done(body)``."""
    url = f"/v1/sessions/{created['session_id']}"
    i = 0
    async with asyncio.timeout(timeout):
        while True:
            i += 1
            with contextlib.suppress(httpx.TransportError):
                r = await clients[i % len(clients)].get(url, headers=bearer(created["host_token"]))
                if r.status_code == 200 and done(r.json()):
                    return dict(r.json())
            await asyncio.sleep(0.05)


@dataclass
class ClockMoves:
    """The clock's moves in a log: each mark's version and deadline, and the versions after which the human
    seat (0) was to act."""

    marks: list[tuple[int, str]]
    turns: list[int]
    deadlines: dict[int, str | None]


def clock_moves(log: list[dict[str, Any]]) -> ClockMoves:
    marks = [(d["version"], d["event"]["deadline"]) for d in log if d["event"]["type"] == "move_timed_out"]
    to_act = {d["version"]: d["to_act"] for d in log}
    deadlines = {d["version"]: d.get("deadline") for d in log}
    return ClockMoves(marks, sorted(v for v, seat in to_act.items() if seat == 0), deadlines)


def check_each_turn_timed_out_once(log: list[dict[str, Any]], move_seconds: float) -> ClockMoves:
    """The human seat never moved: every one of its turns ended in exactly one clock move, made for that turn's
    deadline, right after it (nothing in between), and after that deadline."""
    moves = clock_moves(log)
    assert moves.marks, "the clock never moved"
    assert [v for v, _ in moves.marks] == [v + 1 for v in moves.turns]  # each turn once, none twice, none left
    assert len({d for _, d in moves.marks}) == len(moves.marks)
    for version, deadline in moves.marks:
        assert moves.deadlines[version - 1] == deadline  # the very deadline of the turn it ended
        made = deadline_ms(moves.deadlines[version]) - round(move_seconds * 1000) if moves.deadlines[version] else None
        assert made is None or made >= deadline_ms(deadline)  # not before its deadline
        marks_at = [d for d in log if d["version"] == version]
        assert marks_at[0]["event"]["type"] == "move_timed_out" and marks_at[1]["event"]["seat"] == 0
    return moves


def deadline_ms(text: str | None) -> int:
    """An RFC 3339 UTC deadline in milliseconds since the epoch."""
    assert text is not None
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)
    return round(moment.timestamp() * 1000)


def made_late_ms(log: list[dict[str, Any]], move_seconds: float) -> list[int]:
    """How late each clock move was made: when its replica committed it (the next turn's deadline less the move
    time, since the next turn starts at the commit) less the deadline it ended."""
    moves = clock_moves(log)
    return [deadline_ms(moves.deadlines[v]) - round(move_seconds * 1000) - deadline_ms(d) for v, d in moves.marks
            if moves.deadlines.get(v)]
