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
- misère: the contractor plays its highest card that still loses, and leads low; the defenders play under a
  winning contractor and low before the contractor has played, so as to force it to win.

Every rank and suit question is answered by the engine's :class:`engine.cards.Strain` table of the contract.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from engine import Play
from engine.cards import Strain
from engine.rules import MISERE_BIDS
from engine.tricks import beats, high_free_joker, led_suit, low_free_joker, seat_after, trick_winner_index


def choose_play(seat: int, hand: Sequence[str], legal: Sequence[Play], leader: int | None,
                trick_cards: Sequence[str], nominate: str | None, active: Sequence[int], table: Strain,
                bid: str | None, contractor: int | None, team: Collection[int], outstanding: Collection[str],
                partner_leads: str = "") -> Play:
    """The standard play for ``seat`` among ``legal`` (see the module docstring)."""
    if len(legal) == 1:
        return legal[0]
    suit_of = table.suit
    cards = list(dict.fromkeys(m.card for m in legal))
    card = choose_card(seat, hand, cards, leader, trick_cards, nominate, active, table, bid, contractor, team,
                       outstanding, partner_leads)
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


def choose_card(seat: int, hand: Sequence[str], cards: Sequence[str], leader: int | None,
                trick_cards: Sequence[str], nominate: str | None, active: Sequence[int], table: Strain,
                bid: str | None, contractor: int | None, team: Collection[int], outstanding: Collection[str],
                partner_leads: str = "", tops: Mapping[str | None, int] | None = None) -> str:
    """The card :func:`choose_play` plays among the legal ``cards`` (distinct). ``tops``, when the caller
    keeps it, is :func:`outstanding_tops` of ``outstanding`` (which is then not read)."""
    if len(cards) == 1:
        return cards[0]
    suit_of, power = table.suit, table.power
    trump = table.trump
    max_out = outstanding_tops(outstanding, table) if tops is None else tops

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
    order = tuple(active)
    w = trick_winner_index(trick_cards, nominate, table)
    winning, winner_seat = trick_cards[w], seat_after(order, leader, w)
    led = led_suit(trick_cards, nominate, table)
    winners = [c for c in cards if beats(c, winning, led, table)]
    last = len(trick_cards) == len(order) - 1
    if misere:
        seats_played = [seat_after(order, leader, i) for i in range(len(trick_cards))]
        losers = [c for c in cards if c not in winners]
        if seat == contractor:
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
