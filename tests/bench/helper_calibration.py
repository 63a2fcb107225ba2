"""What a partner and the kitty add to a contractor's own tricks, by player count: the figure behind
``bots.basic.helper_tricks``.

On each deal the first seat whose hand is worth at least ``--least`` tricks by ``bots.basic.own_tricks`` in its
best strain bids the six of that strain and every other seat passes; the hand is then played to its end by the
``basic`` bot at every seat (partner call, exchange, nomination, card play). Printed: the contracts played, the
mean of the contracting seats' tricks less the contractor's own estimate of its dealt hand (with a 95%
interval), by the estimate's range too, and what ``helper_tricks`` counts for that player count.

    python tests/bench/helper_calibration.py --players 4 --deals 1500
    python tests/bench/helper_calibration.py --players 5 --deals 1500

This is a benchmark that prints figures, not a test. Figures, with their commands: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bots import decide  # noqa: E402
from bots.basic import helper_tricks, strain_tricks  # noqa: E402
from engine import Bid, GameState, Options, Pass, apply_move, legal_moves, new_game, partners, view  # noqa: E402
from engine.cards import STRAINS  # noqa: E402
from engine.model import Event, HandScored  # noqa: E402


def _basic(state: GameState, step: int, seed: int) -> tuple[GameState, list[Event]]:
    """The ``basic`` bot's move for the seat to act, applied: the next state and its events."""
    seat = state.to_act
    assert seat is not None
    move = decide(view(state, seat), state.options, level="basic", seed=seed * 1_000 + step).move
    return apply_move(state, move)


def one_deal(opts: Options, seed: int, least: float) -> tuple[float, int] | None:
    """(the contractor's own estimate, the contracting seats' tricks) for one deal, or None when no seat's hand
    reaches ``least`` or no contract is played out."""
    state, _ = new_game(opts, seed=seed)
    bidder: tuple[int, float] | None = None
    step = 0
    while state.phase == "auction":
        seat = state.to_act
        assert seat is not None
        if not state.viewed[seat]:
            state = _basic(state, step, seed)[0]
        elif bidder is None and max(tricks := strain_tricks(state.hands[seat], opts)) >= least:
            best = max(range(len(STRAINS)), key=tricks.__getitem__)
            bid = next((m for m in legal_moves(state) if isinstance(m, Bid) and m.bid == f"6{STRAINS[best]}"), None)
            if bid is None:
                return None
            bidder = (seat, tricks[best])
            state = apply_move(state, bid)[0]
        else:
            state = apply_move(state, next(m for m in legal_moves(state) if isinstance(m, Pass)))[0]
        step += 1
    if bidder is None or state.contract is None:
        return None
    hand_number = state.hand_number
    while state.to_act is not None and state.hand_number == hand_number:
        contracting = (state.contract.contractor, *partners(state)) if state.contract is not None else ()
        state, events = _basic(state, step, seed)
        step += 1
        for e in events:
            if isinstance(e, HandScored):
                return bidder[1], sum(e.tricks_won[s] for s in contracting)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=1500)
    parser.add_argument("--least", type=float, default=4.0, help="the bidder's least own estimate")
    parser.add_argument("--seed", type=int, default=90_000)
    args = parser.parse_args()
    opts = Options(players=args.players)  # type: ignore[arg-type]
    rows = [r for r in (one_deal(opts, args.seed + i, args.least) for i in range(args.deals)) if r is not None]
    gains = [tricks - own for own, tricks in rows]
    half = 1.96 * statistics.stdev(gains) / len(gains) ** 0.5
    print(f"{args.players} players, {len(rows)} contracts: the contracting seats' tricks less the contractor's own "
          f"estimate {statistics.fmean(gains):+.2f} ({statistics.fmean(gains) - half:+.2f} to "
          f"{statistics.fmean(gains) + half:+.2f}); helper_tricks counts {helper_tricks(opts):.2f}")
    for low, high in ((4.0, 5.0), (5.0, 6.0), (6.0, 7.0), (7.0, 11.0)):
        part = [tricks - own for own, tricks in rows if low <= own < high]
        if part:
            print(f"  own estimate {low:.0f} to {high:.0f}: {len(part)} contracts, {statistics.fmean(part):+.2f}")


if __name__ == "__main__":
    main()
