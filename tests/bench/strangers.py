"""Opponents of another style than ``basic``'s, for measuring the expert against players it does not model.

The expert reads the other seats as if they bid and played like ``basic`` (bots/inference.py) and plays its
playouts with ``basic``'s policy; against ``basic`` itself that model is exact, against other players it is not.
These bots are written apart from ``basic`` (no shared bidding estimate, no shared card play), from the seat's
view only, and are no API level: ``tests/bench/match.py --b shape`` plays them.

- ``shape``: an aggressive bidder on shape, as many club players bid: trumps counted by length (every trump past
  the third is a trick), the top trumps and side aces, a void or singleton as a ruff when long in trumps, and
  the partner counted for a trick and a half; it bids up to the level it counts plus half a trick, competes over
  the other side rather than let it buy cheaply, and bids misère on any hand without a card above the nine and
  no joker (open misère with nothing above the seven). Its card play is the textbook's other school: the
  contracting side draws trumps from the top, a defender leads a singleton to get a ruff, else an ace, else the
  top of its longest suit; second hand plays a winner whenever it has one, third hand high, the last player wins
  as cheaply as it can, partners are not overtaken, a void seat ruffs low when the other side is winning. Misère
  play and the setup steps other than the discard are ``basic``'s.

All randomness comes from the seed passed in (none is needed).
"""

from __future__ import annotations

from collections.abc import Sequence

from bots.basic import decide_basic
from bots.knowledge import Knowledge, team_of
from engine import SUITS, Bid, Discard, Move, Options, Pass, Play, SeatView, canonical_move, legal_moves
from engine.cards import STRAINS, Strain, rank_of
from engine.rules import MISERE, MISERE_BIDS, OPEN_MISERE, bid_level, bid_strain, bid_value, hand_strain
from engine.seats import seat_count
from engine.tricks import beats, led_suit, seat_after, trick_winner_index

STRANGERS = ("shape",)


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
        order = tuple(s for s in range(view.players) if s not in c.sitting_out)
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


def decide_stranger(name: str, view: SeatView, options: Options, *, seed: int = 0) -> Move:
    """The move of the stranger ``name`` (one of :data:`STRANGERS`) for the seat to act in ``view``."""
    if name != "shape":
        raise ValueError(f"unknown stranger {name!r}")
    import random

    from bots.knowledge import determinize  # (the legal moves are derived from the view, as bots.decide does)

    knowledge = Knowledge(view, options)
    legal = [] if view.phase == "exchange" else legal_moves(determinize(knowledge, random.Random(0)))
    if view.phase == "auction":
        move = _shape_bid(knowledge, legal)
    elif view.phase == "exchange":
        move = _shape_discard(knowledge)
    elif view.phase == "play":
        move = _shape_card(knowledge, legal)
    else:
        move = decide_basic(knowledge, legal)
    return canonical_move(move, options)
