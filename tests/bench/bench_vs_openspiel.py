"""The engine beside OpenSpiel's Euchre in one run, with the same driver loop (a script, not a test).

    .venv/bin/pip install open_spiel        # a benchmark aid only, not a project dependency
    .venv/bin/python tests/bench/bench_vs_openspiel.py [--seconds 0.5] [--rounds 6] [--players 4,2,3,5,6]

Both engines run on one core, taking turns in rounds: in each round, for each player count, a slice of our engine
then a slice of OpenSpiel's, and each player count's ratio is taken against the OpenSpiel slices run beside it.
The loop is the same for both: start a game, then until it ends ask for the legal moves, pick one uniformly at
random, apply it. Time is this thread's CPU time over the whole loop (``time.thread_time``), so time spent
waiting for the core while other processes run counts for neither side. An *action* is a player's decision.
OpenSpiel deals through chance nodes (a card at a time); the loop drives those steps too and their time counts,
but they are not counted as actions, because our engine deals inside the ``apply_move`` that ends a hand (the
figure with chance steps counted is printed too).

Prints per player count: our actions per second, OpenSpiel Euchre's beside it, the ratio (total over total), the
median and the range of the per-round ratios, and the ratio relative to the four-player one.

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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from engine import Options, apply_move, legal_moves, new_game  # noqa: E402


def run_ours(players: int, seconds: float, seed: int) -> float:
    """Random games for ``seconds`` of this thread's CPU time: decisions per CPU second."""
    rng = random.Random(seed)
    opts = Options(players=players)  # type: ignore[arg-type]
    cpu = time.thread_time
    start = cpu()
    deadline = start + seconds
    actions = game = 0
    while cpu() < deadline:
        state, _ = new_game(opts, seed=seed * 1_000_003 + game)
        game += 1
        while state.to_act is not None:
            moves = legal_moves(state)
            state, _ = apply_move(state, moves[rng.randrange(len(moves))])
            actions += 1
    return actions / (cpu() - start)


def run_openspiel(game: Any, seconds: float, seed: int) -> tuple[float, float]:
    """Random Euchre games for ``seconds`` of CPU time, the same loop: (decisions, all steps) per CPU second."""
    rng = random.Random(seed)
    cpu = time.thread_time
    start = cpu()
    deadline = start + seconds
    actions = chance = 0
    while cpu() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chance += 1
            else:
                actions += 1
            moves = state.legal_actions()
            state.apply_action(moves[rng.randrange(len(moves))])
    spent = cpu() - start
    return actions / spent, (actions + chance) / spent


def mid_game_state_size(seed: int = 7) -> tuple[int, int]:
    """A four-player state in mid-play (trick 5): (bytes of every object it reaches, counted once; msgpack bytes)."""
    import gc

    import msgspec

    rng = random.Random(seed)
    state, _ = new_game(Options(), seed=seed)
    while state.phase != "play" or len(state.tricks) < 4 or state.trick is None:
        if state.to_act is None:
            state, _ = new_game(Options(), seed=rng.randrange(2**32))
            continue
        moves = legal_moves(state)
        state, _ = apply_move(state, moves[rng.randrange(len(moves))])
    seen: set[int] = set()
    total = 0
    todo: list[object] = [state]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return total, len(msgspec.msgpack.encode(state))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.5, help="seconds per slice")
    parser.add_argument("--rounds", type=int, default=6)
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
    print(f"engine build: {engine.ENGINE_BUILD}; OpenSpiel Euchre {euchre.get_parameters()}; "
          f"{args.rounds} rounds of {args.seconds} s slices")
    # Each slice of ours is followed at once by a slice of OpenSpiel's, and each player count is compared with
    # the OpenSpiel slices beside it, so load from other work on the machine cancels out of the ratios.
    ours: dict[int, list[float]] = {p: [] for p in counts}
    theirs: dict[int, list[float]] = {p: [] for p in counts}
    steps: list[float] = []
    for r in range(args.rounds):
        for p in counts:
            ours[p].append(run_ours(p, args.seconds, args.seed + r))
            decisions, all_steps = run_openspiel(euchre, args.seconds, args.seed + r)
            theirs[p].append(decisions)
            steps.append(all_steps)
    ratio = {p: sum(ours[p]) / sum(theirs[p]) for p in counts}
    print(f"{'players':>7} {'ours/s':>9} {'euchre/s':>9} {'ratio':>6} {'median':>6} {'ratio range':>13}  "
          f"against 4 players")
    for p in counts:
        per_round = sorted(a / b for a, b in zip(ours[p], theirs[p], strict=True))
        rel = f"{ratio[p] / ratio[4] - 1:+.1%}" if 4 in ratio and p != 4 else ""
        print(f"{p:>7} {sum(ours[p]) / len(ours[p]):>9,.0f} {sum(theirs[p]) / len(theirs[p]):>9,.0f} "
              f"{ratio[p]:>6.3f} {statistics.median(per_round):>6.3f} {per_round[0]:>6.3f}-{per_round[-1]:<6.3f}  "
              f"{rel}")
    print(f"(OpenSpiel Euchre with its chance steps, the deal, counted as actions: {sum(steps) / len(steps):,.0f}/s)")
    deep, packed = mid_game_state_size()
    print(f"a mid-game four-player state: {deep:,} bytes of objects (each counted once), {packed} bytes as msgpack")

if __name__ == "__main__":
    main()
