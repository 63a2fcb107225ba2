"""How late the turn clock makes a timed-out move, with three replicas (a script that prints figures, not a test).

    .venv/bin/python tests/bench/bench_clock.py [--sessions 20] [--seconds 10] [--move-seconds 0.5]

Starts a redis-server of its own (free port, no persistence) and three replicas of the service (``uvicorn
--factory``, one worker each, ``CLOCK_POLL_SECONDS`` 0.1 and ``CLOCK_CLAIM_SECONDS`` 2 as served by default,
``CLOCK_MIN_MOVE_SECONDS=0.1``), all on this machine's loopback. Creates ``--sessions`` sessions, each with three
random-bot seats and one human seat that never moves, under a clock of ``--move-seconds`` (so every human turn
ends in a clock move), spread over the replicas; listens to every session's event stream (through the replicas
in turn) for ``--seconds``; then reads each session's whole log.

Prints, over every clock move made, p50 / p99 / max of

- **made**: when the replica committed the move less the deadline (the next turn's deadline less the move time,
  since a turn starts at the commit that makes it; the replicas' own wall clock, which is this machine's); also
  without each session's first clock move, which falls while the sessions are still being created;
- **seen**: when a client reading the session's event stream received the ``move_timed_out`` frame less the
  deadline (adds the stream's fan-out through Redis pub/sub and the HTTP hop); ``--no-listen`` leaves the
  readers out (and this figure with them), so that the replicas do nothing but the clocks.

Everything runs on one machine: the replicas, Redis, and this script's readers share its cores, so on a busy
machine the tail measures the wait for a core as much as the sweeper.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.redis_server import RedisServer  # noqa: E402
from tests.sessions.clock_replicas import create, deadline_ms, made_late_ms, replicas, whole_log  # noqa: E402
from tests.support import bearer  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def listen(client: httpx.AsyncClient, created: dict[str, Any], seen: list[float], seconds: float) -> None:
    url = f"/v1/sessions/{created['session_id']}/events"
    with contextlib.suppress(TimeoutError, httpx.HTTPError):
        async with asyncio.timeout(seconds), client.stream("GET", url, headers=bearer(created["host_token"])) as r:
            async for line in r.aiter_lines():
                if line.startswith("data:") and '"move_timed_out"' in line:
                    arrived = time.time() * 1000
                    event = json.loads(line[5:])["event"]
                    seen.append(arrived - deadline_ms(event["deadline"]))


async def main(args: argparse.Namespace) -> None:
    redis = RedisServer()
    redis.start()
    try:
        served = {"CLOCK_POLL_SECONDS": str(args.poll_seconds), "CLOCK_CLAIM_SECONDS": "2"}
        with replicas(redis, 3, prefix="benchclock:", env=served) as procs:
            clients = [httpx.AsyncClient(base_url=p.url, timeout=30) for p in procs]
            try:
                sessions = [await create(clients[i % 3], args.move_seconds, seed=i) for i in range(args.sessions)]
                seen: list[float] = []
                if args.listen:
                    await asyncio.gather(*(listen(clients[i % 3], s, seen, args.seconds)
                                           for i, s in enumerate(sessions)))
                else:
                    await asyncio.sleep(args.seconds)
                made: list[float] = []
                steady: list[float] = []
                for i, s in enumerate(sessions):
                    late = made_late_ms(await _log_so_far(clients[i % 3], s), args.move_seconds)
                    made += late
                    steady += late[1:]
            finally:
                for c in clients:
                    await c.aclose()
    finally:
        redis.stop()
    print(f"three replicas (uvicorn, one worker each) on one redis-server, {args.sessions} sessions, "
          f"move_seconds={args.move_seconds}, CLOCK_POLL_SECONDS={args.poll_seconds}, {args.seconds:g} s, "
          f"{'a stream reader per session' if args.listen else 'no stream readers'}")
    for name, values in (("made", made), ("made, each session's first left out", steady), ("seen", seen)):
        if values:
            print(f"{name}: {len(values)} clock moves, late by p50 {percentile(values, 0.5):.1f} ms, "
                  f"p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms")


async def _log_so_far(client: httpx.AsyncClient, created: dict[str, Any]) -> list[dict[str, Any]]:
    """The session's frames so far (the stream sends them all, then a heartbeat or, at game over, its end)."""
    return await whole_log(client, created, timeout=10, so_far=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--move-seconds", type=float, default=0.5)
    parser.add_argument("--no-listen", dest="listen", action="store_false",
                        help="no event-stream readers meanwhile (only the 'made' figure)")
    parser.add_argument("--poll-seconds", type=float, default=0.1, help="CLOCK_POLL_SECONDS (served default 0.1)")
    asyncio.run(main(parser.parse_args()))
