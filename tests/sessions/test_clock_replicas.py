"""Turn clocks across real processes: three uvicorn replicas on one real ``redis-server`` (with persistence,
every write in its append-only file before the reply), one seat that never moves. Against the session's whole
event log: every turn of that seat ended in exactly one clock move, whichever replica made it; also with a
replica killed mid-game, and with Redis restarted mid-game (the deadlines live in Redis, not in a process)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.redis_server import RedisServer
from tests.support import bearer

from .clock_replicas import (
    check_each_turn_timed_out_once,
    clock_moves,
    create,
    live_clients,
    replicas,
    wait_for,
    whole_log,
)
from .conftest import ServiceProcess

pytestmark = pytest.mark.slow

MOVE_SECONDS = 0.2


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisServer, list[ServiceProcess]]]:
    """One persistent redis-server and three replicas on it, shared by this module's tests."""
    redis = RedisServer(persist_dir=Path(tmp_path_factory.mktemp("clock-redis")))
    redis.start()
    try:
        with replicas(redis) as procs:
            yield redis, procs
    finally:
        redis.stop()


@pytest.fixture
async def clients(three: tuple[RedisServer, list[ServiceProcess]]) -> AsyncIterator[list[httpx.AsyncClient]]:
    async with live_clients(three[1]) as out:
        yield out


def _over(body: dict[str, Any]) -> bool:
    return bool(body["view"]["phase"] == "game_over")


def _clock_moved(times: int) -> Any:
    return lambda body: body["version"] > times * 4 + 1  # each human turn is followed by three bot turns


async def _finish_and_check(clients: list[httpx.AsyncClient], created: dict[str, Any]) -> list[dict[str, Any]]:
    over = await wait_for(clients, created, _over, timeout=60)
    assert over["clock"]["deadline"] is None  # paused at game over
    log = await whole_log(clients[0], created)
    moves = check_each_turn_timed_out_once(log, MOVE_SECONDS)
    assert len(moves.marks) >= 5
    # The log replays to exactly the session's state (no move missing, none twice).
    r = await clients[-1].get(f"/v1/sessions/{created['session_id']}/record", headers=bearer(created["host_token"]))
    assert r.status_code == 200, r.text
    return log


async def test_three_replicas_make_each_timed_out_move_once(clients: list[httpx.AsyncClient]) -> None:
    created = await create(clients[0], MOVE_SECONDS)
    await _finish_and_check(clients, created)


async def test_redis_restarted_mid_game(three: tuple[RedisServer, list[ServiceProcess]],
                                        clients: list[httpx.AsyncClient]) -> None:
    redis = three[0]
    created = await create(clients[0], MOVE_SECONDS, seed=3)
    before = await wait_for(clients, created, _clock_moved(2))
    redis.stop()  # kill -9: every acknowledged write is in the append-only file
    redis.start()  # the same port and data directory
    log = await _finish_and_check(clients, created)
    assert max(v for v, _ in clock_moves(log).marks) > before["version"]  # the clock went on after it


async def test_a_replica_killed_mid_game(three: tuple[RedisServer, list[ServiceProcess]],
                                         clients: list[httpx.AsyncClient]) -> None:
    victim = three[1][1]
    created = await create(clients[0], MOVE_SECONDS, seed=2)
    await wait_for(clients, created, _clock_moved(2))
    assert victim.process is not None
    victim.process.kill()  # kill -9, claims and all (the module's last test: the others need all three)
    victim.process.wait()
    await _finish_and_check([clients[0], clients[2]], created)
