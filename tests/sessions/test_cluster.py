"""On a Redis Cluster: the primary that holds a session is killed mid-game and its replica takes over; every
move that was acknowledged (200) is still there, in order, once the cluster has failed over, and play goes on.

A change is acknowledged only once a replica has it (``WAIT`` after the script, service/sessions/redis_store.py),
so a failover cannot take an acknowledged move with it. Meanwhile moves are answered 503 (``STORE_UNAVAILABLE``:
nothing applied, or ``COMMIT_OUTCOME_UNKNOWN``), also while the promoted replica has no replica of its own (until
the killed node is back, as its replica); the client retries each with its ``Idempotency-Key``, as the API asks,
and a retry of a move that was applied is answered with its first result.

The session, race and rate-limit tests run on a cluster too: the store fixtures are
parametrized over ``memory``, ``redis`` and ``cluster`` (tests/sessions/conftest.py, tests/ops/test_ratelimit.py).
"""

from __future__ import annotations

import asyncio
import random
import signal
import time

import httpx
import pytest

from service.config import ConfigError, load_settings
from service.sessions.redis_store import cluster_nodes
from tests.cluster_server import RedisClusterServer

from .conftest import SEALER, running_service
from .play import Game, move_body, move_until_acknowledged, read_stream

#: A real six-node Redis Cluster: part of CI's run, not of the quick loop (pytest -m 'not slow').
pytestmark = pytest.mark.slow


async def test_a_failover_loses_no_acknowledged_move(own_cluster: RedisClusterServer) -> None:
    rng = random.Random(16)
    prefix = "fo:"
    async with running_service("cluster", own_cluster, prefix=prefix) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=10) as client:
        game = await Game.create(client, retry_unavailable_for=20)
        for _ in range(6):
            await move_until_acknowledged(client, game, rng, time.monotonic() + 10)
        key = f"{prefix}s:{{{game.id}}}"
        holder = own_cluster.primary_of(key)
        own_cluster.kill(holder)  # kill -9 of the primary that holds this session
        deadline = time.monotonic() + 90
        moving = asyncio.create_task(move_until_acknowledged(client, game, rng, deadline))
        # Its replica is promoted; until the killed node is back (as the new primary's replica, in sync), no
        # move is acknowledged: none could be confirmed on a second node.
        while (promoted := await asyncio.to_thread(_primary_or_none, own_cluster, key)) in (None, holder):
            assert time.monotonic() < deadline, "no replica took over"
            await asyncio.sleep(0.2)
        assert not moving.done()
        own_cluster.restart(holder)
        await asyncio.to_thread(own_cluster.wait_ok)
        _, refused = await moving
        assert refused >= 1  # the failover was felt, and waited out
        for _ in range(5):  # play goes on, on the promoted replica
            await move_until_acknowledged(client, game, rng, time.monotonic() + 20)
        assert own_cluster.primary_of(key) == promoted
        # Everything acknowledged, before and after, is there: the state, and the log in order.
        r = await client.get(game.url, headers=game.host)
        assert r.status_code == 200 and r.json()["version"] == game.mirror.version
        snapshot = (await client.get(game.url + "/snapshot", headers=game.host)).json()["snapshot"]
        assert SEALER.open(snapshot) == game.mirror.state
        events, _ = await read_stream(client, game.url + "/events", headers=game.host,
                                      count=len(game.mirror.log), timeout=20)
        assert [e.triple() for e in events] == game.mirror.seen_by(None)


async def test_a_hanging_cluster_answers_503_in_time_and_recovers(own_cluster: RedisClusterServer) -> None:
    """Every node stopped (SIGSTOP, not dead): reads and moves give up within the command bound with 503, an
    open stream ends; once the nodes go on, the same service answers again and nothing was half-applied."""
    rng = random.Random(3)
    async with running_service("cluster", own_cluster, prefix="hang:") as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=15) as client:
        game = await Game.create(client, retry_unavailable_for=20)
        await game.play(3, rng)
        stream = asyncio.create_task(read_stream(client, game.url + "/events", headers=game.host, timeout=30))
        await asyncio.sleep(0.3)
        for port in own_cluster.live_ports():
            own_cluster.processes[port].send_signal(signal.SIGSTOP)
        try:
            started = time.monotonic()
            r = await client.get(game.url, headers=game.host)
            assert r.status_code == 503 and r.json()["code"] == "STORE_UNAVAILABLE"
            move = game.mirror.choose(rng)
            r = await client.post(game.url + "/moves", json=move_body(move), headers=game.seats[move.seat])
            assert r.status_code == 503 and r.headers["retry-after"] == "1"
            refused_code = r.json()["code"]
            assert refused_code in ("STORE_UNAVAILABLE", "COMMIT_OUTCOME_UNKNOWN")
            assert time.monotonic() - started < 12
        finally:
            for port in own_cluster.live_ports():
                own_cluster.processes[port].send_signal(signal.SIGCONT)
        streamed, _ = await asyncio.wait_for(stream, 30)
        assert [e.triple() for e in streamed] == game.mirror.seen_by(None)[:len(streamed)]
        for _ in range(100):
            r = await client.get(game.url, headers=game.host)
            if r.status_code == 200:
                break
            await asyncio.sleep(0.1)
        assert r.status_code == 200
        # A move refused with STORE_UNAVAILABLE was not applied; one with COMMIT_OUTCOME_UNKNOWN may have been.
        version = r.json()["version"]
        if refused_code == "STORE_UNAVAILABLE":
            assert version == game.mirror.version
        else:
            assert version in (game.mirror.version, game.mirror.version + 1)
        if version == game.mirror.version:
            await game.play(2, rng)
            assert (await client.get(game.url, headers=game.host)).json()["version"] == game.mirror.version


def _primary_or_none(cluster: RedisClusterServer, key: str) -> int | None:
    try:
        return cluster.primary_of(key)
    except Exception:  # the cluster is failing over
        return None


def test_a_cluster_url_is_accepted_and_checked() -> None:
    url = "redis+cluster://user:s%40cret@10.0.0.5:6379,10.0.0.6:6380/0"
    assert load_settings({"REDIS_URL": url}).redis_url == url
    nodes, options = cluster_nodes(url)
    assert nodes == [("10.0.0.5", 6379), ("10.0.0.6", 6380)]
    assert options == {"username": "user", "password": "s@cret"}
    assert cluster_nodes("rediss+cluster://:pw@h:1")[1] == {"username": None, "password": "pw", "ssl": True}
    for bad in ("redis+cluster://h", "redis+cluster://h:1/3", "redis+cluster://h:1,nope"):
        with pytest.raises(ConfigError, match="REDIS_URL"):
            load_settings({"REDIS_URL": bad})


async def test_a_failed_node_has_the_slots_read_again_at_most_every_quarter_second(
        redis_cluster: RedisClusterServer) -> None:
    """Every command that meets a failed node asks the cluster client to read the slots again; until its replica
    is promoted they still name it. The store lets it read them at most every ``REREAD_SECONDS``, so that the
    commands of the other slots do not wait behind a re-read each."""
    from service.ops import redis_compat
    from service.sessions.redis_store import REREAD_SECONDS

    async with running_service("cluster", redis_cluster) as svc:
        store = svc.app.state.sessions.service.store
        client = store.client
        assert await store.exists("no-such-session") is False
        reads = []
        for _ in range(20):  # a failed node asks again and again
            redis_compat.cluster_reread_slots(client)
            store._bound_rereads()
            reads.append(redis_compat.cluster_slots_stale(client))
            redis_compat.cluster_keep_slots(client)
        assert reads[0] and not any(reads[1:]), reads  # the first read again, none after it within the bound
        await asyncio.sleep(REREAD_SECONDS)
        redis_compat.cluster_reread_slots(client)
        store._bound_rereads()
        assert redis_compat.cluster_slots_stale(client)  # a quarter second later it may read them again
