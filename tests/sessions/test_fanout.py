"""Live streams on a Redis-backed replica wait on its one follower of the session logs, not on a Redis
connection each: more streams than redis-py's default connection pool holds (100) all stay open and get every
event of their session, redacted for their seat (read as a client reads them: a 503 retried after its
``Retry-After``, a cut stream reopened with its ``Last-Event-ID``, a move retried with its ``Idempotency-Key``);
and when the follower's connection is killed it reconnects and the streams lose and repeat nothing."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

import httpx

from service.sessions.fanout import LogFollower
from tests.ops.test_health_metrics import sample

from .conftest import RedisServer, Service, running_service
from .play import Game, SseEvent, move_until_acknowledged, sse_events

SESSIONS = 30
SEATS = 4  # 120 streams


#: How often one stream of the burst may be refused or cut before the test fails.
RECONNECTS = 10


async def _follow(client: httpx.AsyncClient, game: Game, seat: int, got: list[SseEvent], opened: asyncio.Event,
                  retried: list[str] | None = None) -> None:
    """Read one seat's stream (until cancelled, or until it ends). With ``retried``, as the API guide tells a
    client to: a 503 is retried after its ``Retry-After``, and a stream that ends before the game does is
    reopened with the ``Last-Event-ID`` of the last event received. (The store answers 503 when a Redis answer
    has not been read within its bound; on a starved machine that is also this loop's own lag, since the 120
    streams and the service share it.) Each retry is noted in ``retried``; a stream retried :data:`RECONNECTS`
    times fails the test."""
    for _ in range(RECONNECTS if retried is not None else 1):
        headers = dict(game.seats[seat])
        if got:
            headers["Last-Event-ID"] = got[-1].id
        async with client.stream("GET", game.url + "/events", headers=headers) as r:
            if r.status_code == 503 and retried is not None:
                retried.append((await r.aread()).decode())
                await asyncio.sleep(min(float(r.headers.get("retry-after", "1")), 2.0))
                continue
            assert r.status_code == 200, await r.aread()
            opened.set()
            async for item in sse_events(r):
                if item is not None and item.event != "end":
                    got.append(item)
            if retried is None:
                return
            retried.append(f"seat {seat}'s stream ended after {got[-1].id if got else 'no event'}")
    raise AssertionError(f"a stream retried {RECONNECTS} times: {retried[-RECONNECTS:] if retried else []}")


async def _all_open(opened: list[asyncio.Event], tasks: list[asyncio.Task[None]], seconds: float = 60) -> None:
    """Wait until every stream is open; a stream that fails to open fails the test at once, with its reason."""
    everyone = asyncio.ensure_future(asyncio.gather(*(e.wait() for e in opened)))
    await asyncio.wait([everyone, *tasks], timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        if task.done():
            task.result()  # its error (a stream ends only when cancelled)
    if not everyone.done():
        everyone.cancel()
        raise AssertionError(f"{sum(e.is_set() for e in opened)} of {len(opened)} streams open after {seconds} s")


async def _until(check: Callable[[], bool], seconds: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not check() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)


def _follower(svc: Service) -> LogFollower:
    follower: LogFollower = svc.app.state.sessions.service.store.follower
    return follower


async def test_more_streams_than_a_connection_pool_share_one_follower(redis_server: RedisServer) -> None:
    before = len(redis_server.sync_client().client_list())
    rng = random.Random(5)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with running_service("redis", redis_server) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=30, limits=limits) as client:
        games = [await Game.create(client, seed=i, retry_unavailable_for=30) for i in range(SESSIONS)]
        streams: list[tuple[Game, int, list[SseEvent], asyncio.Task[None]]] = []
        opened: list[asyncio.Event] = []
        retried: list[str] = []
        for g in games:
            for seat in range(SEATS):
                got: list[SseEvent] = []
                ev = asyncio.Event()
                opened.append(ev)
                streams.append((g, seat, got, asyncio.create_task(
                    _follow(client, g, seat, got, ev, retried))))
        await _all_open(opened, [task for *_, task in streams])
        await _until(lambda: all(len(got) == len(g.mirror.log) for g, _, got, _ in streams))
        # 120 open streams, and the replica holds no more Redis connections than its short commands need.
        connections = len(redis_server.sync_client().client_list()) - before
        assert connections <= 40, connections
        follower = _follower(svc)
        assert follower.followed == SESSIONS and follower.connections == 1
        deadline = time.monotonic() + 120
        for _ in range(3):
            for g in games:
                await move_until_acknowledged(client, g, rng, deadline)
        await _until(lambda: all(len(got) >= len(g.mirror.log) for g, _, got, _ in streams))
        for *_, task in streams:
            task.cancel()
        await asyncio.gather(*(t for *_, t in streams), return_exceptions=True)
        for g, seat, got, _ in streams:
            # In order, once, redacted for the seat, across any retry.
            assert [e.triple() for e in got] == g.mirror.seen_by(seat), retried


async def test_a_follower_whose_connection_is_killed_reconnects_and_loses_nothing(
        redis_server: RedisServer) -> None:
    rng = random.Random(9)
    async with running_service("redis", redis_server) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=30) as client:
        g = await Game.create(client)
        got: list[SseEvent] = []
        opened = asyncio.Event()
        total = len(g.mirror.log)
        task = asyncio.create_task(_follow(client, g, 0, got, opened))
        await asyncio.wait_for(opened.wait(), 10)
        await g.play(2, rng)
        follower = _follower(svc)
        await _until(lambda: len(got) == len(g.mirror.log))
        assert follower.connections == 1
        killed = redis_server.sync_client().client_kill_filter(_type="pubsub")
        assert killed >= 1
        await g.play(3, rng)  # committed while the follower may still be reconnecting
        await _until(lambda: len(got) >= len(g.mirror.log))
        await g.play(1, rng)
        await _until(lambda: len(got) >= len(g.mirror.log))
        task.cancel()
        assert [e.triple() for e in got] == g.mirror.seen_by(0)
        assert len(got) > total
        assert follower.connections >= 2  # it did reconnect


async def test_the_open_streams_are_a_metric_for_the_autoscaler() -> None:
    """``event_streams_open`` (what the autoscaler reads beside CPU, deploy/k8s/hpa.yaml) counts the replica's
    streams as they open and close."""
    async with running_service("memory", None) as svc, httpx.AsyncClient(base_url=svc.url, timeout=30) as client:
        async def open_streams() -> float | None:
            return sample((await client.get("/metrics")).text, "event_streams_open")

        assert await open_streams() == 0
        g = await Game.create(client)
        tasks, opened = [], []
        for seat in range(3):
            ev = asyncio.Event()
            opened.append(ev)
            tasks.append(asyncio.create_task(_follow(client, g, seat, [], ev)))
        await _all_open(opened, tasks, 30)
        assert await open_streams() == 3
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        deadline = asyncio.get_running_loop().time() + 20
        while await open_streams() != 0:
            assert asyncio.get_running_loop().time() < deadline, "the closed streams were still counted"
            await asyncio.sleep(0.1)
