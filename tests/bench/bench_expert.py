"""Expert decision time on a fixed set of positions of every player count, and optionally beside another checkout.

The positions are states along seeded random games (tests/bots/states.py) of 2 to 6 players and the ghost-partners
game, every phase; each is decided by ``bots.decide(level="expert")`` at the default budget with a fixed seed, and
the thread's CPU time of each decision is measured. Printed per player count and phase: decisions, median and p95
milliseconds.

With ``--against PATH`` the same positions are decided by the checkout at PATH too (its own ``bots`` and
``engine``), the two alternating in worker processes round by round (each first in turn) so that a busy machine
slows both alike; the table then shows both and the ratio, and says whether every decision (move, candidates,
values, spending) is the same in both.

    python tests/bench/bench_expert.py --positions 30
    python tests/bench/bench_expert.py --positions 30 --rounds 3 --against /path/to/other/checkout
    python tests/bench/bench_expert.py --counts 6 --phases exchange,nominate --positions 30 --against ...
    python tests/bench/bench_expert.py --phases auction --searched --positions 20 --rounds 2 --against ...
    valgrind --tool=callgrind python tests/bench/bench_expert.py --worker /path/to/checkout --positions 12

This is a benchmark that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
COUNTS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")


def work(root: Path, positions: int, seed: int, counts: tuple[int | str, ...] = COUNTS,
         phases: tuple[str, ...] = (), searched: bool = False) -> dict[str, object]:
    """Decide every position with the checkout at ``root`` (only those of ``phases`` if given; with ``searched``,
    only the decisions that spent playouts count, ``positions`` of them per player count): times (ms) by
    'count/phase', and decision digests."""
    sys.path.insert(0, str(root))
    import msgspec

    from bots import decide
    from engine import legal_moves, view
    from tests.bots.states import mover, random_states

    times: dict[str, list[float]] = defaultdict(list)
    digests: list[str] = []
    for players in counts:
        taken = 0
        games, every = (400, 1) if phases else (40, 5)
        for i, (opts, state) in enumerate(random_states(players, games=games, seed=seed, every=every)):
            if taken >= positions:
                break
            if phases and state.phase not in phases:
                continue
            if len(legal_moves(state)) < 2:
                continue
            seat = mover(state)
            v = view(state, seat)
            cpu = time.thread_time()
            decision = decide(v, opts, level="expert", seed=i)
            spent = (time.thread_time() - cpu) * 1000
            if searched and not decision.playouts:
                continue
            taken += 1
            times[f"{players}/{state.phase}"].append(spent)
            digests.append(f"{players}:" + hashlib.sha256(msgspec.json.encode(decision)).hexdigest()[:16])
    return {"times": times, "digests": digests}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=30, help="positions per player count")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--rounds", type=int, default=1, help="times each checkout decides every position")
    parser.add_argument("--against", type=Path, default=None, help="another checkout to compare with")
    parser.add_argument("--counts", default=",".join(str(c) for c in COUNTS),
                        help="player counts, comma-separated (ghosts: the ghost-partners game)")
    parser.add_argument("--phases", default="", help="only positions of these phases, comma-separated (e.g. "
                        "exchange,nominate: taken from ten times as many games)")
    parser.add_argument("--searched", action="store_true", help="only the decisions that search (spend playouts); "
                        "two checkouts whose decisions differ may then time different positions")
    parser.add_argument("--worker", type=Path, default=None,
                        help="decide the positions with the checkout at this path in this one process and print the "
                        "times and digests as JSON (what each round's worker does; under callgrind, the instructions "
                        "the decisions take)")
    args = parser.parse_args()
    if args.worker is not None:
        counts = tuple(c if c == "ghosts" else int(c) for c in args.counts.split(","))
        phases = tuple(p for p in args.phases.split(",") if p)
        print(json.dumps(work(args.worker, args.positions, args.seed, counts, phases, args.searched)))
        return
    roots = [HERE] + ([args.against.resolve()] if args.against else [])
    merged: list[dict[str, list[float]]] = [defaultdict(list) for _ in roots]
    digests: list[list[str]] = [[] for _ in roots]
    env = dict(os.environ, FIVE_HUNDRED_ENGINE=os.environ.get("FIVE_HUNDRED_ENGINE", "pure"))
    for r in range(args.rounds):
        for k in (range(len(roots)) if r % 2 == 0 else reversed(range(len(roots)))):  # each goes first in turn
            root = roots[k]
            command = [sys.executable, __file__, "--worker", str(root), "--positions", str(args.positions),
                       "--seed", str(args.seed), "--counts", args.counts, "--phases", args.phases,
                       *(["--searched"] if args.searched else [])]
            out = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=root)
            result = json.loads(out.stdout)
            for key, values in result["times"].items():
                merged[k][key].extend(values)
            digests[k] = result["digests"]
    keys = sorted(merged[0], key=lambda x: (str(x.split("/")[0]), x))
    head = f"{'count/phase':<22}{'n':>5}{'median ms':>11}{'p95 ms':>9}"
    if len(roots) > 1:
        head += f"{'other med':>11}{'other p95':>11}{'ratio med':>11}{'ratio p95':>11}"
    print(f"engine: {env['FIVE_HUNDRED_ENGINE']}; rounds: {args.rounds}; this: {roots[0]}"
          + (f"; other: {roots[1]}" if len(roots) > 1 else ""))
    print(head)

    def stats(values: list[float]) -> tuple[float, float]:
        ordered = sorted(values)
        return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]

    every: list[list[float]] = [[] for _ in roots]
    for key in keys:
        med, p95 = stats(merged[0][key])
        line = f"{key:<22}{len(merged[0][key]):>5}{med:>11.1f}{p95:>9.1f}"
        every[0].extend(merged[0][key])
        if len(roots) > 1 and merged[1].get(key):
            omed, op95 = stats(merged[1][key])
            every[1].extend(merged[1][key])
            line += f"{omed:>11.1f}{op95:>11.1f}{med / omed:>11.2f}{p95 / op95:>11.2f}"
        print(line)
    med, p95 = stats(every[0])
    line = f"{'all':<22}{len(every[0]):>5}{med:>11.1f}{p95:>9.1f}"
    if len(roots) > 1:
        omed, op95 = stats(every[1])
        line += f"{omed:>11.1f}{op95:>11.1f}{med / omed:>11.2f}{p95 / op95:>11.2f}"
        print(line)
        same = sum(a == b for a, b in zip(digests[0], digests[1], strict=True))
        differ = sorted({a.split(":")[0] for a, b in zip(digests[0], digests[1], strict=True) if a != b})
        print(f"identical decisions: {same} of {len(digests[0])}" + (f" (differing at: {', '.join(differ)})"
                                                                      if differ else ""))
    else:
        print(line)


if __name__ == "__main__":
    main()
