"""A seat's own record (``fivehundred-record/1+seat``): a game as one seat may know it, and its verification.

:func:`seat_record` derives it from the game's events, each redacted for the seat first (so exactly what that
seat's event stream shows): its own hand once it looked, the kitty only if it took it or it was shown, every
public move, the cards played, the contracts and the scores; another seat's discard is a
:class:`RedactedDiscard` (who discarded, not what).

:func:`verify_seat_record` checks such a record as far as the seat's knowledge goes. Its own cards, every public
move and the scores are checked by the engine itself: the record is accepted only if some deal of the pack, and
some discards for the hidden ones, make a game the engine plays move by move whose record for this seat is
exactly the one given. It looks for such a game hand by hand: each seat holds what it was seen to play (and the
contractor its exposed hand), the unseen cards are placed so that each seat keeps the cards it was dealt, and
where a seat's move would be illegal with an unseen card it was given (it must have held none of the led suit,
say), that card is placed elsewhere and the hand is dealt again. The game found is never answered: it is one of
many that fit the record, and it says nothing the record does not.

In the ghost-partners game each ghost's ten cards lie in five piles, a face-up card on a face-down one, and a ghost
plays (and follows suit with) its face-up cards only. The piles are laid so that each card a ghost played was face
up when it was played: a card is either on top, or beneath a card the ghost played before it. Where a ghost's play
would be illegal because of another card face up at that moment (it must have had none of the led suit face up), a
card it played later is put beneath a card played at that moment or after, or an unseen card is kept from the
ghost's face-up places, and the hand is dealt again.

>>> from engine import Options
>>> from engine.game import apply_move, new_game, legal_moves
>>> state, events = new_game(Options(), seed=7, first_dealer=3)
>>> steps = []
>>> for _ in range(6):
...     state, moved = apply_move(state, legal_moves(state)[0])
...     steps.append(moved)
>>> record = seat_record(Options(), events, steps, seat=1)
>>> record.format, len(record.moves), record.hands[0].dealt is not None
('fivehundred-record/1+seat', 6, True)
>>> verify_seat_record(record).record == record
True
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from engine.cards import sort_hand
from engine.deal import HAND_SIZE, deal, has_dead_hand, kitty_size, pack_for, pack_index
from engine.game import IllegalMove, apply_move, check_move, new_game
from engine.model import (
    AnswerRedeal,
    AuctionWon,
    Bid,
    BidMade,
    CallCard,
    CardCalled,
    CardPlayed,
    CardsReceived,
    ChoosePartners,
    Discard,
    Discarded,
    Event,
    GameOver,
    GameState,
    GoAlone,
    HandDealt,
    HandExposed,
    HandScored,
    JokerNominated,
    KittyShown,
    KittyTaken,
    LookAtHand,
    LookedAtHand,
    Move,
    NominateJoker,
    PartnersChosen,
    Pass,
    Passed,
    Play,
    ProposeRedeal,
    RedealAnswered,
    RedealProposed,
    ThrownIn,
    TrickWon,
    WentAlone,
)
from engine.options import RULES_VERSION, Options
from engine.reasons import MALFORMED_REASONS
from engine.records import (
    MAX_RECORD_MOVES,
    HandOutcome,
    HandScore,
    RecordContract,
    RecordOptions,
    RecordRefused,
    RecordResult,
    RecordTrick,
    ThrowInReason,
    record_options,
)
from engine.replay import MoveScreen, checked_options, first_difference
from engine.rules import plays_alone, sides
from engine.seats import GHOST_PILES, ghost_seats, is_ghost_game, seat_count
from engine.views import redact_events

SEAT_RECORD_FORMAT: Literal["fivehundred-record/1+seat"] = "fivehundred-record/1+seat"

#: What :func:`verify_seat_record` checks (docs/RECORDS.md explains each).
SeatCheck = Literal["options", "own_cards", "public_moves", "tricks", "scores", "result", "hidden_moves"]
SEAT_CHECKS: tuple[SeatCheck, ...] = typing.get_args(SeatCheck)

#: The most times one hand is dealt again while looking for a deal that fits it (each time at least one unseen
#: card is kept from a seat, or a ghost's card is kept face down longer; a hand has at most 66 cards).
_MAX_REDEALS = 70
#: The same in the ghost-partners game, where each of a ghost's ten cards may also be kept face down until each of
#: the ghost's ten plays.
_MAX_GHOST_REDEALS = 70 + 2 * HAND_SIZE * HAND_SIZE
#: The place of an unseen card that lies face down beneath a ghost's card never played: never face up (its slot is
#: this plus the ghost's seat).
_NEVER_UP = 100


class RedactedDiscard(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="redacted_discard"):
    """Another seat's discard, as this seat saw it: who discarded, not what."""

    seat: int


class SeatHand(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One hand as the seat saw it."""

    hand_number: int
    dealer: int
    move_count: int
    #: The seat's hand as dealt (``null`` until it looked: blind misère).
    dealt: tuple[str, ...] | None
    #: The kitty, if this seat took it (as contractor) or it was shown to all.
    kitty: tuple[str, ...] | None
    contract: RecordContract | None
    tricks: tuple[RecordTrick, ...]
    #: Open misère: the contractor's hand when it was exposed.
    exposed: tuple[str, ...] | None
    outcome: HandOutcome
    thrown_in: ThrowInReason | None
    score: HandScore | None


class SeatRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A game so far as one seat may know it: what its event stream and its view show, and nothing else."""

    format: Literal["fivehundred-record/1+seat"]
    seat: int
    rules_version: str
    players: int
    options: RecordOptions
    #: ``null`` when the events do not start at the game's first deal.
    first_dealer: int | None
    #: Every move in order; another seat's discard is ``{"type": "redacted_discard", "seat": s}``.
    moves: tuple[Move | RedactedDiscard, ...]
    hands: tuple[SeatHand, ...]
    status: Literal["in_progress", "game_over"]
    scores: tuple[int, ...]
    result: RecordResult | None


class SeatVerified(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's record that some game fits exactly: the record as derived, and what was checked."""

    record: SeatRecord
    checked: tuple[SeatCheck, ...]


# ------------------------------------------------------------------------------------------- derivation


def move_of(first: Event) -> Move | None:
    """The move whose first event is ``first`` (``None`` for an event no move starts with, and for a discard
    whose cards are hidden)."""
    if isinstance(first, BidMade):
        return Bid(seat=first.seat, bid=first.bid, sans_kitty=first.sans_kitty)
    if isinstance(first, Passed):
        return Pass(seat=first.seat)
    if isinstance(first, LookedAtHand):
        return LookAtHand(seat=first.seat)
    if isinstance(first, RedealProposed):
        return ProposeRedeal(seat=first.seat)
    if isinstance(first, RedealAnswered):
        return AnswerRedeal(seat=first.seat, accept=first.accept)
    if isinstance(first, CardCalled):
        return CallCard(seat=first.seat, card=first.card)
    if isinstance(first, WentAlone):
        return GoAlone(seat=first.seat)
    if isinstance(first, PartnersChosen):
        return ChoosePartners(seat=first.seat, partners=first.partners)
    if isinstance(first, Discarded) and first.cards is not None:
        return Discard(seat=first.seat, cards=first.cards)
    if isinstance(first, JokerNominated):
        return NominateJoker(seat=first.seat, card=first.card, suit=first.suit)
    if isinstance(first, CardPlayed):
        return Play(seat=first.seat, card=first.card, nominate=first.nominate)
    return None


class _SeatHandBuilder:
    def __init__(self, e: HandDealt, opts: Options) -> None:
        self.opts = opts
        self.fields: dict[str, Any] = {"hand_number": e.hand_number, "dealer": e.dealer, "move_count": 0,
                                       "dealt": None, "kitty": None, "contract": None, "exposed": None,
                                       "outcome": "in_progress", "thrown_in": None, "score": None}
        self.tricks: list[RecordTrick] = []
        self.trick: RecordTrick | None = None

    def event(self, e: Event, seat: int) -> None:
        f = self.fields
        replace = msgspec.structs.replace
        if isinstance(e, CardsReceived | LookedAtHand) and e.seat == seat and e.cards is not None \
                and f["dealt"] is None:
            f["dealt"] = e.cards
        elif isinstance(e, KittyShown) or (isinstance(e, KittyTaken) and e.cards is not None):
            f["kitty"] = e.cards
        elif isinstance(e, AuctionWon):
            f["contract"] = RecordContract(bid=e.bid, contractor=e.contractor, sans_kitty=e.sans_kitty,
                                           sitting_out=e.sitting_out, called_card=None, chosen_partners=(),
                                           alone=plays_alone(self.opts, e.bid))
        elif isinstance(e, CardCalled) and f["contract"] is not None:
            f["contract"] = replace(f["contract"], called_card=e.card)
        elif isinstance(e, PartnersChosen) and f["contract"] is not None:
            f["contract"] = replace(f["contract"], chosen_partners=tuple(sorted(e.partners)))
        elif isinstance(e, WentAlone) and f["contract"] is not None:
            f["contract"] = replace(f["contract"], alone=True)
        elif isinstance(e, CardPlayed):
            t = self.trick
            self.trick = (RecordTrick(leader=e.seat, cards=(e.card,), nominate=e.nominate, winner=None)
                          if t is None else replace(t, cards=(*t.cards, e.card)))
        elif isinstance(e, TrickWon) and self.trick is not None:
            self.tricks.append(replace(self.trick, winner=e.seat))
            self.trick = None
        elif isinstance(e, ThrownIn):
            f["outcome"], f["thrown_in"] = "thrown_in", e.reason
        elif isinstance(e, HandScored):
            f["outcome"] = "scored"
            f["score"] = HandScore(made=e.made, contracting_seats=e.contracting_seats, tricks_won=e.tricks_won,
                                   deltas=e.deltas, scores=e.scores)
        elif isinstance(e, HandExposed):
            f["exposed"] = e.cards

    def build(self) -> SeatHand:
        tricks = (*self.tricks, *((self.trick,) if self.trick is not None else ()))
        return SeatHand(tricks=tricks, **self.fields)


def seat_record(options: Options, start: Sequence[Event] | None, steps: Sequence[Sequence[Event]],
                seat: int) -> SeatRecord:
    """The game as ``seat`` may know it, from the events of its start (``new_game``'s; ``None`` when they are
    not at hand, as for a game restored mid-way) and of each move in order (``apply_move``'s), every one of
    them redacted for ``seat`` before it is read."""
    moves: list[Move | RedactedDiscard] = []
    hands: list[_SeatHandBuilder] = []
    first_dealer: int | None = None
    result: RecordResult | None = None
    scores: tuple[int, ...] = (0,) * len(sides(options))
    groups: list[tuple[bool, Sequence[Event]]] = [(False, start)] if start is not None else []
    groups += [(True, events) for events in steps]
    for is_move, events in groups:
        shown = redact_events(events, seat)
        if is_move and shown:
            first = shown[0]
            move = move_of(first)
            if move is None and isinstance(first, Discarded):
                moves.append(RedactedDiscard(seat=first.seat))
            elif move is not None:
                moves.append(move)
            if hands:
                hands[-1].fields["move_count"] += 1
        for e in shown:
            if isinstance(e, HandDealt):
                if first_dealer is None and not is_move:
                    first_dealer = e.dealer
                hands.append(_SeatHandBuilder(e, options))
            elif isinstance(e, GameOver):
                result = RecordResult(winners=e.winners, losers=e.losers, reason=e.reason)
            elif hands:
                hands[-1].event(e, seat)
                if isinstance(e, HandScored):
                    scores = e.scores
    return SeatRecord(format=SEAT_RECORD_FORMAT, seat=seat, rules_version=RULES_VERSION, players=options.players,
                      options=record_options(options), first_dealer=first_dealer, moves=tuple(moves),
                      hands=tuple(h.build() for h in hands),
                      status="game_over" if result is not None else "in_progress", scores=scores, result=result)


# ------------------------------------------------------------------------------------------- verification


class _Deal(msgspec.Struct, frozen=True):
    """One way to deal a hand that fits what the seat saw: the deck, the hidden discard, the unseen cards each
    seat was given."""

    deck: tuple[str, ...]
    discard: tuple[str, ...] | None
    unseen: dict[int, frozenset[str]]


def _mismatch(field: str, detail: str, index: int | None = None) -> RecordRefused:
    return RecordRefused("RECORD_MISMATCH", f"{field}: {detail}", field=field, index=index)


# long: one deal, built in the order its parts constrain each other (seen cards, the matching, the deck)
def _fit_deal(opts: Options, hand: SeatHand, moves: Sequence[Move | RedactedDiscard], seat: int,
              kept_from: dict[int, set[str]], face_down_until: dict[tuple[int, str], int], where: str) -> _Deal:
    """A deal of the hand that fits what ``seat`` saw, no seat given an unseen card ``kept_from`` it (a ghost: in
    no place where it is ever face up), and no ghost's card face up before its play ``face_down_until`` says."""
    pack, index = pack_for(opts), pack_index(opts)
    n, k = seat_count(opts), kitty_size(opts)
    in_pack = set(pack)
    held: list[set[str]] = [set() for _ in range(n)]  # each seat's cards after the exchange, as far as seen
    for m in moves:
        # A seat held each card it played, and the joker it nominated a suit for.
        if (isinstance(m, Play) or (isinstance(m, NominateJoker) and m.suit is not None)) and 0 <= m.seat < n \
                and m.card in in_pack:
            held[m.seat].add(m.card)
    taker = next((m.seat for m in moves if isinstance(m, Discard | RedactedDiscard) and 0 <= m.seat < n), None)
    own_discard = next((tuple(m.cards) for m in moves if isinstance(m, Discard) and m.seat == seat), None)
    kitty = hand.kitty
    if hand.dealt is not None:
        mine = set(hand.dealt)
        if taker == seat:
            mine = (mine | set(kitty or ())) - set(own_discard or ())
        held[seat] |= mine
    if hand.exposed is not None and hand.contract is not None and 0 <= hand.contract.contractor < n:
        held[hand.contract.contractor] |= set(hand.exposed)
    discard: set[str] = set()
    if taker == seat and own_discard is not None:
        discard = set(own_discard)
    placed = [*held, discard, set(kitty or ())]
    seen: set[str] = set()
    for cards in placed[:-1]:
        if seen & cards or not cards <= in_pack:
            raise _mismatch(where, "no deal of the pack gives every card seen where it was seen")
        seen |= cards
    if not set(kitty or ()) <= in_pack or len(kitty or ()) not in (0, k) or any(len(h) > HAND_SIZE for h in held):
        raise _mismatch(where, "no deal of the pack gives every card seen where it was seen")
    # The kitty another seat took and did not play from: it kept those cards or discarded them.
    hidden_discard = taker is not None and taker != seat
    only: dict[str, tuple[int, ...]] = {}
    if hidden_discard and kitty is not None and taker is not None:
        only = {c: (taker, -1) for c in kitty if c not in held[taker]}
    pool = [c for c in pack if c not in seen and (c not in set(kitty or ()) or c in only)]
    # Each ghost's piles: which of the cards it played lie on top, and what lies beneath each (None: unseen).
    ghosts = ghost_seats(opts)
    piles: dict[int, list[tuple[str | None, str | None]]] = {}
    for g in ghosts:
        plays = [m.card for m in moves if isinstance(m, Play) and m.seat == g]
        laid = _lay_piles(plays, {c: j for (s, c), j in face_down_until.items() if s == g})
        if laid is None:
            raise _mismatch(where, "no laying of a ghost's piles lets it play its cards in the order played")
        piles[g] = laid
    # The places still to fill: each seat's unseen cards, the hidden discard, the kitty, the dead hand; a ghost's
    # unseen cards lie where they are face up at some time (its seat) or never (beneath a card never played).
    slots: list[int] = [s for s in range(n) if s not in ghosts for _ in range(HAND_SIZE - len(held[s]))]
    for g in ghosts:
        slots += [g] * sum((top is None) + (top is not None and bottom is None) for top, bottom in piles[g])
        slots += [_NEVER_UP + g] * sum(top is None for top, _ in piles[g])
    slots += [-1] * (k if hidden_discard else 0)
    kitty_unseen = kitty is None and not hidden_discard
    slots += [-2] * (k if kitty_unseen else 0)
    slots += [-3] * (HAND_SIZE if has_dead_hand(opts) else 0)
    if len(slots) != len(pool):
        raise _mismatch(where, "the cards seen do not leave the right number unseen")
    given = _match(slots, pool, kept_from, only)
    if given is None:
        raise _mismatch(where, "no deal of the pack fits the moves seen")
    unseen: dict[int, set[str]] = {s: set() for s in range(n)}
    rest: dict[int, list[str]] = {-1: [], -2: [], -3: [], **{_NEVER_UP + g: [] for g in ghosts}}
    for slot, card in zip(slots, given, strict=True):
        (unseen[slot].add(card) if 0 <= slot < n else rest[slot].append(card))
    laid_out = {g: _fill_piles(piles[g], [c for slot, c in zip(slots, given, strict=True) if slot == g],
                               rest[_NEVER_UP + g]) for g in ghosts}
    after = [held[s] | unseen[s] | set(rest.get(_NEVER_UP + s, ())) for s in range(n)]
    discard |= set(rest[-1])
    # The kitty keeps the order it was dealt in (a seat that saw it saw that order).
    the_kitty = list(kitty) if kitty is not None else list(sort_hand(discard if hidden_discard else rest[-2], index))
    dealt = [set(h) for h in after]
    if taker is not None and 0 <= taker < n:
        dealt[taker] = (after[taker] | discard) - set(the_kitty)
    if any(len(h) != HAND_SIZE for h in dealt) or len(the_kitty) != k:
        raise _mismatch(where, "no deal of the pack fits the moves seen")
    # Where the deal puts each position of the deck: deal the positions themselves.
    positions = tuple(str(i) for i in range(len(pack)))
    by_seat, dead_positions, kitty_positions = deal(opts, positions, hand.dealer % n)
    deck = [""] * len(pack)
    placements: list[tuple[Sequence[str], Sequence[str]]] = [
        *((laid_out[s] if s in laid_out else sort_hand(h, index), p)
          for s, (h, p) in enumerate(zip(dealt, by_seat, strict=True))),
        (the_kitty, kitty_positions), (rest[-3], dead_positions)]
    for placing, where_to in placements:
        for card, pos in zip(placing, where_to, strict=True):
            deck[int(pos)] = card
    hidden = sort_hand(discard, index) if hidden_discard else None
    return _Deal(tuple(deck), hidden, {s: frozenset(c) for s, c in unseen.items()})


def _match(slots: list[int], pool: list[str], kept_from: dict[int, set[str]],
           only: dict[str, tuple[int, ...]]) -> list[str] | None:
    """A card of ``pool`` for each slot (a seat, or a place no seat holds), none kept from its seat and each card
    of ``only`` in one of its places: a bipartite matching by augmenting paths, the constrained slots first."""
    order = sorted(range(len(slots)), key=lambda i: -len(kept_from.get(slots[i], ())))
    owner: dict[str, int] = {}

    def allowed(i: int, card: str) -> bool:
        return card not in kept_from.get(slots[i], ()) and (card not in only or slots[i] in only[card])

    def augment(i: int, seen: set[str]) -> bool:
        for card in pool:
            if card in seen or not allowed(i, card):
                continue
            seen.add(card)
            if card not in owner or augment(owner[card], seen):
                owner[card] = i
                return True
        return False

    for i in order:
        if not augment(i, set()):
            return None
    out = [""] * len(slots)
    for card, i in owner.items():
        out[i] = card
    return out


def _lay_piles(plays: Sequence[str], face_down_until: dict[str, int]) -> list[tuple[str | None, str | None]] | None:
    """A ghost's five piles (the card on top, the card beneath; ``None``: a card nobody saw) such that each card it
    played (``plays``, in order) was face up when played: on top, or beneath a card played before it; and a card
    ``face_down_until`` names lies beneath a card played at that play of the ghost's or later (``None``: no such
    laying). Each card lies beneath the latest card that allows it, so that it is face up for the shortest time.

    >>> _lay_piles(["AS", "KS", "QS"], {})
    [('AS', 'KS'), ('QS', None), (None, None), (None, None), (None, None)]
    >>> _lay_piles(["AS", "KS", "QS"], {"QS": 1})
    [('AS', None), ('KS', 'QS'), (None, None), (None, None), (None, None)]
    >>> _lay_piles(["AS", "KS", "QS"], {"KS": 1}) is None  # beneath a card played with it or later: never face up
    True
    """
    tops: list[int] = []
    beneath: dict[int, int] = {}
    open_tops: list[int] = []  # tops played, nothing beneath them yet (ascending)

    def lay(k: int) -> bool:
        if k == len(plays):
            return True
        # Every play left needs a top already played above it, or to be (or lie beneath) a new top.
        if len(tops) + max(0, -(-(len(plays) - k - len(open_tops)) // 2)) > GHOST_PILES:
            return False
        not_before = face_down_until.get(plays[k])
        for i in reversed(list(open_tops)):  # beneath the latest top played that it may lie beneath
            if not_before is not None and i < not_before:
                break
            open_tops.remove(i)
            beneath[i] = k
            if lay(k + 1):
                return True
            del beneath[i]
            open_tops.append(i)
            open_tops.sort()
        if not_before is None and len(tops) < GHOST_PILES:
            tops.append(k)
            open_tops.append(k)
            if lay(k + 1):
                return True
            tops.pop()
            open_tops.remove(k)
        return False

    if not lay(0):
        return None
    laid: list[tuple[str | None, str | None]] = [
        (plays[i], plays[beneath[i]] if i in beneath else None) for i in tops]
    return laid + [(None, None)] * (GHOST_PILES - len(laid))


def _fill_piles(piles: Sequence[tuple[str | None, str | None]], face_up_some_time: Sequence[str],
                never_up: Sequence[str]) -> list[str]:
    """A ghost's ten cards in dealt order (the five face down, then the five on them), the unseen places filled
    from the cards given to them: ``face_up_some_time`` for a top or for a card beneath a card played,
    ``never_up`` for a card beneath a card never played."""
    up_some_time, never = iter(face_up_some_time), iter(never_up)
    down: list[str] = []
    up: list[str] = []
    for top, bottom in piles:
        up.append(top if top is not None else next(up_some_time))
        down.append(bottom if bottom is not None else next(never if top is None else up_some_time))
    return down + up


def _kept_unseen(state: GameState, move: Move, unseen: frozenset[str]) -> set[str]:
    """The unseen cards the mover was given that make ``move`` illegal (none: no unseen card does)."""
    seat = move.seat
    if not 0 <= seat < len(state.hands):
        return set()
    hand = state.hands[seat]
    given = [c for c in hand if c in unseen]
    replace = msgspec.structs.replace

    def legal_without(cards: set[str]) -> bool:
        hands = list(state.hands)
        hands[seat] = tuple(c for c in hand if c not in cards)
        return check_move(replace(state, hands=tuple(hands)), move) is None

    if not given or not legal_without(set(given)):
        return set()
    # Those that make it illegal when the mover keeps only them of its unseen cards (all, if none does alone).
    breaking = {c for c in given if not legal_without(set(given) - {c})}
    return breaking or set(given)


def _refuse(index: int, reason: str, detail: str) -> RecordRefused:
    code = "MALFORMED_MOVE" if reason in MALFORMED_REASONS else "ILLEGAL_MOVE"
    return RecordRefused(code, f"move {index}: {detail}", index=index, reason=reason)


def _setup(record: SeatRecord) -> Options:
    """The record's options, once its version, player count, seat, first dealer and move counts are sound."""
    if len(record.moves) > MAX_RECORD_MOVES:
        raise RecordRefused("RECORD_TOO_LONG", f"a record holds at most {MAX_RECORD_MOVES} moves", field="moves")
    opts = checked_options(record.rules_version, record.options, record.players, len(record.hands))
    if not 0 <= record.seat < opts.players:
        raise _mismatch("seat", f"seat {record.seat} does not exist: seats are 0 to {opts.players - 1}")
    if record.first_dealer is None or not 0 <= record.first_dealer < opts.players:
        raise _mismatch("first_dealer", "a seat's record is checked from the game's first deal")
    if not record.hands or sum(h.move_count for h in record.hands) != len(record.moves) or any(
            h.move_count < 0 for h in record.hands):
        raise _mismatch("hands", "the hands' move counts do not add up to the moves")
    return opts


class _Repair(msgspec.Struct, frozen=True):
    """What the next deal of a hand must do otherwise: keep unseen cards from a seat (a ghost: from its face-up
    places), or keep a ghost's card face down until its play ``j`` (the ghost's own plays of the hand, from 0)."""

    kept: tuple[int, frozenset[str]] | None = None
    face_down: tuple[int, frozenset[str], int] | None = None


def _ghost_repair(state: GameState, move: Play, j: int, fit: _Deal) -> _Repair | None:
    """Why a ghost's play is illegal only because of other cards face up at that moment: the cards to keep face
    down (those it played later) and the unseen ones to keep from its face-up places (``None``: no other card
    face up makes it illegal)."""
    seat, hand = move.seat, state.hands[move.seat]
    others = [c for c in hand if c != move.card]
    replace = msgspec.structs.replace

    def legal_with(cards: set[str]) -> bool:
        hands = list(state.hands)
        hands[seat] = tuple(c for c in hand if c == move.card or c in cards)
        return check_move(replace(state, hands=tuple(hands)), move) is None

    if move.card not in hand or legal_with(set(others)) or not legal_with(set()):
        return None
    breaking = {c for c in others if not legal_with({c})} or set(others)
    unseen = breaking & fit.unseen.get(seat, frozenset())
    if unseen:
        return _Repair(kept=(seat, frozenset(unseen)))
    return _Repair(face_down=(seat, frozenset(breaking), j))


def _play_hand(state: GameState, given: Sequence[Move | RedactedDiscard], first: int, fit: _Deal,
               screen: MoveScreen | None) -> tuple[list[list[Event]], tuple[GameState, Move] | None, _Repair | None]:
    """Play one hand's moves on the deal found: each move's events, the state before the last move and that move,
    and ``None``; or, where a move is illegal only with cards the deal put where its seat could use them (unseen
    cards it was given, or a ghost's cards face up too early), how to deal again (raises :class:`RecordRefused`
    where no deal could make the move legal)."""
    done: list[list[Event]] = []
    last: tuple[GameState, Move] | None = None
    ghosts = ghost_seats(state.options)
    ghost_plays = dict.fromkeys(ghosts, 0)
    for offset, m in enumerate(given):
        index = first + offset
        move: Move = Discard(seat=m.seat, cards=fit.discard or ()) if isinstance(m, RedactedDiscard) else m
        rejection = screen(state, move) if screen is not None else None
        if rejection is not None:
            raise _refuse(index, rejection.reason, rejection.detail)
        try:
            new, events = apply_move(state, move)
        except IllegalMove as exc:
            if isinstance(move, Play) and move.seat in ghosts:
                repair = _ghost_repair(state, move, ghost_plays[move.seat], fit)
            else:
                kept = _kept_unseen(state, move, fit.unseen.get(move.seat, frozenset()))
                repair = _Repair(kept=(move.seat, frozenset(kept))) if kept else None
            if repair is None:
                raise _refuse(index, exc.rejection.reason, "no deal of the cards this seat did not see makes it "
                              f"legal ({exc.rejection.reason})") from None
            return done, last, repair
        if isinstance(move, Play) and move.seat in ghosts:
            ghost_plays[move.seat] += 1
        last = (state, move)
        done.append(events)
        state = new
    return done, last, None


def _repaired(repair: _Repair, kept_from: dict[int, set[str]], face_down_until: dict[tuple[int, str], int]) -> bool:
    """Add ``repair`` to what the next deal must do; whether that is anything new."""
    new = False
    if repair.kept is not None:
        seat, cards = repair.kept
        new = not cards <= kept_from.get(seat, set())
        kept_from.setdefault(seat, set()).update(cards)
    if repair.face_down is not None:
        seat, cards, j = repair.face_down
        for card in cards:
            if face_down_until.get((seat, card), -1) < j:
                face_down_until[(seat, card)] = j
                new = True
    return new


def verify_seat_record(record: SeatRecord, *, screen: MoveScreen | None = None) -> SeatVerified:
    """Check a seat's record as far as that seat's knowledge goes (the module doc): :class:`SeatVerified`, or
    raises :class:`RecordRefused` (no ``state``: the game found is not the game played).

    A move no deal makes legal is ``ILLEGAL_MOVE`` (or ``MALFORMED_MOVE``) at its index; a record no deal fits,
    or whose derived fields differ from the game found, is ``RECORD_MISMATCH`` naming the first field."""
    opts = _setup(record)
    seat = record.seat
    start: list[Event] = []
    steps: list[list[Event]] = []
    first = 0
    # The state before the move that dealt the hand being fitted, and that move (None: the game's first deal).
    before: tuple[GameState, Move] | None = None
    for number, hand in enumerate(record.hands):
        where = f"hands[{number}]"
        given = record.moves[first:first + hand.move_count]
        if number and before is None:
            raise _mismatch(f"hands[{number - 1}].move_count", "a hand before the last has no moves")
        kept_from: dict[int, set[str]] = {}
        face_down_until: dict[tuple[int, str], int] = {}
        for _ in range(_MAX_GHOST_REDEALS if is_ghost_game(opts) else _MAX_REDEALS):
            fit = _fit_deal(opts, hand, given, seat, kept_from, face_down_until, where)
            if before is None:
                state, dealt_events = new_game(opts, seed=0, deck_orders=(fit.deck,),
                                               first_dealer=record.first_dealer)
                start = dealt_events
            else:
                previous, dealing = before
                state, dealt_events = apply_move(msgspec.structs.replace(previous, deck_orders=(fit.deck,)), dealing)
                steps[first - 1] = dealt_events
            if state.hand_number != number or state.dealer != hand.dealer:
                raise _mismatch(f"{where}.dealer", "the moves before it deal this hand otherwise")
            done, last, repair = _play_hand(state, given, first, fit, screen)
            if repair is None:
                break
            if not _repaired(repair, kept_from, face_down_until):
                raise _mismatch(where, "no deal of the pack fits the moves seen")
        else:
            raise _mismatch(where, "no deal of the pack fits the moves seen")
        steps += done
        first += hand.move_count
        before = last
    derived = seat_record(opts, start, steps, seat)
    if msgspec.json.encode(derived) != msgspec.json.encode(record):
        field = first_difference(msgspec.to_builtins(record), msgspec.to_builtins(derived), "") or "hands"
        raise _mismatch(field, "does not match what the moves derive")
    return SeatVerified(record=derived, checked=SEAT_CHECKS)


__all__ = ["SEAT_CHECKS", "SEAT_RECORD_FORMAT", "RedactedDiscard", "SeatCheck", "SeatHand", "SeatRecord",
           "SeatVerified", "move_of", "seat_record", "verify_seat_record"]
