"""A seat's move in a hosted session: read (or remember), check, apply, compare-and-set, retry.

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

import contextlib
import hashlib
import hmac
import time
from typing import NamedTuple, Protocol

import msgspec

from engine import Event, GameState, Move, controlled_seats, controller, redact_events, view
from service.referee import operations
from service.sessions.access import Access, identify, is_spectator, role, seat_for
from service.sessions.bot_turns import MOVE_ATTEMPTS, BotTurns
from service.sessions.clock import check_not_timed_out, clocks_after
from service.sessions.headers import idempotency_field, parse_if_match
from service.sessions.memo import RecentRecords
from service.sessions.problems import conflict, forbidden, not_found
from service.sessions.schemas import OWN_SEAT, MoveApplied
from service.sessions.store import (
    Committed,
    Gone,
    IdempotencyRecord,
    Loaded,
    Replayed,
    SessionRecord,
    SessionStore,
)
from service.web.problems import Problem

#: Refusals counted in ``moves_refused_total`` (by their ``reason``): illegal and malformed moves.
_REFUSALS = ("ILLEGAL_MOVE", "MALFORMED_MOVE")

_JSON = msgspec.json.Encoder()
_MOVE_ENCODER = msgspec.json.Encoder()


class MoveMetrics(Protocol):
    def move_applied(self, count: int = 1) -> None: ...

    def move_refused(self, reason: str) -> None: ...


class MoveOutcome(NamedTuple):
    """A move's answer: the JSON body (kept byte for byte for idempotent replays) and its version."""

    body: bytes
    version: int
    replayed: bool


Prepared = tuple[GameState, list[Event], bytes, tuple[str, IdempotencyRecord] | None]


class MoveLoop:
    """Applies the moves of the sessions' seats."""

    def __init__(self, store: SessionStore, recent: RecentRecords, access: Access, bots: BotTurns,
                 metrics: MoveMetrics | None) -> None:
        self.store = store
        self.recent = recent
        self.access = access
        self.bots = bots
        self.metrics = metrics

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
        if move.seat == OWN_SEAT:
            move = msgspec.structs.replace(move, seat=await self._seat_of(session_id, token))
        # The record is kept per seat; the move names its seat, which must be the token's (checked below).
        field = None if idempotency_key is None else idempotency_field(move.seat, idempotency_key)
        fingerprint = b"" if field is None else hashlib.sha256(_MOVE_ENCODER.encode(move)).digest()
        record = self.recent.get(session_id)
        fresh, replay = False, None
        #: The record was read (or a compare-and-set lost) after this seat moved while this request was on
        #: its way: it raced a move of its own seat (a double tap, or a retry overtaking its first attempt).
        raced = False
        for _ in range(MOVE_ATTEMPTS):
            if record is None:
                loaded = await self.access.load(session_id, field, seat=move.seat)
                record, replay, fresh = loaded.record, loaded.replay, True
                raced = self._moved_since(loaded.seat_moved_ago, arrived, loaded.seat_moved_at)
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
            chain = await self.bots.replies(record, state)
            answered = record.version + 1 + len(chain)
            now_ms = self.bots.clock.now_ms()
            clocks = clocks_after(record.clock, [state, *(s for s, _ in chain)], record.version + 1, now_ms)
            if chain or record.clock is not None:  # the answer (and its idempotency record) shows the bot moves
                # that follow, and the clock
                # The mover's view: the token's seat (the human whose ghost moved, in the ghost-partners game).
                mover = controller(state.options, move.seat)
                body = self.bots.answer(mover, answered, state, events, chain, clocks[-1])
                keyed = None if keyed is None else (keyed[0], IdempotencyRecord(fingerprint, answered, body))
            try:
                outcome = await self.store.commit(session_id, record, state, events, keyed, seat=move.seat,
                                                  clock=clocks[0])
            except Problem:
                self.recent.forget(session_id)  # the store's answer was lost: read afresh next time
                raise
            if isinstance(outcome, Committed):
                committed = SessionRecord(outcome.version, state, record.auth, outcome.tag, clocks[0],
                                          table=record.table)
                self.recent.remember(session_id, committed)
                if self.metrics is not None:
                    self.metrics.move_applied()
                if chain:
                    await self.bots.play_quietly(session_id, committed, chain, now_ms)
                return MoveOutcome(body, answered, False)
            if isinstance(outcome, Replayed):
                return self._replay(outcome.record, fingerprint)
            if isinstance(outcome, Gone):
                self.recent.forget(session_id)
                raise not_found(session_id)
            # Lost the race: retry on the current record (no If-Match: the move may still be legal there, unless
            # its own seat moved meanwhile; with If-Match, the version check of the next attempt answers 409
            # unless it still matches).
            raced = self._moved_since(outcome.seat_moved_ago, arrived, outcome.seat_moved_at)
            record, fresh, replay = outcome.current, True, None
            self.recent.remember(session_id, record)
        assert record is not None
        raise conflict(record.version, "the session kept changing; read it and try again", "busy")

    async def _seat_of(self, session_id: str, token: str) -> int:
        """The seat a move that names none is for (:func:`seat_for`: the token's, or its ghost's when the ghost
        is to act): from the remembered record if it knows the token and the token moves for one seat only (a
        token it no longer knows is caught by the compare-and-set), else from a fresh read (whose turn it is
        decides between a human and its ghost)."""
        remembered = self.recent.get(session_id)
        if remembered is not None:
            with contextlib.suppress(Problem):
                seat = role(remembered.auth, token)
                if seat is not None and len(controlled_seats(remembered.state.options, seat)) == 1:
                    return seat
        record = (await self.access.load(session_id)).record
        return seat_for(record.state, self._mover(record, token))

    @staticmethod
    def _mover(record: SessionRecord, token: str) -> int:
        """The seat ``token`` moves for: 403 for the host's and a spectator's, 401 for no token of the session."""
        if is_spectator(record.table, token):
            raise forbidden("a spectator token reads the public view and the public event stream only",
                            "spectator")
        seat = identify(record, Loaded(record, None), token).seat
        if seat is None:
            raise forbidden("the host token cannot make moves; use the seat's token", "host_moves")
        return seat

    @staticmethod
    def _moved_since(seat_moved_ago: float | None, arrived: float, seat_moved_at: float | None = None) -> bool:
        """Whether the seat's last move (``seat_moved_ago`` seconds before the store answered) was made after
        ``arrived``. The store's answer is at most the elapsed time old, so a move made just before the
        request arrived may count as after it (never the other way round): only a request sent without
        waiting for the answer to its seat's previous move, or one delayed between the store's answer and
        this check, can be that close to it. A store on this process's clock says when (``seat_moved_at``):
        then the answer is exact."""
        if seat_moved_at is not None:
            return seat_moved_at > arrived
        return seat_moved_ago is not None and seat_moved_ago <= time.monotonic() - arrived

    def _prepare(self, record: SessionRecord, replay: IdempotencyRecord | None, token: str, move: Move,
                 expected: set[int] | None, field: str | None, fingerprint: bytes,
                 raced: bool = False) -> MoveOutcome | Prepared:
        """Everything about a move that needs no I/O: who, replay, syntax (400), version (409), a race with
        its own seat (409), legality (422), then the new state, its events and the answer's body (the codes of
        the stateless endpoints)."""
        seat = self._mover(record, token)
        if move.seat not in controlled_seats(record.state.options, seat):  # itself, and a ghost partner's seat
            raise forbidden(f"this token acts for seat {seat} only; the move names seat {move.seat}",
                            "seats", code="WRONG_SEAT", seat=seat, named=move.seat)
        if replay is not None:
            return self._replay(replay, fingerprint)
        operations.screen(record.state, move)
        check_not_timed_out(record.clock, record.version, seat, expected)
        if expected is not None and record.version not in expected:
            raise conflict(record.version, f"the session is at version {record.version}, not "
                                           f"{', '.join(map(str, sorted(expected)))}", "if_match",
                           versions=sorted(expected))
        if raced:
            raise conflict(record.version, f"seat {seat} moved while this move was on its way (the "
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

    def _count_refusal(self, problem: Problem) -> None:
        reason = problem.extra.get("reason")
        if self.metrics is not None and problem.code in _REFUSALS and isinstance(reason, str):
            self.metrics.move_refused(reason)

    @staticmethod
    def _replay(first: IdempotencyRecord, fingerprint: bytes) -> MoveOutcome:
        if not hmac.compare_digest(first.fingerprint, fingerprint):
            raise Problem("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was already used for a "
                                                         "different move; use a new key for a new move")
        return MoveOutcome(first.body, first.version, True)
