"""What the expert's search economies cost in points: each decision's choice valued by a much larger search.

For positions along seeded random games (tests/bots/states.py) of the chosen player counts, every phase, the
expert decides at its default budget twice: with the economies that stop a search early (:func:`bots.expert.futile`,
:func:`bots.expert.indifferent`) and without them (``FUTILE_FROM`` set past any budget, ``INDIFFERENT`` to minus
infinity; pruning and :func:`bots.expert.settled` stay). Then an *oracle* values every candidate on ``--oracle``
fresh sampled deals of its own, no candidate dropped, the same deals for all (the expert's own model of the game,
sampled far longer). A choice's loss is the oracle's best value less the oracle's value of the move chosen, in
the playouts' points (bots/value.py). Printed per player count and phase: positions, playouts spent (median and
p95) and mean loss per decision with and without the economies, and how many decisions differ.

    FIVE_HUNDRED_ENGINE=pure python tests/bench/bench_economy.py --positions 20 --oracle 1024

The rule is switched by the module's constant, so run it on the pure engine (decisions are the same on both
builds; tests/bots checks it). This is a benchmark that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bots.expert as expert  # noqa: E402
from bots.expert import candidates, default_budget, outcome_of, search_outcomes  # noqa: E402
from bots.inference import read_auction, sample  # noqa: E402
from bots.knowledge import Knowledge  # noqa: E402
from engine import legal_moves, view  # noqa: E402
from tests.bots.states import mover, random_states  # noqa: E402


def oracle(know: Knowledge, legal: list, deals: int, seed: int) -> dict:  # type: ignore[type-arg]
    """Every candidate's mean playout value on ``deals`` sampled deals (the same for all)."""
    cands = candidates(know, legal)
    rng = random.Random(seed)
    evidence = read_auction(know)
    totals = [0.0] * len(cands)
    for _ in range(deals):
        state = sample(know, rng, evidence)
        for i, m in enumerate(cands):
            totals[i] += outcome_of(state, m, know.seat)[0]
    return {m: t / deals for m, t in zip(cands, totals, strict=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=20, help="searched positions per player count")
    parser.add_argument("--oracle", type=int, default=1024, help="sampled deals of the oracle")
    parser.add_argument("--counts", default="2,3,4,5,6")
    parser.add_argument("--phases", default="", help="only positions of these phases, comma-separated")
    parser.add_argument("--trail", type=float, default=None, help="FUTILE_TRAIL_DEFAULT for this run")
    parser.add_argument("--trail-play", type=float, default=None, help="FUTILE_TRAIL of the card play for this run")
    parser.add_argument("--indifferent", type=float, default=None, help="INDIFFERENT for this run")
    parser.add_argument("--budget-scale", type=float, default=1.0,
                        help="the run with the economies spends this share of the default budget (the other, all)")
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    if args.trail is not None:
        expert.FUTILE_TRAIL_DEFAULT = args.trail
    if args.trail_play is not None:
        expert.FUTILE_TRAIL = {"play": args.trail_play, "nominate": args.trail_play}
    if args.indifferent is not None:
        expert.INDIFFERENT = args.indifferent
    on = expert.FUTILE_FROM, expert.INDIFFERENT
    phases = set(args.phases.split(",")) - {""}
    rows: dict[str, list[tuple[int, int, float, float]]] = defaultdict(list)
    for players in (int(c) for c in args.counts.split(",")):
        taken = 0
        games, every = (400, 1) if phases else (80, 5)
        for i, (opts, state) in enumerate(random_states(players, games=games, seed=args.seed, every=every)):
            if taken >= args.positions:
                break
            legal = [] if state.phase == "exchange" else legal_moves(state)
            if state.phase != "exchange" and len(legal) < 2 or phases and state.phase not in phases:
                continue
            know = Knowledge(view(state, mover(state)), opts)
            if len(candidates(know, legal)) < 2:
                continue
            taken += 1
            budget = default_budget(state.phase)
            expert.FUTILE_FROM, expert.INDIFFERENT = on
            with_rule, _, spent_with, _ = search_outcomes(know, legal, random.Random(i),
                                                          max(1, round(budget * args.budget_scale)))
            expert.FUTILE_FROM, expert.INDIFFERENT = 1 << 30, -math.inf
            without, _, spent_without, _ = search_outcomes(know, legal, random.Random(i), budget)
            expert.FUTILE_FROM, expert.INDIFFERENT = on
            values = oracle(know, legal, args.oracle, 10_000 + i)
            best = max(values.values())
            rows[f"{players}/{state.phase}"].append(
                (spent_with, spent_without, best - values[with_rule], best - values[without]))
            print(f"{players}/{state.phase} #{i}: spent {spent_with} / {spent_without}, loss "
                  f"{best - values[with_rule]:.2f} / {best - values[without]:.2f}", flush=True)
    print("\ncount/phase | n | playouts with rule: median / p95 | without | mean loss with | without | differ")
    every: list[tuple[int, int, float, float]] = []
    for key in sorted(rows):
        r = rows[key]
        every += r
        print(_line(key, r))
    print(_line("all", every))


def _p95(xs: list[int]) -> float:
    return sorted(xs)[max(0, round(0.95 * len(xs)) - 1)]


def _line(key: str, r: list[tuple[int, int, float, float]]) -> str:
    w = [x[0] for x in r]
    wo = [x[1] for x in r]
    differ = sum(1 for x in r if abs(x[2] - x[3]) > 1e-9)
    return (f"{key} | {len(r)} | {statistics.median(w):.0f} / {_p95(w):.0f} | {statistics.median(wo):.0f} / "
            f"{_p95(wo):.0f} | {statistics.mean(x[2] for x in r):.2f} | {statistics.mean(x[3] for x in r):.2f} | "
            f"{differ}")


if __name__ == "__main__":
    main()
