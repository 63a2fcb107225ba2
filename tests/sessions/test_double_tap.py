"""A double tap: two moves of the same seat sent at once, without If-Match. Exactly one is applied; the other is
409 ``VERSION_CONFLICT`` with the current version, never retried on the new state (where, after winning a
trick, the seat could lead the next one with the second card).

Both requests must really be in flight together: Redis is stopped (SIGSTOP) while they are sent, so each is
taken up by the service before either commits, then resumed. Two service instances share the Redis (two
replicas); the taps go through one replica or through both, in turn. A throwaway ``redis-server`` of its own
(never the shared one), since it is stopped and resumed.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from engine import legal_moves
from service.sessions.move_loop import MoveLoop
from tests.support import assert_problem

from .conftest import SEALER, RedisServer, Service, running_service
from .play import Game, move_body

ROUNDS = 30


class InFlight:
    """Counts the store calls under way in both replicas (their real stores, wrapped), so that a round knows
    both requests reached the store before Redis is resumed."""

    def __init__(self, services: list[Service]) -> None:
        self.count = 0
        for svc in services:
            store = svc.app.state.sessions.service.store
            for name in ("load", "commit"):
                setattr(store, name, self._counted(getattr(store, name)))

    def _counted(self, call: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            try:
                return await call(*args, **kwargs)
            finally:
                self.count -= 1

        return counted

    async def wait_for(self, n: int) -> None:
        async with asyncio.timeout(10):
            while self.count < n:
                await asyncio.sleep(0.005)


@pytest.fixture
async def two_replicas() -> AsyncIterator[tuple[RedisServer, list[Service]]]:
    redis = RedisServer()
    redis.start()
    try:
        async with running_service("redis", redis, prefix="tap:") as a, \
                running_service("redis", redis, prefix="tap:") as b:
            yield redis, [a, b]
    finally:
        redis.stop()


async def test_a_double_tap_applies_one_move_and_answers_409_for_the_other(
        two_replicas: tuple[RedisServer, list[Service]]) -> None:
    redis, services = two_replicas
    urls = [s.url for s in services]
    in_flight = InFlight(services)
    assert redis.process is not None
    rng = random.Random(7)
    clients = [httpx.AsyncClient(base_url=url, timeout=20) for url in urls]
    try:
        g = await Game.create(clients[0], seed=77)
        again = 0  # rounds where the winning move left the same seat to act (the two-card case)
        for round_ in range(ROUNDS):
            state = g.mirror.state
            seat = state.to_act
            assert seat is not None
            moves = legal_moves(state)
            first = g.mirror.choose(rng)  # towards a contract quickly, then random play
            others = [m for m in moves if m != first]
            second = rng.choice(others) if others else first
            via = [clients[0], clients[round_ % 2]]  # through one replica, then through both
            redis.process.send_signal(signal.SIGSTOP)
            try:
                sent = [asyncio.create_task(c.post(g.url + "/moves", json=move_body(m), headers=g.seats[seat]))
                        for c, m in zip(via, (first, second), strict=True)]
                await in_flight.wait_for(2)  # both requests are now waiting on the store
            finally:
                redis.process.send_signal(signal.SIGCONT)
            answers = await asyncio.gather(*sent)
            won = [i for i, a in enumerate(answers) if a.status_code == 200]
            assert len(won) == 1, [(a.status_code, a.text) for a in answers]
            loser = answers[1 - won[0]]
            body = assert_problem(loser, 409, "VERSION_CONFLICT")
            assert body["current_version"] == g.mirror.version + 1
            assert loser.headers["etag"] == f'"{g.mirror.version + 1}"'
            assert answers[won[0]].json()["version"] == g.mirror.version + 1
            g.mirror.apply((first, second)[won[0]])
            if g.mirror.state.to_act == seat:
                again += 1
            if g.mirror.state.to_act is None:
                break
        assert again > 0, "no round left the same seat to act: the two-card case was not exercised"
        exported = (await clients[0].get(g.url + "/snapshot", headers=g.host)).json()
        assert exported["version"] == g.mirror.version and SEALER.open(exported["snapshot"]) == g.mirror.state
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


def test_a_store_on_the_process_clock_tells_a_race_exactly() -> None:
    """The in-process store says when the seat moved: a move committed before the request arrived is no race,
    however long the request then waited (a pause between the store's answer and the check); one committed
    after it is. From an age alone (Redis's clock), a move that old or younger counts as a race."""
    arrived = time.monotonic() - 1.0  # a second ago
    assert not MoveLoop._moved_since(0.0, arrived, arrived - 0.0005)
    assert MoveLoop._moved_since(10.0, arrived, arrived + 0.0005)
    assert MoveLoop._moved_since(0.5, arrived)  # half a second ago: after the arrival
    assert not MoveLoop._moved_since(2.0, arrived)
    assert not MoveLoop._moved_since(None, arrived)
