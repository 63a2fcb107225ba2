"""The sampler's measure of a deal: :func:`bots.sampling.misfit_of` (and the bounds read once for many deals,
``read_bounds`` with ``misfit_read``) is, bound by bound, the estimate of the bounded seat's hand with its played
cards (``own_tricks`` in the bound's strain, ``misere_danger`` for a misère bound, ``kept_misere_danger`` before
the discard), counted until the miss reaches the cutoff: on random bounds of every kind over random hands of every
pack and option. And :func:`bots.sampling.best_placement` keeps the very placement, from the same random bits, that
the same loop over that measure keeps, on the bounds the auction put on real positions."""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence

import pytest

from bots.basic import misere_danger, own_tricks
from bots.inference import read_auction
from bots.knowledge import Knowledge, deal_unseen
from bots.sampling import (
    MISERE_BOUND,
    MISERE_KEPT_BOUND,
    PlainBound,
    best_placement,
    kept_misere_danger,
    misfit_of,
    misfit_read,
    read_bounds,
)
from engine import Options, view
from engine.cards import STRAINS
from engine.deal import kitty_size, pack_for
from tests.bots.states import random_states
from tests.engine.randomplay import random_options


def reference_misfit(bounds: Sequence[PlainBound], hands: Mapping[int, Sequence[str]],
                     played: Mapping[int, tuple[str, ...]], opts: Options, cutoff: float = math.inf) -> float:
    """The measure bound by bound, every estimate computed again from the cards."""
    miss = 0.0
    for seat, strain, low, high in bounds:
        cards = (*hands.get(seat, ()), *played[seat])
        est = float(misere_danger(cards, opts)) if strain == MISERE_BOUND else \
            float(kept_misere_danger(cards, opts)) if strain == MISERE_KEPT_BOUND else own_tricks(cards, strain, opts)
        if low is not None and est < low:
            miss += low - est
        if high is not None and est >= high:
            miss += est - high
        if miss >= cutoff:
            break
    return miss


def reference_placement(knowledge: Knowledge, rng: random.Random, bounds: Sequence[PlainBound],
                        played: Mapping[int, tuple[str, ...]], lacks: Mapping[int, Collection[str]],
                        tries: int) -> dict[int, list[str]]:
    best: dict[int, list[str]] | None = None
    best_miss = math.inf
    for _ in range(tries if bounds else 1):
        placed = deal_unseen(knowledge, rng, lacks=lacks)
        miss = reference_misfit(bounds, placed, played, knowledge.options, best_miss) if bounds else 0.0
        if miss < best_miss:
            best, best_miss = placed, miss
        if miss == 0.0:
            break
    assert best is not None
    return best


KINDS = (*STRAINS, MISERE_BOUND, MISERE_KEPT_BOUND)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_measure_is_each_bound_estimated_from_the_cards(players: int) -> None:
    rng = random.Random(100 + players)
    checked = 0
    for _ in range(40):
        opts = random_options(rng, players)
        pack = list(pack_for(opts))
        for _ in range(25):
            block = min(10, len(pack) // players)
            cards = rng.sample(pack, players * block)
            hands: dict[int, list[str]] = {}
            played: dict[int, tuple[str, ...]] = {}
            for s in range(players):
                held = rng.randint(block - 4, block)
                hands[s] = cards[block * s:block * s + held]
                played[s] = tuple(cards[block * s + held:block * s + held + rng.randint(0, block - held)])
            bounds: list[PlainBound] = []
            for _ in range(rng.randint(1, 7)):
                seat = rng.randrange(players)
                low = rng.choice((None, rng.uniform(-1.0, 8.0), float(rng.randint(0, 4))))
                high = rng.choice((None, rng.uniform(0.0, 10.0), float(rng.randint(1, 5))))
                # A bound before the discard is on a hand with at least the kitty's worth of cards.
                fits = len(hands[seat]) + len(played[seat]) > kitty_size(opts)
                bounds.append((seat, rng.choice(KINDS if fits else KINDS[:-1]), low, high))
            cutoff = rng.choice((math.inf, rng.uniform(0.0, 6.0), 0.0))
            expected = reference_misfit(bounds, hands, played, opts, cutoff)
            assert misfit_of(bounds, hands, played, opts, cutoff) == expected, (opts, bounds, hands, played)
            read = read_bounds(bounds, played, opts)
            assert misfit_read(read, hands, opts, cutoff) == expected
            # One reading serves many deals: the same bounds over other hands.
            other = {s: rng.sample(pack, len(h)) for s, h in hands.items()}
            assert misfit_read(read, other, opts) == reference_misfit(bounds, other, played, opts)
            checked += 1
    assert checked == 40 * 25


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, "ghosts"])
def test_the_placement_kept_is_the_same_loop_over_the_measure(players: int | str) -> None:
    compared = bounded = 0
    for i, (opts, state) in enumerate(random_states(players, games=60, seed=11, every=3)):
        if state.to_act is None or state.phase == "game_over":
            continue
        knowledge = Knowledge(view(state, state.to_act), opts)
        evidence = read_auction(knowledge)
        bounds = [(b.seat, b.strain, b.low, b.high) for b in evidence.bounds]
        placed = best_placement(knowledge, random.Random(i), bounds, evidence.played, evidence.lacks, 10)
        assert placed == reference_placement(knowledge, random.Random(i), bounds, evidence.played, evidence.lacks,
                                             10)
        compared += 1
        bounded += bool(bounds)
    assert compared >= 100 and bounded >= 30, (compared, bounded)
