"""Hosted sessions: :class:`SessionService`, the behaviour the HTTP layer (:mod:`.api`) calls, over a store.

It knows nothing of Litestar; errors are :class:`~service.web.problems.Problem` s with stable codes. The work is
done by one module per job: :mod:`.changes` (every change of a session, the bot seats' moves among them),
:mod:`.headers` (request headers), :mod:`.access` (whose a token is), :mod:`.move_loop` (a seat's move),
:mod:`.seating` (who sits where), :mod:`.life` (start, pause, end), :mod:`.rematch` (the table's next game),
:mod:`.spectators`, :mod:`.assist` (a seat's hints), :mod:`.streams` (the live events); this module creates sessions
and answers the reads.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

from bots import Level
from engine import Event, GameState, Move
from service.ops.egress import EgressPolicy
from service.referee import operations
from service.referee.deals import is_secretly_dealt
from service.referee.schemas import overrides_dict, resolved
from service.referee.search import SearchPool
from service.referee.snapshots import Sealer
from service.sessions.access import Access, Caller, full_host_only, viewer
from service.sessions.assist import SeatAssist
from service.sessions.changes import Changes, SessionMetrics
from service.sessions.clock import ClockSettings, clock_view, new_clock, stopped
from service.sessions.life import Life, ended_view
from service.sessions.lifecycle import status
from service.sessions.memo import RecentRecords
from service.sessions.move_loop import MoveLoop, MoveOutcome
from service.sessions.problems import DEAL_NOT_SECRET, forbidden
from service.sessions.rematch import Rematch, new_series, series_view
from service.sessions.schemas import (
    CreateSessionRequest,
    SessionCreated,
    SessionEvents,
    SessionSnapshot,
    SessionState,
)
from service.sessions.seating import Seating, new_invitation, seats_of
from service.sessions.seats import PlayerSeat, Seat, Seats, hash_token, new_bot, new_open
from service.sessions.spectators import Spectators
from service.sessions.store import SessionRecord, SessionStore, StoreUnavailable, new_tag
from service.sessions.streams import EventStreams, StreamTracker
from service.sessions.table import Table, check_name, encode_table
from service.sessions.webhooks import Webhooks
from service.web.problems import Problem

__all__ = ["MoveOutcome", "SessionService", "StreamTracker"]


def _bot_levels(bots: dict[str, Level] | None, players: int) -> dict[int, Level]:
    """The bot seats asked for, checked: seat numbers of this game, and at least one seat left to a human."""
    if not bots:
        return {}
    out: dict[int, Level] = {}
    for name, level in bots.items():
        seat = operations.seat_named(name, players)
        if seat is None:
            raise Problem("INVALID_BOTS", f"bots: {name[:8]!r} is not a seat of this {players}-player game "
                                               f"(seats are 0 to {players - 1})",
                          message=("problem.INVALID_BOTS.detail.not_a_seat",
                                   {"name": repr(name[:8]), "players": players, "last_seat": players - 1}))
        out[seat] = level
    if len(out) >= players:
        raise Problem("INVALID_BOTS", "bots: at least one seat must be left to a human player",
                      message=("problem.INVALID_BOTS.detail.no_human", {}))
    return out


def _open_seats(seats: list[int] | None, players: int, bots: dict[int, Level]) -> list[int]:
    """The seats left open for players to join, checked: seats of this game, none twice, none a bot's."""
    out: list[int] = []
    for seat in seats or []:
        if not 0 <= seat < players or seat in bots or seat in out:
            raise Problem("MALFORMED_REQUEST", f"open_seats: {seat} is not a seat of this {players}-player "
                                                    "game left to a player, or is named twice",
                          message=("problem.MALFORMED_REQUEST.detail.open_seats",
                                   {"seat": seat, "players": players}))
        out.append(seat)
    return out


def _check_deal_secret(req: CreateSessionRequest, state: GameState, humans: int, open_seats: list[int]) -> None:
    """A table of more than one player (or of an invited one) whose deals a client knows is refused unless the
    host said ``known_deal``: 400 ``INVALID_SEED`` (``INVALID_DECK_ORDER``) for one dealt from a client's seed
    (deck orders), 403 ``FORBIDDEN`` for one restored from a snapshot of such a game. Whoever knows the seed or
    the deck orders (through the stateless ``/v1/records/verify``, or the engine's documented shuffle) knows
    every hand and kitty. (Each field's own code: ``/v1`` is frozen, and its problem codes are an enumeration
    of the contract.)"""
    if req.known_deal or (humans <= 1 and not open_seats):
        return
    if req.snapshot is not None:
        if not is_secretly_dealt(state):
            raise forbidden("snapshot: this game was dealt from a seed or deck orders a client gave, which show every "
                            "hand to whoever knows them: a session restored from it is played by more than one "
                            "player, or by an invited one, only when created with \"known_deal\": true",
                            "known_deal_snapshot", kind=DEAL_NOT_SECRET)
        return
    if req.seed is None and not req.deck_orders:
        return
    field, code = ("seed", "INVALID_SEED") if req.seed is not None else ("deck_orders", "INVALID_DECK_ORDER")
    raise Problem(code, f"{field}: a session with invited seats or more than one player is dealt from a secret: "
                        "a seed or deck orders would show every hand to whoever knows them; leave them out, or send "
                        "\"known_deal\": true", message=(f"problem.{code}.detail.known_deal", {}),
                  kind=DEAL_NOT_SECRET)


def state_of(session_id: str, record: SessionRecord, seat: int | None) -> SessionState:
    """The session as ``seat`` sees it (``None``: the public), as ``getSession`` answers it."""
    return SessionState(session_id=session_id, version=record.version, seat=seat,
                        view=operations.seat_view(record.state, seat), seats=seats_of(record),
                        clock=clock_view(record.clock), series=series_view(record), status=status(record.settings),
                        ended=ended_view(record.settings))


class SessionService:
    """The sessions' behaviour over a :class:`SessionStore`."""

    def __init__(self, store: SessionStore, sealer: Sealer, *, stopping: asyncio.Event,
                 heartbeat_seconds: float = 15.0, remembered_sessions: int = 0,
                 metrics: SessionMetrics | None = None, track_stream: StreamTracker | None = None,
                 clock: ClockSettings | None = None, search: SearchPool | None = None,
                 egress: EgressPolicy | None = None) -> None:
        self.sealer = sealer
        self.stopping = stopping
        self.metrics = metrics
        #: Every change of a session: the store, the records this replica remembers of up to
        #: ``remembered_sessions`` sessions (LRU: a move is computed on one and committed against its version and
        #: tag, saving the read when it is current), the metrics, the clocks' settings and the search pool.
        self.changes = Changes(store, RecentRecords(remembered_sessions), metrics, clock, search)
        self.access = Access(self.changes)
        self.moves = MoveLoop(self.changes, self.access)
        self.assist = SeatAssist(self.access, self.changes.search)
        self.spectators = Spectators(self.changes, self.access)
        self.seating = Seating(self.changes, self.access)
        self.rematch = Rematch(self.changes, self.access)
        self.life = Life(self.changes, self.access)
        #: Webhooks (:mod:`.webhooks`): registered here, delivered by the replica's deliverer (:mod:`.deliverer`),
        #: which the changes of a session with webhooks wake (``changes.on_hooks``).
        self.webhooks = Webhooks(self.changes, self.access, egress or EgressPolicy())
        self.streams = EventStreams(store, self.access, stopping=stopping, heartbeat_seconds=heartbeat_seconds,
                                    track_stream=track_stream)

    @property
    def store(self) -> SessionStore:
        return self.changes.store

    @store.setter
    def store(self, store: SessionStore) -> None:
        """Replace the store everywhere the service's parts use it (a test stands a failing store in)."""
        self.changes.store = store
        self.streams.store = store

    @property
    def clock(self) -> ClockSettings:
        """How turn clocks run here (:mod:`.clock`): bounds, the sweeper's pace, the wall clock."""
        return self.changes.clock

    @property
    def recent(self) -> RecentRecords:
        return self.changes.recent

    # ------------------------------------------------------------------------------------------- create

    async def create(self, req: CreateSessionRequest) -> SessionCreated:
        state, events = self._start(req)
        n = state.options.players
        bots = _bot_levels(req.bots, n)
        open_seats = _open_seats(req.open_seats, n, bots)
        _check_deal_secret(req, state, n - len(bots), open_seats)
        host_name = None if req.host_name is None else check_name(req.host_name)
        host_token, table_host_token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        seat_tokens = [None if s in bots or s in open_seats else secrets.token_urlsafe(32) for s in range(n)]
        holders: list[Seat] = [new_bot(bots[s]) if s in bots else new_open() if token is None
                               else PlayerSeat(hash_token(token)) for s, token in enumerate(seat_tokens)]
        auth = Seats(hash_token(host_token), tuple(holders)).encode()
        issued = [new_invitation(seat, req.invitation_seconds) for seat in open_seats]
        # A table with open seats waits for its players (or its host) before anything is played; one without
        # starts at once, as sessions always did, unless the host said it starts it.
        waiting = bool(open_seats) or req.start == "host"
        table = Table(table_host=hash_token(table_host_token), known_deal=req.known_deal, hints=req.hints,
                      invitations=tuple(kept for kept, _ in issued), on_leave=req.on_leave,
                      leave_level=req.leave_level, invitation_seconds=req.invitation_seconds, start=req.start,
                      waiting=waiting, series=new_series(req.series), host_name=host_name)
        clock = new_clock(req.clock, state, self.clock, self.clock.now_ms())
        if waiting:
            clock = stopped(clock)
        record = SessionRecord(1, state, auth, new_tag(), clock, b"" if table == Table() else encode_table(table),
                               game_version=1)
        if not await self.store.has_room():
            raise StoreUnavailable("the session store is nearly full: new sessions are refused for now, moves in "
                                   "existing sessions go on; retry later")
        session_id = secrets.token_urlsafe(16)
        while not await self.store.create(session_id, record, events):  # 2**-128: belt and braces
            session_id = secrets.token_urlsafe(16)
        self.recent.remember(session_id, record)
        if self.metrics is not None:
            self.metrics.session_created()
        # The session exists now: a store failure while the bots open the game is not an error of this call
        # (the bots' moves are played by the next access); the answer gives the version really committed.
        record = await self.changes.play_bots_quietly(session_id, record)
        return SessionCreated(
            session_id=session_id, version=record.version, host_token=host_token,
            table_host_token=table_host_token, seat_tokens=seat_tokens,
            options=resolved(state.options), rules_version=state.rules_version,
            phase=record.state.phase, to_act=record.state.to_act, expires_in=self.store.idle_seconds,
            bots={str(s): level for s, level in sorted(bots.items())}, clock=clock_view(record.clock),
            hints=req.hints, invitations=[shown for _, shown in issued], series=series_view(record),
            status=status(table))

    def _start(self, req: CreateSessionRequest) -> tuple[GameState, list[Event]]:
        if req.snapshot is not None:
            if any(x is not None for x in (req.players, req.preset, req.options, req.seed, req.deck_orders,
                                           req.first_dealer)):
                raise Problem("MALFORMED_REQUEST", "give either a snapshot or the new game's settings, "
                                                      "not both",
                              message=("problem.MALFORMED_REQUEST.detail.snapshot_or_settings", {}))
            # A restored session starts a fresh log: the events before the snapshot are not replayed.
            # Replayed in full: the state lives on in the service, sealed again in its exports.
            return self.sealer.open(req.snapshot, replay=True), []
        if req.players is None:
            raise Problem("MALFORMED_REQUEST", "give players (2 to 6) for a new game, or a snapshot",
                          message=("problem.MALFORMED_REQUEST.detail.players_needed", {}))
        state, events, _ = operations.create_game(req.players, req, overrides_dict(req.options))
        return state, events

    # -------------------------------------------------------------------------------------------- reads

    async def caller(self, session_id: str, token: str) -> Caller:
        """A fresh read of the session and whose ``token`` is (401 if none of its tokens)."""
        return await self.access.caller(session_id, token)

    async def get(self, session_id: str, token: str, seat: int | None = None) -> SessionState:
        caller = await self.caller(session_id, token)
        return state_of(session_id, caller.record, viewer(caller, seat))

    async def snapshot(self, session_id: str, token: str) -> SessionSnapshot:
        caller = await self.caller(session_id, token)
        full_host_only(caller, "export the snapshot", "host_only_snapshot")
        return SessionSnapshot(session_id=session_id, version=caller.record.version,
                               snapshot=self.sealer.seal(caller.record.state))

    async def delete(self, session_id: str, token: str) -> None:
        caller = await self.caller(session_id, token)
        full_host_only(caller, "delete the session", "host_only_delete")
        await self.store.delete(session_id)

    # ------------------------------------------------------------------------------------- moves, events

    async def move(self, session_id: str, token: str, move: Move, *, if_match: str | None = None,
                   idempotency_key: str | None = None) -> MoveOutcome:
        """Apply ``move`` for the token's seat (:class:`~service.sessions.move_loop.MoveLoop`)."""
        return await self.moves.move(session_id, token, move, if_match=if_match, idempotency_key=idempotency_key)

    async def events_since(self, session_id: str, token: str, after: str | None) -> SessionEvents:
        """The caller's events after ``after``, without a stream (:meth:`EventStreams.since`)."""
        return await self.streams.since(session_id, token, after)

    async def open_stream(self, session_id: str, token: str,
                          last_event_id: str | None) -> AsyncIterator[bytes] | None:
        """The caller's event stream (:class:`~service.sessions.streams.EventStreams`); ``None``: answer 204."""
        return await self.streams.open(session_id, token, last_event_id)
