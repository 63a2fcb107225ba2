"""What the integrity check costs, beside the move it guards: per state of random games, the median time of
``apply_move`` (one random legal move), of ``integrity_problems`` on a state this process has never replayed
("cold": the memo cleared), on the states of a game checked in order ("in order": each replay walks the moves
it shares with the previous state and applies only the new ones), and of ``structure_problems`` (the check a
snapshot sealed by the service gets: another replica's included).

    .venv/bin/python tests/bench/bench_integrity.py --games 20

The machine is shared and noisy: compare the ratios printed by one run.

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import (  # noqa: E402
    GameState,
    Options,
    apply_move,
    integrity_problems,
    legal_moves,
    new_game,
    structure_problems,
)
from engine import integrity as _integrity  # noqa: E402


def games(players: int, count: int) -> list[list[GameState]]:
    out = []
    for g in range(count):
        rng = random.Random(g)
        state, _ = new_game(Options(players=players), seed=g)  # type: ignore[arg-type]
        states = [state]
        while state.to_act is not None and len(states) < 400:
            moves = legal_moves(state)
            passes = [m for m in moves if type(m).__name__ == "Pass"]
            move = passes[0] if passes and rng.random() < 0.6 else rng.choice(moves)
            state, _ = apply_move(state, move)
            states.append(state)
        out.append(states)
    return out


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    print(f"{'players':>7} {'states':>7} {'apply p50 µs':>13} {'cold p50 µs':>12} {'in order p50 µs':>16} "
          f"{'struct p50 µs':>13} {'cold/apply':>10} {'order/apply':>11} {'struct/apply':>12}")
    for players in (2, 3, 4, 5, 6):
        played = games(players, args.games)
        apply_t: list[float] = []
        cold_t: list[float] = []
        order_t: list[float] = []
        struct_t: list[float] = []
        rng = random.Random(players)
        for states in played:
            for st in states:
                if st.to_act is None:
                    continue
                move = rng.choice(legal_moves(st))
                t0 = time.perf_counter()
                apply_move(st, move)
                apply_t.append(time.perf_counter() - t0)
            for st in states:
                _integrity._REPLAYS.clear()
                t0 = time.perf_counter()
                assert integrity_problems(st) == []
                cold_t.append(time.perf_counter() - t0)
            _integrity._REPLAYS.clear()
            for st in states:
                t0 = time.perf_counter()
                assert integrity_problems(st) == []
                order_t.append(time.perf_counter() - t0)
            for st in states:
                t0 = time.perf_counter()
                assert structure_problems(st) == []
                struct_t.append(time.perf_counter() - t0)
        a, c, o, k = median_us(apply_t), median_us(cold_t), median_us(order_t), median_us(struct_t)
        print(f"{players:>7} {len(cold_t):>7} {a:>13.1f} {c:>12.1f} {o:>16.1f} {k:>13.1f} {c / a:>10.1f} "
              f"{o / a:>11.1f} {k / a:>12.1f}")


if __name__ == "__main__":
    main()
