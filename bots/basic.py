"""The ``basic`` bot: a rule-based player, from the seat's knowledge only.

- Bidding from an estimate of its tricks in each strain (trumps and their rank, bowers, the joker, side aces
  and guarded kings, voids and singletons it can ruff with, length), plus what a partner and the kitty add on
  average; misère and open misère from a hand whose every card sits low enough in its suit. It looks at its hand
  rather than bid blind misère, proposes a no-ace-no-face redeal when it may, and accepts one with a weak hand.
- The exchange keeps trumps and master cards and discards the lowest cards of the shortest plain suits (to
  make voids); a misère contractor discards its most dangerous cards.
- A five-player contractor calls the best trump it lacks (the best ace it lacks at no trumps), or names the
  seat that bid its strain; a no-trump contractor nominates the joker as the suit it holds most of.
- Card play: :mod:`bots.cardplay`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache

from bots.cardplay import HandInPlay, bit_keys, choose_play
from bots.knowledge import Knowledge, team_of
from engine import (
    SUITS,
    AnswerRedeal,
    Bid,
    CallCard,
    ChoosePartners,
    Discard,
    GoAlone,
    LookAtHand,
    Move,
    NominateJoker,
    Options,
    Pass,
    Play,
    ProposeRedeal,
)
from engine.cards import STRAINS, Strain, suit_of
from engine.contract import active_seats
from engine.deal import kitty_size, pack_for
from engine.masks import count
from engine.memo import remember
from engine.model import Call, CallView, Trick
from engine.rules import MISERE, MISERE_BIDS, OPEN_MISERE, bid_level, bid_strain, bid_value, hand_strain
from engine.seats import seat_count
from engine.tricks import free_joker, high_free_joker, led_suit


@lru_cache(maxsize=256)
def _strain_table(opts: Options, strain: str) -> Strain:
    bid = MISERE if strain == MISERE else f"6{strain}"
    return hand_strain(opts, bid, ())


@lru_cache(maxsize=1024)
def _suit_order(opts: Options, strain: str, suit: str | None) -> tuple[str, ...]:
    """The cards of one effective suit in a strain, high to low."""
    table = _strain_table(opts, strain)
    return tuple(table.order(c for c in pack_for(opts) if table.suit[c] == suit))


def own_tricks(hand: Iterable[str], strain: str, opts: Options) -> float:
    """Tricks this hand takes by itself with ``strain`` as trumps (``NT``: no trumps): its trumps by rank (each
    trump within the count of trumps a sure trick, the lower ones a fraction), a long trump suit's length, the
    free joker at no trumps, each plain suit's run of top cards, a guarded second best or the best with the third,
    a long no-trump suit's length, and the ruffs its short suits give. A hand is a set of cards: the estimate does
    not depend on their order (the cards as bits of the strain's table, :mod:`engine.masks`)."""
    shape = trick_shape(opts, strain)
    bit = shape[0].bit
    held = 0
    for c in hand:
        held |= bit[c]
    return mask_tricks(held, shape)


def strain_tricks(hand: Iterable[str], opts: Options) -> list[float]:
    """:func:`own_tricks` of ``hand`` in each strain of :data:`engine.cards.STRAINS`, in that order: the hand's
    masks in the five strains' tables read in one pass over its cards."""
    bits, shapes = _strain_bits(opts)
    m0 = m1 = m2 = m3 = m4 = 0
    for c in hand:
        b0, b1, b2, b3, b4 = bits[c]
        m0 |= b0
        m1 |= b1
        m2 |= b2
        m3 |= b3
        m4 |= b4
    return [mask_tricks(m0, shapes[0]), mask_tricks(m1, shapes[1]), mask_tricks(m2, shapes[2]),
            mask_tricks(m3, shapes[3]), mask_tricks(m4, shapes[4])]


def _strain_bits(opts: Options) -> tuple[dict[str, tuple[int, int, int, int, int]], tuple[TrickShape, ...]]:
    """Each card's bit in the tables of the five strains (:data:`engine.cards.STRAINS`), and their shapes, kept in a
    plain dict (the compiled build calls an ``lru_cache`` wrapper as a generic Python call)."""
    found = _STRAIN_BITS.get(opts)
    if found is None:
        found = remember(_STRAIN_BITS, opts, _read_strain_bits(opts), 256)
    return found


#: :func:`_strain_bits` by options.
_STRAIN_BITS: dict[Options, tuple[dict[str, tuple[int, int, int, int, int]], tuple[TrickShape, ...]]] = {}


def _read_strain_bits(opts: Options) -> tuple[dict[str, tuple[int, int, int, int, int]], tuple[TrickShape, ...]]:
    shapes = tuple(trick_shape(opts, s) for s in STRAINS)
    assert len(shapes) == 5
    bits = {c: (shapes[0][0].bit[c], shapes[1][0].bit[c], shapes[2][0].bit[c], shapes[3][0].bit[c],
                shapes[4][0].bit[c]) for c in pack_for(opts)}
    return bits, shapes


#: A strain's table as :func:`own_tricks` reads it: (the table, the trumps' mask or 0 at no trumps, the free
#: jokers' mask, and each plain suit other than the trumps as (its mask, its top card's bit position)).
TrickShape = tuple[Strain, int, int, tuple[tuple[int, int], ...]]


@lru_cache(maxsize=256)
def trick_shape(opts: Options, strain: str) -> TrickShape:
    """The strain's table as :func:`own_tricks` reads it (:data:`TrickShape`): for a caller that reads many hands
    in one strain, :func:`own_tricks` of a hand is :func:`mask_tricks` of its cards' bits in ``shape[0]``."""
    table = _strain_table(opts, strain)
    trump = None if strain == "NT" else strain
    plain = tuple((table.suit_mask.get(s, 0), table.suit_mask.get(s, 0).bit_length() - 1)
                  for s in SUITS if s != trump)
    free = table.suit_mask.get(None, 0)
    return table, table.trump_mask if trump is not None else 0, free, plain


def mask_tricks(held: int, shape: TrickShape) -> float:
    """:func:`own_tricks` of the cards ``held`` (a mask of the strain's table). Within an effective suit a higher
    bit is a higher card, so a card's rank (0: the suit's best) is its distance below the suit's top bit. The terms
    are added in one fixed order (the trumps from the best down, then the plain suits in the order of
    :data:`engine.SUITS`), so equal hands give equal floats."""
    _table, trumps, free, plain = shape
    est = 0.0
    t = 0
    if trumps:
        mine = held & trumps
        t = count(mine)
        top = trumps.bit_length() - 1
        while mine:
            p = mine.bit_length() - 1
            i = top - p
            est += 1.0 if i < t else max(0.0, 0.55 - 0.12 * (i - t))
            mine ^= 1 << p
        est += max(0, t - 4) * 0.5
    else:
        est += count(held & free)  # the free joker
    ruffs = 0.0
    for suit_mask, top in plain:
        mine = held & suit_mask
        if not mine:
            ruffs += 0.9
            continue
        length = count(mine)
        if length == 1:
            ruffs += 0.45
        missing = suit_mask & ~mine
        run = length if not missing else top - (missing.bit_length() - 1)
        est += run * 0.95
        if run == 0 and length >= 2 and (mine >> (top - 1)) & 1:
            est += 0.5  # a guarded second best
        elif run == 1 and length >= 2 and top >= 2 and (mine >> (top - 2)) & 1:
            est += 0.3  # the best and the third best
        if not trumps and run >= 1 and length >= 5:
            est += (length - 4) * 0.8
    if trumps and t >= 3:
        est += min(ruffs, max(0.0, t - 2.0))
    if not trumps:
        est -= 0.3
    return est


#: Tricks a three-card kitty adds on average to a contractor's own.
KITTY_TRICKS = 0.5


def helper_tricks(opts: Options) -> float:
    """Tricks a partner and the kitty add on average to a contractor's own (by player count), kept per options."""
    found = _HELPER_TRICKS.get(opts)
    if found is None:
        found = remember(_HELPER_TRICKS, opts, _helper_tricks(opts), 256)
    return found


#: :func:`helper_tricks` by options.
_HELPER_TRICKS: dict[Options, float] = {}


def _helper_tricks(opts: Options) -> float:
    n = seat_count(opts)  # the ghost-partners game plays as four seats
    # A five-player contractor's called partner holds the best trump it lacks, and adds about what a four-player
    # partner does: played out by the bots' own play, a contract bid on a hand takes 2.0 tricks beyond the hand's
    # own estimate at four players and at five alike (docs/BENCHMARKS.md).
    partner = {2: 0.0, 3: 0.0, 4: 1.6, 5: 1.5}.get(n, 2.2 if opts.six_player_teams == "two_teams_of_three" else 1.0)
    kitty = KITTY_TRICKS if kitty_size(opts) <= 3 else 0.8
    return partner + kitty


def misere_danger(hand: Iterable[str], opts: Options, open_hand: bool = False) -> int:
    """How many cards of the hand could be forced to win a trick at misère (0: a misère hand): three for each free
    joker that ranks above every card, and each card of a suit that sits more than twice as high in the suit as
    the hand's cards below it allow (one place more of slack when the hand is not open)."""
    table, plain = _misere_shape(opts)
    bit = table.bit
    held = 0
    for c in hand:
        held |= bit[c]
    danger = 3 * count(held & table.high_free_mask)  # an un-nominated joker always wins in the end
    slack = 0 if open_hand else 1
    for suit_mask, low in plain:
        mine = held & suit_mask
        k = 0
        while mine:  # the suit's cards from the lowest up: the k-th sits (its bit less the suit's lowest) up
            b = mine & -mine
            if b.bit_length() - 1 - low > 2 * k + slack:
                danger += 1
            mine ^= b
            k += 1
    return danger


@lru_cache(maxsize=256)
def _misere_shape(opts: Options) -> tuple[Strain, tuple[tuple[int, int], ...]]:
    """The misère table, and each plain suit's mask in it with its lowest card's bit position (:mod:`engine.masks`:
    within a suit a higher bit is a higher card)."""
    table = _strain_table(opts, MISERE)
    masks = [table.suit_mask.get(s, 0) for s in SUITS]
    return table, tuple((m, (m & -m).bit_length() - 1) for m in masks)


def choose_bid(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view, opts = knowledge.view, knowledge.options
    hand = knowledge.hand
    if hand is None:
        look = [m for m in legal if isinstance(m, LookAtHand)]
        passes = [m for m in legal if isinstance(m, Pass)]
        return look[0] if look else passes[0]
    ghost = next((g for g in view.ghosts if g.controlled_by == knowledge.seat), None)
    high = view.high_bid
    return bid_from_hand(opts, knowledge.seat, hand, legal, None if high is None else high.seat,
                         None if high is None else high.bid, team_of(view, knowledge.seat),
                         None if ghost is None else ghost.face_up)


#: Per bid: its level and strain (misère bids: ``None``), read once.
_BIDS: dict[str, tuple[int, str] | None] = {}


def _bid_shape(bid: str) -> tuple[int, str] | None:
    if bid in _BIDS:
        return _BIDS[bid]
    level = bid_level(bid)
    shape = None if bid in MISERE_BIDS else (level, bid_strain(bid))
    _BIDS[bid] = shape
    return shape


class HandReading:
    """What :func:`bid_from_hand` reads from a hand before it looks at the calls: the tricks it counts the hand
    worth in each strain (:func:`own_tricks` plus what a partner and the kitty add, or a ghost partner's face-up
    cards), and, when first asked, whether it is a misère or open misère hand (:func:`misere_danger`). A pure
    function of the options, the hand and the ghost partner's face-up cards (:func:`read_hand` keeps them)."""

    def __init__(self, opts: Options, hand: tuple[str, ...], ghost_face_up: tuple[str, ...] | None) -> None:
        self.opts = opts
        self.hand = hand
        extra = helper_tricks(opts)
        own = strain_tricks(hand, opts)
        if ghost_face_up is not None:  # ghost partners: the partner's face-up cards are seen, not guessed
            guessed = extra - KITTY_TRICKS
            face_up = strain_tricks(ghost_face_up, opts)
            by_strain = [own[i] + KITTY_TRICKS + min(guessed + 1.0, 0.8 * face_up[i] + 0.4) for i in range(5)]
        else:
            by_strain = [own[i] + extra for i in range(5)]
        #: The estimates in the order of :data:`engine.cards.STRAINS` (read by a strain's index), and by strain.
        self.by_strain: list[float] = by_strain
        self.estimates = {s: by_strain[i] for i, s in enumerate(STRAINS)}
        self._misere = -1  # misere_danger(hand), once asked (-1: not yet)
        self._open_misere = -1  # misere_danger(hand, open_hand=True), once asked
        #: The calls :func:`bid_from_reading` chose, by everything else it read: (whether a partner holds the high
        #: bid, the high bid, the legal moves' :class:`CallTable`).
        self.chosen: dict[tuple[bool, str | None, CallTable], Move] = {}

    def misere_danger(self) -> int:
        if self._misere < 0:
            self._misere = misere_danger(self.hand, self.opts)
        return self._misere

    def open_misere_danger(self) -> int:
        if self._open_misere < 0:
            self._open_misere = misere_danger(self.hand, self.opts, open_hand=True)
        return self._open_misere


#: The hand readings asked for, by (options, hand, ghost partner's face-up cards): the expert's playouts bid for
#: the same seats of one sampled deal again and again (every candidate meets the deal, and a seat bids several
#: times in one auction).
_READINGS: dict[tuple[Options, tuple[str, ...], tuple[str, ...] | None], HandReading] = {}


def read_hand(opts: Options, hand: Sequence[str], ghost_face_up: Sequence[str] | None = None) -> HandReading:
    """The :class:`HandReading` of ``hand`` (``ghost_face_up``: a ghost partner's face-up cards), kept."""
    cards = tuple(hand)
    ghost = None if ghost_face_up is None else tuple(ghost_face_up)
    key = (opts, cards, ghost)
    reading = _READINGS.get(key)
    if reading is None:
        reading = remember(_READINGS, key, HandReading(opts, cards, ghost), 1 << 14)
    return reading


def bid_from_hand(opts: Options, seat: int, hand: Sequence[str], legal: Sequence[Move], high_seat: int | None,
                  high_bid: str | None, team: Collection[int], ghost_face_up: Sequence[str] | None = None) -> Move:
    """:func:`choose_bid` from the values it reads (the seat's hand, the high bid and its seat, the seat's side,
    a ghost partner's face-up cards): for the expert's playouts too, which bid for every seat of a sampled deal
    without building each seat's view."""
    return bid_from_reading(opts, seat, None, hand, legal, high_seat, high_bid, team, ghost_face_up)


#: Each strain's index in :data:`engine.cards.STRAINS`.
_STRAIN_INDEX: dict[str, int] = {s: i for i, s in enumerate(STRAINS)}


class CallTable:
    """The legal calls as :func:`bid_from_reading` weighs them, read once per options and list of legal moves
    (:func:`call_table`): the first redeal proposal and the first pass, the bids but sans-kitty ones, and of those
    each suit or no-trump bid with its level, strain (by index) and points (in order) and the (last) misère and open
    misère bids, with the misère's points."""

    def __init__(self, opts: Options, legal: Sequence[Move]) -> None:
        self.redeal: Move | None = None
        self.first_pass: Move | None = None
        self.bids: list[Bid] = []
        #: (the bid, its level, its strain's index in :data:`engine.cards.STRAINS`, its points).
        self.weighed: list[tuple[Bid, int, int, int]] = []
        self.open_misere: Bid | None = None
        self.misere: Bid | None = None
        self.misere_points = 0
        self.fallback = legal[0] if legal else None
        for m in legal:
            if isinstance(m, ProposeRedeal):
                if self.redeal is None:
                    self.redeal = m
            elif isinstance(m, Pass):
                if self.first_pass is None:
                    self.first_pass = m
            elif isinstance(m, Bid) and not m.sans_kitty:
                self.bids.append(m)
                shape = _bid_shape(m.bid)
                if shape is None:
                    if m.bid == OPEN_MISERE:
                        self.open_misere = m
                    elif m.bid == MISERE:
                        self.misere = m
                        self.misere_points = bid_value(opts, MISERE)
                else:
                    self.weighed.append((m, shape[0], _STRAIN_INDEX[shape[1]], bid_value(opts, m.bid)))


#: The call tables asked for, by (options, legal moves): auctions meet the same situations again and again.
_CALL_TABLES: dict[tuple[Options, tuple[Move, ...]], CallTable] = {}


def call_table(opts: Options, legal: Sequence[Move]) -> CallTable:
    """The :class:`CallTable` of ``legal``, kept."""
    key = (opts, tuple(legal))
    table = _CALL_TABLES.get(key)
    if table is None:
        table = remember(_CALL_TABLES, key, CallTable(opts, legal), 1 << 14)
    return table


#: The call tables of :func:`situation_tables`, per options.
_SITUATION_TABLES: dict[Options, dict[tuple[int, str | None, int, bool, bool, bool], CallTable]] = {}


def situation_tables(opts: Options) -> dict[tuple[int, str | None, int, bool, bool, bool], CallTable]:
    """The call tables of one rule set by auction situation (:attr:`engine.auction.CallRun.situation`, which decides
    the legal calls it lists), for :func:`situation_table`: a loop over many calls looks the options up once."""
    found = _SITUATION_TABLES.get(opts)
    if found is None:
        found = remember(_SITUATION_TABLES, opts, {}, 256)
    return found


def situation_table(opts: Options, tables: dict[tuple[int, str | None, int, bool, bool, bool], CallTable],
                    situation: tuple[int, str | None, int, bool, bool, bool], legal: Sequence[Move]) -> CallTable:
    """The :class:`CallTable` of ``legal``, the calls :class:`engine.auction.CallRun` listed in ``situation``, kept
    in ``tables`` (:func:`situation_tables` of ``opts``): the key is a few small values, not the list of moves."""
    table = tables.get(situation)
    if table is None:
        table = remember(tables, situation, CallTable(opts, legal), 1 << 14)
    return table


def bid_from_reading(opts: Options, seat: int, reading: HandReading | None, hand: Sequence[str],
                     legal: Sequence[Move], high_seat: int | None, high_bid: str | None, team: Collection[int],
                     ghost_face_up: Sequence[str] | None = None, table: CallTable | None = None) -> Move:
    """:func:`bid_from_hand`, with the hand's :func:`read_hand` when the caller has it (``None``: read here) and the
    legal moves' :class:`CallTable` when it has it (``None``: :func:`call_table`). The choice is kept in the
    reading, by everything else it depends on (the call table stands for the legal moves it was read from: a key
    holds it, so no other table takes its identity while the choice is kept)."""
    if reading is None:
        reading = read_hand(opts, hand, ghost_face_up)
    if table is None:
        table = call_table(opts, legal)
    partner_high = high_seat is not None and high_seat in team and high_seat != seat
    key = (partner_high, high_bid, table)
    chosen = reading.chosen.get(key)
    if chosen is None:
        chosen = reading.chosen[key] = _choose_call(reading, table, partner_high, high_bid)
    return chosen


def _choose_call(reading: HandReading, table: CallTable, partner_high: bool, high_bid: str | None) -> Move:
    """:func:`bid_from_reading`'s choice, from the hand's reading, the legal moves' table, whether a partner holds
    the high bid, and the high bid."""
    if table.redeal is not None:
        return table.redeal
    first_pass = table.first_pass
    bids = table.bids
    if not bids:
        fallback = first_pass if first_pass is not None else table.fallback
        assert fallback is not None
        return fallback
    estimates = reading.by_strain
    best: Bid | None = None
    best_score = -1e9
    best_points = 0
    for m, level, strain, points in table.weighed:
        target = estimates[strain]
        if level > target + 0.25:
            continue
        score = points + 40 * (target - level)
        if score > best_score:
            best, best_score, best_points = m, score, points
    open_misere = table.open_misere
    misere = table.misere
    if open_misere is not None and reading.open_misere_danger() == 0:
        return open_misere
    if misere is not None and reading.misere_danger() == 0 and (
            best is None or best_points < table.misere_points - 40):
        return misere
    if best is None or first_pass is None:
        return best if best is not None else (first_pass if first_pass is not None else bids[0])
    # Overcall a partner only with a clearly better contract.
    if partner_high and high_bid is not None and bid_level(best.bid) < (bid_level(high_bid) or 7) + 1:
        return first_pass
    return best


def choose_discard(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view = knowledge.view
    c = view.contract
    assert c is not None
    return _discard_move(legal, knowledge.seat, discard_from_hand(knowledge.options, knowledge.hand or (),
                                                                  view.kitty_size, c.bid, knowledge.table))


def discard_from_hand(opts: Options, hand: Sequence[str], k: int, bid: str, table: Strain) -> list[str]:
    """The ``k`` cards :func:`choose_discard` discards from ``hand`` for the contract ``bid`` (``table``: its
    strain table), from the values it reads: for the expert's playouts too, which discard for a sampled deal
    without building the contractor's view."""
    suit_of, power = table.suit, table.power
    if bid in MISERE_BIDS:
        # The riskiest cards one at a time (a high free joker first, then by bots.cardplay.misere_risk over
        # the cards kept so far): a high card is safe beside every lower card of its suit, and a discard
        # changes what guards the cards of its suit that stay.
        # Each card's key, (_joker_order, misere_risk) as one integer, is read over the table's bits: its
        # effective suit's cards below it (BitKeys.lower) and how many of those are still kept.
        keys = bit_keys(table)
        lower, bit = keys.lower, table.bit
        kept = list(hand)
        held = 0
        for c in kept:
            held |= bit[c]
        thrown: list[str] = []
        for _ in range(k):
            worst, worst_key = 0, -1
            for j in range(len(kept)):
                x = kept[j]
                if suit_of[x] is None:
                    key = (_joker_order(x, table) + 1) << 20
                else:
                    below = lower[bit[x].bit_length() - 1]
                    pos = count(below)
                    key = (1 << 20) + ((pos - 2 * count(held & below) + 512) << 10) + pos
                if key > worst_key:  # the first of equal keys, as max takes it
                    worst, worst_key = j, key
            card = kept.pop(worst)
            held ^= bit[card]
            thrown.append(card)
        return thrown
    # One card at a time, the one least worth keeping: trumps and free jokers last (by power); of a plain suit, a
    # card scores 200 as its suit's top card, 60 as the second with another beside it, plus five per card of its
    # suit still kept, less its rank in the suit (the first of equal scores goes).
    # Each card read once: its plain suit (None for a trump or a free joker, which score 1000 plus their power)
    # and its rank there; the suits' lengths are counted once and kept as cards go.
    trump = table.trump
    ranks = _suit_ranks(opts, "NT" if trump is None else trump)
    plain: list[str | None] = []
    rank_or_power: list[int] = []
    lengths: dict[str, int] = {}
    for x in hand:
        s = suit_of[x]
        if s is None or s == trump:
            plain.append(None)
            rank_or_power.append(power[x])
        else:
            plain.append(s)
            rank_or_power.append(ranks[s].get(x, 0))
            lengths[s] = lengths.get(s, 0) + 1
    out: list[str] = []
    keep = list(range(len(hand)))
    for _ in range(k):
        drop = keep[0]
        worst_score = math.inf
        for i in keep:
            s = plain[i]
            if s is None:
                score = 1000.0 + rank_or_power[i]
            else:
                rank = rank_or_power[i]
                length = lengths[s]
                top = 200.0 if rank == 0 else (60.0 if rank == 1 and length >= 2 else 0.0)
                score = top + 5.0 * length - rank
            if score < worst_score:
                drop, worst_score = i, score
        keep.remove(drop)
        gone = plain[drop]
        if gone is not None:
            lengths[gone] -= 1
        out.append(hand[drop])
    return out


def _suit_ranks(opts: Options, strain: str) -> dict[str, dict[str, int]]:
    """Per plain suit, each of its cards' rank in it in a strain (0: the highest; :func:`_suit_order`), kept in a
    plain dict (the compiled build calls an ``lru_cache`` wrapper as a generic Python call)."""
    key = (opts, strain)
    found = _SUIT_RANKS.get(key)
    if found is None:
        found = remember(_SUIT_RANKS, key, _read_suit_ranks(opts, strain), 256)
    return found


#: :func:`_suit_ranks` by (options, strain).
_SUIT_RANKS: dict[tuple[Options, str], dict[str, dict[str, int]]] = {}


def _read_suit_ranks(opts: Options, strain: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for suit in SUITS:
        ranks: dict[str, int] = {}
        for i, card in enumerate(_suit_order(opts, strain, suit)):
            ranks.setdefault(card, i)
        out[suit] = ranks
    return out


def _joker_order(card: str, table: Strain) -> int:
    """A misère discard's first key: a high free joker first (it always wins), a low one last (it always loses)."""
    if not free_joker(card, table):
        return 0
    return 1 if high_free_joker(card, table) else -1


def _discard_move(legal: Sequence[Move], seat: int, cards: Sequence[str]) -> Move:
    wanted = set(cards)
    for m in legal:
        if isinstance(m, Discard) and set(m.cards) == wanted:
            return m
    return Discard(seat=seat, cards=tuple(cards))


def choose_partner_call(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view = knowledge.view
    c = view.contract
    assert c is not None
    return partner_call_from_hand(knowledge.options, knowledge.seat, knowledge.hand or (), c.bid, view.auction, legal)


def partner_call_from_hand(opts: Options, seat: int, hand: Collection[str], bid: str,
                           auction: Sequence[Call | CallView], legal: Sequence[Move]) -> Move:
    """The call :func:`choose_partner_call` makes from the values it reads (the contractor's hand, the contract's
    bid, the auction's calls): for the expert's playouts too, which call for a sampled deal without building the
    contractor's view."""
    held = set(hand)
    # The moves by kind, in one pass (exact types: the compiled build asks no generic isinstance call).
    chooses: list[ChoosePartners] = []
    calls: dict[str, CallCard] = {}
    alone: list[GoAlone] = []
    for m in legal:
        kind = type(m)
        if kind is CallCard:
            assert isinstance(m, CallCard)
            calls[m.card] = m
        elif kind is ChoosePartners:
            assert isinstance(m, ChoosePartners)
            chooses.append(m)
        elif kind is GoAlone:
            assert isinstance(m, GoAlone)
            alone.append(m)
    if chooses:
        strain = bid_strain(bid)
        for call in reversed(auction):
            if call.bid is not None and call.seat != seat and bid_strain(call.bid) == strain:
                for m in chooses:
                    if m.partners == (call.seat,):
                        return m
        for call in reversed(auction):
            if call.bid is not None and call.seat != seat:
                for m in chooses:
                    if m.partners == (call.seat,):
                        return m
        return chooses[0]
    if calls:
        strain = bid_strain(bid)
        wanted: list[str] = []
        if strain in SUITS:
            wanted += list(_suit_order(opts, strain, strain))
        for s in SUITS:
            if s != strain:
                wanted += list(_suit_order(opts, strain if strain in SUITS else "NT", s)[:1])
        for card in wanted:
            if card in calls and card not in held:
                return calls[card]
    return alone[0] if alone else legal[0]


def choose_nomination(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    c = knowledge.view.contract
    return nomination_from_hand(None if c is None else c.bid, knowledge.hand or (), legal)


def nomination_from_hand(bid: str | None, hand: Iterable[str], legal: Sequence[Move]) -> Move:
    """The nomination :func:`choose_nomination` makes from the values it reads (the contract's bid, the hand): for
    the expert's playouts too."""
    noms = [m for m in legal if isinstance(m, NominateJoker)]
    if bid is not None and bid in MISERE_BIDS:
        declines = [m for m in noms if m.suit is None]
        return declines[0] if declines else noms[0]
    counts = {s: sum(1 for x in hand if suit_of(x) == s) for s in SUITS}
    suited = [m for m in noms if m.suit is not None]
    if not suited:
        return noms[0]
    return max(suited, key=lambda m: counts.get(m.suit or "", 0))


def choose_redeal_answer(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    hand = knowledge.hand or ()
    best = max(own_tricks(hand, s, knowledge.options) for s in STRAINS)
    accept = best < 3.0
    for m in legal:
        if isinstance(m, AnswerRedeal) and m.accept == accept:
            return m
    return legal[0]


def choose_card(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    view = knowledge.view
    plays = [m for m in legal if isinstance(m, Play)]
    seat = knowledge.seat
    c = view.contract
    trick = view.current_trick
    outstanding = set(knowledge.unseen)
    for s, cards in knowledge.known_hands.items():
        if s != seat:
            outstanding.update(cards)
    active = active_seats(knowledge.options, c.sitting_out if c else ())
    team = team_of(view, seat)
    partner_leads = ""
    for t in view.tricks:
        if t.leader in team and t.leader != seat and t.plays:
            s2 = led_suit((t.plays[0].card,), t.nominate, knowledge.table)
            if s2 and s2 not in partner_leads:
                partner_leads += s2
    game = HandInPlay(knowledge.table, c.bid if c else None, c.contractor if c else None, active)
    now = Trick(trick.leader, tuple(p.card for p in trick.plays), trick.nominate) if trick else None
    return choose_play(game, seat, knowledge.hand or (), plays, now, team, outstanding, partner_leads)


def decide_basic(knowledge: Knowledge, legal: Sequence[Move]) -> Move:
    """The ``basic`` bot's move for the seat to act."""
    phase = knowledge.view.phase
    if phase == "auction":
        return choose_bid(knowledge, legal)
    if phase == "redeal_answer":
        return choose_redeal_answer(knowledge, legal)
    if phase == "exchange":
        return choose_discard(knowledge, legal)
    if phase == "call":
        return choose_partner_call(knowledge, legal)
    if phase == "nominate":
        return choose_nomination(knowledge, legal)
    return choose_card(knowledge, legal)
