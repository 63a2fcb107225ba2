"""The rules of a trick in engine/tricks.py agree with each other: the card-by-card rule the players use
(``beats``) is the trick winner rule (``trick_winner_index``), and the joker's first-round follow is an option."""

from __future__ import annotations

import random

import pytest

from engine import Options
from engine.cards import strain_table
from engine.deal import pack_for
from engine.tricks import beats, joker_may_follow, led_suit, trick_winner_index


@pytest.mark.parametrize(("trump", "nominations", "joker_low"), [
    ("H", (), False), ("S", (), False), (None, (), False), (None, (("JK", "D"),), False), (None, (), True)])
def test_beats_is_the_trick_winner_rule_one_card_at_a_time(trump: str | None,
                                                          nominations: tuple[tuple[str, str], ...],
                                                          joker_low: bool) -> None:
    pack = pack_for(Options())
    table = strain_table(pack, trump, nominations, joker_low=joker_low)
    rng = random.Random(f"{trump}{nominations}{joker_low}")
    checked = 0
    for _ in range(4000):
        size = rng.randrange(1, 4)
        cards = tuple(rng.sample(pack, size + 1))
        trick, card = cards[:-1], cards[-1]
        nominate = rng.choice("SCDH") if table.suit[trick[0]] is None else None
        winning = trick[trick_winner_index(trick, nominate, table)]
        wins = trick_winner_index(cards, nominate, table) == size
        assert beats(card, winning, led_suit(trick, nominate, table), table) is wins, (trick, nominate, card)
        checked += wins
    assert 300 < checked < 3700  # both answers were tested many times


def test_the_high_joker_may_follow_on_a_suits_first_round_only_with_the_option() -> None:
    table = strain_table(pack_for(Options()), None, ())  # no trumps: the joker is free and high
    on, off = Options(joker_follow_first_round=True), Options(joker_follow_first_round=False)
    assert joker_may_follow(on, "JK", "H", set(), table)
    assert not joker_may_follow(on, "JK", "H", {"H"}, table)  # hearts were led before
    assert not joker_may_follow(on, "AS", "H", set(), table)  # not the joker
    assert not joker_may_follow(off, "JK", "H", set(), table)
    low = strain_table(pack_for(Options()), None, (), joker_low=True)
    assert not joker_may_follow(on, "JK", "H", set(), low)  # the low joker of misère never may
