"""Redis hangs, then goes away mid-run and comes back: 503 meanwhile, then the same running service recovers
by itself.

The redis-server here persists every write before acknowledging it (AOF, ``appendfsync always``), so after a
``kill -9`` and a restart on the same port a session must be exactly as the moves that got 200 left it.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from pathlib import Path

import httpx

from tests.support import assert_problem

from .conftest import SEALER, RedisServer, ServiceProcess, service_env
from .play import Game, move_body, read_stream


async def test_store_outage_answers_503_and_recovers_without_restart(tmp_path: Path) -> None:
    redis = RedisServer(persist_dir=tmp_path)
    redis.start()
    service = ServiceProcess(service_env(redis, "fault:"))
    rng = random.Random(11)
    try:
        service.start()
        async with httpx.AsyncClient(base_url=service.url, timeout=10) as client:
            g = await Game.create(client)
            await g.play(3, rng)
            # A Redis that hangs (stopped, not dead): a read gives up after the command timeout with a 503.
            assert redis.process is not None
            redis.process.send_signal(signal.SIGSTOP)
            try:
                started = time.monotonic()
                r = await client.get(g.url, headers=g.host)
                assert_problem(r, 503, "STORE_UNAVAILABLE")
                assert r.headers["retry-after"] == "1" and time.monotonic() - started < 4
            finally:
                redis.process.send_signal(signal.SIGCONT)
            assert (await client.get(g.url, headers=g.host)).json()["version"] == 4

            stream = asyncio.create_task(read_stream(client, g.url + "/events", headers=g.host, timeout=15))
            await asyncio.sleep(0.3)

            redis.stop()  # kill -9

            # An open event stream ends (the client reconnects later with Last-Event-ID).
            streamed, ended = await asyncio.wait_for(stream, 10)
            assert ended and [e.triple() for e in streamed] == g.mirror.seen_by(None)
            move = g.mirror.choose(rng)
            for r in (await client.post(g.url + "/moves", json=move_body(move), headers=g.seats[move.seat]),
                      await client.post("/v1/sessions", json={"players": 4}),
                      await client.get(g.url, headers=g.host),
                      await client.get(g.url + "/events", headers=g.host)):
                assert_problem(r, 503, "STORE_UNAVAILABLE")
                assert r.headers["retry-after"] == "1"
            assert (await client.get("/readyz")).status_code == 503

            redis.start()  # same port, same data directory

            for _ in range(100):  # the same process, not restarted, answers again once Redis is back
                r = await client.get(g.url, headers=g.host)
                if r.status_code != 503:
                    break
                await asyncio.sleep(0.05)
            assert r.status_code == 200, r.text
            assert r.json()["version"] == g.mirror.version == 4
            snapshot = (await client.get(g.url + "/snapshot", headers=g.host)).json()["snapshot"]
            assert SEALER.open(snapshot) == g.mirror.state
            assert (await client.get("/readyz")).status_code == 200
            await g.play(3, rng)  # the refused move was never applied; play continues from version 4
            events, _ = await read_stream(client, g.url + "/events", headers={**g.host, "Last-Event-ID":
                                                                                streamed[-1].id},
                                          count=len(g.mirror.log) - len(streamed))
            assert [e.triple() for e in streamed + events] == g.mirror.seen_by(None)
            assert (await client.post("/v1/sessions", json={"players": 4})).status_code == 201
    finally:
        service.stop()
        redis.stop()
