"""``GET /v1/sessions/{id}/record``: a hosted game's record, derived from what the session already keeps.

A session keeps its state and the append-only log of the engine's events, every move's events logged under the
version it made. That is enough for a record, so the stores are not changed: the first event of each version
names the move that made it (:func:`engine.seat_records.move_of`), and the deals are the decks the state dealt
(:func:`engine.setup.decks_so_far`). The record is then replayed and its final state compared with the
session's: a record that would not reproduce the session exactly is never answered.

- The **host** gets the whole game so far (:class:`engine.records.GameRecord`): every hand as dealt, every
  move. Its deal source is the deck order of each hand dealt so far and never the seed, which would reveal the
  deals still to come.
- A **seat** gets :class:`engine.seat_records.SeatRecord`: only what that seat may know, derived by the engine
  from the log redacted for it (so exactly what its event stream shows).

A finished game's record stays readable until the session expires (the log lives as long as the session).
Not available (409 ``RECORD_UNAVAILABLE``): a session restored from a snapshot (its log starts there). A
session created with explicit deck orders has its record like any other: the state keeps the deck orders it
dealt from (``dealt_decks``), since its log does not hold every card of their deals (the dead hand, a
thrown-in hand's kitty).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from engine import GameState, Move, Options
from engine.model import Bid, Event, HandDealt, Pass
from engine.records import GameRecord, RecordRefused
from engine.replay import replay_game
from engine.seat_records import SeatRecord, move_of
from engine.seat_records import seat_record as derive_seat_record
from engine.setup import decks_so_far, seed_deck
from service.sessions.access import no_spectator
from service.sessions.headers import WHOLE_VERSION, bearer_token
from service.sessions.log import TABLE_EVENTS, MoveTimedOut
from service.sessions.problems import etag, forbidden
from service.sessions.service import SessionService
from service.sessions.store import EVENTS_PER_READ, LOG_START, LoggedEvent
from service.web.openapi import problem_responses, response_spec
from service.web.problems import Problem

# ------------------------------------------------------------------------------------------ from the log


def _by_version(log: Sequence[LoggedEvent]) -> list[tuple[int, list[Event]]]:
    """The game's events grouped by version (the table's and the clock's own marks left out)."""
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
        super().__init__("RECORD_UNAVAILABLE", detail)


def host_record(state: GameState, log: Sequence[LoggedEvent], since: int = 1) -> GameRecord:
    """The whole game so far, from the session's log and state (checked by replaying it to ``state``); the game
    began at version ``since`` (a table's next game begins later than 1)."""
    groups = _by_version(log)
    if not groups or groups[0][0] != since or not any(isinstance(e, HandDealt) for e in groups[0][1]):
        raise RecordUnavailable(_UNAVAILABLE_RESTORED)
    first_deal = next(e for e in groups[0][1] if isinstance(e, HandDealt))
    moves: list[Move] = []
    for _, events in groups[1:]:
        move = move_of(events[0])
        if move is None:
            raise RecordUnavailable("the session's log does not name every move")
        moves.append(move)
    # The record lists every hand's deck rather than the seed (which would deal the hands to come).
    decks = decks_so_far(state)
    try:
        replayed = replay_game(state.options, seed=None, deck_orders=decks, first_dealer=first_deal.dealer, moves=moves,
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


def seat_record(state: GameState, log: Sequence[LoggedEvent], seat: int, since: int = 1) -> SeatRecord:
    """The game so far as ``seat`` may know it (:func:`engine.seat_records.seat_record` on the session's log); the
    game began at version ``since``."""
    groups = _by_version(log)
    start = groups[0][1] if groups and groups[0][0] == since else None
    steps = [events for version, events in groups if version > since]
    return derive_seat_record(state.options, start, steps, seat)


# ---------------------------------------------------------------------------------------------------- HTTP


class SessionRecordResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A session's record: the whole game for the host token, the seat's own record for a seat token."""

    session_id: str
    version: int
    #: ``null`` for the host.
    seat: int | None
    record: GameRecord | None = None
    seat_record: SeatRecord | None = None


async def read_log(service: SessionService, session_id: str, since: int = 1) -> list[LoggedEvent]:
    """Every event of the session's log from version ``since`` on, in order (one store read per
    :data:`EVENTS_PER_READ` events)."""
    out: list[LoggedEvent] = []
    cursor = LOG_START if since <= 1 else (since - 1, WHOLE_VERSION)
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
    since = caller.record.settings.games.since  # the table's current game began there
    log = [e for e in await read_log(service, session_id, since) if since <= e.version <= version]
    if caller.seat is None:
        if caller.table_host and state.phase != "game_over":
            raise forbidden("the table host token reads the record once the game is over: until then it would "
                            "show every hand", "table_host_record")
        return SessionRecordResponse(session_id=session_id, version=version, seat=None,
                                     record=host_record(state, log, since))
    return SessionRecordResponse(session_id=session_id, version=version, seat=caller.seat,
                                 seat_record=seat_record(state, log, caller.seat, since))


def _example() -> Any:
    opts = Options()
    deck = seed_deck(opts, 42, 0)
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
                    **problem_responses("MALFORMED_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "SESSION_NOT_FOUND",
                                        "RECORD_UNAVAILABLE", "STORE_UNAVAILABLE")})
    async def get_record(self, request: Request[Any, Any, Any], session_service: NamedDependency[SessionService],
                         session_id: FromPath[str]) -> Response[SessionRecordResponse]:
        token = bearer_token(request.headers.get("authorization"))
        body = await session_record(session_service, session_id, token)
        return Response(body, headers={"ETag": etag(body.version), "Cache-Control": "no-store"})


__all__ = ["RecordUnavailable", "SessionRecordController", "SessionRecordResponse", "host_record", "seat_record"]
