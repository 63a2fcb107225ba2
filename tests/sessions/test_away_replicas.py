"""A seat away and back across real processes: three uvicorn replicas on one real ``redis-server`` started by the
test, every replica's sweeper racing for the clock's moves, requests spread over the replicas. Against the
session's whole log: the seat goes away exactly once per run of the clock's moves (``away_after`` in a row), and
comes back exactly once however many requests of its token reach however many replicas at the same moment."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from tests.redis_server import RedisServer
from tests.support import bearer

from .clock_replicas import replicas
from .conftest import ServiceProcess
from .life_support import of_type, url_of, whole_log

pytestmark = pytest.mark.slow

MOVE_SECONDS = 0.6
GAME = {"players": 4, "first_dealer": 3, "bots": {"1": "random", "3": "random"},
        "options": {"target": 500, "misere_enabled": False},
        "clock": {"move_seconds": MOVE_SECONDS, "bot": "random", "away_after": 2}}


@pytest.fixture(scope="module")
def three() -> Iterator[list[ServiceProcess]]:
    redis = RedisServer()
    redis.start()
    try:
        with replicas(redis, prefix="away:") as procs:
            yield procs
    finally:
        redis.stop()


@pytest.fixture
async def clients(three: list[ServiceProcess]) -> AsyncIterator[list[httpx.AsyncClient]]:
    out = [httpx.AsyncClient(base_url=p.url, timeout=10) for p in three]
    try:
        yield out
    finally:
        for c in out:
            await c.aclose()


async def _seat_2_moves(clients: list[httpx.AsyncClient], created: dict[str, Any], until: Any) -> None:
    """Seat 2 plays (each move through the next replica) until ``until(log)``."""
    url, me = url_of(created), bearer(created["seat_tokens"][2])
    i = 0
    async with asyncio.timeout(60):
        while not until(await whole_log(clients[i % 3], created)):
            i += 1
            client = clients[i % 3]
            legal = (await client.get(url + "/legal-moves", headers=me)).json()["legal_moves"]
            if not legal:
                await asyncio.sleep(0.02)
                continue
            move = next((m for m in legal if m["type"] == "pass"), legal[0])
            r = await client.post(url + "/moves", json={"move": move}, headers=me)
            assert r.status_code in (200, 409, 422), r.text


def _of_seat_0(log: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The events of ``kind`` about seat 0 (seat 2, played by the test, may be slow to answer now and then)."""
    return [e for e in of_type(log, kind) if e["event"]["seat"] == 0]


def _away_after_two_in_a_row(log: list[dict[str, Any]]) -> None:
    """Each ``seat_away`` is logged with the clock's second move in a row for seat 0 since it was last back (or
    since the start), and only then."""
    in_a_row = 0
    for e in log:
        kind = e["event"]["type"]
        if kind == "move_timed_out" and e["event"]["seat"] == 0:
            in_a_row += 1
        elif kind == "seat_back" and e["event"]["seat"] == 0:
            in_a_row = 0
        elif kind == "seat_away" and e["event"]["seat"] == 0:
            assert in_a_row == 2, (e, in_a_row)
            in_a_row = 0
            marks = [x for x in log if x["version"] == e["version"]]
            assert marks[0]["event"]["type"] == "move_timed_out" and marks[-1] is e


async def test_away_and_back_once_across_three_replicas(clients: list[httpx.AsyncClient]) -> None:
    r = await clients[0].post("/v1/sessions", json=GAME)
    assert r.status_code == 201, r.text
    created = r.json()
    url, seat0 = url_of(created), bearer(created["seat_tokens"][0])
    await _seat_2_moves(clients, created, lambda log: _of_seat_0(log, "seat_away"))
    # Away: seat 0's later turns are the bot's at once, whichever replica seat 2's move reaches.
    away_at = _of_seat_0(await whole_log(clients[1], created), "seat_away")[0]["version"]
    await _seat_2_moves(clients, created, lambda log: log[-1]["version"] > away_at + 12)
    log = await whole_log(clients[2], created)
    assert len(_of_seat_0(log, "seat_away")) == 1 and len(_of_seat_0(log, "move_timed_out")) == 2
    # Back: views, legal moves and a catch-up of seat 0's token through all three replicas at once.
    requests = [c.get(url + path, headers=seat0) for c in clients for path in ("", "/legal-moves", "/events/catch-up")]
    answers = await asyncio.gather(*requests)
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers if a.status_code != 200]
    log = await whole_log(clients[0], created)
    assert len(_of_seat_0(log, "seat_back")) == 1
    # Away again after two more of the clock's moves in a row, once; back again once.
    await _seat_2_moves(clients, created, lambda log: len(_of_seat_0(log, "seat_away")) >= 2)
    answers = await asyncio.gather(*(c.get(url, headers=seat0) for c in clients for _ in range(3)))
    assert all(a.status_code == 200 for a in answers)
    log = await whole_log(clients[1], created)
    assert len(_of_seat_0(log, "seat_away")) == 2 and len(_of_seat_0(log, "seat_back")) == 2
    assert len(_of_seat_0(log, "move_timed_out")) == 4
    _away_after_two_in_a_row(log)
    # The log replays to exactly the session's state: no move missing, none twice.
    r = await clients[2].get(url + "/record", headers=bearer(created["host_token"]))
    assert r.status_code == 200, r.text
