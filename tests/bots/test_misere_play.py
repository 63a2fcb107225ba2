"""The misère contractor's discards, at the exchange and when void in the suit led: the riskiest cards go, and a
high card that every lower card of its suit guards stays (bots.cardplay.misere_risk). Three players: the whole
33-card pack is in play, so that every card above the contractor's must be guarded."""

from __future__ import annotations

from bots.basic import discard_from_hand
from bots.cardplay import HandInPlay, bit_keys, choose_bit, choose_card
from engine import Options
from engine.masks import count
from engine.model import Trick
from engine.rules import MISERE, OPEN_MISERE, hand_strain

OPTS = Options(players=3)
TABLE = hand_strain(OPTS, MISERE, ())


def _mask(cards: list[str]) -> int:
    m = 0
    for c in cards:
        m |= TABLE.bit[c]
    return m


def test_the_risk_counts_the_cards_below_held() -> None:
    # Every diamond below the ace held: the ace can always be played under; the jack of hearts with only the
    # eight below it cannot.
    from bots.cardplay import misere_risk

    hand = ["7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD", "8H", "JH"]
    assert misere_risk("AD", hand, TABLE) < misere_risk("JH", hand, TABLE)
    assert misere_risk("AD", hand, TABLE) == (7 - 14, 7)


def test_a_void_contractor_throws_its_riskiest_card_not_its_highest() -> None:
    # Seat 2 holds every diamond and two hearts; a club is led and it has none: it throws the jack of hearts
    # (the standard card play threw the highest card, the safe ace of diamonds, and later had to win a heart).
    hand = ["7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD", "8H", "JH"]
    game = HandInPlay(TABLE, OPEN_MISERE, 2, (0, 1, 2))
    trick = Trick(1, ("7C",), None)
    card = choose_card(game, 2, hand, hand, trick, frozenset({2}), {})
    assert card == "JH"
    keys = bit_keys(TABLE)
    bit = choose_bit(game, keys, 2, _mask(hand), _mask(hand), 1, [TABLE.bit["7C"]], "C", frozenset({2}),
                     _mask(["QC", "9C", "KC", "AC", "10S"]))
    assert count(bit) == 1 and bit == TABLE.bit["JH"]


def test_the_misere_discard_keeps_a_guarded_high_card() -> None:
    # Thirteen cards after the kitty: every diamond, the jack and eight of hearts, the ten of spades and the
    # queen of clubs: the discard throws the three unguarded cards, not the ace, king and queen of diamonds.
    hand = ["7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD", "8H", "JH", "10S", "QC", "7C"]
    thrown = discard_from_hand(OPTS, hand, 3, MISERE, TABLE)
    assert set(thrown) == {"JH", "10S", "QC"}
