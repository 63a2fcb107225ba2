"""The basic bot's hand estimates over the strain's card bits (``bots.basic.own_tricks``, ``bots.basic.misere_danger``)
equal the forms first written (by ranks, per suit, in lists) on many random hands of every pack and option; the
tricks with the hand's cards in order of power, and the same for every order of one hand."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from bots.basic import _strain_table, misere_danger, own_tricks, strain_tricks
from engine import SUITS, Options
from engine.cards import STRAINS
from engine.deal import pack_for
from engine.rules import MISERE
from engine.tricks import high_free_joker
from tests.engine.randomplay import random_options


def reference_tricks(hand: Sequence[str], strain: str, opts: Options) -> float:
    """The estimate as first written: each card's effective suit and rank (0: the suit's best) in the strain, the
    trumps' terms in the order of ``hand``."""
    table = _strain_table(opts, strain)
    ranks: dict[str, tuple[str | None, int]] = {}
    for s in (*SUITS, None):
        for i, c in enumerate(table.order(c for c in pack_for(opts) if table.suit[c] == s)):
            ranks[c] = (s, i)
    trump = None if strain == "NT" else strain
    by_suit: dict[str | None, list[int]] = {}
    for c in hand:
        s, i = ranks[c]
        by_suit.setdefault(s, []).append(i)
    est = 0.0
    t = 0
    if trump is not None:
        trumps = by_suit.get(trump, [])
        t = len(trumps)
        for i in trumps:
            est += 1.0 if i < t else max(0.0, 0.55 - 0.12 * (i - t))
        est += max(0, t - 4) * 0.5
    else:
        est += len(by_suit.get(None, ()))
    ruffs = 0.0
    for s in SUITS:
        if s == trump:
            continue
        held = by_suit.get(s)
        if not held:
            ruffs += 0.9
            continue
        length = len(held)
        if length == 1:
            ruffs += 0.45
        held.sort()
        run = 0
        while run < length and held[run] == run:
            run += 1
        est += run * 0.95
        if run == 0 and held[0] == 1 and length >= 2:
            est += 0.5
        elif run == 1 and length >= 2 and held[1] == 2:
            est += 0.3
        if trump is None and run >= 1 and length >= 5:
            est += (length - 4) * 0.8
    if trump is not None and t >= 3:
        est += min(ruffs, max(0.0, t - 2.0))
    if trump is None:
        est -= 0.3
    return est


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_estimate_is_the_one_first_written(players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for _ in range(60):
        opts = random_options(rng, players)
        pack = list(pack_for(opts))
        for _ in range(25):
            hand = rng.sample(pack, rng.choice((1, 3, 5, 8, 10, 13, 16)))
            for strain in STRAINS:
                by_power = _strain_table(opts, strain).order(hand)
                assert own_tricks(hand, strain, opts) == reference_tricks(by_power, strain, opts), (opts, hand, strain)
                checked += 1
    assert checked == 60 * 25 * len(STRAINS)


def test_the_order_of_the_cards_does_not_matter() -> None:
    rng = random.Random(7)
    opts = Options()
    pack = list(pack_for(opts))
    for _ in range(300):
        hand = rng.sample(pack, 10)
        strain = rng.choice(STRAINS)
        first = own_tricks(hand, strain, opts)
        for _ in range(5):
            rng.shuffle(hand)
            assert own_tricks(hand, strain, opts) == first
            # The form first written summed the trumps in the hand's order: it agrees to rounding.
            assert abs(reference_tricks(hand, strain, opts) - first) < 1e-9


def test_known_hands() -> None:
    opts = Options()
    # Hearts: the joker, both bowers, the ace and king are five trumps of the five best (5.0) and one past four
    # (0.5); the three top spades (2.85); clubs 10 and 9 no run; diamonds void, a ruff (0.9, at most t - 2).
    hand = ("JH", "JD", "JK", "AH", "KH", "AS", "KS", "QS", "9C", "10C")
    assert own_tricks(hand, "H", opts) == pytest.approx(9.25)
    # No trumps: the free joker (1), the runs of spades (2.85) and hearts (ace, king: 1.9), less 0.3.
    assert own_tricks(hand, "NT", opts) == pytest.approx(5.45)
    assert own_tricks((), "NT", opts) == pytest.approx(-0.3)


def reference_danger(hand: Sequence[str], opts: Options, open_hand: bool) -> int:
    """The misère danger as first written: each suit's cards ranked by their place in the suit, low to high."""
    table = _strain_table(opts, MISERE)
    danger = 3 * sum(1 for c in hand if high_free_joker(c, table))
    for s in SUITS:
        order = table.order(c for c in pack_for(opts) if table.suit[c] == s)[::-1]  # low to high
        held = sorted((c for c in hand if table.suit[c] == s), key=order.index)
        for k, c in enumerate(held):
            if order.index(c) > 2 * k + (0 if open_hand else 1):
                danger += 1
    return danger


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_misere_danger_is_the_one_first_written(players: int) -> None:
    rng = random.Random(100 + players)
    dangers = set()
    for _ in range(60):
        opts = random_options(rng, players)
        pack = list(pack_for(opts))
        for _ in range(25):
            hand = rng.sample(pack, rng.choice((1, 3, 5, 8, 10, 13, 16)))
            for open_hand in (False, True):
                danger = misere_danger(hand, opts, open_hand)
                assert danger == reference_danger(hand, opts, open_hand), (opts, hand, open_hand)
                dangers.add(danger)
    assert {0, 1, 2, 3} <= dangers  # misère hands and near ones were among them


def test_known_misere_dangers() -> None:
    opts = Options()
    low = ("5S", "7S", "5C", "6C", "8C", "5D", "7D", "4H", "6H", "8H")
    assert misere_danger(low, opts) == 0
    # The king of spades: eight spades below it, the hand holds one (the 5): 8 > 2 * 1 + 1.
    assert misere_danger(("5S", "KS", *low[2:]), opts) == 1
    assert misere_danger((*low[:9], "JK"), opts) == 3


def test_the_five_strains_read_at_once_are_each_strain_read_alone() -> None:
    rng = random.Random(11)
    for players in (2, 3, 4, 5, 6):
        for _ in range(40):
            opts = random_options(rng, players)
            hand = rng.sample(list(pack_for(opts)), rng.choice((0, 4, 10, 13)))
            assert strain_tricks(hand, opts) == [own_tricks(hand, s, opts) for s in STRAINS]
