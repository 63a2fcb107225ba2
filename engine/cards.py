"""Cards, packs and the one effective-suit/rank function every other module uses.

Cards are the API's string tokens (``"10H"``, ``"JS"``, ``"JK"``), so the state, the views and the events all
speak the same vocabulary. Everything rank- or suit-shaped about a card in a given contract comes from a
:class:`Strain` table built once per (pack, contract shape) and cached: following, winning, void inference and
display all read the same table, so no other code re-derives bowers or joker suits.

>>> t = strain_table(("JK",) + tuple(f"{r}{s}" for s in "SCDH" for r in ("J", "A")), "H", None)
>>> t.suit["JD"], t.suit["JK"], t.suit["JS"]
('H', 'H', 'S')
>>> t.power["JK"] > t.power["JH"] > t.power["JD"] > t.power["AH"]
True
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

SUITS: Final = ("S", "C", "D", "H")
STRAINS: Final = ("S", "C", "D", "H", "NT")
SAME_COLOUR: Final = {"S": "C", "C": "S", "D": "H", "H": "D"}
JOKER: Final = "JK"
#: The second joker of the 46- and 66-card packs (the black one); it outranks ``JK``.
BLACK_JOKER: Final = "JKB"
JOKERS: Final = (BLACK_JOKER, JOKER)  # high to low

#: Plain-suit rank order, high to low, over every rank any pack uses (the six-player pack's 13/12/11 sit
#: between the jack and the ten).
RANK_ORDER: Final = ("A", "K", "Q", "J", "13", "12", "11", "10", "9", "8", "7", "6", "5", "4", "3", "2")
_RANK_VALUE: Final = {r: len(RANK_ORDER) - i for i, r in enumerate(RANK_ORDER)}  # A=16 … 2=1
#: Ranks that count as "faces" for the no-ace-no-face rule.
HONOURS: Final = frozenset({"A", "K", "Q", "J"})


def card(rank: str, suit: str) -> str:
    """The card token of ``rank`` and ``suit``: the one string object the engine uses for it (see ``ALL_CARDS``)."""
    return sys.intern(rank + suit)


def rank_of(c: str) -> str:
    """The printed rank of a non-joker card token (``"10H"`` → ``"10"``)."""
    return c[:-1]


def suit_of(c: str) -> str | None:
    """The printed suit of a card token, ``None`` for a joker."""
    return None if c in JOKERS else c[-1]


def parse_card(token: object, pack: frozenset[str] | None = None) -> str:
    """Return ``token`` if it names a card (of ``pack`` when given); raise ``ValueError`` naming it otherwise.

    Parsing and printing are exact inverses: the token is the card.

    >>> parse_card("10H")
    '10H'
    >>> parse_card("1H")
    Traceback (most recent call last):
    ...
    ValueError: '1H' is not a card token
    """
    if not isinstance(token, str) or token not in ALL_CARDS:
        raise ValueError(f"{token!r} is not a card token")
    if pack is not None and token not in pack:
        raise ValueError(f"{token!r} is not in this game's pack")
    return token


#: Every card token. The engine's packs, hands, moves and tables hold one string object per card (interned,
#: ``sys.intern``), so that a lookup of a dealt card in a table keyed by cards (a :class:`Strain`'s, the shared
#: moves') matches by identity before comparing text. Equal strings from elsewhere (a decoded snapshot) give the
#: same answers, compared by text.
ALL_CARDS: Final = frozenset([card(r, s) for r in RANK_ORDER for s in SUITS] + [sys.intern(j) for j in JOKERS])


def _suit_cards(ranks: Iterable[str], suit: str) -> list[str]:
    return [card(r, suit) for r in ranks]


def build_pack(players: int, *, deck_4p: str = "43", fours_removed: str = "black",
               two_player_method: str = "uspcc_dead_hand", five_player_deck: str = "52_plus_joker",
               six_player_kitty: int = 3) -> tuple[str, ...]:
    """The pack for a player count and its deck options, in a fixed canonical order (suits S C D H, high to low,
    then the jokers). Shuffling permutes this order.

    >>> len(build_pack(4)), len(build_pack(3)), len(build_pack(5)), len(build_pack(6))
    (43, 33, 53, 63)
    """
    cards: list[str] = []
    jokers: list[str] = [JOKER]
    if players == 4:
        low = {"S": "5", "C": "5", "D": "4", "H": "4"}
        if deck_4p == "43" and fours_removed == "4S_4D":
            low = {"S": "5", "C": "4", "D": "5", "H": "4"}
        elif deck_4p in ("45", "46"):
            low = {s: "4" for s in SUITS}
        for s in SUITS:
            ranks = RANK_ORDER[: RANK_ORDER.index(low[s]) + 1]
            cards += _suit_cards((r for r in ranks if r not in ("13", "12", "11")), s)
        if deck_4p == "46":
            jokers = [BLACK_JOKER, JOKER]
    elif players in (2, 3):
        if players == 2 and two_player_method == "uspcc_24_card":
            ranks = ("A", "K", "Q", "J", "10", "9")
            jokers = []
        else:
            ranks = ("A", "K", "Q", "J", "10", "9", "8", "7")
        for s in SUITS:
            cards += _suit_cards(ranks, s)
    elif players == 5:
        for s in SUITS:
            if five_player_deck == "stripped_63":
                kept = [r for r in RANK_ORDER if r not in ("2", "3") and not (r in ("13", "4") and s in "SC")]
            else:
                kept = [r for r in RANK_ORDER if r not in ("13", "12", "11")]
            cards += _suit_cards(kept, s)
    elif players == 6:
        for s in SUITS:
            with_13 = s in "DH" or six_player_kitty >= 5
            cards += _suit_cards((r for r in RANK_ORDER if r != "13" or with_13), s)
        if six_player_kitty == 6:
            jokers = [BLACK_JOKER, JOKER]
    else:
        raise ValueError(f"no pack for {players} players")
    return tuple(cards + [sys.intern(j) for j in jokers])


class Strain:
    """How every card of a pack behaves in one contract shape: its effective suit and its trick-taking power.

    ``trump`` is a suit for suit contracts and ``None`` for the NT family. ``nominations`` maps a joker to the suit
    the contractor nominated for it (NT family only). Un-nominated jokers in the NT family have effective suit
    ``None`` ("no suit") and top power; ``joker_low`` makes them the lowest card instead (misère option).

    ``power`` orders cards within one effective suit, with trumps above every plain card, so the trick winner is
    simply the highest-power card among those of the led suit or trumps.
    """

    __slots__ = ("trump", "suit", "power", "by_suit", "led_ranks", "cards", "bit", "suit_mask", "trump_mask",
                 "high_free_mask", "low_free_mask", "bit_suit", "bit_power", "bit_pack", "narrow")

    def __init__(self, pack: tuple[str, ...], trump: str | None, nominations: tuple[tuple[str, str], ...],
                 joker_low: bool = False, low_trump: str | None = None) -> None:
        self.trump = trump
        nominated = dict(nominations)
        suit: dict[str, str | None] = {}
        power: dict[str, int] = {}
        left = SAME_COLOUR[trump] if trump else None
        for c in pack:
            if c in JOKERS:
                joker_rank = 2 if c == BLACK_JOKER else 1  # the black joker outranks the coloured one
                if trump is not None:
                    suit[c] = trump
                    power[c] = 300 + joker_rank
                elif c in nominated:
                    suit[c] = nominated[c]
                    power[c] = 100 + 50 + joker_rank  # above the ace of its nominated suit
                else:
                    suit[c] = None
                    power[c] = -10 + joker_rank if joker_low else 400 + joker_rank
                continue
            r, s = c[:-1], c[-1]
            if c == low_trump and trump is not None:
                suit[c], power[c] = trump, 200  # fours_removed=4S_4D: the lowest trump
            elif trump is not None and r == "J" and s == trump:
                suit[c], power[c] = trump, 290  # right bower
            elif trump is not None and r == "J" and s == left:
                suit[c], power[c] = trump, 280  # left bower
            else:
                suit[c] = s
                power[c] = _RANK_VALUE[r] + (200 if s == trump else 100)
        self.suit = suit
        self.power = power
        by_suit: dict[str | None, frozenset[str]] = {}
        for c, s2 in suit.items():
            by_suit[s2] = by_suit.get(s2, frozenset()) | {c}
        self.by_suit = by_suit
        #: Per led suit, each card's claim on a trick led in it (:func:`engine.tricks.led_ranks`), filled as asked.
        self.led_ranks: dict[str | None, dict[str, int]] = {}
        self._number_bits(pack)

    def _number_bits(self, pack: tuple[str, ...]) -> None:
        """The cards as bit positions, for searches (engine/masks.py): the low free jokers first, then each plain
        suit's cards, then the trumps, then the high free jokers, each run by power, low to high. So within an
        effective suit a higher bit is a higher card, and among the cards that may win a trick (the led suit's,
        the trumps, the high free jokers) the highest bit wins it."""
        suit, power, trump = self.suit, self.power, self.trump
        place = {c: i for i, c in enumerate(pack)}

        def bit_order(c: str) -> tuple[int, int, int]:
            s = suit[c]
            if s is None:
                return (0 if power[c] < 0 else 3, 0, power[c])
            if s == trump:
                return (2, 0, power[c])
            return (1, SUITS.index(s), power[c])

        #: Bit ``i`` stands for ``cards[i]``; ``bit[c]`` is ``1 << i``.
        self.cards: tuple[str, ...] = tuple(sorted(pack, key=bit_order))
        self.bit: dict[str, int] = {c: 1 << i for i, c in enumerate(self.cards)}
        #: Per effective suit (``None``: the free jokers), the mask of its cards.
        self.suit_mask: dict[str | None, int] = {}
        for c in self.cards:
            self.suit_mask[suit[c]] = self.suit_mask.get(suit[c], 0) | self.bit[c]
        self.trump_mask: int = self.suit_mask.get(trump, 0) if trump is not None else 0
        self.high_free_mask: int = sum(self.bit[c] for c in self.cards if suit[c] is None and power[c] > 0)
        self.low_free_mask: int = sum(self.bit[c] for c in self.cards if suit[c] is None and power[c] < 0)
        #: Per bit position: the card's effective suit, power and place in the pack's canonical order.
        self.bit_suit: tuple[str | None, ...] = tuple(suit[c] for c in self.cards)
        self.bit_power: tuple[int, ...] = tuple(power[c] for c in self.cards)
        self.bit_pack: tuple[int, ...] = tuple(place[c] for c in self.cards)
        #: Whether every mask fits a signed 64-bit integer (at most 63 cards; engine/masks.py).
        self.narrow: bool = len(self.cards) <= 63

    def order(self, cards: Iterable[str]) -> list[str]:
        """Cards sorted high to low by power."""
        return sorted(cards, key=self.power.__getitem__, reverse=True)


@lru_cache(maxsize=512)
def strain_table(pack: tuple[str, ...], trump: str | None, nominations: tuple[tuple[str, str], ...] | None,
                 joker_low: bool = False, low_trump: str | None = None) -> Strain:
    """The cached :class:`Strain` for a pack and contract shape (``nominations`` is ``None`` or sorted pairs)."""
    return Strain(pack, trump, nominations or (), joker_low, low_trump)


def effective_suit(c: str, table: Strain) -> str | None:
    """The suit ``c`` counts as for following, leading and winning (``None``: an un-nominated NT joker)."""
    return table.suit[c]


def sort_hand(cards: Iterable[str], pack_index: dict[str, int]) -> tuple[str, ...]:
    """A hand in canonical pack order (suits S C D H, high to low, jokers last), for stable views."""
    return tuple(sorted(cards, key=pack_index.__getitem__))
