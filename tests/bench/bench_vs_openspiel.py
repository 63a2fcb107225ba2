"""The engine beside OpenSpiel's Euchre in one run, with the same driver loop (a script, not a test).

    .venv/bin/pip install open_spiel        # a benchmark aid only, not a project dependency
    .venv/bin/python tests/bench/bench_vs_openspiel.py [--seconds 1] [--rounds 5] [--players 4,2,3,5,6]

Both engines run on one core, taking turns in rounds (every player count of ours, then OpenSpiel, then the next
round), so a machine busy with other work slows both alike. The loop is the same for both: ask for the legal
moves, pick one uniformly at random, apply it; only the time inside the engines' calls (new game, legal moves,
apply) counts. An *action* is a player's decision. OpenSpiel deals through chance nodes (a card at a time); those
steps are driven by the same loop and their time counts, but they are not counted as actions, because our engine
deals inside the ``apply_move`` that ends a hand (the figure with chance steps counted is printed too).

Prints per round and in total: our actions per second per player count, OpenSpiel Euchre's, the ratio of each to
OpenSpiel, and each player count relative to four players.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import run as run_engine  # noqa: E402

import engine  # noqa: E402


def run_openspiel(game: Any, seconds: float, seed: int) -> dict[str, float]:
    """Random Euchre games for ``seconds``: the same loop as ``bench_engine.run``."""
    rng = random.Random(seed)
    clock = time.perf_counter_ns
    deadline = time.perf_counter() + seconds
    actions = chance = 0
    busy = 0
    while time.perf_counter() < deadline:
        t0 = clock()
        state = game.new_initial_state()
        busy += clock() - t0
        while not state.is_terminal():
            t0 = clock()
            decision = not state.is_chance_node()
            moves = state.legal_actions()
            state.apply_action(moves[rng.randrange(len(moves))])
            busy += clock() - t0
            if decision:
                actions += 1
            else:
                chance += 1
    return {"actions_per_s": actions / (busy / 1e9), "steps_per_s": (actions + chance) / (busy / 1e9)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per engine per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", default="4,2,3,5,6")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        sys.exit("OpenSpiel is not installed: .venv/bin/pip install open_spiel")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    euchre = pyspiel.load_game("euchre")
    counts = [int(x) for x in args.players.split(",")]
    print(f"engine build: {getattr(engine, 'ENGINE_BUILD', 'pure')}; OpenSpiel Euchre {euchre.get_parameters()}")
    ours: dict[int, list[float]] = {p: [] for p in counts}
    theirs: list[float] = []
    steps: list[float] = []
    header = " ".join(f"{f'{p}p':>9}" for p in counts)
    print(f"{'round':>5} {header} {'euchre':>9}   ratio to euchre")
    for r in range(args.rounds):
        for p in counts:
            ours[p].append(run_engine(p, args.seconds, args.seed + r)["actions_per_s"])
        os_r = run_openspiel(euchre, args.seconds, args.seed + r)
        theirs.append(os_r["actions_per_s"])
        steps.append(os_r["steps_per_s"])
        figures = " ".join(f"{ours[p][-1]:>9,.0f}" for p in counts)
        ratios = " ".join(f"{p}p {ours[p][-1] / theirs[-1]:.3f}" for p in counts)
        print(f"{r + 1:>5} {figures} {theirs[-1]:>9,.0f}   {ratios}")
    # Totals: the mean rate over the rounds (each round ran for the same time).
    mean = {p: sum(v) / len(v) for p, v in ours.items()}
    os_mean = sum(theirs) / len(theirs)
    print(f"{'mean':>5} " + " ".join(f"{mean[p]:>9,.0f}" for p in counts) + f" {os_mean:>9,.0f}")
    print(f"OpenSpiel Euchre with its chance (deal) steps counted as actions: {sum(steps) / len(steps):,.0f}/s")
    for p in counts:
        rel = f", {mean[p] / mean[4] - 1:+.1%} against four players" if 4 in mean and p != 4 else ""
        print(f"{p} players: {mean[p] / os_mean:.3f}x OpenSpiel Euchre{rel}")


if __name__ == "__main__":
    main()
