"""Standard card play, one policy for the ``basic`` bot and for the ``expert`` bot's playouts.

The policy sees one seat's hand, the trick so far, its side, and the cards the others may hold (``outstanding``:
for the ``basic`` bot the cards its seat has not seen; inside a playout over a sampled deal, the cards the other
hands really hold). It plays as a club player is taught to:

- leading as the contracting side in a suit contract: draw trumps with a master trump while the others may
  still hold trumps; otherwise cash a master card; a defender leads back a suit its partner led; else low from
  the longest plain suit;
- following: don't overtake a partner who is winning; second hand low unless it can win with a master card;
  third hand high (a master winner, else the highest winner); last hand wins as cheaply as it can; a seat that
  cannot win plays its lowest card (plain cards before trumps when void);
- misère: the contractor plays its highest card that still loses, and leads low; void in the suit led, it
  throws its riskiest card (:func:`misere_risk`: by how far it sits above the cards of its suit it holds below
  it, not by its rank alone: an ace is safe beside every lower card of its suit); the defenders play under a
  winning contractor and low before the contractor has played, so as to force it to win.

Every rank and suit question is answered by the engine's :class:`engine.cards.Strain` table of the contract.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from engine import Play
from engine.cards import Strain
from engine.masks import beating_mask, count, winning_index
from engine.memo import remember
from engine.model import Trick
from engine.rules import MISERE_BIDS
from engine.tricks import beats, high_free_joker, led_suit, low_free_joker, seat_after, trick_winner_index

if TYPE_CHECKING:
    from mypy_extensions import i64


class HandInPlay:
    """What every seat knows of the hand being played, for the whole of its card play: the contract's strain
    ``table``, its ``bid`` and ``contractor`` (``None`` when no contract is played) and the seats playing it
    (``active``, in the order of play)."""

    __slots__ = ("table", "bid", "contractor", "active")

    def __init__(self, table: Strain, bid: str | None, contractor: int | None, active: Sequence[int]) -> None:
        self.table = table
        self.bid = bid
        self.contractor = contractor
        self.active = tuple(active)


def choose_play(game: HandInPlay, seat: int, hand: Sequence[str], legal: Sequence[Play], trick: Trick | None,
                team: Collection[int], outstanding: Collection[str], partner_leads: str = "") -> Play:
    """The standard play for ``seat`` among ``legal`` (see the module docstring): ``trick`` is the trick in
    progress (``None`` when leading), ``outstanding`` the cards the others may hold."""
    if len(legal) == 1:
        return legal[0]
    suit_of = game.table.suit
    cards = list(dict.fromkeys(m.card for m in legal))
    card = choose_card(game, seat, hand, cards, trick, team, outstanding_tops(outstanding, game.table),
                       partner_leads)
    options = [m for m in legal if m.card == card]
    if len(options) == 1:
        return options[0]
    # Leading a free joker: name the suit this seat holds most of (it draws the others' cards of it).
    counts = {m.nominate: sum(1 for x in hand if suit_of[x] == m.nominate) for m in options}
    return max(options, key=lambda m: counts[m.nominate])


def outstanding_tops(outstanding: Collection[str], table: Strain) -> dict[str | None, int]:
    """The power of the highest of the ``outstanding`` cards in each effective suit (jokers: ``None``) they hold."""
    suit_of, power = table.suit, table.power
    max_out: dict[str | None, int] = {}
    for o in outstanding:
        so = suit_of[o]
        if power[o] > max_out.get(so, -1000):
            max_out[so] = power[o]
    return max_out


def choose_card(game: HandInPlay, seat: int, hand: Sequence[str], cards: Sequence[str], trick: Trick | None,
                team: Collection[int], tops: Mapping[str | None, int], partner_leads: str = "") -> str:
    """The card :func:`choose_play` plays among the legal ``cards`` (distinct) of ``seat``'s ``hand``: ``trick``
    is the trick in progress (``None`` when leading), ``team`` the seats on its side this hand, ``tops`` the
    power of the highest card the others may hold in each effective suit (:func:`outstanding_tops`; only the
    suits of ``cards`` and trumps are read), ``partner_leads`` the suits its partners have led."""
    if len(cards) == 1:
        return cards[0]
    table, bid, contractor = game.table, game.bid, game.contractor
    leader = trick.leader if trick is not None else None
    trick_cards: Sequence[str] = trick.cards if trick is not None else ()
    nominate = trick.nominate if trick is not None else None
    max_out = tops
    if len(cards) == 1:
        return cards[0]
    suit_of, power = table.suit, table.power
    trump = table.trump

    def master(c: str) -> bool:
        s = suit_of[c]
        return power[c] > max_out.get(s, -1000) and not low_free_joker(c, table)

    misere = bid in MISERE_BIDS

    def low_key(c: str) -> tuple[int, int, int]:
        s = suit_of[c]
        free = 1 if high_free_joker(c, table) else 0
        return (free, 1 if trump is not None and s == trump else 0, power[c])

    if not trick_cards:  # leading
        if misere:
            plain = [c for c in cards if not high_free_joker(c, table)] or cards
            if seat == contractor:
                return min(plain, key=power.__getitem__)
            return min(plain, key=low_key)
        contracting = contractor is not None and contractor in team
        masters = [c for c in cards if master(c)]
        if contracting and trump is not None:
            trumps_out = trump in max_out
            my_trumps = [c for c in cards if suit_of[c] == trump]
            if trumps_out and my_trumps:
                top = [c for c in my_trumps if master(c)]
                if top:
                    return max(top, key=power.__getitem__)
                if seat == contractor and len(my_trumps) >= 3:
                    return min(my_trumps, key=power.__getitem__)
        plain_masters = [c for c in masters if trump is None or suit_of[c] != trump]
        if plain_masters:
            return max(plain_masters, key=power.__getitem__)
        if masters and contracting:
            return max(masters, key=power.__getitem__)
        for s in partner_leads:
            mine = [c for c in cards if suit_of[c] == s]
            if mine:
                return min(mine, key=power.__getitem__)
        lengths: dict[str | None, int] = {}
        for c in hand:
            lengths[suit_of[c]] = lengths.get(suit_of[c], 0) + 1
        side = [c for c in cards if suit_of[c] is not None and suit_of[c] != trump] or cards
        longest = max(side, key=lambda c: (lengths.get(suit_of[c], 0), -power[c]))
        same = [c for c in side if suit_of[c] == suit_of[longest]]
        return min(same, key=power.__getitem__)

    assert leader is not None
    order = game.active
    w = trick_winner_index(trick_cards, nominate, table)
    winning, winner_seat = trick_cards[w], seat_after(order, leader, w)
    led = led_suit(trick_cards, nominate, table)
    winners = [c for c in cards if beats(c, winning, led, table)]
    last = len(trick_cards) == len(order) - 1
    if misere:
        seats_played = [seat_after(order, leader, i) for i in range(len(trick_cards))]
        losers = [c for c in cards if c not in winners]
        if seat == contractor:
            if losers and not any(suit_of[c] == led for c in cards):
                return max(losers, key=lambda c: misere_risk(c, hand, table))  # void: the riskiest card
            return max(losers, key=power.__getitem__) if losers else max(winners, key=power.__getitem__)
        if contractor in seats_played:
            if winner_seat == contractor and losers:
                return max(losers, key=power.__getitem__)
            return max(cards, key=low_key)
        return min(cards, key=low_key)
    if winner_seat in team or not winners:
        return min(cards, key=low_key)
    if last:
        return min(winners, key=low_key)
    master_winners = [c for c in winners if master(c)]
    if len(trick_cards) == 1:  # second hand low, unless it wins for sure
        if master_winners:
            return min(master_winners, key=low_key)
        if trump is not None and suit_of[winners[0]] == trump and led != trump:
            return min(winners, key=low_key)  # a ruff
        return min(cards, key=low_key)
    if master_winners:
        return min(master_winners, key=low_key)
    return max(winners, key=low_key)


# ------------------------------------------------------------------------------------------------ over masks


class BitKeys:
    """Per bit of a strain table (:mod:`engine.masks`), the sort keys :func:`choose_bit` picks by, as integers
    whose largest is the card :func:`choose_card`'s ``max``/``min`` would take (ties go to the first card in the
    hand's order, the pack's, as ``min`` and ``max`` take the first of equal keys): by power, highest and lowest;
    by ``low_key`` (a high free joker last, then a trump, then power), highest and lowest; the first in the pack."""

    __slots__ = ("power_high", "power_low", "low_high", "low_low", "first", "lower", "place")

    def __init__(self, table: Strain) -> None:
        trump = table.trump
        n = len(table.cards)
        self.power_high: list[int] = [0] * n
        self.power_low: list[int] = [0] * n
        self.low_high: list[int] = [0] * n
        self.low_low: list[int] = [0] * n
        self.first: list[int] = [0] * n
        for i in range(n):
            s, p, place = table.bit_suit[i], table.bit_power[i] + 1000, table.bit_pack[i]
            free = 1 if s is None and p > 1000 else 0
            low = ((free * 2 + (1 if trump is not None and s == trump else 0)) << 12) + p
            self.power_high[i] = (p << 7) + 127 - place
            self.power_low[i] = -((p << 7) + place)
            self.low_high[i] = (low << 7) + 127 - place
            self.low_low[i] = -((low << 7) + place)
            self.first[i] = -place
        #: per bit, the mask of the cards of its effective suit below it (for :func:`misere_risk` over masks)
        self.lower: list[int] = [0] * n
        self.place: list[int] = [table.bit_pack[i] for i in range(n)]
        for i in range(n):
            s, p = table.bit_suit[i], table.bit_power[i]
            if s is None:
                continue
            m = table.suit_mask[s]
            while m:
                low = m & -m
                j = low.bit_length() - 1
                if table.bit_power[j] < p:
                    self.lower[i] |= low
                m ^= low


_BIT_KEYS: dict[Strain, BitKeys] = {}


def bit_keys(table: Strain) -> BitKeys:
    """The :class:`BitKeys` of a strain table, built once (the tables are cached and immutable)."""
    keys = _BIT_KEYS.get(table)
    if keys is None:
        keys = remember(_BIT_KEYS, table, BitKeys(table), 1024)
    return keys


def _top(mask: int, keys: list[int]) -> int:
    """The bit of ``mask`` with the largest key."""
    best, best_key = 0, 0
    while mask:
        low = mask & -mask
        k = keys[low.bit_length() - 1]
        if best == 0 or k > best_key:
            best, best_key = low, k
        mask ^= low
    return best


def misere_risk(card: str, hand: Collection[str], table: Strain) -> tuple[int, int]:
    """How dangerous ``card`` of ``hand`` is to keep at misère, the larger the riskier: how many cards of its
    effective suit in the pack sit below it, less two for each card of the suit below it that ``hand`` holds (a
    card is safe when each card above the hand's lower cards has two cards below it for every one the hand
    holds, as :func:`bots.basic.misere_danger` counts), then that count alone. A card of no suit: 0."""
    s = table.suit[card]
    if s is None:
        return (0, 0)
    power = table.power
    p = power[card]
    pos = 0
    below = 0
    for x in table.by_suit[s]:
        if power[x] < p:
            pos += 1
    for x in hand:
        if table.suit[x] == s and power[x] < p:
            below += 1
    return (pos - 2 * below, pos)


def _top_risk(mask: int, hand: int, keys: BitKeys) -> int:
    """:func:`misere_risk`'s riskiest card of ``mask`` (``hand``: the seat's), over masks; ties to the first in
    the pack's order, as ``max`` takes them."""
    best, best_key = 0, 0
    lower, place = keys.lower, keys.place
    while mask:
        low = mask & -mask
        i = low.bit_length() - 1
        pos = count(lower[i])
        k = ((pos - 2 * count(hand & lower[i]) + 256) << 16) + (pos << 7) + 127 - place[i]
        if best == 0 or k > best_key:
            best, best_key = low, k
        mask ^= low
    return best


def _masters(cards: int, others: int, table: Strain) -> int:
    """The cards of ``cards`` that no card of ``others`` beats in its effective suit (a low free joker never)."""
    if not table.narrow:
        return _wide_masters(cards, others, table)
    out: i64 = 0
    rest: i64 = others
    mine: i64 = cards & ~table.low_free_mask
    for suit_cards in table.suit_mask.values():
        held: i64 = mine & suit_cards
        if held:
            # The cards held above the highest of the others' in the suit: above every bit of ``beaten``, the
            # others' cards with every lower bit set.
            beaten: i64 = rest & suit_cards
            beaten |= beaten >> 1
            beaten |= beaten >> 2
            beaten |= beaten >> 4
            beaten |= beaten >> 8
            beaten |= beaten >> 16
            beaten |= beaten >> 32
            out |= held & ~beaten
    return out


def _wide_masters(cards: int, others: int, table: Strain) -> int:
    """:func:`_masters` over Python integers, for a pack too wide for 64-bit ones (``table.narrow``)."""
    out = 0
    suit_mask, bit_suit = table.suit_mask, table.bit_suit
    m = cards & ~table.low_free_mask
    while m:
        low = m & -m
        if others & suit_mask[bit_suit[low.bit_length() - 1]] < low:
            out |= low
        m ^= low
    return out


# long: one function, as choose_card is, rule for rule (tests/bots/test_cardplay_bits.py compares the two)
def choose_bit(game: HandInPlay, keys: BitKeys, seat: int, hand: int, legal: int, leader: int, trick: Sequence[int],
               led: str | None, team: Collection[int], others: int, partner_leads: str = "") -> int:
    """:func:`choose_card` over masks (:mod:`engine.masks`), for playouts where every hand is known: ``hand`` and
    ``legal`` are the seat's masks, ``trick`` the bits of the trick in progress led by ``leader`` in ``led``,
    ``others`` the mask of the cards the other seats playing hold. Answers the bit of the card
    :func:`choose_card` plays, its ``tops`` being the highest of ``others`` in each suit."""
    if legal & (legal - 1) == 0:
        return legal
    table = game.table
    trump_mask, suit_mask, bit_suit = table.trump_mask, table.suit_mask, table.bit_suit
    contractor = game.contractor
    misere = game.bid in MISERE_BIDS
    if not trick:  # leading
        if misere:
            plain = legal & ~table.high_free_mask or legal
            return _top(plain, keys.power_low if seat == contractor else keys.low_low)
        contracting = contractor is not None and contractor in team
        masters = _masters(legal, others, table)
        if contracting and trump_mask:
            my_trumps = legal & trump_mask
            if others & trump_mask and my_trumps:
                top = my_trumps & masters
                if top:
                    return 1 << (top.bit_length() - 1)
                if seat == contractor and count(my_trumps) >= 3:
                    return my_trumps & -my_trumps
        plain_masters = masters & ~trump_mask
        if plain_masters:
            return _top(plain_masters, keys.power_high)
        if masters and contracting:
            return _top(masters, keys.power_high)
        for s in partner_leads:
            mine = legal & suit_mask.get(s, 0)
            if mine:
                return mine & -mine
        free = suit_mask.get(None, 0)
        side = legal & ~free & ~trump_mask or legal
        best, best_key = 0, 0
        m = side
        while m:
            low = m & -m
            i = low.bit_length() - 1
            k = (count(hand & suit_mask[bit_suit[i]]) << 20) + ((4000 - table.bit_power[i]) << 7) + 127 - \
                table.bit_pack[i]
            if best == 0 or k > best_key:
                best, best_key = low, k
            m ^= low
        same = side & suit_mask[bit_suit[best.bit_length() - 1]]
        return same & -same
    order = game.active
    w = winning_index(trick, led, table)
    winning = trick[w]
    start = order.index(leader)
    winner_seat = order[(start + w) % len(order)]
    winners = beating_mask(legal, winning, led, table)
    if misere:
        losers = legal & ~winners
        if seat == contractor:
            if losers and not legal & suit_mask.get(led, 0):
                return _top_risk(losers, hand, keys)  # void: the riskiest card
            return _top(losers or winners, keys.power_high)
        if any(order[(start + i) % len(order)] == contractor for i in range(len(trick))):
            if winner_seat == contractor and losers:
                return _top(losers, keys.power_high)
            return _top(legal, keys.low_high)
        return _top(legal, keys.low_low)
    if winner_seat in team or not winners:
        return _top(legal, keys.low_low)
    if len(trick) == len(order) - 1:
        return _top(winners, keys.low_low)
    master_winners = _masters(winners, others, table)
    if len(trick) == 1:  # second hand low, unless it wins for sure
        if master_winners:
            return _top(master_winners, keys.low_low)
        if trump_mask and _top(winners, keys.first) & trump_mask and led != table.trump:
            return _top(winners, keys.low_low)  # a ruff
        return _top(legal, keys.low_low)
    if master_winners:
        return _top(master_winners, keys.low_low)
    return _top(winners, keys.low_high)
