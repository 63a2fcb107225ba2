"""Hosted sessions: create, authorize, read, move (compare-and-set, If-Match, Idempotency-Key), stream.

The HTTP layer (:mod:`.api`) is a thin shell around :class:`SessionService`; this module knows nothing of
Litestar. Errors are :class:`~service.web.problems.Problem` s with stable codes.

Round trips of a move (each a single command or script; never a read-modify-write across two of them):

* **two** in general: one read (version, tag, state, token hashes and, with an ``Idempotency-Key``, that
  key's record), the engine applied in process, then one compare-and-set on the version and tag;
* **one** when this replica remembers the session's current record (it made or read the last change, the
  usual case when a game's moves reach the same replica): the compare-and-set alone, against the remembered
  version and tag. If someone else moved meanwhile, the compare-and-set fails and answers the current
  record: two round trips again, never more per attempt. Errors (401/403/400/409/422) are only ever decided
  on a fresh read.

Without ``If-Match`` a lost race is retried on the new state (a move such as a pass may still be legal there),
except when the same seat moved while the request was on its way (the store notes when each seat last moved,
and a lost compare-and-set answers how long ago): then the request raced a move of its own seat, a double tap
or a retry overtaking its first attempt, and applying it to the new state could play a second card; it is a
409 with the current version instead. "On its way" is measured from the moment the service took the request
up, so a replica whose remembered state was old (the seat's previous moves went through another replica) does
not mistake those for a race. With ``If-Match`` the caller asked for exactly that version, so a lost race is a
409.

A commit whose answer is lost is never answered as a failure if it was applied (see
:mod:`service.sessions.redis_store`): the store finds out first, and says ``COMMIT_OUTCOME_UNKNOWN`` when it
cannot.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, NamedTuple, Protocol, TypeVar

import msgspec

from bots import Level
from engine import Event, GameState, Move, controlled_seats, player_to_act, redact_events, view
from engine.model import GameOver
from service.referee import operations
from service.referee.schemas import overrides_dict, resolved
from service.referee.snapshots import Sealer
from service.sessions.bots import bot_chain, bot_seats, bot_slot, bot_to_act
from service.sessions.schemas import (
    CreateSessionRequest,
    MoveApplied,
    SessionCreated,
    SessionLegalMoves,
    SessionSnapshot,
    SessionState,
    StreamEnd,
    StreamEvent,
)
from service.sessions.store import (
    LOG_START,
    Committed,
    Conflict,
    Cursor,
    Gone,
    IdempotencyRecord,
    Loaded,
    LoggedEvent,
    Replayed,
    SessionRecord,
    SessionStore,
    StoreUnavailable,
    new_tag,
)
from service.web.problems import Problem

T = TypeVar("T")
logger = logging.getLogger("fivehundred.sessions")


class SessionMetrics(Protocol):
    """What the sessions count (:class:`service.ops.metrics.ServiceMetrics` is one)."""

    def move_applied(self, count: int = 1) -> None: ...

    def move_refused(self, reason: str) -> None: ...

    def session_created(self) -> None: ...

    def session_expired(self, count: int = 1) -> None: ...

    def redis_error(self, operation: str) -> None: ...


#: Counts an open event stream while its context is entered (e.g. ``ShutdownCoordinator.track_stream``).
StreamTracker = Callable[[], AbstractAsyncContextManager[Any]]

#: Refusals counted in ``moves_refused_total`` (by their ``reason``): illegal and malformed moves.
_REFUSALS = ("ILLEGAL_MOVE", "MALFORMED_MOVE")

#: Attempts at read + apply + compare-and-set for a move without If-Match before answering 409.
MOVE_ATTEMPTS = 5
MAX_IDEMPOTENCY_KEY = 128
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
_EVENT_ID = re.compile(r"(\d{1,18})-(\d{1,9})")
_TOKEN_HASH = 32

_JSON = msgspec.json.Encoder()
_MOVE_ENCODER = msgspec.json.Encoder()


class MoveOutcome(NamedTuple):
    """A move's answer: the JSON body (kept byte for byte for idempotent replays) and its version."""

    body: bytes
    version: int
    replayed: bool


class Caller(NamedTuple):
    """Who a token belongs to: the host (``seat is None``) or a seat."""

    seat: int | None
    loaded: Loaded

    @property
    def record(self) -> SessionRecord:
        return self.loaded.record


# ------------------------------------------------------------------------------------------------- helpers


def etag(version: int) -> str:
    return f'"{version}"'


def parse_if_match(value: str | None) -> set[int] | None:
    """The versions an ``If-Match`` header accepts (``None``: any). Accepts ``"5"``, ``5`` and ``W/"5"``."""
    if value is None or value.strip() in ("", "*"):
        return None
    versions: set[int] = set()
    for part in value.split(","):
        tag = part.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        tag = tag.strip('"')
        if not tag.isdigit() or len(tag) > 18:
            raise Problem("INVALID_IF_MATCH", f"If-Match must be a session version such as \"3\"; got "
                                                   f"{part.strip()[:40]!r}")
        versions.add(int(tag))
    return versions


def parse_event_id(value: str | None) -> Cursor:
    """The log position after which a stream resumes (``Last-Event-ID`` is ``<version>-<index>``)."""
    if value is None or value.strip() == "":
        return LOG_START
    m = _EVENT_ID.fullmatch(value.strip())
    if m is None:
        raise Problem("INVALID_LAST_EVENT_ID", "Last-Event-ID must be an event id of this stream, "
                                                    "<version>-<index>")
    return int(m[1]), int(m[2])


def bearer_token(authorization: str | None, access_token: str | None = None) -> str:
    if authorization:
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    if access_token:
        return access_token
    raise _unauthorized("a session token is required: Authorization: Bearer <token>")


def _unauthorized(detail: str, case: str | None = None) -> Problem:
    """401; ``case`` names the detail's text in the other languages (``problem.UNAUTHORIZED.detail.<case>``)."""
    return Problem("UNAUTHORIZED", detail, headers={"WWW-Authenticate": "Bearer"},
                   message=(f"problem.UNAUTHORIZED.detail.{case}", {}) if case else None)


def _forbidden(detail: str, case: str, *, code: str = "FORBIDDEN", **params: Any) -> Problem:
    """403; ``case`` and ``params`` word the detail in the other languages (``problem.<code>.detail.<case>``)."""
    return Problem(code, detail, message=(f"problem.{code}.detail.{case}", params))


def _not_found(session_id: str) -> Problem:
    return Problem("SESSION_NOT_FOUND", f"no session {session_id[:64]!r}: it never existed, was "
                   "deleted, or expired after its idle time (the host can recreate it from a snapshot)")


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


def _hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


#: The frame that ends a finished game's stream. Browsers: ``source.addEventListener("end", () =>
#: source.close())``; a reader that reconnects anyway (Last-Event-ID at the end) is answered 204, which the SSE
#: standard defines as "stop reconnecting".
END_EVENT = "end"


def event_frame(e: LoggedEvent, seat: int | None, to_act: int | None) -> bytes:
    """One Server-Sent Events frame: ``id: <version>-<index>`` and, with no ``event:`` name (so that an
    ``EventSource``'s ``onmessage`` sees it), ``data:`` a :class:`StreamEvent` as ``seat`` may see it."""
    shown = redact_events((e.event,), seat)[0]
    return b"id: %d-%d\ndata: %s\n\n" % (e.version, e.seq,
                                          _JSON.encode(StreamEvent(version=e.version, to_act=to_act, event=shown)))


def end_frame(version: int) -> bytes:
    return b"event: %s\ndata: %s\n\n" % (END_EVENT.encode(), _JSON.encode(StreamEnd(version=version)))


def _mover(event: Event) -> int | None:
    """The seat whose move an event of a move's first place records (every move's first event names it)."""
    seat = getattr(event, "seat", None)
    return seat if isinstance(seat, int) else None


class SessionService:
    """The sessions' behaviour over a :class:`SessionStore`."""

    def __init__(self, store: SessionStore, sealer: Sealer, *, stopping: asyncio.Event,
                 heartbeat_seconds: float = 15.0, remembered_sessions: int = 0,
                 metrics: SessionMetrics | None = None, track_stream: StreamTracker | None = None) -> None:
        self.store = store
        self.sealer = sealer
        self.stopping = stopping
        self.heartbeat_seconds = heartbeat_seconds
        self.metrics = metrics
        self._track_stream = track_stream
        #: The last record this replica read or wrote of up to ``remembered_sessions`` sessions (LRU): a move
        #: is computed on it and committed against its (version, tag), saving the read when it is current.
        self._recent: OrderedDict[str, SessionRecord] = OrderedDict()
        self._recent_size = remembered_sessions

    # ------------------------------------------------------------------------------------------- create

    async def create(self, req: CreateSessionRequest) -> SessionCreated:
        state, events = self._start(req)
        n = state.options.players
        bots = _bot_levels(req.bots, n)
        host_token = secrets.token_urlsafe(32)
        seat_tokens = [None if s in bots else secrets.token_urlsafe(32) for s in range(n)]
        auth = _hash(host_token) + b"".join(
            bot_slot(bots[s]) if token is None else _hash(token) for s, token in enumerate(seat_tokens))
        record = SessionRecord(1, state, auth, new_tag())
        if not await self.store.has_room():
            raise StoreUnavailable("the session store is nearly full: new sessions are refused for now, moves in "
                                   "existing sessions go on; retry later")
        session_id = secrets.token_urlsafe(16)
        while not await self.store.create(session_id, record, events):  # 2**-128: belt and braces
            session_id = secrets.token_urlsafe(16)
        self._remember(session_id, record)
        if self.metrics is not None:
            self.metrics.session_created()
        # The session exists now: a store failure while the bots open the game is not an error of this call
        # (the bots' moves are played by the next access); the answer gives the version really committed.
        record = await self._play_bots_quietly(session_id, record)
        return SessionCreated(
            session_id=session_id, version=record.version, host_token=host_token, seat_tokens=seat_tokens,
            options=resolved(state.options), rules_version=state.rules_version,
            phase=record.state.phase, to_act=record.state.to_act, expires_in=self.store.idle_seconds,
            bots={str(s): level for s, level in sorted(bots.items())})

    def _start(self, req: CreateSessionRequest) -> tuple[GameState, list[Event]]:
        if req.snapshot is not None:
            if any(x is not None for x in (req.players, req.preset, req.options, req.seed, req.deck_orders,
                                           req.first_dealer)):
                raise Problem("MALFORMED_REQUEST", "give either a snapshot or the new game's settings, "
                                                      "not both",
                              message=("problem.MALFORMED_REQUEST.detail.snapshot_or_settings", {}))
            # A restored session starts a fresh log: the events before the snapshot are not replayed.
            return self.sealer.open(req.snapshot), []
        if req.players is None:
            raise Problem("MALFORMED_REQUEST", "give players (2 to 6) for a new game, or a snapshot",
                          message=("problem.MALFORMED_REQUEST.detail.players_needed", {}))
        state, events, _ = operations.create_game(req.players, req, overrides_dict(req.options))
        return state, events

    # ------------------------------------------------------------------------------------------ callers

    async def _load(self, session_id: str, idempotency_field: str | None = None, *,
                    seat: int | None = None) -> Loaded:
        """A fresh read of the session (404 if it is gone), remembered for the next move."""
        if _SESSION_ID.fullmatch(session_id) is None:
            raise _not_found(session_id)
        loaded = await self.store.load(session_id, idempotency_field, seat=seat)
        if loaded is None:
            self._recent.pop(session_id, None)
            raise _not_found(session_id)
        self._remember(session_id, loaded.record)
        if bot_to_act(loaded.record.state, loaded.record.auth):
            # Bot moves a replica did not get to commit (the store failed, or it stopped): play them now.
            return Loaded(await self._play_bots(session_id, loaded.record), loaded.replay)
        return loaded

    def _remember(self, session_id: str, record: SessionRecord) -> None:
        if self._recent_size <= 0:
            return
        recent = self._recent
        recent[session_id] = record
        recent.move_to_end(session_id)
        if len(recent) > self._recent_size:
            recent.popitem(last=False)

    async def _caller(self, session_id: str, token: str) -> Caller:
        loaded = await self._load(session_id)
        return Caller(self._role(loaded.record.auth, token), loaded)

    @staticmethod
    def _role(auth: bytes, token: str) -> int | None:
        digest = _hash(token)
        found: int | None = -1
        # Compare against every hash (no early exit) in constant time per comparison.
        for i in range(len(auth) // _TOKEN_HASH):
            if hmac.compare_digest(digest, auth[i * _TOKEN_HASH:(i + 1) * _TOKEN_HASH]):
                found = None if i == 0 else i - 1
        if found == -1:
            raise _unauthorized("this token is not valid for this session", "invalid_token")
        return found

    @staticmethod
    def _seat_only(caller: Caller, what: str, case: str) -> int:
        if caller.seat is None:
            raise _forbidden(f"the host token cannot {what}; use the seat's token", case)
        return caller.seat

    @staticmethod
    def _host_only(caller: Caller, what: str, case: str) -> None:
        if caller.seat is not None:
            raise _forbidden(f"only the host token can {what}", case)

    @staticmethod
    def _viewer(caller: Caller, seat: int | None) -> int | None:
        """The seat whose view the caller gets: its own (a seat may name only itself; the host none)."""
        if seat is not None and seat != caller.seat:
            if caller.seat is not None:
                raise _forbidden("a token reads only its own seat's view", "own_view")
            raise _forbidden("the host token reads the public view only", "host_public_view")
        return caller.seat

    # -------------------------------------------------------------------------------------------- reads

    async def get(self, session_id: str, token: str, seat: int | None = None) -> SessionState:
        caller = await self._caller(session_id, token)
        viewer = self._viewer(caller, seat)
        return SessionState(session_id=session_id, version=caller.record.version, seat=viewer,
                            view=operations.seat_view(caller.record.state, viewer))

    async def legal_moves(self, session_id: str, token: str, seat: int | None = None) -> SessionLegalMoves:
        caller = await self._caller(session_id, token)
        own = self._seat_only(caller, "list legal moves", "host_legal_moves")
        self._viewer(caller, seat)
        _, moves = operations.legal_moves_of(caller.record.state, own)
        return SessionLegalMoves(session_id=session_id, version=caller.record.version, seat=own, legal_moves=moves)

    async def snapshot(self, session_id: str, token: str) -> SessionSnapshot:
        caller = await self._caller(session_id, token)
        self._host_only(caller, "export the snapshot", "host_only_snapshot")
        return SessionSnapshot(session_id=session_id, version=caller.record.version,
                               snapshot=self.sealer.seal(caller.record.state))

    async def delete(self, session_id: str, token: str) -> None:
        caller = await self._caller(session_id, token)
        self._host_only(caller, "delete the session", "host_only_delete")
        await self.store.delete(session_id)

    # -------------------------------------------------------------------------------------------- moves

    async def move(self, session_id: str, token: str, move: Move, *, if_match: str | None = None,
                   idempotency_key: str | None = None) -> MoveOutcome:
        """Apply ``move`` for the token's seat: one compare-and-set on the version the move was computed at.

        The state the move is computed on is the one this replica last saw of the session, if it remembers
        one (then the move costs a single round trip when nobody else moved meanwhile), else a fresh read.
        A compare-and-set that loses answers the current record, so a retry needs no further read. Every
        error is decided on a fresh read only, never on a remembered state.
        """
        arrived = time.monotonic()
        expected = parse_if_match(if_match)
        # The record is kept per seat; the move names its seat, which must be the token's (checked below).
        field = None if idempotency_key is None else self._idempotency_field(move.seat, idempotency_key)
        fingerprint = b"" if field is None else hashlib.sha256(_MOVE_ENCODER.encode(move)).digest()
        record = self._recent.get(session_id)
        fresh, replay = False, None
        #: The record was read (or a compare-and-set lost) after this seat moved while this request was on
        #: its way: it raced a move of its own seat (a double tap, or a retry overtaking its first attempt).
        raced = False
        for _ in range(MOVE_ATTEMPTS):
            if record is None:
                loaded = await self._load(session_id, field, seat=move.seat)
                record, replay, fresh = loaded.record, loaded.replay, True
                raced = self._moved_since(loaded.seat_moved_ago, arrived)
            try:
                prepared = self._prepare(record, replay, token, move, expected, field, fingerprint, raced)
            except Problem as exc:
                if fresh:
                    self._count_refusal(exc)
                    raise
                record = None  # remembered state: check against the store before answering an error
                continue
            if isinstance(prepared, MoveOutcome):
                return prepared
            state, events, body, keyed = prepared
            chain = await self._bot_replies(record, state)
            answered = record.version + 1 + len(chain)
            if chain:  # the answer (and its idempotency record) shows the bot moves that follow
                body = self._answer(move.seat, answered, state, events, chain)
                keyed = None if keyed is None else (keyed[0], IdempotencyRecord(fingerprint, answered, body))
            try:
                outcome = await self.store.commit(session_id, record, state, events, keyed, seat=move.seat)
            except Problem:
                self._recent.pop(session_id, None)  # the store's answer was lost: read afresh next time
                raise
            if isinstance(outcome, Committed):
                committed = SessionRecord(outcome.version, state, record.auth, outcome.tag)
                self._remember(session_id, committed)
                if self.metrics is not None:
                    self.metrics.move_applied()
                if chain:
                    await self._play_bots_quietly(session_id, committed, chain)
                return MoveOutcome(body, answered, False)
            if isinstance(outcome, Replayed):
                return self._replay(outcome.record, fingerprint)
            if isinstance(outcome, Gone):
                self._recent.pop(session_id, None)
                raise _not_found(session_id)
            # Lost the race: retry on the current record (no If-Match: the move may still be legal there, unless
            # its own seat moved meanwhile; with If-Match, the version check of the next attempt answers 409
            # unless it still matches).
            raced = self._moved_since(outcome.seat_moved_ago, arrived)
            record, fresh, replay = outcome.current, True, None
            self._remember(session_id, record)
        assert record is not None
        raise self._conflict(record.version, "the session kept changing; read it and try again", "busy")

    @staticmethod
    def _moved_since(seat_moved_ago: float | None, arrived: float) -> bool:
        """Whether the seat's last move (``seat_moved_ago`` seconds before the store answered) was made after
        ``arrived``. The store's answer is at most the elapsed time old, so a move made just before the
        request arrived may count as after it (never the other way round): only a request sent without
        waiting for the answer to its seat's previous move can be that close to it."""
        return seat_moved_ago is not None and seat_moved_ago <= time.monotonic() - arrived

    def _prepare(self, record: SessionRecord, replay: IdempotencyRecord | None, token: str, move: Move,
                 expected: set[int] | None, field: str | None, fingerprint: bytes,
                 raced: bool = False) -> MoveOutcome | tuple[GameState, list[Event], bytes,
                                                             tuple[str, IdempotencyRecord] | None]:
        """Everything about a move that needs no I/O: who, replay, syntax (400), version (409), a race with
        its own seat (409), legality (422), then the new state, its events and the answer's body (the codes of
        the stateless endpoints)."""
        seat = self._role(record.auth, token)
        if seat is None:
            raise _forbidden("the host token cannot make moves; use the seat's token", "host_moves")
        if move.seat not in controlled_seats(record.state.options, seat):  # itself, and a ghost partner's seat
            raise _forbidden(f"this token acts for seat {seat} only; the move names seat {move.seat}",
                             "seats", code="WRONG_SEAT", seat=seat, named=move.seat)
        if replay is not None:
            return self._replay(replay, fingerprint)
        operations.screen(record.state, move)
        if expected is not None and record.version not in expected:
            raise self._conflict(record.version, f"the session is at version {record.version}, not "
                                                 f"{', '.join(map(str, sorted(expected)))}", "if_match",
                                 versions=sorted(expected))
        if raced:
            raise self._conflict(record.version, f"seat {seat} moved while this move was on its way (the "
                                                 f"session is now at version {record.version}); nothing was "
                                                 "applied: read the session and send the move again if it is "
                                                 "still meant", "seat_moved", seat=seat)
        # Refused: the mover's own legal moves only (another seat's would reveal its hand); counted by the caller.
        state, events = operations.apply(record.state, move, screened=True)
        version = record.version + 1
        body = _JSON.encode(MoveApplied(version=version, phase=state.phase, to_act=state.to_act,
                                        events=redact_events(events, seat), view=view(state, seat)))
        keyed = None if field is None else (field, IdempotencyRecord(fingerprint, version, body))
        return state, events, body, keyed

    # --------------------------------------------------------------------------------------------- bots

    async def _bot_replies(self, record: SessionRecord, state: GameState) -> list[tuple[GameState, list[Event]]]:
        """The bot moves that will follow ``state`` (the next version of ``record``), decided off the loop."""
        bots = bot_seats(record.auth)
        if player_to_act(state) not in bots:
            return []
        return await asyncio.to_thread(bot_chain, state, record.version + 1, bots)

    @staticmethod
    def _answer(seat: int, version: int, state: GameState, events: list[Event],
                chain: list[tuple[GameState, list[Event]]]) -> bytes:
        """A move's answer including the bot moves after it: the last version, every event, the last view."""
        final = chain[-1][0] if chain else state
        everything = [*events, *(e for _, bot_events in chain for e in bot_events)]
        return _JSON.encode(MoveApplied(version=version, phase=final.phase, to_act=final.to_act,
                                        events=redact_events(everything, seat), view=view(final, seat)))

    async def _play_bots(self, session_id: str, record: SessionRecord,
                         chain: list[tuple[GameState, list[Event]]] | None = None) -> SessionRecord:
        """Commit the bot moves that follow ``record`` (``chain``, or decided now), one compare-and-set each,
        until a human seat is to act; if another replica committed first, carry on from what it committed."""
        bots = bot_seats(record.auth)
        for _ in range(4 * MOVE_ATTEMPTS):
            if chain is None:
                if player_to_act(record.state) not in bots:
                    return record
                chain = await asyncio.to_thread(bot_chain, record.state, record.version, bots)
            for state, events in chain:
                outcome = await self.store.commit(session_id, record, state, events)
                if isinstance(outcome, Committed):
                    record = SessionRecord(outcome.version, state, record.auth, outcome.tag)
                    if self.metrics is not None:
                        self.metrics.move_applied()
                elif isinstance(outcome, Conflict):
                    record = outcome.current  # another replica played this bot move (or the session moved on)
                    break
                else:
                    return record  # gone (deleted or expired)
                self._remember(session_id, record)
            self._remember(session_id, record)
            chain = None
        return record

    async def _play_bots_quietly(self, session_id: str, record: SessionRecord,
                                 chain: list[tuple[GameState, list[Event]]] | None = None) -> SessionRecord:
        """:meth:`_play_bots` after a change that is already committed: a store failure now must not turn that
        change's answer into an error; the remaining bot moves are played by the next access."""
        try:
            return await self._play_bots(session_id, record, chain)
        except StoreUnavailable:
            logger.warning("bot moves of session %s left for the next access: the store failed", session_id[:8])
            return record

    def _count_refusal(self, problem: Problem) -> None:
        reason = problem.extra.get("reason")
        if self.metrics is not None and problem.code in _REFUSALS and isinstance(reason, str):
            self.metrics.move_refused(reason)

    @staticmethod
    def _idempotency_field(seat: object, key: str) -> str:
        if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
            raise Problem("INVALID_IDEMPOTENCY_KEY",
                          f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters")
        return f"{seat}:{key}"

    @staticmethod
    def _replay(first: IdempotencyRecord, fingerprint: bytes) -> MoveOutcome:
        if not hmac.compare_digest(first.fingerprint, fingerprint):
            raise Problem("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was already used for a "
                                                         "different move; use a new key for a new move")
        return MoveOutcome(first.body, first.version, True)

    @staticmethod
    def _conflict(current: int, detail: str, case: str, **params: Any) -> Problem:
        """409 with the current version; ``case`` and ``params`` word it in the other languages."""
        return Problem("VERSION_CONFLICT", detail, current_version=current, headers={"ETag": etag(current)},
                       message=(f"problem.VERSION_CONFLICT.detail.{case}", {"current_version": current, **params}))

    # ------------------------------------------------------------------------------------------- events

    async def open_stream(self, session_id: str, token: str,
                          last_event_id: str | None) -> AsyncIterator[bytes] | None:
        """Authorize now (so errors are proper responses), then the SSE frames as an async iterator; ``None``
        when the game is over and the reader has had every event (answered 204: stop reconnecting)."""
        cursor = parse_event_id(last_event_id)
        caller = await self._caller(session_id, token)
        finished = caller.record.state.phase == "game_over"
        if finished and not await self.store.read_events(session_id, cursor, 0):
            return None
        return self._frames(session_id, caller.seat, cursor, finished)

    async def _frames(self, session_id: str, seat: int | None, cursor: Cursor,
                      finished: bool) -> AsyncIterator[bytes]:
        tracked = self._track_stream() if self._track_stream is not None else contextlib.nullcontext()
        async with tracked:
            async for frame in self._stream(session_id, seat, cursor, finished):
                yield frame

    async def _stream(self, session_id: str, seat: int | None, cursor: Cursor,
                      finished: bool) -> AsyncIterator[bytes]:
        yield b"retry: 1000\n\n"
        try:
            while not self.stopping.is_set():
                wait = 0.0 if finished else self.heartbeat_seconds
                batch = await self._unless_stopping(self.store.read_events(session_id, cursor, wait))
                if batch is None:
                    return
                if not batch:
                    if finished:
                        yield end_frame(cursor[0])  # the game is over and everything was sent
                        return
                    if not await self.store.exists(session_id):
                        return  # the session is gone
                    yield b": heartbeat\n\n"
                    continue
                turns = await self._turns(session_id, batch)
                yield b"".join(event_frame(e, seat, turns.get(e.version)) for e in batch)
                cursor = batch[-1].version, batch[-1].seq
                finished = finished or isinstance(batch[-1].event, GameOver)
        except StoreUnavailable:
            return  # the client reconnects with Last-Event-ID and loses nothing

    async def _turns(self, session_id: str, batch: list[LoggedEvent]) -> dict[int, int | None]:
        """The seat to act after each version of ``batch``: the mover of the next version's first event (every
        move's first event names its mover), and for the last version the session's own record, or if the
        session has moved on since, the mover of the next logged version."""
        turns: dict[int, int | None] = {}
        for previous, current in zip(batch, batch[1:], strict=False):
            if current.version != previous.version:
                turns[previous.version] = _mover(current.event)
        last = batch[-1]
        if isinstance(last.event, GameOver):
            turns[last.version] = None
            return turns
        loaded = await self.store.load(session_id)
        if loaded is not None and loaded.record.version == last.version:
            turns[last.version] = loaded.record.state.to_act
        else:
            after = await self.store.read_events(session_id, (last.version, last.seq), 0)
            following = next((e for e in after if e.version != last.version), None)
            turns[last.version] = None if following is None else _mover(following.event)
        return turns

    async def _unless_stopping(self, work: Awaitable[T]) -> T | None:
        """``work``'s result, or ``None`` if the service starts shutting down first."""
        task = asyncio.ensure_future(work)
        stop = asyncio.ensure_future(self.stopping.wait())
        try:
            await asyncio.wait((task, stop), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not task.done():
                task.cancel()
        return task.result() if task.done() and not task.cancelled() else None
