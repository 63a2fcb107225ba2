"""Duplicate matches between two bot levels: strength (games won, points per hand, 95% intervals) and speed.

Each deal seed is played twice, the two levels swapping seats (level A on the even sides, then on the odd
sides), so both meet the same cards from both chairs and the luck of the deal cancels. A game runs to its end
(or ``--max-hands``, then the side ahead wins). Printed per level: games won with a 95% Wilson interval, mean
points per hand (its side's score change) with a 95% interval of the per-deal-pair mean difference, and the
decision time per phase (median and p95, measured around each ``bots.decide`` call in one single-threaded
process, both on the wall clock and as the thread's CPU time, which a busy shared machine inflates less; with
``--jobs 2`` two such processes run side by side, one per core).

    python tests/bench/match.py --a expert --b basic --games 400 --jobs 2
    python tests/bench/match.py --a expert --b frozen --games 400 --jobs 2
    python tests/bench/match.py --a expert --b baseline --games 400 --jobs 2
    python tests/bench/match.py --a basic --b random --games 200 --budget-a 48

Besides the bot levels, ``frozen`` plays the frozen copy of the expert kept as a baseline (tests/bench/frozen:
PIMC with uniform sampling and heuristic playouts to the end, as the expert played before inference and exact
endgames), and ``baseline`` the frozen copy of the expert at ``4628e07`` (tests/bench/baseline: the reference that the
expert's strength is measured against, run as pure Python); they are no API levels, nor are the strangers
``shape`` and ``guide`` (tests/bench/strangers.py). Each match ends with where the points go, hand by hand
(tests/bench/breakdown.py); ``--save`` keeps the games for it.

This is a benchmark that prints figures, not a test.

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bots import Level, decide  # noqa: E402
from engine import Options, apply_move, new_game, sides, view  # noqa: E402
from engine.model import HandScored  # noqa: E402
from tests.bench.baseline import decide_baseline  # noqa: E402
from tests.bench.breakdown import print_breakdown  # noqa: E402
from tests.bench.frozen import decide_frozen  # noqa: E402
from tests.bench.strangers import STRANGERS, decide_stranger  # noqa: E402

#: The frozen baselines' names on the command line (not bot levels).
FROZEN = "frozen"
BASELINE = "baseline"


def play_game(seed: int, levels_by_side: tuple[Level, ...], budgets: dict[str, int | None], players: int,
              max_hands: int) -> dict[str, Any]:
    """One game; returns the winning sides, points per hand per side and decision times per (level, phase)."""
    opts = Options(players=players)  # type: ignore[arg-type]
    all_sides = sides(opts)
    side_of = {s: i for i, members in enumerate(all_sides) for s in members}
    state, _ = new_game(opts, seed=seed)
    times: dict[str, list[float]] = defaultdict(list)
    hand_points: list[tuple[int, ...]] = []
    #: per hand scored: (hand number, bid, contracting side or None, made, deltas per side, tricks won by the
    #: contracting seats)
    hands: list[tuple[int, str | None, int | None, bool | None, tuple[int, ...], int]] = []
    step = 0
    while state.to_act is not None and len(hand_points) < max_hands:
        seat = state.to_act
        level = levels_by_side[side_of[seat]]
        phase = state.phase
        started, cpu = time.perf_counter(), time.thread_time()
        if level == FROZEN:
            move = decide_frozen(view(state, seat), opts, seed=seed * 100_003 + step, budget=budgets.get(level))
        elif level == BASELINE:
            move = decide_baseline(view(state, seat), opts, seed=seed * 100_003 + step, budget=budgets.get(level))
        elif level in STRANGERS:
            move = decide_stranger(level, view(state, seat), opts, seed=seed * 100_003 + step)
        else:
            move = decide(view(state, seat), opts, level=level, seed=seed * 100_003 + step,
                          budget=budgets.get(level)).move
        times[f"{level}/{phase}"].append(time.perf_counter() - started)
        times[f"cpu:{level}/{phase}"].append(time.thread_time() - cpu)
        state, events = apply_move(state, move)
        step += 1
        for e in events:
            if isinstance(e, HandScored):
                hand_points.append(e.deltas)
                hands.append((state.hand_number if state.phase == "game_over" else state.hand_number - 1, e.bid,
                              side_of[e.contractor] if e.contractor is not None else None, e.made, e.deltas,
                              sum(e.tricks_won[s] for s in e.contracting_seats)))
    if state.result is not None:
        winners = list(state.result.winners)
    else:
        top = max(state.scores)
        winners = [i for i, s in enumerate(state.scores) if s == top]
    return {"winners": winners, "hand_points": hand_points, "times": dict(times), "levels": levels_by_side,
            "hands": hands}


def _pair(args: tuple[int, str, str, dict[str, int | None], int, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    seed, a, b, budgets, players, max_hands = args
    n_sides = len(sides(Options(players=players)))  # type: ignore[arg-type]
    first = tuple(a if i % 2 == 0 else b for i in range(n_sides))
    second = tuple(b if i % 2 == 0 else a for i in range(n_sides))
    return (play_game(seed, first, budgets, players, max_hands),  # type: ignore[arg-type]
            play_game(seed, second, budgets, players, max_hands))  # type: ignore[arg-type]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def _side_score(game: dict[str, Any], level: str) -> tuple[float, int, float]:
    """(wins credited to ``level`` in this game: 1, 0.5 for a shared win, 0; hands; its mean points per hand)."""
    levels = game["levels"]
    mine = [i for i, lv in enumerate(levels) if lv == level]
    winners = game["winners"]
    won = 1.0 if winners and all(w in mine for w in winners) else (0.5 if any(w in mine for w in winners) else 0.0)
    points = [sum(h[i] for i in mine) / len(mine) for h in game["hand_points"]]
    return won, len(points), (sum(points) / len(points) if points else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", default="expert", help="a bot level, frozen or baseline")
    parser.add_argument("--b", default="basic", help="a bot level, frozen or baseline (frozen experts), or a stranger")
    parser.add_argument("--games", type=int, default=400, help="games (two per deal seed)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--budget-a", type=int, default=None, help="playouts for level A (expert)")
    parser.add_argument("--budget-b", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip", type=int, default=0,
                        help="leave out the first N deal seeds (to go on with a run that was cut short)")
    parser.add_argument("--max-hands", type=int, default=80)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--report-every", type=int, default=0, help="print the full summary every N deal pairs")
    parser.add_argument("--save", default=None,
                        help="write the games (winners, hands, levels) to this JSON file, for breakdown.py")
    args = parser.parse_args()
    if args.a == args.b:
        parser.error("--a and --b must be different levels")
    budgets: dict[str, int | None] = {args.a: args.budget_a, args.b: args.budget_b}
    pairs = max(1, args.games // 2)
    work = [(args.seed * 1_000_003 + i, args.a, args.b, budgets, args.players, args.max_hands)
            for i in range(args.skip, args.skip + pairs)]
    started = time.time()
    games: list[dict[str, Any]] = []
    with Pool(args.jobs) as pool:
        for done, (g1, g2) in enumerate(pool.imap(_pair, work), 1):
            games += [g1, g2]
            if done % 10 == 0:
                wins = sum(_side_score(g, args.a)[0] for g in games)
                print(f"  … {len(games)} games, {args.a} won {wins:g} ({time.time() - started:.0f} s)", flush=True)
            if args.report_every and done % args.report_every == 0 and done < pairs:
                summarize(games, args, budgets, pairs, started)  # interim figures, in case the run is cut short
                print(flush=True)
    summarize(games, args, budgets, pairs, started)
    if args.save:
        keep = [{k: g[k] for k in ("winners", "hand_points", "levels", "hands")} for g in games]
        Path(args.save).write_text(json.dumps({"a": args.a, "b": args.b, "players": args.players, "games": keep}))


def summarize(games: list[dict[str, Any]], args: argparse.Namespace, budgets: dict[str, int | None],
              pairs: int, started: float) -> None:
    n = len(games)
    print(f"\n{n} games ({n // 2} deal seeds, each played twice with the seats swapped), {args.players} players, "
          f"default options; budgets {budgets}; {time.time() - started:.0f} s wall, {args.jobs} job(s)")
    pair_diffs: list[float] = []
    for i in range(0, n, 2):
        a1 = _side_score(games[i], args.a)[2] - _side_score(games[i], args.b)[2]
        a2 = _side_score(games[i + 1], args.a)[2] - _side_score(games[i + 1], args.b)[2]
        pair_diffs.append((a1 + a2) / 2)
    for level in (args.a, args.b):
        wins = sum(_side_score(g, level)[0] for g in games)
        hands = sum(_side_score(g, level)[1] for g in games)
        points = sum(_side_score(g, level)[2] * _side_score(g, level)[1] for g in games) / max(1, hands)
        low, high = wilson(wins, n)
        print(f"{level:>7}: won {wins:g} of {n} games = {wins / n:.1%} (95% CI {low:.1%} to {high:.1%}); "
              f"mean points per hand {points:+.1f}")
    mean = statistics.fmean(pair_diffs)
    sd = statistics.stdev(pair_diffs) if len(pair_diffs) > 1 else 0.0
    half = 1.96 * sd / math.sqrt(len(pair_diffs))
    print(f"points per hand, {args.a} minus {args.b}: {mean:+.1f} (95% CI {mean - half:+.1f} to {mean + half:+.1f}, "
          f"over {len(pair_diffs)} deal pairs)")
    times: dict[str, list[float]] = defaultdict(list)
    for g in games:
        for key, values in g["times"].items():
            times[key] += values
    for clock, prefix in (("wall clock", ""), ("CPU time of the deciding thread", "cpu:")):
        _print_times(times, clock, prefix, (args.a, args.b))
    print_breakdown(games, args.a)


def _print_times(times: dict[str, list[float]], clock: str, prefix: str, levels: tuple[str, str]) -> None:
    print(f"\ndecision time per level and phase, {clock} (ms): count, median, p95, max")
    for level in levels:
        everything = sorted(v for k, vs in times.items() if k.startswith(prefix + level + "/") for v in vs)
        rows = [(k, sorted(vs)) for k, vs in sorted(times.items()) if k.startswith(prefix + level + "/")]
        for key, vs in [(f"{level}/all", everything), *rows]:
            if not vs:
                continue
            p95 = vs[min(len(vs) - 1, int(0.95 * len(vs)))]
            print(f"  {key:<22} {len(vs):>7} {1000 * statistics.median(vs):>8.2f} {1000 * p95:>8.2f} "
                  f"{1000 * vs[-1]:>8.2f}")


if __name__ == "__main__":
    main()
