"""Known answers for the 2-, 3-, 5- and 6-player games (RULES.md 1.5, 1.11-1.12, section 2 and 3.6).

For every player count and deck/team option: the exact packet deal of an explicit deck order (the expected
positions are worked out here from RULES.md 1.5.1, never by calling ``engine.deal``), the exact pack, the full
trump order in one red and one black suit and the no-trump order, one complete hand played through
``apply_move`` with its ``HandScored`` deltas, the end of the game (a win by a made contract, no win by
defending points alone, going out backwards) and the rotation of the deal after a hand or a throw-in.

Running totals other than zero are set with ``msgspec.structs.replace`` on the freshly dealt state and checked
with ``integrity_problems``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from engine import (
    CallCard,
    Event,
    GameState,
    Options,
    effective_suit,
    integrity_problems,
    kitty_size,
    new_game,
    pack_for,
    sides,
)
from engine.model import Discarded, GameOver, GameResult, HandDealt, HandScored, Passed, ThrownIn
from engine.rules import hand_strain
from tests.engine.helpers import calls, exchange, move, of_type, opts, play_out, scored, start, with_scores

H = str.split

TWO_DEAD = opts(2)
TWO_24 = opts(2, two_player_method="uspcc_24_card")
THREE = opts(3)
FIVE = opts(5)
SIX_2X3 = opts(6)
SIX_3X2 = opts(6, six_player_teams="three_teams_of_two")


def _id(o: Options) -> str:
    parts = [f"{o.players}p"]
    if o.players == 2:
        parts.append("dead_hand" if o.two_player_method == "uspcc_dead_hand" else "24_card")
    if o.players == 6:
        parts.append("2x3" if o.six_player_teams == "two_teams_of_three" else "3x2")
        parts.append(f"kitty{o.six_player_kitty}")
    return "-".join(parts)


#: Every player-count configuration: both two-player methods, and six players in both team layouts with each
#: kitty size.
CONFIGS = [TWO_DEAD, TWO_24, THREE, FIVE] + [
    opts(6, six_player_teams=teams, six_player_kitty=k)
    for teams in ("two_teams_of_three", "three_teams_of_two") for k in (3, 5, 6)
]


# ------------------------------------------------------------------------------------------------ 1.5 the deal


#: RULES.md 1.5.1 and the brief: the kitty's three packets for each kitty size.
KITTY_PACKETS = {3: (1, 1, 1), 4: (1, 2, 1), 5: (2, 2, 1), 6: (2, 2, 2)}


def rules_positions(recipients: int, kitty: int) -> tuple[list[list[int]], list[int]]:
    """Deck positions per recipient (in dealing order, from the dealer's left) and for the kitty, by RULES.md
    1.5.1: 3 cards to each recipient then the first kitty packet, 4 each then the second, 3 each then the
    third."""
    hands: list[list[int]] = [[] for _ in range(recipients)]
    widow: list[int] = []
    i = 0
    for each, to_kitty in zip((3, 4, 3), KITTY_PACKETS[kitty], strict=True):
        for r in range(recipients):
            hands[r] += range(i, i + each)
            i += each
        widow += range(i, i + to_kitty)
        i += to_kitty
    return hands, widow


def _span(*ranges: tuple[int, int]) -> list[int]:
    return [i for a, b in ranges for i in range(a, b + 1)]


def test_rules_positions_reproduce_the_four_player_table_and_hand_worked_cases():
    """The derivation above against RULES.md 1.5.2's printed table and against positions worked out by hand."""
    hands, widow = rules_positions(4, 3)
    assert hands == [_span((0, 2), (13, 16), (30, 32)), _span((3, 5), (17, 20), (33, 35)),
                     _span((6, 8), (21, 24), (36, 38)), _span((9, 11), (25, 28), (39, 41))]
    assert widow == [12, 29, 42]
    # 33 cards over three hands (two-player dead hand, three players): 9 + 1, 12 + 1, 9 + 1.
    hands, widow = rules_positions(3, 3)
    assert hands == [_span((0, 2), (10, 13), (23, 25)), _span((3, 5), (14, 17), (26, 28)),
                     _span((6, 8), (18, 21), (29, 31))]
    assert widow == [9, 22, 32]
    # 24 cards, two hands, a 4-card widow dealt 1-2-1.
    hands, widow = rules_positions(2, 4)
    assert hands == [_span((0, 2), (7, 10), (17, 19)), _span((3, 5), (11, 14), (20, 22))]
    assert widow == [6, 15, 16, 23]
    # 53 cards over five hands; 63, 65 and 66 over six.
    assert rules_positions(5, 3)[1] == [15, 36, 52]
    assert rules_positions(5, 3)[0][0] == _span((0, 2), (16, 19), (37, 39))
    assert rules_positions(6, 3)[1] == [18, 43, 62]
    assert rules_positions(6, 5)[1] == [18, 19, 44, 45, 64]
    assert rules_positions(6, 6)[1] == [18, 19, 44, 45, 64, 65]
    assert rules_positions(6, 6)[0][5] == _span((15, 17), (40, 43), (61, 63))


def _expected_kitty(o: Options) -> int:
    return {2: 4 if o.two_player_method == "uspcc_24_card" else 3, 3: 3, 5: 3}.get(o.players) or o.six_player_kitty


def _check_deal(state: GameState, deck: Sequence[str], dealer: int) -> None:
    """The state's hands, dead hand and kitty are exactly the RULES.md 1.5.1 packets of ``deck`` by ``dealer``."""
    o = state.options
    n = o.players
    dead = n == 2 and o.two_player_method == "uspcc_dead_hand"
    k = _expected_kitty(o)
    positions, widow = rules_positions(n + dead, k)
    assert sum(map(len, positions)) + len(widow) == len(deck)
    seats = [(dealer + 1 + i) % n for i in range(n)]  # p1 = dealer's left ... the dealer last
    if dead:  # the dead hand is dealt first, as the hand on the dealer's left
        assert set(state.dead_hand) == {deck[i] for i in positions[0]}
        positions = positions[1:]
    else:
        assert state.dead_hand == ()
    for seat, pos in zip(seats, positions, strict=True):
        assert set(state.hands[seat]) == {deck[i] for i in pos}, (seat, pos)
        assert len(state.hands[seat]) == 10
    assert state.kitty == tuple(deck[i] for i in widow)  # in dealing order
    assert state.dealer == dealer and state.to_act == (dealer + 1) % n
    assert integrity_problems(state) == []


@pytest.mark.parametrize("o", CONFIGS, ids=_id)
def test_deal_mapping_of_an_explicit_deck(o: Options):
    pack = pack_for(o)
    for dealer in range(o.players):
        deck = tuple(random.Random(f"{_id(o)}/{dealer}").sample(pack, len(pack)))
        state, _ = new_game(o, seed=0, deck_orders=[deck], first_dealer=dealer)
        _check_deal(state, deck, dealer)
    assert kitty_size(o) == _expected_kitty(o)


# ------------------------------------------------------------------------------------------------ packs, orders

A_TO_7 = "A K Q J 10 9 8 7"
A_TO_9 = "A K Q J 10 9"
A_TO_2 = "A K Q J 10 9 8 7 6 5 4 3 2"
SIX_RED = "A K Q J 13 12 11 10 9 8 7 6 5 4 3 2"  # 13s only in the red suits (63 cards)
SIX_BLACK = "A K Q J 12 11 10 9 8 7 6 5 4 3 2"
SIX_BLACK_13 = "A K Q J 13 12 11 10 9 8 7 6 5 4 3 2"  # the 65- and 66-card packs add 13S and 13C


@dataclass(frozen=True)
class Pack:
    options: Options
    ranks: dict[str, str]  # suit -> printed ranks, high to low
    jokers: tuple[str, ...]  # high to low
    red: tuple[str, list[str], list[str]]  # (trump suit, full trump order, same-colour suit order)
    black: tuple[str, list[str], list[str]]

    def cards(self) -> list[str]:
        """Canonical order (RULES.md has none; the engine documents suits S C D H high to low, then jokers)."""
        return [r + s for s in "SCDH" for r in self.ranks[s].split()] + list(self.jokers)


def _all(ranks: str) -> dict[str, str]:
    return dict.fromkeys("SCDH", ranks)


PACKS = [
    Pack(TWO_DEAD, _all(A_TO_7), ("JK",),
         ("H", H("JK JH JD AH KH QH 10H 9H 8H 7H"), H("AD KD QD 10D 9D 8D 7D")),
         ("C", H("JK JC JS AC KC QC 10C 9C 8C 7C"), H("AS KS QS 10S 9S 8S 7S"))),
    Pack(TWO_24, _all(A_TO_9), (),
         ("D", H("JD JH AD KD QD 10D 9D"), H("AH KH QH 10H 9H")),
         ("S", H("JS JC AS KS QS 10S 9S"), H("AC KC QC 10C 9C"))),
    Pack(THREE, _all(A_TO_7), ("JK",),
         ("D", H("JK JD JH AD KD QD 10D 9D 8D 7D"), H("AH KH QH 10H 9H 8H 7H")),
         ("S", H("JK JS JC AS KS QS 10S 9S 8S 7S"), H("AC KC QC 10C 9C 8C 7C"))),
    Pack(FIVE, _all(A_TO_2), ("JK",),
         ("H", H("JK JH JD AH KH QH 10H 9H 8H 7H 6H 5H 4H 3H 2H"), H("AD KD QD 10D 9D 8D 7D 6D 5D 4D 3D 2D")),
         ("C", H("JK JC JS AC KC QC 10C 9C 8C 7C 6C 5C 4C 3C 2C"), H("AS KS QS 10S 9S 8S 7S 6S 5S 4S 3S 2S"))),
    Pack(SIX_2X3, {"S": SIX_BLACK, "C": SIX_BLACK, "D": SIX_RED, "H": SIX_RED}, ("JK",),
         ("D", H("JK JD JH AD KD QD 13D 12D 11D 10D 9D 8D 7D 6D 5D 4D 3D 2D"),
          H("AH KH QH 13H 12H 11H 10H 9H 8H 7H 6H 5H 4H 3H 2H")),
         ("S", H("JK JS JC AS KS QS 12S 11S 10S 9S 8S 7S 6S 5S 4S 3S 2S"),
          H("AC KC QC 12C 11C 10C 9C 8C 7C 6C 5C 4C 3C 2C"))),
    Pack(opts(6, six_player_kitty=5), _all(SIX_BLACK_13), ("JK",),
         ("H", H("JK JH JD AH KH QH 13H 12H 11H 10H 9H 8H 7H 6H 5H 4H 3H 2H"),
          H("AD KD QD 13D 12D 11D 10D 9D 8D 7D 6D 5D 4D 3D 2D")),
         ("C", H("JK JC JS AC KC QC 13C 12C 11C 10C 9C 8C 7C 6C 5C 4C 3C 2C"),
          H("AS KS QS 13S 12S 11S 10S 9S 8S 7S 6S 5S 4S 3S 2S"))),
    Pack(opts(6, six_player_teams="three_teams_of_two", six_player_kitty=6), _all(SIX_BLACK_13), ("JKB", "JK"),
         ("H", H("JKB JK JH JD AH KH QH 13H 12H 11H 10H 9H 8H 7H 6H 5H 4H 3H 2H"),
          H("AD KD QD 13D 12D 11D 10D 9D 8D 7D 6D 5D 4D 3D 2D")),
         ("S", H("JKB JK JS JC AS KS QS 13S 12S 11S 10S 9S 8S 7S 6S 5S 4S 3S 2S"),
          H("AC KC QC 13C 12C 11C 10C 9C 8C 7C 6C 5C 4C 3C 2C"))),
]


def _pack_id(p: Pack) -> str:
    return _id(p.options)


@pytest.mark.parametrize("p", PACKS, ids=_pack_id)
def test_exact_pack(p: Pack):
    pack = pack_for(p.options)
    expected = p.cards()
    assert sorted(pack) == sorted(expected) and len(pack) == len(set(pack))
    assert list(pack) == expected  # the documented canonical order
    hands = p.options.players + (p.options.players == 2 and p.options.two_player_method == "uspcc_dead_hand")
    assert len(pack) == 10 * hands + _expected_kitty(p.options)


def _strictly_descending(table, cards: list[str]) -> bool:
    powers = [table.power[c] for c in cards]
    return all(a > b for a, b in zip(powers, powers[1:], strict=False))


@pytest.mark.parametrize("colour", ["red", "black"])
@pytest.mark.parametrize("p", PACKS, ids=_pack_id)
def test_trump_order(p: Pack, colour: str):
    trump, order, same_colour = p.red if colour == "red" else p.black
    pack = pack_for(p.options)
    table = hand_strain(p.options, f"6{trump}", ())
    assert {c for c in pack if effective_suit(c, table) == trump} == set(order)
    assert _strictly_descending(table, order), [(c, table.power[c]) for c in order]
    assert table.order(c for c in pack if effective_suit(c, table) == trump) == order
    other = {"S": "C", "C": "S", "D": "H", "H": "D"}[trump]
    assert {c for c in pack if effective_suit(c, table) == other} == set(same_colour)  # no jack
    assert _strictly_descending(table, same_colour)
    # Every trump beats every plain card.
    lowest_trump = min(table.power[c] for c in order)
    assert all(table.power[c] < lowest_trump for c in pack if c not in order)


@pytest.mark.parametrize("p", PACKS, ids=_pack_id)
def test_no_trump_order_with_the_joker_not_nominated(p: Pack):
    pack = pack_for(p.options)
    table = hand_strain(p.options, "6NT", ())
    for s in "SCDH":
        plain = [r + s for r in p.ranks[s].split()]  # jacks in their normal place, no bowers
        assert {c for c in pack if effective_suit(c, table) == s} == set(plain)
        assert table.order(plain) == plain and _strictly_descending(table, plain)
    for j in p.jokers:  # no suit, and above every other card
        assert effective_suit(j, table) is None
        assert all(table.power[j] > table.power[c] for c in pack if c not in p.jokers)
    assert _strictly_descending(table, list(p.jokers))


# ------------------------------------------------------------------------------------------------ scored hands


@dataclass(frozen=True)
class Hand:
    """A designed deal, its auction, and who wins each trick (the losing tricks first, then the contractor's)."""

    options: Options
    dealer: int
    hands: dict[int, list[str]]
    auction: tuple[str, ...]
    want: tuple[frozenset[int], ...]
    kitty: tuple[str, ...] | None = None
    call: str | None = None  # the five-player called card


def _want(*winners: int) -> tuple[frozenset[int], ...]:
    assert len(winners) == 10
    return tuple(frozenset({w}) for w in winners)


# Two players, dead hand: seat 0 (eldest, dealer 1) bids 8H holding the top eight trumps (the joker is in the
# kitty and is discarded) and two low clubs.
TWO_DEAD_MADE = Hand(TWO_DEAD, 1, {0: H("JH JD AH KH QH 10H 9H 8H 7C 8C"), 1: H("7H AC KC")}, ("8H", "P"),
                     _want(1, 1, 0, 0, 0, 0, 0, 0, 0, 0))
TWO_DEAD_FAILED = Hand(TWO_DEAD, 1, {0: H("JH JD AH KH QH 10H 7C 8C 7D 8D"), 1: H("9H 8H 7H AC KC AD KD")},
                       ("8H", "P"), _want(1, 1, 1, 1, 0, 0, 0, 0, 0, 0))
# Two players, 24 cards: seat 0 bids 7D (7 trumps: JD JH A K Q 10 9).
TWO_24_MADE = Hand(TWO_24, 1, {0: H("JD JH AD KD QD 10D 9D 9C 10C 9S"), 1: H("AC KC AS")}, ("7D", "P"),
                   _want(1, 1, 1, 0, 0, 0, 0, 0, 0, 0))
TWO_24_FAILED = Hand(TWO_24, 1, {0: H("JD JH AD KD QD 9C 10C 9S 10S 9H"), 1: H("10D 9D AC KC AS KS AH")},
                     ("7D", "P"), _want(1, 1, 1, 1, 1, 0, 0, 0, 0, 0))
# Three players, dealer 2: seat 0 passes, seat 1 bids 8S, seat 2 passes.
THREE_MADE = Hand(THREE, 2, {1: H("JS JC AS KS QS 10S 9S 8S 7H 8H"), 0: H("AH 9H"), 2: H("KH")}, ("P", "8S", "P"),
                  _want(0, 2, 1, 1, 1, 1, 1, 1, 1, 1))
THREE_FAILED = Hand(THREE, 2, {1: H("JS JC AS KS QS 10S 9S 7H 8H 7D"),
                               0: H("8S AH KH QH JH AC KC QC 10C 9C"),
                               2: H("7S AD KD QD JD 10D 9D 8D 8C 7C")}, ("P", "8S", "P"),
                    _want(2, 0, 0, 1, 1, 1, 1, 1, 1, 1), kitty=("JK", "10H", "9H"))
# Five players, dealer 4: seat 0 bids 8S and calls AH, which seat 3 holds.
FIVE_MADE = Hand(FIVE, 4, {0: H("JS JC AS KS QS 10S 9S 2H 2C 2D"), 3: H("AH 8S 3C 4C 5C 6C 7C 8C 9C 10C"),
                           1: H("AC 7S 6S 3D 4D 5D 6D 7D 3H 4H"), 2: H("AD 5S 4S 8D 9D 5H 6H 7H 8H 9H"),
                           4: H("3S 2S KC QC KD QD JD 10D KH QH")},
                 ("8S", "P", "P", "P", "P"), _want(3, 1, 2, 0, 0, 0, 0, 0, 0, 0), kitty=("JK", "JH", "10H"),
                 call="AH")
FIVE_FAILED = Hand(FIVE, 4, {0: H("JS JC AS KS QS 10S 2H 2C 3C 2D"), 3: H("AH 9S 8S 4C 5C 6C 7C 8C 9C 10C"),
                             1: H("AC 7S 6S 3D 4D 5D 6D 7D 3H 4H"), 2: H("AD 5S 4S 8D 9D 5H 6H 7H 8H 9H"),
                             4: H("3S 2S KC QC KD QD JD 10D KH QH")},
                   ("8S", "P", "P", "P", "P"), _want(3, 1, 2, 4, 0, 0, 0, 0, 0, 0), kitty=("JK", "JH", "10H"),
                   call="AH")
# Six players, dealer 5: seat 0 bids 7H. Every seat's ten cards are named; the rest (3, 5 or 6 cards) is the
# kitty, so the same deal serves every kitty size and both team layouts.
SIX_MADE_HANDS = {0: H("JH JD AH KH QH 13H 12H 2C 2D 2S"), 1: H("AC 3D 4D 4S 5S 11H 10H 9H 3C 4C"),
                  2: H("AS KC QC 5D 6D 8H 7H 6S 7S 5C"), 3: H("AD 3S KS QS JC 12C 7D 8D 6H 5H"),
                  4: H("KD QD 11S 13D 8S 9S 11C 10C 4H 3H"), 5: H("12D 11D 10D 9D JS 12S 9C 8C 2H 6C")}
SIX_FAILED_HANDS = {0: H("JH JD AH KH QH 13H 2C 2D 2S 3C"), 1: H("AC AD KC 3S 4D 4S 5S 11H 10H 9H"),
                    2: H("12H QC 5D 6D 8H 7H 6S 7S 5C JS"), 3: H("3D KS QS JC 12C 7D 8D 6H 5H 4C"),
                    4: H("KD QD 11S 13D 8S 9S 11C 10C 4H 3H"), 5: H("12D 11D 10D 9D AS 12S 9C 8C 2H 6C")}
SIX_AUCTION = ("7H", "P", "P", "P", "P", "P")
SIX_MADE_WANT = _want(1, 3, 2, 0, 0, 0, 0, 0, 0, 0)  # seat 0 seven, seats 1, 3 and 2 one each
SIX_FAILED_WANT = _want(1, 1, 5, 1, 0, 0, 0, 0, 0, 0)  # seat 0 six, seat 1 three, seat 5 one


def six_made(o: Options) -> Hand:
    return Hand(o, 5, SIX_MADE_HANDS, SIX_AUCTION, SIX_MADE_WANT)


def six_failed(o: Options) -> Hand:
    return Hand(o, 5, SIX_FAILED_HANDS, SIX_AUCTION, SIX_FAILED_WANT)


def play_hand(h: Hand, scores: Sequence[int] | None = None) -> tuple[GameState, list[Event]]:
    """Deal ``h``, optionally set the running totals first, then bid, exchange and play it out."""
    state = start(h.options, h.hands, dealer=h.dealer, kitty=h.kitty)
    if scores is not None:
        state = with_scores(state, scores)
    state, events = calls(state, *h.auction)
    if h.call is not None:
        state, ev = move(state, CallCard(seat=state.to_act, card=h.call))  # type: ignore[arg-type]
        events += ev
    state, ev = exchange(state)
    events += ev
    state, ev = play_out(state, h.want)
    return state, events + ev


SCORED = [
    # id, hand, contracting seats, made, tricks won per seat, deltas per side
    ("2p-dead_hand-made", TWO_DEAD_MADE, (0,), True, (8, 2), (300, 20)),
    ("2p-dead_hand-failed", TWO_DEAD_FAILED, (0,), False, (6, 4), (-300, 40)),
    ("2p-24_card-made", TWO_24_MADE, (0,), True, (7, 3), (180, 30)),
    ("2p-24_card-failed", TWO_24_FAILED, (0,), False, (5, 5), (-180, 50)),
    ("3p-made", THREE_MADE, (1,), True, (1, 8, 1), (10, 240, 10)),
    ("3p-failed", THREE_FAILED, (1,), False, (2, 7, 1), (20, -240, 10)),
    # contractor and called partner each score (or lose) the full value; each defender its own tricks
    ("5p-made", FIVE_MADE, (0, 3), True, (7, 1, 1, 1, 0), (240, 10, 10, 240, 0)),
    ("5p-failed", FIVE_FAILED, (0, 3), False, (6, 1, 1, 1, 1), (-240, 10, 10, -240, 10)),
]
for _k in (3, 5, 6):
    _o2, _o3 = opts(6, six_player_kitty=_k), opts(6, six_player_teams="three_teams_of_two", six_player_kitty=_k)
    SCORED += [
        (f"6p-2x3-kitty{_k}-made", six_made(_o2), (0, 2, 4), True, (7, 1, 1, 1, 0, 0), (200, 20)),
        (f"6p-2x3-kitty{_k}-failed", six_failed(_o2), (0, 2, 4), False, (6, 3, 0, 0, 0, 1), (-200, 40)),
        # three teams of two: both defending teams score their own tricks
        (f"6p-3x2-kitty{_k}-made", six_made(_o3), (0, 3), True, (7, 1, 1, 1, 0, 0), (200, 10, 10)),
        (f"6p-3x2-kitty{_k}-failed", six_failed(_o3), (0, 3), False, (6, 3, 0, 0, 0, 1), (-200, 30, 10)),
    ]


@pytest.mark.parametrize(("hand", "seats", "made", "won", "deltas"), [s[1:] for s in SCORED],
                         ids=[s[0] for s in SCORED])
def test_scored_hand(hand: Hand, seats: tuple[int, ...], made: bool, won: tuple[int, ...],
                     deltas: tuple[int, ...]):
    o = hand.options
    state, events = play_hand(hand)
    hs = scored(events)
    assert hs.contracting_seats == seats and hs.made is made
    assert hs.tricks_won == won
    assert hs.deltas == deltas and hs.scores == deltas
    assert state.scores == deltas and len(deltas) == len(sides(o))
    assert of_type(events, Discarded)[0].cards is not None
    assert len(of_type(events, Discarded)[0].cards) == _expected_kitty(o)
    assert not of_type(events, GameOver)
    # The deal passes one seat clockwise; the seat on the new dealer's left bids first.
    n = o.players
    dealt = of_type(events, HandDealt)
    assert [d.dealer for d in dealt] == [(hand.dealer + 1) % n]
    assert state.dealer == (hand.dealer + 1) % n and state.hand_number == 1
    assert state.phase == "auction" and state.to_act == (hand.dealer + 2) % n
    assert state.calls == () and all(len(h) == 10 for h in state.hands)
    assert len(state.kitty) == _expected_kitty(o)
    assert integrity_problems(state) == []


# ------------------------------------------------------------------------------------------------ game end

WIN, DEFEND, BACKWARDS = "win", "defend", "backwards"

GAME_END = [
    # id, hand, scores before, scores after, expected result (None: the game goes on)
    # Two players: the opponent also passes 500 by defending, but only a made contract wins.
    ("2p-dead_hand-win", TWO_DEAD_MADE, (200, 490), (500, 510), GameResult((0,), (), "contract")),
    ("2p-dead_hand-defend", TWO_DEAD_MADE, (100, 480), (400, 500), None),
    ("2p-dead_hand-backwards", TWO_DEAD_FAILED, (-200, 0), (-500, 40), GameResult((1,), (0,), "out_backwards")),
    ("2p-24_card-win", TWO_24_MADE, (320, 470), (500, 500), GameResult((0,), (), "contract")),
    ("2p-24_card-defend", TWO_24_FAILED, (0, 450), (-180, 500), None),
    ("2p-24_card-backwards", TWO_24_FAILED, (-330, -100), (-510, -50), GameResult((1,), (0,), "out_backwards")),
    # Three players: every opponent at 500 by defending, the contractor wins by its contract.
    ("3p-win", THREE_MADE, (490, 260, 490), (500, 500, 500), GameResult((1,), (), "contract")),
    ("3p-defend", THREE_FAILED, (480, 0, 490), (500, -240, 500), None),
    # RULES.md does not say who wins when one of three or more sides goes out backwards; the engine names the
    # highest of the others.
    ("3p-backwards", THREE_FAILED, (100, -260, 50), (120, -500, 60), GameResult((0,), (1,), "out_backwards")),
    # Five players, judged per player: contractor and partner both reach 500 on their made contract.
    ("5p-win-both", FIVE_MADE, (260, 490, 0, 300, 0), (500, 500, 10, 540, 0), GameResult((0, 3), (), "contract")),
    ("5p-win-contractor-only", FIVE_MADE, (300, 0, 0, 0, 0), (540, 10, 10, 240, 0),
     GameResult((0,), (), "contract")),
    ("5p-defend", FIVE_FAILED, (0, 490, 490, 0, 490), (-240, 500, 500, -240, 500), None),
    ("5p-backwards-both", FIVE_FAILED, (-260, 0, 0, -300, 20), (-500, 10, 10, -540, 30),
     GameResult((4,), (0, 3), "out_backwards")),
    ("5p-backwards-partner-only", FIVE_FAILED, (0, 0, 40, -260, 0), (-240, 10, 50, -500, 10),
     GameResult((2,), (3,), "out_backwards")),
]
for _k in (3, 5, 6):
    _o2, _o3 = opts(6, six_player_kitty=_k), opts(6, six_player_teams="three_teams_of_two", six_player_kitty=_k)
    GAME_END += [
        (f"6p-2x3-kitty{_k}-win", six_made(_o2), (300, 480), (500, 500), GameResult((0,), (), "contract")),
        (f"6p-2x3-kitty{_k}-defend", six_failed(_o2), (0, 470), (-200, 510), None),
        (f"6p-2x3-kitty{_k}-backwards", six_failed(_o2), (-300, 0), (-500, 40),
         GameResult((1,), (0,), "out_backwards")),
        (f"6p-3x2-kitty{_k}-win", six_made(_o3), (300, 490, 490), (500, 500, 500), GameResult((0,), (), "contract")),
        (f"6p-3x2-kitty{_k}-defend", six_failed(_o3), (0, 470, 490), (-200, 500, 500), None),
        (f"6p-3x2-kitty{_k}-backwards", six_failed(_o3), (-300, 100, 50), (-500, 130, 60),
         GameResult((1,), (0,), "out_backwards")),
    ]


@pytest.mark.parametrize(("hand", "before", "after", "result"), [g[1:] for g in GAME_END],
                         ids=[g[0] for g in GAME_END])
def test_game_end(hand: Hand, before: tuple[int, ...], after: tuple[int, ...], result: GameResult | None):
    state, events = play_hand(hand, scores=before)
    hs = scored(events)
    assert tuple(b + d for b, d in zip(before, hs.deltas, strict=True)) == after == hs.scores
    assert state.scores == after
    over = of_type(events, GameOver)
    if result is None:
        assert over == [] and state.result is None
        assert state.phase == "auction" and state.hand_number == 1
        assert state.dealer == (hand.dealer + 1) % hand.options.players
    else:
        assert len(over) == 1
        assert (over[0].winners, over[0].losers, over[0].reason) == (result.winners, result.losers, result.reason)
        assert state.result == result
        assert state.phase == "game_over" and state.to_act is None
        assert not of_type(events, HandDealt)  # no further deal
    assert integrity_problems(state) == []


# ------------------------------------------------------------------------------------------------ rotation


def _pass_round(state: GameState) -> tuple[GameState, list[Event]]:
    """Everyone passes, starting with the seat on the dealer's left."""
    n = state.options.players
    eldest = (state.dealer + 1) % n
    assert state.to_act == eldest
    state, events = calls(state, *["P"] * n)
    assert [e.seat for e in of_type(events, Passed)] == [(eldest + i) % n for i in range(n)]
    return state, events


@pytest.mark.parametrize("o", CONFIGS, ids=_id)
def test_throw_ins_pass_the_deal_clockwise(o: Options):
    """Everyone passes ``players + 1`` times: each throw-in moves the deal one seat clockwise, the new dealer's
    left bids first, and each new deck is dealt from the new dealer's left (RULES.md 1.4.2, 1.5.1, 1.6.7)."""
    n = o.players
    first = n - 1
    pack = pack_for(o)
    decks = [tuple(random.Random(f"rotation/{_id(o)}/{h}").sample(pack, len(pack))) for h in range(n + 2)]
    state, _ = new_game(o, seed=0, deck_orders=decks, first_dealer=first)
    _check_deal(state, decks[0], first)
    for h in range(1, n + 2):
        before = state.dealer
        state, events = _pass_round(state)
        thrown = of_type(events, ThrownIn)
        assert len(thrown) == 1 and thrown[0].reason == "all_passed"
        assert thrown[0].next_dealer == (before + 1) % n
        assert [d.dealer for d in of_type(events, HandDealt)] == [(before + 1) % n]
        assert not of_type(events, HandScored) and state.scores == (0,) * len(sides(o))
        assert state.hand_number == h and state.dealer == (first + h) % n
        _check_deal(state, decks[h], state.dealer)  # to_act is the new dealer's left
    assert state.dealer == 0  # once round the table from the last seat, and one seat more
