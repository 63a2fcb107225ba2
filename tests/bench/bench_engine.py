"""Engine benchmark: random games through the public API on one core (a script, not a test).

    .venv/bin/python tests/bench/bench_engine.py [--seconds 5] [--players 2,3,4,5,6]

Each action is ``legal_moves(state)`` then ``apply_move(state, choice)`` with a uniformly random legal move.
Rates are over the time spent inside the engine's public calls (``new_game``, ``legal_moves``, ``apply_move``),
so the driver's own bookkeeping is not counted. Prints actions per second, hands dealt per second, and the
median latency of each call, per player count.

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import Options, apply_move, legal_moves, new_game  # noqa: E402
from engine.model import HandDealt  # noqa: E402


def run(players: int, seconds: float, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    opts = Options(players=players)  # type: ignore[arg-type]
    actions = hands = 0
    legal_ns: list[int] = []
    apply_ns: list[int] = []
    clock = time.perf_counter_ns
    deadline = time.perf_counter() + seconds
    game = 0
    busy = 0
    while time.perf_counter() < deadline:
        t0 = clock()
        state, _ = new_game(opts, seed=seed * 1_000_003 + game)
        busy += clock() - t0
        game += 1
        hands += 1
        while state.to_act is not None:
            t0 = clock()
            moves = legal_moves(state)
            t1 = clock()
            state, events = apply_move(state, moves[rng.randrange(len(moves))])
            t2 = clock()
            actions += 1
            busy += t2 - t0
            if actions % 8 == 0:  # sample latencies without timing every call twice
                legal_ns.append(t1 - t0)
                apply_ns.append(t2 - t1)
            hands += sum(1 for e in events if isinstance(e, HandDealt))
    return {
        "actions_per_s": actions / (busy / 1e9),
        "hands_per_s": hands / (busy / 1e9),
        "legal_median_us": statistics.median(legal_ns) / 1000,
        "apply_median_us": statistics.median(apply_ns) / 1000,
        "actions": actions,
        "games": game,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--players", default="4,2,3,5,6")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(f"{'players':>7} {'actions/s':>10} {'hands/s':>8} {'legal p50 µs':>12} {'apply p50 µs':>12} "
          f"{'actions':>8} {'games':>6}")
    for p in (int(x) for x in args.players.split(",")):
        r = run(p, args.seconds, args.seed)
        print(f"{p:>7} {r['actions_per_s']:>10,.0f} {r['hands_per_s']:>8,.0f} {r['legal_median_us']:>12.2f} "
              f"{r['apply_median_us']:>12.2f} {r['actions']:>8} {r['games']:>6}")


if __name__ == "__main__":
    main()
