"""On a Redis Cluster the change of a session is published inside the shard that owns its slot (``SPUBLISH``),
and each replica's follower has one subscriber connection per shard, to its primary: the bus carries a move's
message to that shard's replica only, not to every node. The follower goes where the slot goes: moved to another
primary, or failed over to its replica, the streams lose and repeat nothing. With ``REDIS_SHARDED_PUBSUB=false``
(a Redis 6.2 cluster) the follower keeps one connection to any node and every node carries every message."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest

from service.sessions.fanout import LogFollower
from tests.cluster_server import RedisClusterServer

from .conftest import Service, running_service
from .play import Game, SseEvent, move_until_acknowledged, sse_events

#: Real Redis Clusters, some of them losing a node: part of CI's run, not of the quick loop.
pytestmark = pytest.mark.slow


def _follower(svc: Service) -> LogFollower:
    follower: LogFollower = svc.app.state.sessions.service.store.follower
    return follower


async def _until(check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


class _Stream:
    """One seat's stream, read until cancelled, reconnecting with ``Last-Event-ID`` whenever it ends."""

    def __init__(self, client: httpx.AsyncClient, game: Game, seat: int) -> None:
        self.game, self.seat = game, seat
        self.got: list[SseEvent] = []
        self.opened = asyncio.Event()
        self.connections = 0
        self.task = asyncio.create_task(self._read(client))

    async def _read(self, client: httpx.AsyncClient) -> None:
        while True:
            headers = dict(self.game.seats[self.seat])
            if self.got:
                headers["Last-Event-ID"] = self.got[-1].id
            try:
                async with client.stream("GET", self.game.url + "/events", headers=headers) as r:
                    if r.status_code != 200:
                        await asyncio.sleep(0.2)  # the store away: 503, as any client would, again later
                        continue
                    self.connections += 1
                    self.opened.set()
                    async for item in sse_events(r):
                        if item is not None and item.event != "end":
                            self.got.append(item)
            except httpx.TransportError:
                await asyncio.sleep(0.1)

    def complete(self) -> bool:
        return len(self.got) >= len(self.game.mirror.log)

    def check(self) -> None:
        """Every event of the session the seat may see, in order, each once."""
        assert [e.triple() for e in self.got] == self.game.mirror.seen_by(self.seat)


@asynccontextmanager
async def _streams(client: httpx.AsyncClient, games: list[Game]) -> AsyncIterator[list[_Stream]]:
    streams = [_Stream(client, g, seat) for g in games for seat in (0, 1)]
    try:
        await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in streams)), 30)
        await _until(lambda: all(s.complete() for s in streams))
        yield streams
    finally:
        for s in streams:
            s.task.cancel()
        await asyncio.gather(*(s.task for s in streams), return_exceptions=True)


async def _games_on_every_primary(client: httpx.AsyncClient, cluster: RedisClusterServer,
                                  prefix: str) -> dict[int, Game]:
    """A game on each primary (sessions land where their id's slot is)."""
    by_primary: dict[int, Game] = {}
    primaries = set(cluster.primaries())
    for seed in range(60):
        game = await Game.create(client, seed=seed)
        by_primary.setdefault(cluster.primary_of(f"{prefix}s:{{{game.id}}}"), game)
        if set(by_primary) == primaries:
            return by_primary
    pytest.fail("60 sessions did not land on every primary")


def _received(before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]) -> dict[int, int]:
    """Pub/sub messages each node received over the bus between the two readings (both kinds)."""
    return {p: sum(after[p]) - sum(before.get(p, (0, 0))) for p in after}


async def test_each_shard_is_followed_on_its_primary_and_a_move_stays_in_its_shard(
        redis_cluster: RedisClusterServer) -> None:
    prefix = f"sp{uuid.uuid4().hex[:6]}:"
    rng = random.Random(3)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with running_service("cluster", redis_cluster, prefix=prefix) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=30, limits=limits) as client:
        games = await _games_on_every_primary(client, redis_cluster, prefix)
        async with _streams(client, list(games.values())) as streams:
            follower = _follower(svc)
            # One subscriber connection per shard, to the primary that owns its sessions.
            assert sorted(follower.links) == sorted(f"127.0.0.1:{p}" for p in games)
            assert set(follower.links.values()) == {1}
            for primary, game in games.items():
                shard = {primary, redis_cluster.replica_of(primary)}
                before = redis_cluster.bus_messages()
                for _ in range(3):
                    await move_until_acknowledged(client, game, rng, time.monotonic() + 60)
                await _until(lambda: all(s.complete() for s in streams))
                replica = redis_cluster.replica_of(primary)
                # The bus carries a message to the other nodes after the publish: wait for the replica's count.
                await _until(lambda b=before, r=replica: _received(b, redis_cluster.bus_messages())[r] >= 3)  # type: ignore[index,misc]
                received = _received(before, redis_cluster.bus_messages())
                # The shard's replica got each move's message; no node outside the shard got any.
                assert received[redis_cluster.replica_of(primary)] == 3, received  # type: ignore[index]
                assert all(n == 0 for p, n in received.items() if p not in shard), received
            for s in streams:
                s.check()
            assert follower.connections == 3 and follower.moved == 0


async def test_plain_pubsub_follows_one_node_and_every_node_carries_every_move(
        redis_cluster: RedisClusterServer) -> None:
    prefix = f"pp{uuid.uuid4().hex[:6]}:"
    rng = random.Random(4)
    async with running_service("cluster", redis_cluster, prefix=prefix, redis_sharded_pubsub=False) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=30) as client:
        games = await _games_on_every_primary(client, redis_cluster, prefix)
        async with _streams(client, list(games.values())) as streams:
            follower = _follower(svc)
            assert follower.links == {"": len(games)}
            primary, game = next(iter(games.items()))
            before = redis_cluster.bus_messages()
            for _ in range(3):
                await move_until_acknowledged(client, game, rng, time.monotonic() + 60)
            await _until(lambda: all(s.complete() for s in streams))
            # The bus carries a message to the other nodes after the publish: wait for their counts.
            await _until(lambda: all(n >= 3 for p, n in _received(before, redis_cluster.bus_messages()).items()
                                     if p != primary))
            received = _received(before, redis_cluster.bus_messages())
            assert received[primary] == 0 and all(n == 3 for p, n in received.items() if p != primary), received
            for s in streams:
                s.check()


async def test_a_stream_follows_its_session_to_the_primary_its_slot_moved_to(
        own_cluster: RedisClusterServer) -> None:
    prefix = "mv:"
    rng = random.Random(5)
    async with running_service("cluster", own_cluster, prefix=prefix) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=30) as client:
        games = await _games_on_every_primary(client, own_cluster, prefix)
        async with _streams(client, list(games.values())) as streams:
            follower = _follower(svc)
            source, game = next(iter(games.items()))
            target = next(p for p in games if p != source)
            for _ in range(2):
                await move_until_acknowledged(client, game, rng, time.monotonic() + 60)
            await asyncio.to_thread(own_cluster.move_slot, f"{prefix}s:{{{game.id}}}", target)
            assert own_cluster.primary_of(f"{prefix}s:{{{game.id}}}") == target
            await _until(lambda: follower.moved >= 1)  # Redis ended the subscription; it is made again there
            for _ in range(4):
                await move_until_acknowledged(client, game, rng, time.monotonic() + 60)
            for g in games.values():
                await move_until_acknowledged(client, g, rng, time.monotonic() + 60)
            await _until(lambda: all(s.complete() for s in streams))
            for s in streams:
                s.check()
            assert f"127.0.0.1:{target}" in follower.links
            assert follower.moved >= 1


async def test_a_stream_follows_its_session_through_a_failover(own_cluster: RedisClusterServer) -> None:
    prefix = "fo:"
    rng = random.Random(6)
    async with running_service("cluster", own_cluster, prefix=prefix) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=30) as client:
        games = await _games_on_every_primary(client, own_cluster, prefix)
        async with _streams(client, list(games.values())) as streams:
            follower = _follower(svc)
            holder, game = next(iter(games.items()))
            replica = own_cluster.replica_of(holder)
            own_cluster.kill(holder)
            moving = asyncio.create_task(move_until_acknowledged(client, game, rng, time.monotonic() + 90))
            deadline = time.monotonic() + 60
            while own_cluster.primary_of(f"{prefix}s:{{{game.id}}}") != replica:
                assert time.monotonic() < deadline, "no replica took over"
                await asyncio.sleep(0.2)
            # The follower, failing to reach the dead primary, reads the slots again and goes to the promoted one.
            await _until(lambda: f"127.0.0.1:{replica}" in follower.links)
            assert follower.links.get(f"127.0.0.1:{holder}", 0) == 0
            own_cluster.restart(holder)  # back as the promoted primary's replica: moves are acknowledged again
            await asyncio.to_thread(own_cluster.wait_ok)
            await moving
            for _ in range(3):
                await move_until_acknowledged(client, game, rng, time.monotonic() + 60)
            for g in games.values():
                await move_until_acknowledged(client, g, rng, time.monotonic() + 60)
            await _until(lambda: all(s.complete() for s in streams), 60)
            for s in streams:
                s.check()
            assert follower.moved >= 1



async def test_a_burst_beyond_the_cluster_clients_connections_queues_instead_of_failing(
        redis_cluster: RedisClusterServer) -> None:
    """Hundreds of streams opening at once read their session's log at once: more commands for one node than
    the cluster client has connections to it (100), which it refuses rather than waits for. They queue for a
    place: every read answers, none fails."""
    prefix = f"bu{uuid.uuid4().hex[:6]}:"
    async with running_service("cluster", redis_cluster, prefix=prefix) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=60) as client:
        game = await Game.create(client)
        store = svc.app.state.sessions.service.store
        reads = await asyncio.gather(*(store.read_events(game.id, (0, 0), 0) for _ in range(400)),
                                     return_exceptions=True)
        assert all(isinstance(r, list) and len(r) == len(game.mirror.log) for r in reads), \
            {type(r).__name__ for r in reads}
        text = (await client.get("/metrics")).text
        assert "redis_errors_total{" not in text, [line for line in text.splitlines() if "redis_errors" in line]
