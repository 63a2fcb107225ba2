"""``GET /v1/sessions/{id}/record``: a hosted game's record, derived from what the session already keeps.

A session keeps its state and the append-only log of the engine's events, every move's events logged under the
version it made. That is enough for a record, so the stores are not changed: the first event of each version
names the move that made it (``bid_made`` a bid, ``card_played`` a play, …), and the deals come from the state's
seed (the engine's documented shuffle). The record is then replayed and its final state compared with the
session's: a record that would not reproduce the session exactly is never answered.

- The **host** gets the whole game so far (:class:`engine.records.GameRecord`): every hand as dealt, every
  move. Its deal source is the deck order of each hand dealt so far and never the seed, which would reveal the
  deals still to come.
- A **seat** gets :class:`SeatRecord`: only what that seat may know, derived from the log redacted for it (so
  exactly what its event stream shows): its own hand once it looked, the kitty only if it took it or it was
  shown, the cards played, the contracts and the scores; other seats' discards are ``null``.

A finished game's record stays readable until the session expires (the log lives as long as the session).
Not available (409 ``RECORD_UNAVAILABLE``): a session restored from a snapshot (its log starts there). A
session created with explicit deck orders has its record like any other: the state keeps the deck orders it
dealt from (``dealt_decks``), since its log does not hold every card of their deals (the dead hand, a
thrown-in hand's kitty).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from engine import Event, GameState, Move, pack_for, redact_events
from engine.deal import shuffled as shuffled_deck
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
    GameOver,
    GoAlone,
    HandDealt,
    HandExposed,
    HandScored,
    JokerNominated,
    KittyShown,
    KittyTaken,
    LookAtHand,
    LookedAtHand,
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
from engine.records import (
    GameRecord,
    HandScore,
    RecordContract,
    RecordOptions,
    RecordRefused,
    RecordResult,
    RecordTrick,
    record_options,
    replay_game,
)
from engine.rules import MISERE_BIDS
from service.sessions.access import no_spectator
from service.sessions.clock import MoveTimedOut
from service.sessions.headers import bearer_token
from service.sessions.problems import etag
from service.sessions.service import SessionService
from service.sessions.store import EVENTS_PER_READ, LOG_START, LoggedEvent
from service.sessions.table import TABLE_EVENTS
from service.web.openapi import problem_responses, response_spec
from service.web.problems import Problem

# ------------------------------------------------------------------------------------------ from the log


def move_of(first: Event) -> Move | None:
    """The move whose first event is ``first`` (``None`` for an event no move starts with)."""
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


def _by_version(log: Sequence[LoggedEvent]) -> list[tuple[int, list[Event]]]:
    """The game's events grouped by version (the table's own events, such as ``seat_joined``, left out)."""
    groups: list[tuple[int, list[Event]]] = []
    for entry in log:
        if isinstance(entry.event, TABLE_EVENTS):
            continue  # the table's changes (seat_joined, …) are no moves of the game
        if isinstance(entry.event, MoveTimedOut):
            continue  # the turn clock's mark: the move it made follows, as any move's events
        if not groups or groups[-1][0] != entry.version:
            groups.append((entry.version, []))
        groups[-1][1].append(entry.event)
    return groups


_UNAVAILABLE_RESTORED = ("this session was restored from a snapshot: its log, and so its record, starts there "
                         "(the record of the game before it is the one that game's host kept)")


class RecordUnavailable(Problem):
    def __init__(self, detail: str) -> None:
        super().__init__(409, "RECORD_UNAVAILABLE", detail)


def host_record(state: GameState, log: Sequence[LoggedEvent]) -> GameRecord:
    """The whole game so far, from the session's log and state (checked by replaying it to ``state``)."""
    groups = _by_version(log)
    if not groups or groups[0][0] != 1 or not any(isinstance(e, HandDealt) for e in groups[0][1]):
        raise RecordUnavailable(_UNAVAILABLE_RESTORED)
    first_deal = next(e for e in groups[0][1] if isinstance(e, HandDealt))
    moves: list[Move] = []
    for _, events in groups[1:]:
        move = move_of(events[0])
        if move is None:
            raise RecordUnavailable("the session's log does not name every move")
        moves.append(move)
    opts = state.options
    pack = pack_for(opts)
    # Each hand so far was dealt from an explicit deck order (the state keeps those it dealt) or else from the
    # seed; the record lists every hand's deck rather than the seed (which would deal the hands to come).
    decks = (*state.dealt_decks, *(shuffled_deck(pack, state.seed, f"deal/{h}")
                                   for h in range(len(state.dealt_decks), state.hand_number + 1)))
    try:
        replayed = replay_game(opts, seed=None, deck_orders=decks, first_dealer=first_deal.dealer, moves=moves,
                               replay_seed=state.seed)
    except RecordRefused:
        replayed = None
    # The replay deals every hand from a deck order, the session perhaps from its seed: compare all but that.
    if replayed is None or _without_decks(replayed.state) != _without_decks(state):
        raise RecordUnavailable("this session's log does not reproduce its state (it was begun before the "
                                "service kept the deck orders it deals from)")
    return replayed.record


def _without_decks(state: GameState) -> GameState:
    return msgspec.structs.replace(state, deck_orders=(), dealt_decks=())


# ------------------------------------------------------------------------------------------- seat records


class RedactedDiscard(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="redacted_discard"):
    """Another seat's discard, as this seat saw it: who discarded, not what."""

    seat: int


class SeatHand(msgspec.Struct, frozen=True, kw_only=True):
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
    outcome: Literal["scored", "thrown_in", "in_progress"]
    thrown_in: Literal["all_passed", "inkle", "no_ace_no_face"] | None
    score: HandScore | None


class SeatRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A game so far as one seat may know it: what its event stream and its view show, and nothing else."""

    format: Literal["fivehundred-record/1+seat"]
    seat: int
    rules_version: str
    players: int
    options: RecordOptions
    first_dealer: int | None
    #: Every move in order; another seat's discard is ``{"type": "redacted_discard", "seat": s}``.
    moves: tuple[Move | RedactedDiscard, ...]
    hands: tuple[SeatHand, ...]
    status: Literal["in_progress", "game_over"]
    scores: tuple[int, ...]
    result: RecordResult | None


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
            # Five players: alone from the auction on for misère and under alone_only (as the engine decides).
            alone = self.opts.players == 5 and (e.bid in MISERE_BIDS
                                                or self.opts.five_player_partner_method == "alone_only")
            f["contract"] = RecordContract(bid=e.bid, contractor=e.contractor, sans_kitty=e.sans_kitty,
                                           sitting_out=e.sitting_out, called_card=None, chosen_partners=(),
                                           alone=alone)
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
                                   changes=e.deltas, scores=e.scores)
        elif isinstance(e, HandExposed):
            f["exposed"] = e.cards

    def build(self) -> SeatHand:
        tricks = (*self.tricks, *((self.trick,) if self.trick is not None else ()))
        return SeatHand(tricks=tricks, **self.fields)


def seat_record(state: GameState, log: Sequence[LoggedEvent], seat: int) -> SeatRecord:
    """The game so far as ``seat`` may know it: built only from the log redacted for ``seat``."""
    moves: list[Move | RedactedDiscard] = []
    hands: list[_SeatHandBuilder] = []
    first_dealer: int | None = None
    result: RecordResult | None = None
    scores: tuple[int, ...] = (0,) * len(state.scores)
    for version, events in _by_version(log):
        shown = redact_events(events, seat)
        if version > 1:
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
                if first_dealer is None and version == 1:
                    first_dealer = e.dealer
                hands.append(_SeatHandBuilder(e, state.options))
            elif isinstance(e, GameOver):
                result = RecordResult(winners=e.winners, losers=e.losers, reason=e.reason)
            elif hands:
                hands[-1].event(e, seat)
                if isinstance(e, HandScored):
                    scores = e.scores
    opts = state.options
    return SeatRecord(format="fivehundred-record/1+seat", seat=seat, rules_version=RULES_VERSION,
                      players=opts.players, options=record_options(opts), first_dealer=first_dealer,
                      moves=tuple(moves), hands=tuple(h.build() for h in hands),
                      status="game_over" if result is not None else "in_progress", scores=scores, result=result)


# ---------------------------------------------------------------------------------------------------- HTTP


class SessionRecordResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A session's record: the whole game for the host token, the seat's own record for a seat token."""

    session_id: str
    version: int
    #: ``null`` for the host.
    seat: int | None
    record: GameRecord | None = None
    seat_record: SeatRecord | None = None


async def read_log(service: SessionService, session_id: str) -> list[LoggedEvent]:
    """Every event of the session's log, in order (one store read per :data:`EVENTS_PER_READ` events)."""
    out: list[LoggedEvent] = []
    cursor = LOG_START
    while True:
        batch = await service.store.read_events(session_id, cursor, 0)
        out += batch
        if len(batch) < EVENTS_PER_READ:
            return out
        cursor = batch[-1].version, batch[-1].seq


async def session_record(service: SessionService, session_id: str, token: str) -> SessionRecordResponse:
    caller = await service.caller(session_id, token)
    no_spectator(caller)  # a record is the host's or a seat's
    state, version = caller.record.state, caller.record.version
    # The game's own events (the table's, such as seat_joined, change no state).
    log = [e for e in await read_log(service, session_id)
           if e.version <= version and not isinstance(e.event, TABLE_EVENTS)]
    if caller.seat is None:
        return SessionRecordResponse(session_id=session_id, version=version, seat=None,
                                     record=host_record(state, log))
    return SessionRecordResponse(session_id=session_id, version=version, seat=caller.seat,
                                 seat_record=seat_record(state, log, caller.seat))


def _example() -> Any:
    opts = Options()
    deck = shuffled_deck(pack_for(opts), 42, "deal/0")
    moves: list[Move] = [Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)]
    record = replay_game(opts, seed=None, deck_orders=(deck,), first_dealer=3, moves=moves).record
    return msgspec.to_builtins(SessionRecordResponse(session_id="q0Jd3rXyFh2mJZ9KkQ7aLw", version=5, seat=None,
                                                     record=record))


class SessionRecordController(Controller):
    path = "/v1/sessions"
    tags = ["sessions"]

    @get("/{session_id:str}/record", operation_id="getSessionRecord", summary="The session's game record",
         description="The host token: the whole game so far as a record (docs/RECORDS.md), whose deal source "
                     "is the deck order of each hand dealt (never the seed). A seat token: that seat's record, "
                     "only what its view and event stream show. A finished game's record stays readable until "
                     "the session expires. 409 `RECORD_UNAVAILABLE` for a session restored from a snapshot.",
         security=[{"sessionToken": []}],
         responses={200: response_spec(SessionRecordResponse, "The record.", ("The host's record", _example())),
                    **problem_responses("MALFORMED_REQUEST", "UNAUTHORIZED", "SESSION_NOT_FOUND",
                                        "RECORD_UNAVAILABLE", "STORE_UNAVAILABLE")})
    async def get_record(self, request: Request[Any, Any, Any], session_service: NamedDependency[SessionService],
                         session_id: FromPath[str]) -> Response[SessionRecordResponse]:
        token = bearer_token(request.headers.get("authorization"))
        body = await session_record(session_service, session_id, token)
        return Response(body, headers={"ETag": etag(body.version), "Cache-Control": "no-store"})


__all__ = ["RecordUnavailable", "SeatRecord", "SessionRecordController", "SessionRecordResponse", "host_record",
           "move_of", "seat_record"]
