"""The rules of a trick over cards as bit positions: the engine's inside for searches.

A hand's :class:`engine.cards.Strain` table also numbers the pack's cards as bits (``table.bit``, ``table.cards``):
the low free jokers, then each plain suit, then the trumps, then the high free jokers, each run low to high by
power. A set of cards is then an ``int`` (a *mask*) and the rules a search asks about most become a few integer
operations:

- the cards of an effective suit in a hand: ``hand & table.suit_mask[suit]``;
- whether a card is the best left of its suit: ``others & table.suit_mask[suit] < bit``;
- who wins a trick: among the led card and the cards that may win (the led suit's, the trumps, the high free
  jokers), the highest bit (:func:`winning_index`);
- the cards that would take a trick now (:func:`beating_mask`) and the cards that may follow
  (:func:`follow_mask`).

In the compiled build, the hottest of them work on 64-bit integers when every bit fits (``table.narrow``: packs of
up to 63 cards; mypyc's own integers hold 62 bits, so a mask holding the six-player pack's top card was a
Python integer object in every operation), and on Python integers otherwise.

Each is the general rule of :mod:`engine.tricks` and :mod:`engine.play` in another form, and
``tests/engine/test_masks.py`` checks every one against it on many random states. The vocabulary stays the
API's: a mask is read back as card tokens with :func:`cards_of`.

>>> from engine.cards import build_pack, strain_table
>>> t = strain_table(build_pack(4), "H", None)
>>> cards_of(mask_of(("JD", "AH", "5S"), t), t)
['5S', 'JD', 'AH']
>>> winning_index([t.bit[c] for c in ("AD", "JD", "JH", "10D")], "D", t)
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from engine.cards import Strain

if TYPE_CHECKING:
    from mypy_extensions import i64


def mask_of(cards: Iterable[str], table: Strain) -> int:
    """The mask of ``cards``."""
    bit = table.bit
    m = 0
    for c in cards:
        m |= bit[c]
    return m


def cards_of(mask: int, table: Strain) -> list[str]:
    """The cards of ``mask``, in the pack's canonical order (the order of a hand)."""
    out: list[tuple[int, str]] = []
    cards, pack = table.cards, table.bit_pack
    while mask:
        low = mask & -mask
        i = low.bit_length() - 1
        out.append((pack[i], cards[i]))
        mask ^= low
    out.sort()
    return [c for _, c in out]


def count(mask: int) -> int:
    """How many cards ``mask`` holds."""
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


def winning_index(bits: Sequence[int], led: str | None, table: Strain) -> int:
    """Index of the card winning the (possibly partial) trick of ``bits`` led in ``led``:
    :func:`engine.tricks.trick_winner_index` (the led card counts, and of the others those of the led suit, the
    trumps and the high free jokers; the highest bit wins)."""
    if not table.narrow:
        return _wide_winning_index(bits, led, table)
    eligible: i64 = table.suit_mask.get(led, 0) | table.trump_mask | table.high_free_mask
    best: i64 = bits[0]
    best_i = 0
    for i in range(1, len(bits)):
        b: i64 = bits[i]
        if b & eligible and b > best:
            best_i, best = i, b
    return best_i


def _wide_winning_index(bits: Sequence[int], led: str | None, table: Strain) -> int:
    """:func:`winning_index` over Python integers, for a pack too wide for 64-bit ones (``table.narrow``)."""
    eligible = table.suit_mask.get(led, 0) | table.trump_mask | table.high_free_mask
    best_i, best = 0, bits[0]
    for i in range(1, len(bits)):
        b = bits[i]
        if b & eligible and b > best:
            best_i, best = i, b
    return best_i


def beating_mask(cards: int, winning: int, led: str | None, table: Strain) -> int:
    """The cards of ``cards`` that, played now to a trick led in ``led`` that the card ``winning`` (a bit) is
    winning, would win it: :func:`engine.tricks.beats` of each."""
    i = winning.bit_length() - 1
    ws = table.bit_suit[i]
    if ws is None and table.bit_power[i] < 0:  # a led low joker loses to the suit it was led as, a trump and a
        return cards & (table.suit_mask.get(led, 0) | table.trump_mask | table.high_free_mask)  # high joker
    if not table.narrow:
        return _wide_beating_mask(cards, winning, ws, table)
    mine: i64 = cards
    w: i64 = winning
    above: i64 = ~((w - 1) | w)  # the bits above the winning card's
    high: i64 = table.high_free_mask
    if ws is None:
        return mine & high & above
    suit: i64 = table.suit_mask[ws]
    beating: i64 = (suit & above) | high
    if ws != table.trump:
        beating |= table.trump_mask
    return mine & beating


def _wide_beating_mask(cards: int, winning: int, ws: str | None, table: Strain) -> int:
    """:func:`beating_mask` over Python integers (``table.narrow``), ``ws`` being the winning card's suit; not
    for a led low joker."""
    above = ~((winning - 1) | winning)
    if ws is None:
        return cards & table.high_free_mask & above
    beating = (table.suit_mask[ws] & above) | table.high_free_mask
    if ws != table.trump:
        beating |= table.trump_mask
    return cards & beating


def follow_mask(hand: int, led: str | None, table: Strain, joker_forced: bool) -> int:
    """The cards of ``hand`` that may follow to a trick led in ``led``: :func:`engine.play.cards_to_follow`
    without ``joker_follow_first_round`` (the led suit if held; void, any card, except the high free joker
    when ``joker_forced``, :func:`engine.tricks.joker_forced`)."""
    same = hand & table.suit_mask.get(led, 0)
    if same:
        return same
    if joker_forced:
        forced = hand & table.high_free_mask
        if forced:
            return forced
    return hand


__all__ = ["beating_mask", "cards_of", "count", "follow_mask", "mask_of", "winning_index"]
