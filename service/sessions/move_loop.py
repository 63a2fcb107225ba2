"""A seat's move in a hosted session: a step of :meth:`~service.sessions.changes.Changes.run` (read or remember,
check, apply, compare-and-set, retry).

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

import hashlib
import hmac
import time
from typing import NamedTuple

import msgspec

from engine import Event, GameState, Move, controlled_seats, player_to_act, redact_events, view
from service.referee import operations
from service.sessions.access import Access, Caller, come_back, identify, seat_for
from service.sessions.changes import Chain, Changes, Done, Plan, Seen
from service.sessions.clock import TurnClock, check_not_timed_out, clock_view, clocks_after, is_away
from service.sessions.headers import idempotency_field, parse_if_match
from service.sessions.lifecycle import check_playing, plays
from service.sessions.problems import busy, conflict, forbidden
from service.sessions.schemas import OWN_SEAT, MoveApplied
from service.sessions.seats import NOBODY, hash_token
from service.sessions.store import Change, IdempotencyRecord, Loaded, SessionRecord
from service.web.problems import Problem

#: Refusals counted in ``moves_refused_total`` (by their ``reason``): illegal and malformed moves.
_REFUSALS = ("ILLEGAL_MOVE", "MALFORMED_MOVE")

_JSON = msgspec.json.Encoder()
_MOVE_ENCODER = msgspec.json.Encoder()



def may_move(caller: Caller, path_seat: int | None = None) -> int:
    """Who may make moves (a seat's token: 403 for the host's, the table host's and a spectator's): its seat."""
    if caller.spectator:
        raise forbidden("a spectator token reads the public view and the public event stream only", "spectator")
    if caller.seat is None:
        raise forbidden("the host token cannot make moves; use the seat's token", "host_moves")
    return caller.seat

class _Away(Exception):  # noqa: N818 - not an error: the seat comes back before its move
    """The moving seat is away: its player's request says it is back."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.seat = seat


class MoveOutcome(NamedTuple):
    """A move's answer: the JSON body (kept byte for byte for idempotent replays) and its version."""

    body: bytes
    version: int
    replayed: bool


def applied_body(seat: int, version: int, state: GameState, events: list[Event], chain: Chain,
                 clock: TurnClock | None) -> bytes:
    """A move's answer, including the bot moves after it: the last version, every event as ``seat`` may see it,
    its view after the last move, and the clock then."""
    final, everything = state, events
    if chain:
        final = chain[-1][0]
        everything = [*events, *(e for _, bot_events in chain for e in bot_events)]
    return _JSON.encode(MoveApplied(version=version, phase=final.phase, to_act=final.to_act,
                                    events=redact_events(everything, seat), view=view(final, seat),
                                    clock=clock_view(clock)))


class MoveLoop:
    """Applies the moves of the sessions' seats."""

    def __init__(self, changes: Changes, access: Access) -> None:
        self.changes = changes
        self.access = access

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

        async def step(seen: Seen) -> Plan[MoveOutcome] | Done[MoveOutcome]:
            judged = self._judged(seen, token, move, expected, arrived, fingerprint)
            if isinstance(judged, Done):
                return judged
            seat, state, events = judged
            return await self._planned(seen.record, seat, move.seat, state, events, field, fingerprint)

        try:
            return await self.changes.run(session_id, step, self.changes.recent.get(session_id), fresh=False,
                                          idempotency_field=field, seat=move.seat)
        except _Away as away:
            # The seat is back with this request: once that is recorded (the record then is fresh), the move is
            # judged as any other (a move meant for a turn the bot made is 409 MOVE_TIMED_OUT without If-Match).
            record = (await self.access.load(session_id)).record
            await come_back(self.changes, session_id, record, away.seat, hash_token(token))
            try:
                return await self.changes.run(session_id, step, idempotency_field=field, seat=move.seat)
            except _Away:  # away again already (or the session kept changing): as a session that kept changing
                raise busy(record.version) from None

    def _judged(self, seen: Seen, token: str, move: Move, expected: set[int] | None, arrived: float,
                fingerprint: bytes) -> Done[MoveOutcome] | tuple[int, GameState, list[Event]]:
        """Whose the move is, and the game after it: the first answer of its ``Idempotency-Key`` given again, or the
        mover's seat, the new state and its events; a refusal otherwise (counted when decided on a fresh read)."""
        record = seen.record
        # Read (or the compare-and-set lost) after the game changed while this request was on its way: it was sent
        # before the turn it would now apply to began (a double tap, a retry overtaking its first attempt, a tap
        # that ended a hand and its twin landing in the next).
        raced = seen.fresh and self._moved_since(seen.changed_ago, arrived, seen.changed_at)
        try:
            seat = self._mover(record, token)
            if move.seat not in controlled_seats(record.state.options, seat):  # itself, or a ghost partner
                raise forbidden(f"this token acts for seat {seat} only; the move names seat {move.seat}",
                                "seats", code="WRONG_SEAT", seat=seat, named=move.seat)
            if seen.replay is not None:
                return Done(self._replay(seen.replay, fingerprint))
            if is_away(record.clock, seat):
                raise _Away(seat)  # back first (a change of its own), then this move
            if record.clock is not None and player_to_act(record.state) == seat and plays(record, seat):  # away
                raise conflict(record.version, "the clock's bot is making this turn's move for the seat, which "
                               "came back during it: the seat plays from its next turn", "bot_moving")
            # Refused: the mover's own legal moves only (another seat's would reveal its hand).
            state, events = operations.apply(record.state, move, admit=lambda: self._admit(
                record, seat, expected, raced))
        except Problem as exc:
            if seen.fresh:
                self._count_refusal(exc)
            raise
        return seat, state, events

    async def _planned(self, record: SessionRecord, seat: int, mover: int, state: GameState, events: list[Event],
                       field: str | None, fingerprint: bytes) -> Plan[MoveOutcome]:
        """The change a move makes: the new state, the bot moves that follow it (decided now: the answer shows
        them, and the clock after them), and the answer, kept under its ``Idempotency-Key``."""
        chain = await self.changes.bot_replies(record, state) if self.changes.bots_follow(record, state) else []
        answered = record.version + 1 + len(chain)
        now_ms = self.changes.clock.now_ms()
        clocks = clocks_after(record.clock, [state, *(s for s, _ in chain)] if chain else [state],
                              record.version + 1, now_ms)
        body = applied_body(seat, answered, state, events, chain, clocks[-1])
        keyed = None if field is None else (field, IdempotencyRecord(fingerprint, answered, body))
        change = Change(state=state, events=events, clock=clocks[0], mover=mover, idempotency=keyed)
        return Plan(change, lambda _: MoveOutcome(body, answered, False),
                    lambda first: self._replay(first, fingerprint), follow=bool(chain), chain=chain, now_ms=now_ms)

    async def _seat_of(self, session_id: str, token: str) -> int:
        """The seat a move that names none is for (:func:`seat_for`: the token's, or its ghost's when the ghost
        is to act): from the remembered record if it knows the token and the token moves for one seat only (a
        token it no longer knows is caught by the compare-and-set), else from a fresh read (whose turn it is
        decides between a human and its ghost)."""
        remembered = self.changes.recent.get(session_id)
        if remembered is not None:
            seat = remembered.seats.role(hash_token(token))
            if seat not in (None, NOBODY) and len(controlled_seats(remembered.state.options, seat)) == 1:
                return seat
        record = (await self.access.load(session_id)).record
        return seat_for(record.state, self._mover(record, token))

    @staticmethod
    def _mover(record: SessionRecord, token: str) -> int:
        """The seat ``token`` moves for: 403 for the host's and a spectator's, 401 for no token of the session."""
        return may_move(identify(record, Loaded(record, None), token))

    @staticmethod
    def _moved_since(changed_ago: float | None, arrived: float, changed_at: float | None = None) -> bool:
        """Whether the game's last change (``changed_ago`` seconds before the store answered) was made after
        ``arrived``. The store's answer is at most the elapsed time old, so a change made just before the
        request arrived may count as after it (never the other way round): only a request sent without
        waiting for the answer to the change before it, or one delayed between the store's answer and this
        check, can be that close to it. A store on this process's clock says when (``changed_at``): then the
        answer is exact."""
        if changed_at is not None:
            return changed_at > arrived
        return changed_ago is not None and changed_ago <= time.monotonic() - arrived

    @staticmethod
    def _admit(record: SessionRecord, seat: int, expected: set[int] | None, raced: bool) -> None:
        """A well-formed move's session conditions, checked before its legality: the game runs (409: it has not
        started, is paused or ended), the clock did not take the
        seat's turn (409), ``If-Match`` names a version of the game as it is (409: the session's version, or one
        after which only the table changed: a join, a spectator, a token, never a move), the game did not change
        while it was on its way (409: it was sent before the turn it would apply to began)."""
        check_playing(record)
        check_not_timed_out(record.clock, record.version, seat, expected)
        if expected is not None and record.version not in expected and not any(
                record.game_since <= version <= record.version for version in expected):
            raise conflict(record.version, f"the session is at version {record.version}, not "
                                           f"{', '.join(map(str, sorted(expected)))}", "if_match",
                           versions=sorted(expected))
        if raced:
            raise conflict(record.version, f"the game moved on while this move was on its way (the session is "
                                           f"now at version {record.version}); nothing was applied: read the "
                                           "session and send the move again if it is still meant", "game_moved")

    def _count_refusal(self, problem: Problem) -> None:
        reason = problem.extra.get("reason")
        metrics = self.changes.metrics
        if metrics is not None and problem.code in _REFUSALS and isinstance(reason, str):
            metrics.move_refused(reason)

    @staticmethod
    def _replay(first: IdempotencyRecord, fingerprint: bytes) -> MoveOutcome:
        if not hmac.compare_digest(first.fingerprint, fingerprint):
            raise Problem("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was already used for a "
                                                         "different move; use a new key for a new move")
        return MoveOutcome(first.body, first.version, True)
