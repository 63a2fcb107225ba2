"""Races: many clients moving at the same version; exactly one wins per version, nothing is applied twice.

Memory store: the in-process app served by uvicorn. Redis store: two uvicorn *processes* sharing one Redis (or
one Redis Cluster), the clients split between them (so the compare-and-set is tested across replicas, not just
within one loop).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import httpx
import pytest

from engine import Move, legal_moves
from tests.support import assert_problem

from .conftest import SEALER, STORE_KINDS, ServiceProcess, running_service
from .play import Game, Mirror, move_body, read_stream

#: Several uvicorn processes and real Redis servers racing: in CI's run, not in the quick loop (-m 'not slow').
pytestmark = pytest.mark.slow

CLIENTS = 50
ROUNDS = 8


@pytest.fixture(params=STORE_KINDS)
async def urls(request: pytest.FixtureRequest) -> AsyncIterator[list[str]]:
    if request.param in ("redis", "cluster"):
        fixture = "replicas" if request.param == "redis" else "cluster_replicas"
        replicas: tuple[ServiceProcess, ServiceProcess] = request.getfixturevalue(fixture)
        yield [replicas[0].url, replicas[1].url]
        return
    async with running_service("memory", None) as svc:
        yield [svc.url]


async def test_one_winner_per_version_with_if_match(urls: list[str]) -> None:
    rng = random.Random(50)
    clients = [httpx.AsyncClient(base_url=urls[i % len(urls)], timeout=20,
                                 limits=httpx.Limits(max_connections=1)) for i in range(CLIENTS)]
    try:
        g = await Game.create(clients[0])
        accepted: list[Move] = []
        for _ in range(ROUNDS):
            version = g.mirror.version
            seat = g.mirror.state.to_act
            assert seat is not None
            choices = [rng.choice(legal_moves(g.mirror.state)) for _ in clients]
            answers = await asyncio.gather(*(
                c.post(g.url + "/moves", json=move_body(m), headers={**g.seats[seat], "If-Match": f'"{version}"'})
                for c, m in zip(clients, choices, strict=True)))
            winners = [i for i, a in enumerate(answers) if a.status_code == 200]
            assert len(winners) == 1, [a.status_code for a in answers]
            for i, a in enumerate(answers):
                if i != winners[0]:
                    body = assert_problem(a, 409, "VERSION_CONFLICT")
                    assert body["current_version"] == version + 1 and a.headers["etag"] == f'"{version + 1}"'
            win = answers[winners[0]]
            assert win.json()["version"] == version + 1 and win.headers["etag"] == f'"{version + 1}"'
            accepted.append(choices[winners[0]])
            g.mirror.apply(choices[winners[0]])
        await _assert_matches_replay(g, clients[-1], accepted)
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


async def test_without_if_match_the_same_move_many_times_applies_once(urls: list[str]) -> None:
    clients = [httpx.AsyncClient(base_url=urls[i % len(urls)], timeout=20) for i in range(20)]
    try:
        g = await Game.create(clients[0])
        seat = g.mirror.state.to_act
        assert seat is not None
        move = g.mirror.choose(random.Random(0))
        answers = await asyncio.gather(*(c.post(g.url + "/moves", json=move_body(move), headers=g.seats[seat])
                                         for c in clients))
        assert sorted(a.status_code for a in answers)[0] == 200
        assert sum(a.status_code == 200 for a in answers) == 1, [a.status_code for a in answers]
        for a in answers:
            if a.status_code == 422:  # taken up after the winner: no longer this seat's turn
                assert assert_problem(a, 422, "ILLEGAL_MOVE")["reason"] == "NOT_YOUR_TURN"
            elif a.status_code != 200:  # raced the winner, a move of the same seat: never retried
                body = assert_problem(a, 409, "VERSION_CONFLICT")
                assert body["current_version"] == 2 and a.headers["etag"] == '"2"'
        g.mirror.apply(move)
        assert await g.version() == 2
        await _assert_matches_replay(g, clients[1], [move])
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


async def _assert_matches_replay(g: Game, client: httpx.AsyncClient, accepted: list[Move]) -> None:
    """The stored state equals the engine's replay of the accepted moves (the mirror), and the log holds
    each accepted move's events exactly once, in order."""
    replay = Mirror.from_body(Mirror.create_body())
    for m in accepted:
        replay.apply(m)
    assert replay.state == g.mirror.state
    exported = (await client.get(g.url + "/snapshot", headers=g.host)).json()
    assert exported["version"] == replay.version
    assert SEALER.open(exported["snapshot"]) == replay.state
    events, _ = await read_stream(client, g.url + "/events", headers=g.host, count=len(replay.log))
    assert [e.triple() for e in events] == replay.seen_by(None)
    # ... and nothing after them.
    with pytest.raises(TimeoutError):
        await read_stream(client, g.url + "/events", headers={**g.host, "Last-Event-ID": events[-1].id},
                          count=1, timeout=1.0)
