"""Opponents of another style than ``basic``'s, for measuring the expert against players it does not model.

The expert reads the other seats as if they bid and played like ``basic`` (bots/inference.py) and plays its
playouts with ``basic``'s policy; against ``basic`` itself that model is exact, against other players it is not.
These bots are written apart from ``basic`` (no shared bidding estimate, no shared card play), from the seat's
view only, and are no API level: ``tests/bench/match.py --b shape`` (or ``--b guide``) plays them.

- ``shape``: an aggressive bidder on shape, as many club players bid: trumps counted by length (every trump past
  the third is a trick), the top trumps and side aces, a void or singleton as a ruff when long in trumps, and
  the partner counted for a trick and a half; it bids up to the level it counts plus half a trick, competes over
  the other side rather than let it buy cheaply, and bids misère on any hand without a card above the nine and
  no joker (open misère with nothing above the seven). Its card play is the textbook's other school: the
  contracting side draws trumps from the top, a defender leads a singleton to get a ruff, else an ace, else the
  top of its longest suit; second hand plays a winner whenever it has one, third hand high, the last player wins
  as cheaply as it can, partners are not overtaken, a void seat ruffs low when the other side is winning. Misère
  play and the setup steps other than the discard are ``basic``'s.
- ``guide``: bids and defends by the conventions of a published strategy guide. It counts sure tricks, not
  points: a card counts when it is guarded against the higher cards it does not hold (the king with one card
  beside it, the third trump with two), every trump past the fourth, a side ace and the king beneath it, and a
  void or singleton only beside five trumps; a partner counts for one trick and the kitty for half. It bids the
  full count at once and never above it (no half trick of hope), raises a partner's suit by what it holds in
  support (the partner's bid read as its level less two tricks of its own), and does not take a partner out into
  another strain without two tricks more. Misère when the hand is safe after the discard: the riskiest cards
  (the joker first) set aside as the discard will, every suit left is low enough that each card has two cards
  below it for every card above it (open misère: stricter). Card play by the guide: the contractor draws trumps
  with a master trump, else leads a low one from four or more; a defender leads the suit its partner bid (the
  top of two, the bottom of more), else the suit its partner asked for by discarding a high card, else an ace,
  else the lowest of its longest plain suit; second hand low unless covering an honour, third hand high, the last
  player wins as cheaply as it can, a void seat ruffs as low as wins, and discards say which suit it wants (a high
  card) or does not (a low one). Against misère the defenders lead the lowest card of their shortest suits
  through the misère player, play under it when it has played and low when it plays after them, and throw their
  highest cards when void; the misère player leads its lowest card, plays the highest card that loses and throws
  its riskiest card when void. Its partner calls, nominations and redeal answers are ``basic``'s.

All randomness comes from the seed passed in (none is needed).
"""

from __future__ import annotations

from collections.abc import Sequence

from bots.basic import decide_basic
from bots.knowledge import Knowledge, team_of
from engine import SUITS, Bid, Discard, Move, Options, Pass, Play, ProposeRedeal, SeatView, canonical_move, legal_moves
from engine.cards import STRAINS, Strain, rank_of
from engine.contract import active_seats
from engine.rules import MISERE, MISERE_BIDS, OPEN_MISERE, bid_level, bid_strain, bid_value, hand_strain
from engine.seats import seat_count
from engine.tricks import beats, led_suit, seat_after, trick_winner_index

STRANGERS = ("shape", "guide")


def _table(opts: Options, strain: str) -> Strain:
    return hand_strain(opts, MISERE if strain == MISERE else f"6{strain}", ())


def shape_tricks(hand: Sequence[str], strain: str, opts: Options) -> float:
    """The ``shape`` bidder's count of the tricks ``hand`` takes with ``strain`` as trumps (NT: no trumps)."""
    table = _table(opts, strain if strain != "NT" else "NT")
    trump = table.trump
    by_suit: dict[str | None, list[str]] = {}
    for c in hand:
        by_suit.setdefault(table.suit[c], []).append(c)
    tricks = 0.0
    if trump is not None:
        trumps = sorted(by_suit.get(trump, []), key=table.power.__getitem__, reverse=True)
        n = len(trumps)
        # the top trumps: each of the best few counts, the rest by length
        top = [c for c in trumps if table.power[c] >= 280 or rank_of(c) == "A" or c.startswith("JK")]
        tricks += len(top) + max(0, n - len(top) - 2) * 0.9
        if n >= 4:
            for s in SUITS:
                if s == trump:
                    continue
                held = len(by_suit.get(s, []))
                tricks += 1.0 if held == 0 else 0.5 if held == 1 else 0.0
    else:
        tricks += len(by_suit.get(None, []))
    for s in SUITS:
        if s == trump:
            continue
        cards = sorted(by_suit.get(s, []), key=table.power.__getitem__, reverse=True)
        if cards and rank_of(cards[0]) == "A":
            tricks += 1.0
            if len(cards) > 1 and rank_of(cards[1]) == "K":
                tricks += 0.8
        elif cards and rank_of(cards[0]) == "K" and len(cards) > 1:
            tricks += 0.5
        if trump is None and len(cards) >= 5 and cards and rank_of(cards[0]) in ("A", "K"):
            tricks += len(cards) - 4
    return tricks


def _partner_tricks(opts: Options) -> float:
    n = seat_count(opts)
    return {2: 0.5, 3: 0.5, 4: 1.5, 5: 1.5}.get(n, 2.5 if opts.six_player_teams == "two_teams_of_three" else 1.5)


def _misere_hand(hand: Sequence[str], top_rank: int) -> bool:
    """No joker and no card above ``top_rank`` (9: nothing above the nine)."""
    for c in hand:
        if c.startswith("JK"):
            return False
        r = rank_of(c)
        if r in ("A", "K", "Q", "J", "13", "12", "11") or (r.isdigit() and int(r) > top_rank):
            return False
    return True


def _shape_bid(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view, opts = knowledge.view, knowledge.options
    hand = knowledge.hand
    passes = [m for m in legal if isinstance(m, Pass)]
    bids = [m for m in legal if isinstance(m, Bid) and not m.sans_kitty]
    if hand is None or not bids:
        return decide_basic(knowledge, legal)
    by_bid = {m.bid: m for m in bids}
    if OPEN_MISERE in by_bid and _misere_hand(hand, 7):
        return by_bid[OPEN_MISERE]
    if MISERE in by_bid and _misere_hand(hand, 9):
        return by_bid[MISERE]
    extra = _partner_tricks(opts) + 0.5
    counts = {s: shape_tricks(hand, s, opts) + extra for s in STRAINS}
    high = view.high_bid
    partner_high = high is not None and high.seat != knowledge.seat and high.seat in team_of(view, knowledge.seat)
    best: Bid | None = None
    for m in bids:
        if m.bid in MISERE_BIDS:
            continue
        level, strain = bid_level(m.bid), bid_strain(m.bid)
        need = level - 0.5 + (1.0 if partner_high else 0.0)
        if counts[strain] >= need and (best is None or bid_value(opts, m.bid) > bid_value(opts, best.bid)):
            best = m
    if best is not None:
        return best
    return passes[0] if passes else bids[0]


def _shape_discard(knowledge: Knowledge) -> Move:
    view = knowledge.view
    hand = list(knowledge.hand or ())
    k = view.kitty_size
    c = view.contract
    assert c is not None
    table = knowledge.table
    power = table.power
    if c.bid in MISERE_BIDS:
        out = sorted(hand, key=lambda x: (table.suit[x] is None, power[x]), reverse=True)[:k]
        return Discard(seat=knowledge.seat, cards=tuple(out))
    trump = table.trump
    lengths: dict[str | None, int] = {}
    for x in hand:
        lengths[table.suit[x]] = lengths.get(table.suit[x], 0) + 1

    def keep(x: str) -> tuple[int, int, int]:
        s = table.suit[x]
        if s is None or s == trump:
            return (2, 0, power[x])
        return (1 if rank_of(x) == "A" else 0, lengths[s], power[x])

    out = sorted(hand, key=keep)[:k]
    return Discard(seat=knowledge.seat, cards=tuple(out))


def _shape_card(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view = knowledge.view
    c = view.contract
    plays = [m for m in legal if isinstance(m, Play)]
    if c is None or c.bid in MISERE_BIDS or len(plays) == 1:
        return decide_basic(knowledge, legal)
    table = knowledge.table
    suit, power, trump = table.suit, table.power, table.trump
    seat = knowledge.seat
    hand = list(knowledge.hand or ())
    team = team_of(view, seat)
    contracting = c.contractor in team
    cards = list(dict.fromkeys(m.card for m in plays))
    low = min(cards, key=lambda x: (trump is not None and suit[x] == trump, suit[x] is None, power[x]))
    trick = view.current_trick
    if trick is None or not trick.plays:
        my_trumps = [x for x in cards if trump is not None and suit[x] == trump]
        if contracting and len(my_trumps) >= 3:
            card = max(my_trumps, key=power.__getitem__)
        else:
            side = [x for x in cards if suit[x] is not None and suit[x] != trump]
            lengths: dict[str | None, int] = {}
            for x in hand:
                lengths[suit[x]] = lengths.get(suit[x], 0) + 1
            singles = [x for x in side if lengths[suit[x]] == 1]
            aces = [x for x in side if rank_of(x) == "A"]
            if not contracting and singles and my_trumps:
                card = singles[0]
            elif aces:
                card = aces[0]
            elif side:
                longest = max(side, key=lambda x: (lengths[suit[x]], power[x]))
                card = max((x for x in side if suit[x] == suit[longest]), key=power.__getitem__)
            else:
                card = max(cards, key=power.__getitem__)
    else:
        played = [p.card for p in trick.plays]
        order = tuple(active_seats(knowledge.options, c.sitting_out))
        w = trick_winner_index(played, trick.nominate, table)
        winner_seat = seat_after(order, trick.leader, w)
        led = led_suit(played, trick.nominate, table)
        winners = [x for x in cards if beats(x, played[w], led, table)]
        last = len(played) == len(order) - 1
        if winner_seat in team or not winners:
            card = low
        elif last:
            card = min(winners, key=power.__getitem__)
        elif len(played) == 1:
            card = min(winners, key=power.__getitem__)  # second hand plays a winner whenever it has one
        else:
            card = max(winners, key=power.__getitem__)  # third hand high
    options = [m for m in plays if m.card == card]
    if len(options) > 1:  # a free joker led: the suit it holds most of
        return max(options, key=lambda m: sum(1 for x in hand if suit[x] == m.nominate))
    return options[0]


# ---- guide ------------------------------------------------------------------------------------------------------


def _in_suit(table: Strain, s: str | None) -> list[str]:
    """Every card of the pack of effective suit ``s``, low to high."""
    return sorted((x for x in table.power if table.suit[x] == s), key=table.power.__getitem__)


def guide_tricks(hand: Sequence[str], strain: str, opts: Options) -> float:
    """The ``guide`` bidder's count of the sure tricks ``hand`` takes with ``strain`` as trumps (NT: no trumps)."""
    table = _table(opts, strain)
    trump = table.trump
    held = set(hand)
    by_suit: dict[str | None, list[str]] = {}
    for c in hand:
        by_suit.setdefault(table.suit[c], []).append(c)
    tricks = 0.0
    n_trumps = 0
    if trump is not None:
        pack = _in_suit(table, trump)
        mine = [c for c in pack if c in held]
        n_trumps = len(mine)
        winners = 0
        for c in mine:
            higher_missing = sum(1 for x in pack if table.power[x] > table.power[c] and x not in held)
            lower_held = sum(1 for x in mine if table.power[x] < table.power[c])
            if higher_missing <= 2 and higher_missing <= lower_held:
                winners += 1
        tricks += min(n_trumps, winners + max(0, n_trumps - 4))
    else:
        tricks += len(by_suit.get(None, []))  # a free joker
    for s in SUITS:
        if s == trump:
            continue
        cards = sorted(by_suit.get(s, []), key=table.power.__getitem__, reverse=True)
        ranks = [rank_of(x) for x in cards]
        if ranks[:1] == ["A"]:
            tricks += 1.0
            if ranks[1:2] == ["K"]:
                tricks += 1.0
                if ranks[2:3] == ["Q"] and len(cards) <= 4:
                    tricks += 0.5
        elif ranks[:1] == ["K"] and len(cards) >= 2:
            tricks += 1.0 if ranks[1:2] == ["Q"] else 0.5
        if trump is None and len(cards) >= 5 and ranks[:1] == ["A"]:
            tricks += len(cards) - 4
        if trump is not None and n_trumps >= 5:
            tricks += 1.0 if not cards else 0.5 if len(cards) == 1 and ranks[0] != "A" else 0.0
    return tricks


def _guide_partner(opts: Options) -> float:
    """What the ``guide`` bidder counts on from a partner and the kitty."""
    n = seat_count(opts)
    partner = 0.0 if n <= 3 else 2.0 if n == 6 and opts.six_player_teams == "two_teams_of_three" else 1.0
    return partner + 0.5


def _misere_position(table: Strain, card: str) -> int:
    """How many cards of its suit lie below ``card`` (a free joker: above everything)."""
    s = table.suit[card]
    if s is None:
        return 99
    return sum(1 for x in table.power if table.suit[x] == s and table.power[x] < table.power[card])


def guide_misere_safe(hand: Sequence[str], opts: Options, kitty: int, open_hand: bool = False) -> bool:
    """Whether ``hand`` is a misère hand for the ``guide`` bidder once its ``kitty`` riskiest cards (as it would
    discard them) are set aside: in every suit, the ``k``-th lowest card it keeps (from 0) has at most ``2k + 1``
    cards of the suit below it (open misère: ``2k``)."""
    table = _table(opts, MISERE)
    kept = sorted(hand, key=lambda x: _misere_risk(table, x, hand))[kitty:]
    for s in SUITS:
        mine = sorted(_misere_position(table, x) for x in kept if table.suit[x] == s)
        for k, pos in enumerate(mine):
            if pos > 2 * k + (0 if open_hand else 1):
                return False
    return all(table.suit[x] is not None for x in kept)


def _misere_risk(table: Strain, card: str, hand: Sequence[str]) -> tuple[int, int]:
    """How dangerous ``card`` is to keep at misère: by how much it sits above the cards guarding it."""
    s = table.suit[card]
    if s is None:
        return (-1000, 0)
    pos = _misere_position(table, card)
    below = sum(1 for x in hand if table.suit[x] == s and table.power[x] < table.power[card])
    return (-(pos - 2 * below), -pos)


def _partner_bid(knowledge: Knowledge) -> str | None:
    """The last plain bid of the seat's partner in this auction, if any."""
    view = knowledge.view
    mates = set(team_of(view, knowledge.seat)) - {knowledge.seat}
    for call in reversed(view.auction):
        if call.seat in mates and call.bid is not None and call.bid not in MISERE_BIDS:
            return call.bid
    return None


def _guide_bid(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view, opts = knowledge.view, knowledge.options
    hand = knowledge.hand
    passes = [m for m in legal if isinstance(m, Pass)]
    bids = [m for m in legal if isinstance(m, Bid) and not m.sans_kitty]
    if hand is None or not bids or any(isinstance(m, ProposeRedeal) for m in legal):
        return decide_basic(knowledge, legal)
    by_bid = {m.bid: m for m in bids}
    k = view.kitty_size
    own = {s: guide_tricks(hand, s, opts) for s in STRAINS}
    counts = {s: own[s] + _guide_partner(opts) for s in STRAINS}
    partner = _partner_bid(knowledge)
    if partner is not None:
        # A partner's bid promises its level less two tricks of its own; the kitty adds half a trick.
        ps = bid_strain(partner)
        counts[ps] = max(counts[ps], own[ps] + bid_level(partner) - 2.0 + 0.5)
    best: Bid | None = None
    for m in bids:
        if m.bid in MISERE_BIDS:
            continue
        level, strain = bid_level(m.bid), bid_strain(m.bid)
        need = float(level)
        if partner is not None and strain != bid_strain(partner):
            need = max(need, bid_level(partner) + 2.0)  # no taking a partner out without two tricks more
        if counts[strain] >= need and (best is None or bid_value(opts, m.bid) > bid_value(opts, best.bid)):
            best = m
    if OPEN_MISERE in by_bid and guide_misere_safe(hand, opts, k, open_hand=True) and (
            best is None or bid_value(opts, best.bid) < bid_value(opts, OPEN_MISERE)):
        return by_bid[OPEN_MISERE]
    if MISERE in by_bid and guide_misere_safe(hand, opts, k) and (
            best is None or bid_value(opts, best.bid) < bid_value(opts, MISERE)):
        return by_bid[MISERE]
    if best is not None:
        return best
    return passes[0] if passes else bids[0]


def _guide_discard(knowledge: Knowledge) -> Move:
    view = knowledge.view
    hand = list(knowledge.hand or ())
    k = view.kitty_size
    c = view.contract
    assert c is not None
    table = knowledge.table
    if c.bid in MISERE_BIDS:
        out = sorted(hand, key=lambda x: _misere_risk(table, x, hand))[:k]
        return Discard(seat=knowledge.seat, cards=tuple(out))
    trump, power = table.trump, table.power
    lengths: dict[str | None, int] = {}
    for x in hand:
        lengths[table.suit[x]] = lengths.get(table.suit[x], 0) + 1

    def keep(x: str) -> tuple[int, int, int]:
        s = table.suit[x]
        if s is None or s == trump:
            return (3, 0, power[x])
        ranks = {rank_of(y) for y in hand if table.suit[y] == s}
        if rank_of(x) == "A" or (rank_of(x) == "K" and "A" in ranks):
            return (2, 0, power[x])
        return (0, lengths[s], power[x])  # short plain suits go first: voids to ruff with

    out = sorted(hand, key=keep)[:k]
    return Discard(seat=knowledge.seat, cards=tuple(out))


def _master(table: Strain, card: str, gone: set[str], held: set[str]) -> bool:
    """Whether no card of ``card``'s suit that is still out (not played, not held) is above it."""
    s = table.suit[card]
    return not any(table.suit[x] == s and table.power[x] > table.power[card] and x not in gone and x not in held
                   for x in table.power)


def _wanted_suit(knowledge: Knowledge) -> str | None:
    """The suit the seat's partner asked for: its first discard of a ten or higher off a suit led."""
    view = knowledge.view
    mates = set(team_of(view, knowledge.seat)) - {knowledge.seat}
    table = knowledge.table
    for t in view.tricks:
        led = led_suit([t.plays[0].card], t.nominate, table) if t.plays else None
        for p in t.plays[1:]:
            s = table.suit[p.card]
            if p.seat in mates and s != led and s is not None and s != table.trump:
                r = rank_of(p.card)
                if r in ("A", "K", "Q", "J") or (r.isdigit() and int(r) >= 10):
                    return s
                break
    return None


def _guide_card(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view = knowledge.view
    c = view.contract
    plays = [m for m in legal if isinstance(m, Play)]
    if c is None or len(plays) == 1:
        return decide_basic(knowledge, legal) if len(plays) != 1 else plays[0]
    table = knowledge.table
    suit, power, trump = table.suit, table.power, table.trump
    seat = knowledge.seat
    hand = list(knowledge.hand or ())
    held = set(hand)
    team = team_of(view, seat)
    cards = list(dict.fromkeys(m.card for m in plays))
    gone = set(knowledge.played)
    trick = view.current_trick
    played = [p.card for p in trick.plays] if trick is not None else []
    order = tuple(active_seats(knowledge.options, c.sitting_out))
    lengths: dict[str | None, int] = {}
    for x in hand:
        lengths[suit[x]] = lengths.get(suit[x], 0) + 1
    if c.bid in MISERE_BIDS:
        card = _guide_misere_card(knowledge, cards, played, order, lengths)
    elif not played:
        card = _guide_lead(knowledge, cards, c.contractor in team, gone, held, lengths)
    else:
        w = trick_winner_index(played, trick.nominate if trick else None, table)
        winner_seat = seat_after(order, trick.leader if trick else seat, w)
        led = led_suit(played, trick.nominate if trick else None, table)
        winners = sorted((x for x in cards if beats(x, played[w], led, table)), key=power.__getitem__)
        following = any(suit[x] == led for x in cards)
        last = len(played) == len(order) - 1

        def throw() -> str:
            # A discard says what the seat wants: the lowest card of its weakest plain suit (no ace or king).
            plain = [x for x in cards if suit[x] is not None and suit[x] != trump]
            if not plain:
                return min(cards, key=power.__getitem__)
            weak = [x for x in plain if not any(rank_of(y) in ("A", "K") for y in hand if suit[y] == suit[x])]
            return min(weak or plain, key=lambda x: (lengths[suit[x]] == 1, power[x]))

        if winner_seat in team or not winners:
            card = min(cards, key=power.__getitem__) if following else throw()
        elif last:
            card = winners[0]
        elif len(played) == 1 and following:
            honour = rank_of(played[0]) in ("A", "K", "Q", "J") or suit[played[0]] == trump
            card = winners[0] if honour else min(cards, key=power.__getitem__)  # cover an honour, else low
        elif following:
            card = winners[-1]  # third hand high
        else:
            card = winners[0]  # ruff as low as wins
    options = [m for m in plays if m.card == card]
    if len(options) > 1:  # a free joker led: the suit it holds most of
        return max(options, key=lambda m: sum(1 for x in hand if suit[x] == m.nominate))
    return options[0]


def _guide_lead(knowledge: Knowledge, cards: list[str], contracting: bool, gone: set[str], held: set[str],
                lengths: dict[str | None, int]) -> str:
    table = knowledge.table
    suit, power, trump = table.suit, table.power, table.trump
    trumps = [x for x in cards if trump is not None and suit[x] == trump]
    side = [x for x in cards if suit[x] is not None and suit[x] != trump]
    outstanding_trumps = trump is not None and any(
        suit[x] == trump and x not in gone and x not in held for x in table.power)
    if contracting:
        if trumps and outstanding_trumps:
            top = max(trumps, key=power.__getitem__)
            if _master(table, top, gone, held):
                return top
            if len(trumps) >= 4:
                return min(trumps, key=power.__getitem__)
        masters = [x for x in side if _master(table, x, gone, held)]
        if masters:
            return max(masters, key=power.__getitem__)
        if side:
            longest = max(side, key=lambda x: (lengths[suit[x]], power[x]))
            return min((x for x in side if suit[x] == suit[longest]), key=power.__getitem__)
        return max(cards, key=power.__getitem__)
    partner = _partner_bid(knowledge)
    wanted = [bid_strain(partner)] if partner is not None else []
    asked = _wanted_suit(knowledge)
    if asked is not None:
        wanted.append(asked)
    for s in wanted:
        mine = sorted((x for x in side if suit[x] == s), key=power.__getitem__)
        if mine:
            return mine[-1] if len(mine) <= 2 else mine[0]
    aces = [x for x in side if rank_of(x) == "A"]
    if aces:
        return max(aces, key=lambda x: lengths[suit[x]])
    if side:
        longest = max(side, key=lambda x: (lengths[suit[x]], power[x]))
        return min((x for x in side if suit[x] == suit[longest]), key=power.__getitem__)
    return min(cards, key=power.__getitem__)


def _guide_misere_card(knowledge: Knowledge, cards: list[str], played: list[str], order: tuple[int, ...],
                       lengths: dict[str | None, int]) -> str:
    view = knowledge.view
    c = view.contract
    assert c is not None
    table = knowledge.table
    suit = table.suit
    trick = view.current_trick
    seat = knowledge.seat
    declarer = c.contractor
    hand = list(knowledge.hand or ())
    pos = {x: _misere_position(table, x) for x in cards}
    if not played:
        if seat == declarer:
            return min(cards, key=lambda x: (pos[x], lengths[suit[x]]))
        # A defender leads the lowest card of its shortest suit the misère player has not shown void in.
        voids = knowledge.voids.get(declarer, set())
        open_suits = [x for x in cards if suit[x] is not None and suit[x] not in voids] or cards
        return min(open_suits, key=lambda x: (lengths.get(suit[x], 0), pos[x]))
    assert trick is not None
    w = trick_winner_index(played, trick.nominate, table)
    winner_seat = seat_after(order, trick.leader, w)
    led = led_suit(played, trick.nominate, table)
    following = any(suit[x] == led for x in cards)
    under = [x for x in cards if not beats(x, played[w], led, table)]
    if seat == declarer:
        if under:
            if following:
                return max(under, key=pos.__getitem__)  # the highest card that loses
            return max(under, key=lambda x: _misere_risk_key(table, x, hand))  # void: the riskiest card
        return max(cards, key=lambda x: pos[x])
    declarer_played = any(p.seat == declarer for p in trick.plays)
    if not following:
        return max(cards, key=lambda x: pos[x])  # void: throw the highest card
    if declarer_played and winner_seat == declarer:
        return max(under, key=lambda x: pos[x]) if under else min(cards, key=lambda x: pos[x])
    if declarer_played:
        return max(cards, key=lambda x: pos[x])  # the misère player is safe this trick: unload
    return min(cards, key=lambda x: pos[x])  # it plays after: leave it room to win


def _misere_risk_key(table: Strain, card: str, hand: Sequence[str]) -> tuple[int, int]:
    risk = _misere_risk(table, card, hand)
    return (-risk[0], -risk[1])


def decide_stranger(name: str, view: SeatView, options: Options, *, seed: int = 0) -> Move:
    """The move of the stranger ``name`` (one of :data:`STRANGERS`) for the seat to act in ``view``."""
    if name not in STRANGERS:
        raise ValueError(f"unknown stranger {name!r}")
    import random

    from bots.knowledge import determinize  # (the legal moves are derived from the view, as bots.decide does)

    knowledge = Knowledge(view, options)
    legal = [] if view.phase == "exchange" else legal_moves(determinize(knowledge, random.Random(0)))
    guide = name == "guide"
    if view.phase == "auction":
        move = _guide_bid(knowledge, legal) if guide else _shape_bid(knowledge, legal)
    elif view.phase == "exchange":
        move = _guide_discard(knowledge) if guide else _shape_discard(knowledge)
    elif view.phase == "play":
        move = _guide_card(knowledge, legal) if guide else _shape_card(knowledge, legal)
    else:
        move = decide_basic(knowledge, legal)
    return canonical_move(move, options)
