"""Two service processes sharing one Redis: live events cross replicas, and a resumed stream has no gap."""

from __future__ import annotations

import asyncio
import random

import httpx

from .conftest import ServiceProcess
from .play import Game, read_stream


async def test_stream_on_b_sees_moves_applied_through_a_and_resumes_without_gap(
        replicas: tuple[ServiceProcess, ServiceProcess]) -> None:
    a, b = replicas
    rng = random.Random(7)
    async with httpx.AsyncClient(base_url=a.url, timeout=10) as via_a, \
            httpx.AsyncClient(base_url=b.url, timeout=10) as via_b:
        g = await Game.create(via_a)
        seat = 1
        created = len(g.mirror.log)
        # Connected to B before the move exists; it must arrive through Redis, not through B's memory.
        reader = asyncio.create_task(read_stream(via_b, g.url + "/events", headers=g.seats[seat],
                                                 count=created + 1))
        await asyncio.sleep(0.3)
        await g.play(1, rng)  # through A
        first, _ = await asyncio.wait_for(reader, 10)
        expected = g.mirror.seen_by(seat)
        assert [e.triple() for e in first] == expected[:created + 1]
        # Disconnected (read_stream closed the connection); more moves happen meanwhile, through A.
        while len(g.mirror.log) < created + 12:
            await g.play(1, rng)
        expected = g.mirror.seen_by(seat)
        rest = len(expected) - len(first)
        resumed, _ = await read_stream(via_b, g.url + "/events", count=rest,
                                       headers={**g.seats[seat], "Last-Event-ID": first[-1].id})
        assert [e.triple() for e in first + resumed] == expected  # no gap, no repeat
        # The same resume served by A gives the same events (any replica serves any stream).
        again, _ = await read_stream(via_a, g.url + "/events", count=rest,
                                     params={"access_token": g.created["seat_tokens"][seat],
                                             "last_event_id": first[-1].id})
        assert [e.triple() for e in again] == [e.triple() for e in resumed]
        # Reads and tokens work on either replica.
        for client in (via_a, via_b):
            r = await client.get(g.url, headers=g.seats[seat])
            assert r.status_code == 200 and r.json()["version"] == g.mirror.version
