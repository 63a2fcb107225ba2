"""Turn clocks across real processes: three uvicorn replicas on one real ``redis-server`` (with persistence),
one seat that never moves. Against the session's whole event log: every turn of that seat ended in exactly one
clock move, whichever replica made it; also with a replica killed mid-game, and with Redis restarted mid-game
(its data persisted: the deadlines live in Redis, not in a process)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.redis_server import RedisServer
from tests.support import bearer

from .clock_replicas import check_each_turn_timed_out_once, clock_moves, create, replicas, wait_for, whole_log

pytestmark = pytest.mark.slow

MOVE_SECONDS = 0.3


def _over(body: dict[str, object]) -> bool:
    view = body["view"]
    return isinstance(view, dict) and view["phase"] == "game_over"


def _marks_at_least(n: int) -> object:
    return lambda body: body["version"] > n * 4 + 1  # (each human turn is followed by three bot turns)


async def _finish_and_check(clients: list[httpx.AsyncClient], created: dict[str, object]) -> None:
    await wait_for(clients, created, _over, timeout=60)
    log = await whole_log(clients[0], created)
    moves = check_each_turn_timed_out_once(log, MOVE_SECONDS)
    assert len(moves.marks) >= 5
    # The log replays to exactly the session's state (no move missing, none twice).
    r = await clients[-1].get(f"/v1/sessions/{created['session_id']}/record",
                              headers=bearer(str(created["host_token"])))
    assert r.status_code == 200, r.text


async def test_three_replicas_make_each_timed_out_move_once(tmp_path: Path) -> None:
    redis = RedisServer(persist_dir=tmp_path)
    redis.start()
    try:
        with replicas(redis) as procs:
            clients = [httpx.AsyncClient(base_url=p.url, timeout=10) for p in procs]
            try:
                created = await create(clients[0], MOVE_SECONDS)
                await _finish_and_check(clients, created)
            finally:
                for c in clients:
                    await c.aclose()
    finally:
        redis.stop()


async def test_a_replica_killed_mid_game(tmp_path: Path) -> None:
    redis = RedisServer(persist_dir=tmp_path)
    redis.start()
    try:
        with replicas(redis) as procs:
            clients = [httpx.AsyncClient(base_url=p.url, timeout=10) for p in procs]
            try:
                created = await create(clients[0], MOVE_SECONDS, seed=2)
                await wait_for(clients, created, _marks_at_least(2))
                assert procs[1].process is not None
                procs[1].process.kill()  # kill -9, claims and all
                procs[1].process.wait()
                survivors = [clients[0], clients[2]]
                await _finish_and_check(survivors, created)
            finally:
                for c in clients:
                    await c.aclose()
    finally:
        redis.stop()


async def test_redis_restarted_mid_game(tmp_path: Path) -> None:
    redis = RedisServer(persist_dir=tmp_path)
    redis.start()
    try:
        with replicas(redis) as procs:
            clients = [httpx.AsyncClient(base_url=p.url, timeout=10) for p in procs]
            try:
                created = await create(clients[0], MOVE_SECONDS, seed=3)
                before = await wait_for(clients, created, _marks_at_least(2))
                redis.stop()  # kill -9: every acknowledged write is in the append-only file
                redis.start()  # the same port and data directory
                await _finish_and_check(clients, created)
                log = await whole_log(clients[0], created)
                assert max(v for v, _ in clock_moves(log).marks) > before["version"]  # clocks went on after it
            finally:
                for c in clients:
                    await c.aclose()
    finally:
        redis.stop()
