"""What a sleeping seat costs the other players per hand, away off and on (a script that prints figures, not a
test).

    .venv/bin/python tests/bench/bench_absent_seat.py [--sessions 4] [--hands 3] [--move-seconds 1]

Starts a redis-server of its own (free port, no persistence) and one replica of the service (``uvicorn
--factory``, ``CLOCK_MIN_MOVE_SECONDS=0.1``, ``CLOCK_POLL_SECONDS`` 0.02), on this machine's loopback. Then, twice
(``away_after`` 0, away off: the service as it was; and ``away_after`` 2, the default), creates ``--sessions``
sessions at once, each with one human seat (0) whose client has stopped (it never sends a request), a human seat
(2) played by this script as soon as it is to act (a pass when it may) and two ``random`` bot seats (1, 3), under a
clock of ``--move-seconds``, no misère (seat 0 plays every trick), a target no game reaches in a few hands. Each
session's event stream is read with the host's token (which is no seat's: reading it does not bring seat 0 back)
for its first ``--hands`` hands; the time the table waited on seat 0 is the time from each frame that made seat 0
the seat to act to the first frame of the next version, as the reader received them, summed per hand.

Prints, per setting, the seconds lost per hand (mean, max over the sessions' hands; the first hand apart from the
later ones) and the same in full clocks (seconds / ``--move-seconds``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.redis_server import RedisServer  # noqa: E402
from tests.sessions.clock_replicas import replicas  # noqa: E402
from tests.support import bearer  # noqa: E402

GAME = {"players": 4, "first_dealer": 3, "bots": {"1": "random", "3": "random"},
        "options": {"target": 100_000, "lose_at": -100_000, "misere_enabled": False}}


async def lost_per_hand(client: httpx.AsyncClient, created: dict[str, Any], hands: int,
                        timeout: float) -> list[float]:
    """The seconds the table waited on seat 0 in each of the session's first ``hands`` hands."""
    lost = [0.0] * hands  # (cut to the hands played, should the game end before)
    url = f"/v1/sessions/{created['session_id']}/events"
    hand = -1
    version, began, waiting_on_0, hand_of_turn = 0, 0.0, False, 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout), client.stream("GET", url, headers=bearer(created["host_token"])) as r:
            async for line in r.aiter_lines():
                if not line.startswith("data:"):
                    continue
                now = time.monotonic()
                data = json.loads(line[5:])
                if "event" not in data:
                    break  # the end frame: the game is over
                if data["event"]["type"] == "game_over":
                    hand += 1
                if data["version"] != version:
                    if waiting_on_0 and 0 <= hand_of_turn < hands:
                        lost[hand_of_turn] += now - began
                    version, began = data["version"], now
                    waiting_on_0, hand_of_turn = data["to_act"] == 0, hand
                if data["event"]["type"] == "hand_dealt":
                    hand += 1
                    hand_of_turn = hand
                    if hand >= hands:
                        break
    return lost[:max(0, hand)]


async def player(client: httpx.AsyncClient, created: dict[str, Any], seat: int, done: asyncio.Event) -> None:
    """A player who is there: moves as soon as its seat is to act (a pass when it may, else its first legal
    move), with ``If-Match``; polls its legal moves every 10 ms."""
    url, me = f"/v1/sessions/{created['session_id']}", bearer(created["seat_tokens"][seat])
    while not done.is_set():
        r = await client.get(url + "/legal-moves", headers=me)
        legal = r.json().get("legal_moves") if r.status_code == 200 else None
        if not legal:
            await asyncio.sleep(0.01)
            continue
        move = next((m for m in legal if m["type"] == "pass"), legal[0])
        await client.post(url + "/moves", json={"move": move}, headers={**me, "If-Match": r.headers["etag"]})


async def measured(client: httpx.AsyncClient, created: dict[str, Any], hands: int, timeout: float) -> list[float]:
    done = asyncio.Event()
    playing = asyncio.create_task(player(client, created, 2, done))
    try:
        return await lost_per_hand(client, created, hands, timeout)
    finally:
        done.set()
        await playing


async def run(client: httpx.AsyncClient, away_after: int, sessions: int, hands: int,
              move_seconds: float) -> list[list[float]]:
    clock = {"move_seconds": move_seconds, "bot": "random", "away_after": away_after}
    created = []
    for seed in range(sessions):
        r = await client.post("/v1/sessions", json={**GAME, "seed": seed + 1, "known_deal": True, "clock": clock})
        assert r.status_code == 201, r.text
        created.append(r.json())
    timeout = hands * 40 * move_seconds + 30
    results = await asyncio.gather(*(measured(client, c, hands, timeout) for c in created))
    for c in created:
        await client.delete(f"/v1/sessions/{c['session_id']}", headers=bearer(c["host_token"]))
    return list(results)


def report(label: str, results: list[list[float]], move_seconds: float) -> None:
    first = [r[0] for r in results]
    later = [x for r in results for x in r[1:]]
    every = [x for r in results for x in r]
    print(f"{label}: {len(results)} sessions, {len(every)} hands")
    for name, values in (("every hand", every), ("first hand", first), ("later hands", later)):
        if values:
            print(f"  {name:11}  mean {statistics.mean(values):6.2f} s  max {max(values):6.2f} s   "
                  f"({statistics.mean(values) / move_seconds:5.2f} and {max(values) / move_seconds:5.2f} full clocks)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--move-seconds", type=float, default=1.0)
    args = parser.parse_args()
    redis = RedisServer()
    redis.start()
    try:
        with replicas(redis, count=1, prefix="absent:") as procs:
            async with httpx.AsyncClient(base_url=procs[0].url, timeout=30) as client:
                # The first bot move starts the replica's bot workers (seconds): before any timing.
                warm = await client.post("/v1/sessions", json={**GAME, "first_dealer": 0})
                assert warm.status_code == 201 and warm.json()["version"] > 1, warm.text
                print(f"one sleeping seat, one player and two bots who move at once, a clock of "
                      f"{args.move_seconds:g} s; the time the table waited on the sleeping seat, per hand:")
                report("away off (away_after 0, as before)",
                       await run(client, 0, args.sessions, args.hands, args.move_seconds), args.move_seconds)
                report("away on (away_after 2, the default)",
                       await run(client, 2, args.sessions, args.hands, args.move_seconds), args.move_seconds)
    finally:
        redis.stop()


if __name__ == "__main__":
    asyncio.run(main())
