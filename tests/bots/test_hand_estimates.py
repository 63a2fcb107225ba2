"""The basic bot's hand estimates over the strain's card bits (``bots.basic.own_tricks``, ``bots.basic.misere_danger``)
equal the forms first written (by ranks, per suit, in lists: the frozen baseline's copies in tests/bench/baseline)
on many random hands of every pack and option; the tricks with the hand's cards in order of power, and the same for
every order of one hand."""

from __future__ import annotations

import random

import pytest

from bots.basic import _strain_table, misere_danger, own_tricks, strain_tricks
from engine import Options
from engine.cards import STRAINS
from engine.deal import pack_for
from tests.bench.baseline.basic import misere_danger as reference_danger
from tests.bench.baseline.basic import own_tricks as reference_tricks
from tests.engine.randomplay import random_options


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
