"""What webhooks cost and how soon they arrive (a script that prints figures, not a test).

    .venv/bin/python tests/bench/bench_webhooks.py [--games 8] [--hang 2.0]

Starts a redis-server of its own (free port, no persistence), one replica of the service (``uvicorn --factory``,
one worker, the served defaults but ``WEBHOOK_*`` pointed at 127.0.0.1 and passes every 50 ms) and a receiver in
this process that verifies every message with the Standard Webhooks library (tests/sessions/webhook_receiver.py).
Each run plays ``--games`` four-player games to 500 in turn, seat 0 played by this script (its first legal move,
sent as soon as it is to act), seats 1 to 3 by ``basic`` bots, and prints:

- **delay**: from sending seat 0's move to the receiver getting that move's first event, p50 / p99 / max (the
  move's answer, the deliverer's wake-up, signing, the POST over loopback, verifying);
- **move**: seat 0's move as the script sees it (request to answer), p50 / p99;
- **CPU per delivery**: the replica's CPU time (user + system, /proc) over the run less the same games' run
  without webhooks, per message delivered.

Three runs, side by side on one replica each: without webhooks; with one webhook for the public's events; with
that webhook's receiver answering every message only after ``--hang`` seconds (the moves must not wait for it).
The machine's other load moves the absolute figures; compare the runs of one invocation.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.redis_server import RedisServer  # noqa: E402
from tests.sessions.conftest import ServiceProcess, service_env  # noqa: E402
from tests.sessions.webhook_receiver import Receiver, receiver  # noqa: E402
from tests.support import bearer  # noqa: E402

HOOK_ENV = {"WEBHOOK_HOSTS": "127.0.0.1", "WEBHOOK_ALLOW_HTTP": "true", "WEBHOOK_ALLOW_PRIVATE": "true",
            "WEBHOOK_POLL_SECONDS": "0.05", "WEBHOOK_TIMEOUT_SECONDS": "10", "SEARCH_WORKERS": "0",
            "BOT_WORKERS": "0"}
GAME = {"players": 4, "bots": {"1": "basic", "2": "basic", "3": "basic"}, "start": "host"}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


async def play(client: httpx.AsyncClient, hooks: Receiver | None, seed: int, delays: list[float] | None,
               moves: list[float]) -> None:
    """One game; seat 0's moves timed, and with ``hooks`` a webhook (and with ``delays`` each move's delivery
    waited for and timed)."""
    created = (await client.post("/v1/sessions", json={**GAME, "seed": seed})).json()
    url, host, seat = f"/v1/sessions/{created['session_id']}", bearer(created["host_token"]), \
        bearer(created["seat_tokens"][0])
    hook = None
    if hooks is not None:
        r = await client.post(url + "/webhooks", json={"url": hooks.url}, headers=host)
        hook = r.json()["webhook_id"]
        hooks.secrets[hook] = r.json()["secret"]
    await client.post(url + "/start", json={}, headers=host)
    pending: list[tuple[int, float]] = []
    while True:
        view = (await client.get(url, headers=seat)).json()
        if view["view"]["phase"] == "game_over":
            break
        if view["view"]["to_act"] != 0:
            await asyncio.sleep(0.005)
            continue
        legal = (await client.get(url + "/legal-moves", headers=seat)).json()["legal_moves"]
        sent = time.monotonic()
        r = await client.post(url + "/moves", json={"move": legal[0]}, headers=seat)
        moves.append(time.monotonic() - sent)
        if r.status_code == 200:
            pending.append((r.json()["version"], sent))
    if hooks is None or hook is None or delays is None:
        return
    # Seat 0's moves, in order: the first event of each version that seat 0 made (a bot's names its own seat).
    async with asyncio.timeout(60):
        while True:
            mine = [m.at for m in hooks.taken(hook) if m.body["data"]["id"].endswith("-0")
                    and m.body["data"]["event"].get("seat") == 0 and m.body["data"]["event"]["type"] != "game_started"]
            if len(mine) >= len(pending):
                break
            await asyncio.sleep(0.01)
    delays.extend(at - sent for at, (_, sent) in zip(mine, pending, strict=False))


async def run(redis: RedisServer, name: str, games: int, hang: float | None) -> dict[str, Any]:
    proc = ServiceProcess({**service_env(redis, f"benchhooks{name}:"), **HOOK_ENV})
    proc.start()
    try:
        assert proc.process is not None
        async with httpx.AsyncClient(base_url=proc.url, timeout=60) as client, receiver() as hooks:
            hooks.hang = hang or 0.0
            delays: list[float] = []
            moves: list[float] = []
            before = cpu_seconds(proc.process.pid)
            for seed in range(games):
                await play(client, hooks if hang is not None else None, seed, None if hang else delays, moves)
            cpu = cpu_seconds(proc.process.pid) - before
            if hang:
                hooks.hang = 0.0
                await asyncio.sleep(hang + 0.5)  # the deliveries held by the receiver end before it stops
            return {"name": name, "delays": delays, "moves": moves, "cpu": cpu, "delivered": len(hooks.taken())}
    finally:
        proc.stop()


def ms(value: float) -> str:
    return f"{value * 1000:.1f}"


async def main(args: argparse.Namespace) -> None:
    redis = RedisServer()
    redis.start()
    try:
        plain = await run(redis, "plain", args.games, None)
        hooked = await run(redis, "hooked", args.games, 0.0)
        hanging = await run(redis, "hanging", args.games, args.hang)
    finally:
        redis.stop()
    print(f"{args.games} games to 500, seat 0 played by this script, three basic bots; one replica on Redis")
    for r in (plain, hooked, hanging):
        print(f"{r['name']:>8}: move p50 {ms(percentile(r['moves'], 0.5))} ms, p99 {ms(percentile(r['moves'], 0.99))} "
              f"ms over {len(r['moves'])} moves; replica CPU {r['cpu']:.2f} s; messages delivered {r['delivered']}")
    d = hooked["delays"]
    print(f"   delay: move sent -> its event at the receiver: p50 {ms(percentile(d, 0.5))} ms, "
          f"p99 {ms(percentile(d, 0.99))} ms, max {ms(max(d))} ms over {len(d)} moves")
    extra = hooked["cpu"] - plain["cpu"]
    if hooked["delivered"]:
        print(f"   CPU per delivery: {extra / hooked['delivered'] * 1e6:.0f} us "
              f"({extra:.2f} s more over {hooked['delivered']} messages)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--hang", type=float, default=2.0)
    asyncio.run(main(parser.parse_args()))
