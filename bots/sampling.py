"""The sampler's inner loop, compiled with the engine: deals of the unseen cards drawn until one agrees with the
bounds the auction put on the other seats' hands (:mod:`bots.inference` reads the bounds and says why; this
module only draws and measures, over plain values, so that the build compiles it: ``bots/inference.py`` holds
msgspec Structs and stays Python)."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence

from bots.basic import discard_from_hand, misere_danger, own_tricks
from bots.knowledge import Knowledge, deal_unseen
from engine import Options
from engine.deal import kitty_size
from engine.rules import MISERE, hand_strain

#: A bound as plain values: (seat, strain, at least so many tricks or None, below so many or None).
PlainBound = tuple[int, str, float | None, float | None]
#: The strain of a misère bid's bound: its estimate is :func:`bots.basic.misere_danger`, not tricks.
MISERE_BOUND = "MISERE"
#: The strain of the bound a misère bid puts on a hand its bidder has not yet discarded from: its estimate is
#: :func:`bots.basic.misere_danger` of the hand once the cards it would discard (its riskiest, as many as the
#: kitty holds: :func:`bots.basic.discard_from_hand`) are set aside.
MISERE_KEPT_BOUND = "MISERE_KEPT"


def misere_kept(cards: Sequence[str], opts: Options) -> list[str]:
    """``cards`` less the kitty's worth of its riskiest cards (:func:`bots.basic.discard_from_hand` for misère)."""
    out = discard_from_hand(opts, cards, kitty_size(opts), MISERE, hand_strain(opts, MISERE, ()))
    return [c for c in cards if c not in out]


def kept_misere_danger(cards: Sequence[str], opts: Options, open_hand: bool = False) -> int:
    """:func:`bots.basic.misere_danger` of ``cards`` once the kitty's worth of its riskiest cards is discarded."""
    return misere_danger(misere_kept(cards, opts), opts, open_hand)


def misfit_of(bounds: Sequence[PlainBound], hands: Mapping[int, Sequence[str]], played: Mapping[int, tuple[str, ...]],
              opts: Options, cutoff: float = math.inf) -> float:
    """By how many tricks the seats' ``hands`` (with the cards each has ``played``) miss the ``bounds``, counted
    until the miss reaches ``cutoff`` (:func:`bots.inference.misfit`)."""
    miss = 0.0
    estimates: dict[tuple[int, str], float] = {}
    for seat, strain, low, high in bounds:
        key = (seat, strain)
        est = estimates.get(key)
        if est is None:
            cards = (*hands.get(seat, ()), *played[seat])
            est = estimates[key] = float(misere_danger(cards, opts)) if strain == MISERE_BOUND else \
                float(kept_misere_danger(cards, opts)) if strain == MISERE_KEPT_BOUND else \
                own_tricks(cards, strain, opts)
        if low is not None and est < low:
            miss += low - est
        if high is not None and est >= high:
            miss += est - high
        if miss >= cutoff:
            break
    return miss


def best_placement(knowledge: Knowledge, rng: random.Random, bounds: Sequence[PlainBound],
                   played: Mapping[int, tuple[str, ...]], lacks: Mapping[int, Collection[str]],
                   tries: int) -> dict[int, list[str]]:
    """Up to ``tries`` placements of the unseen cards (:func:`bots.knowledge.deal_unseen`): the first that meets
    every bound, else the one that misses least (one placement when there is no bound)."""
    best: dict[int, list[str]] | None = None
    best_miss = math.inf
    opts = knowledge.options
    for _ in range(tries if bounds else 1):
        placed = deal_unseen(knowledge, rng, lacks=lacks)
        miss = misfit_of(bounds, placed, played, opts, best_miss) if bounds else 0.0
        if miss < best_miss:
            best, best_miss = placed, miss
        if miss == 0.0:
            break
    assert best is not None
    return best


__all__ = ["MISERE_BOUND", "MISERE_KEPT_BOUND", "PlainBound", "best_placement", "kept_misere_danger", "misere_kept",
           "misfit_of"]
