"""The sampler's inner loop, compiled with the engine: deals of the unseen cards drawn until one agrees with the
bounds the auction put on the other seats' hands (:mod:`bots.inference` reads the bounds and says why; this
module only draws and measures, over plain values, so that the build compiles it: ``bots/inference.py`` holds
msgspec Structs and stays Python)."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence

from bots.basic import TrickShape, discard_from_hand, mask_tricks, misere_danger, trick_shape
from bots.knowledge import Knowledge, deal_by, deal_groups
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


#: A :data:`PlainBound` made ready for reading many deals (:func:`read_bounds`): (the index of its seat and strain
#: among the bounds' distinct pairs, the seat, the strain, the strain's :data:`bots.basic.TrickShape` or None for a
#: misère bound, the cards the seat has played as that shape's mask, those cards, at least, below).
ReadBound = tuple[int, int, str, TrickShape | None, int, tuple[str, ...], float | None, float | None]


def read_bounds(bounds: Sequence[PlainBound], played: Mapping[int, tuple[str, ...]],
                opts: Options) -> tuple[list[ReadBound], int]:
    """``bounds`` ready for :func:`misfit_read` (each strain's shape and each seat's played cards read once, not
    per deal), and the number of distinct (seat, strain) pairs among them."""
    pairs: dict[tuple[int, str], int] = {}
    read: list[ReadBound] = []
    for seat, strain, low, high in bounds:
        k = pairs.setdefault((seat, strain), len(pairs))
        cards = played[seat]
        if strain in (MISERE_BOUND, MISERE_KEPT_BOUND):
            read.append((k, seat, strain, None, 0, cards, low, high))
            continue
        shape = trick_shape(opts, strain)
        bit = shape[0].bit
        mask = 0
        for c in cards:
            mask |= bit[c]
        read.append((k, seat, strain, shape, mask, cards, low, high))
    return read, len(pairs)


def misfit_read(read: tuple[list[ReadBound], int], hands: Mapping[int, Sequence[str]], opts: Options,
                cutoff: float = math.inf) -> float:
    """:func:`misfit_of` of bounds made ready by :func:`read_bounds`: a seat's trick estimate in a strain is
    :func:`bots.basic.own_tricks` of its hand with its played cards (:func:`bots.basic.mask_tricks` of their
    bits), each (seat, strain) estimated once."""
    bounds, pairs = read
    miss = 0.0
    estimates: list[float | None] = [None] * pairs
    for k, seat, strain, shape, played_mask, played, low, high in bounds:
        est = estimates[k]
        if est is None:
            if shape is None:
                cards = (*hands.get(seat, ()), *played)
                est = float(misere_danger(cards, opts)) if strain == MISERE_BOUND else \
                    float(kept_misere_danger(cards, opts))
            else:
                bit = shape[0].bit
                held = played_mask
                for c in hands.get(seat, ()):
                    held |= bit[c]
                est = mask_tricks(held, shape)
            estimates[k] = est
        if low is not None and est < low:
            miss += low - est
        if high is not None and est >= high:
            miss += est - high
        if miss >= cutoff:
            break
    return miss


def misfit_of(bounds: Sequence[PlainBound], hands: Mapping[int, Sequence[str]], played: Mapping[int, tuple[str, ...]],
              opts: Options, cutoff: float = math.inf) -> float:
    """By how many tricks the seats' ``hands`` (with the cards each has ``played``) miss the ``bounds``, counted
    until the miss reaches ``cutoff`` (:func:`bots.inference.misfit`)."""
    return misfit_read(read_bounds(bounds, played, opts), hands, opts, cutoff)


def best_placement(knowledge: Knowledge, rng: random.Random, bounds: Sequence[PlainBound],
                   played: Mapping[int, tuple[str, ...]], lacks: Mapping[int, Collection[str]],
                   tries: int) -> dict[int, list[str]]:
    """Up to ``tries`` placements of the unseen cards (:func:`bots.knowledge.deal_unseen`): the first that meets
    every bound, else the one that misses least (one placement when there is no bound)."""
    best: dict[int, list[str]] | None = None
    best_miss = math.inf
    opts = knowledge.options
    read = read_bounds(bounds, played, opts)
    groups = deal_groups(knowledge, lacks)
    for _ in range(tries if bounds else 1):
        placed = deal_by(knowledge, rng, groups)
        miss = misfit_read(read, placed, opts, best_miss) if bounds else 0.0
        if miss < best_miss:
            best, best_miss = placed, miss
        if miss == 0.0:
            break
    assert best is not None
    return best


__all__ = ["MISERE_BOUND", "MISERE_KEPT_BOUND", "PlainBound", "ReadBound", "best_placement", "kept_misere_danger",
           "misere_kept", "misfit_of", "misfit_read", "read_bounds"]
