"""How well the expert's playouts foresee contracts: at the start of each hand's card play, the share of playouts
(from the view of a seat of the ``--level`` side, on deals sampled as the expert samples them) in which the
contract is made, against how often it really was made in games between ``--level`` and ``--other``.

Printed for the hands ``--level``'s side contracted (from the contractor's view) and for those the other side
contracted (from a defender's view), misère left out: the playouts' share of made contracts; whether the
playouts' card play makes the contract on the real deal (the share of hands it does); and the share really made,
with a 95% interval. The first against the second is what the sampled deals get wrong; the second against the
third, what the playouts' card play gets wrong about the real players.

    python tests/bench/calibration.py --games 60 --seed 2000 --jobs 2

This is a benchmark that prints figures, not a test. Figures, with their commands: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bots import decide  # noqa: E402
from bots.expert import playout_outcome  # noqa: E402
from bots.inference import read_auction, sample  # noqa: E402
from bots.knowledge import Knowledge  # noqa: E402
from engine import GameState, Options, apply_move, new_game, partners, sides, view  # noqa: E402
from engine.model import HandScored  # noqa: E402
from engine.rules import MISERE_BIDS  # noqa: E402
from tests.bench.match import wilson  # noqa: E402

#: A hand's row: (whether the seat's side contracted, the playouts' share of made contracts, whether the
#: playouts' card play makes it on the real deal, whether it was made).
Row = tuple[bool, float, float, bool]


def made_share(state: GameState, seat: int, contracting: bool) -> float:
    """Whether the playouts' card play makes the contract from ``state`` (1.0 or 0.0), read from the playout's
    answer for ``seat`` (whether its side got its way; ``contracting``: whether that side holds the contract)."""
    success = playout_outcome(state, seat)[1]
    assert success is not None
    return success if contracting else 1.0 - success


def foresee(state: GameState, seat: int, contracting: bool, deals: int, rng: random.Random) -> float:
    """The share of playouts from ``seat``'s view, on deals sampled as the expert samples them, in which the
    contract is made."""
    know = Knowledge(view(state, seat), state.options)
    evidence = read_auction(know)
    return sum(made_share(sample(know, rng, evidence), seat, contracting) for _ in range(deals)) / deals


def game(args: tuple[int, int, str, str, int]) -> list[Row]:
    seed, players, level, other, deals = args
    opts = Options(players=players)  # type: ignore[arg-type]
    side_of = {s: i for i, members in enumerate(sides(opts)) for s in members}
    rows: list[Row] = []
    for level_side in (0, 1):  # each deal twice, the levels swapping chairs
        state, _ = new_game(opts, seed=seed)
        step = hands = 0
        pending: tuple[bool, float, float] | None = None
        while state.to_act is not None and hands < 40:
            c = state.contract
            if (pending is None and state.phase == "play" and c is not None and c.bid not in MISERE_BIDS
                    and not state.tricks and state.trick is None):
                ours = side_of[c.contractor] == level_side
                seat = c.contractor if ours else next(s for s in state.active if side_of[s] == level_side)
                # The seat knows its own hand, so whether its side holds the contract is the same in every deal.
                contracting = seat in (c.contractor, *partners(state))
                pending = (ours, foresee(state, seat, contracting, deals, random.Random(seed * 7 + step)),
                           made_share(state, seat, contracting))
            seat = state.to_act
            chosen = level if side_of[seat] == level_side else other
            move = decide(view(state, seat), opts, level=chosen, seed=seed * 100_003 + step).move  # type: ignore[arg-type]
            state, events = apply_move(state, move)
            step += 1
            for e in events:
                if isinstance(e, HandScored):
                    hands += 1
                    if pending is not None:
                        rows.append((*pending, bool(e.made)))
                        pending = None
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--level", default="expert")
    parser.add_argument("--other", default="basic")
    parser.add_argument("--games", type=int, default=60, help="games (two per deal seed)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=48, help="sampled deals per hand foreseen")
    parser.add_argument("--seed", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    work = [(args.seed + i, args.players, args.level, args.other, args.deals) for i in range(max(1, args.games // 2))]
    with Pool(args.jobs) as pool:
        rows = [row for rows in pool.imap_unordered(game, work) for row in rows]
    print(f"{args.games} games of {args.level} against {args.other}, {args.players} players, {args.deals} sampled "
          "deals per hand")
    for ours, who in ((True, f"{args.level}'s side contracting (contractor's view)"),
                      (False, f"the other side contracting ({args.level} defender's view)")):
        mine = [r for r in rows if r[0] == ours]
        if not mine:
            continue
        made = sum(r[3] for r in mine)
        low, high = wilson(made, len(mine))
        print(f"{who}: {len(mine)} contracts; the playouts say made {statistics.fmean(r[1] for r in mine):.1%}, "
              f"their card play on the real deal makes {statistics.fmean(r[2] for r in mine):.1%}, "
              f"really made {made / len(mine):.1%} (95% CI {low:.1%} to {high:.1%})")


if __name__ == "__main__":
    main()
