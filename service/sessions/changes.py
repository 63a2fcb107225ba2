"""Every change of a hosted session goes through one function, :meth:`Changes.run`.

A change is a *step*: given what the session is (a :class:`Seen` record), it answers either that nothing is to be
done (:class:`Done`) or a :class:`Plan`: the :class:`~service.sessions.store.Change` to commit and the answer to
give once it is committed. :meth:`Changes.run` does the rest, the same way for a seat's move, a bot's move, the
clock's move, a change of seats, a spectator and the table's next game (:mod:`.rematch`): it reads the session (or
starts from a record it already has), calls the step, commits the change by compare-and-set on the version and tag
the step saw (the store logs its events and publishes the new version in the same step), remembers the record it
made, counts the move, plays the bot seats' turns that follow, and answers. A compare-and-set that loses answers the
session's current record, and the step is called again on it; after :data:`MOVE_ATTEMPTS` lost races the answer is
409.

A step may refuse (raise a :class:`~service.web.problems.Problem`). A refusal is only ever answered on a fresh
read: a step that refuses on a record this replica remembered is called again on a fresh one.

The bot seats' moves are steps too (:meth:`Changes.play_bots`): a deterministic function of the committed state
(:mod:`.bots`), decided off the event loop in the search pool's bot lane, one compare-and-set each, so replicas
racing to play the same bot move compute the same move and exactly one commit applies it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

import msgspec

from engine import Event, GameState, player_to_act
from service.referee.operations import MoveCounter
from service.referee.search import SearchPool
from service.sessions.bots import MAX_CHAIN, bot_chain
from service.sessions.clock import ClockSettings, after_move, forfeits
from service.sessions.lifecycle import autoplayed, forfeited, plays
from service.sessions.memo import RecentRecords
from service.sessions.problems import SessionBusy, SessionGone, busy, not_found
from service.sessions.store import (
    Change,
    CommitOutcome,
    Committed,
    Conflict,
    Gone,
    IdempotencyRecord,
    Loaded,
    Replayed,
    SessionRecord,
    SessionStore,
    StoreUnavailable,
)
from service.web.problems import Problem

logger = logging.getLogger("fivehundred.sessions")

A = TypeVar("A")

#: Attempts at a change (a read or a lost compare-and-set, then the step again) before answering 409.
MOVE_ATTEMPTS = 5

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")

#: The bot moves that follow a state: entry ``i`` is the session at the version ``i + 1`` after it.
Chain = list[tuple[GameState, list[Event]]]


class SessionMetrics(MoveCounter, Protocol):
    """What the sessions count: the moves as the stateless API counts them, and the sessions and the store's
    errors (:class:`service.ops.metrics.ServiceMetrics` is one)."""

    def session_created(self) -> None: ...

    def session_expired(self, count: int = 1) -> None: ...

    def redis_error(self, operation: str) -> None: ...


class Seen(msgspec.Struct, frozen=True):
    """What a step is given: the session's record, and how it was come by."""

    record: SessionRecord
    #: Read from the store for this change (a refusal may be answered on it), not remembered from before.
    fresh: bool
    #: The first answer recorded under the change's ``Idempotency-Key`` (from a fresh read only).
    replay: IdempotencyRecord | None = None
    #: How long ago the game last changed, by the store's clock (``None``: not yet, or not asked: a move asks).
    changed_ago: float | None = None
    #: When it did, by this process's clock, from a store on it (the in-process one).
    changed_at: float | None = None


class Plan(msgspec.Struct, Generic[A], frozen=True):
    """A step's change, and what to answer once it is committed."""

    change: Change
    #: The answer, given the record the change made.
    answer: Callable[[SessionRecord], A]
    #: The answer when the change's ``Idempotency-Key`` was used already, given its first answer's record.
    replayed: Callable[[IdempotencyRecord], A] | None = None
    #: Whether the bot seats' turns that follow are played once the change is committed (before answering).
    follow: bool = True
    #: Those bot moves, when the step already decided them, and when they count as made (the clock's time).
    chain: Chain | None = None
    now_ms: int | None = None


class Done(msgspec.Struct, Generic[A], frozen=True):
    """A step's answer when there is nothing to change."""

    value: A


Step = Callable[[Seen], Awaitable[Plan[A] | Done[A]]]


class Changes:
    """Reads and changes the sessions of one store: the one place a session's record is committed."""

    def __init__(self, store: SessionStore, recent: RecentRecords, metrics: SessionMetrics | None = None,
                 clock: ClockSettings | None = None, search: SearchPool | None = None) -> None:
        self.store = store
        #: The last record this replica read or wrote of each recent session: a change is tried on it first.
        self.recent = recent
        self.metrics = metrics
        #: How turn clocks run here (:mod:`.clock`): bounds, the sweeper's pace, the wall clock.
        self.clock = clock or ClockSettings()
        #: Where bot and clock moves are decided (the search pool's bot lane, which hints never hold up).
        self.search = search or SearchPool()
        #: Told of each session whose webhooks have new events to deliver (this replica's deliverer wakes).
        self.on_hooks: Callable[[str], None] | None = None
        self._marking: set[asyncio.Future[None]] = set()  # the marks under way (a reference keeps each alive)

    async def read(self, session_id: str, idempotency_field: str | None = None, *,
                   seat: int | None = None) -> Loaded:
        """A fresh read of the session (404 if it is gone), remembered; bot moves that a replica did not get to
        commit (the store failed, or it stopped) are played first, and then the game changed just now: a move
        read this way was sent before the turn it would apply to began."""
        if _SESSION_ID.fullmatch(session_id) is None:
            raise not_found(session_id)
        loaded = await self.store.load(session_id, idempotency_field, seat=seat)
        if loaded is None:
            self.recent.forget(session_id)
            raise not_found(session_id)
        self.recent.remember(session_id, loaded.record)
        if plays(loaded.record, player_to_act(loaded.record.state)):
            played = await self.play_bots(session_id, loaded.record)
            if played.version == loaded.record.version:
                return loaded._replace(record=played)
            return Loaded(played, loaded.replay, 0.0, time.monotonic())
        return loaded

    def _settle(self, session_id: str, record: SessionRecord, change: Change,
                outcome: CommitOutcome) -> SessionRecord | Conflict | Replayed:
        """What a compare-and-set of ``change`` on ``record`` came to: the record it made (remembered, the move
        counted), or the session's current record (remembered), or the first answer of its ``Idempotency-Key``;
        :class:`SessionGone` if the session is no more."""
        if isinstance(outcome, Committed):
            committed = record.after(outcome, change)
            self.recent.remember(session_id, committed)
            if self.metrics is not None and change.state is not record.state:
                self.metrics.move_applied()
            return committed
        if isinstance(outcome, Gone):
            self.recent.forget(session_id)
            raise not_found(session_id)
        if isinstance(outcome, Conflict):
            self.recent.remember(session_id, outcome.current)
        return outcome

    async def run(self, session_id: str, step: Step[A], record: SessionRecord | None = None, *, fresh: bool = True,
                  idempotency_field: str | None = None, seat: int | None = None) -> A:
        """Change the session by ``step``: on ``record`` (``fresh``: read for this change; else remembered), or
        on a fresh read (with ``idempotency_field``'s first answer, and, for a move of ``seat``, when the game last
        changed); again on the current record each time the compare-and-set loses; 409 after
        :data:`MOVE_ATTEMPTS`."""
        seen = None if record is None else Seen(record, fresh)
        for _ in range(MOVE_ATTEMPTS):
            if seen is None:
                loaded = await self.read(session_id, idempotency_field, seat=seat)
                seen = Seen(loaded.record, True, loaded.replay, loaded.changed_ago, loaded.changed_at)
            try:
                planned = await step(seen)
            except Problem:
                if seen.fresh:
                    raise
                seen = None  # a remembered record: check against the store before answering a refusal
                continue
            if isinstance(planned, Done):
                return planned.value
            change = planned.change
            try:  # one compare-and-set on the version and tag the step saw
                stored = await self.store.commit(
                    session_id, seen.record, change.state, change.events, change.idempotency, seat=change.mover,
                    clock=change.clock, table=None if change.table is None else change.encoded_table,
                    auth=None if change.seats is None else change.auth,
                    ended=(seen.record.settings if change.table is None else change.table).ended is not None)
            except Problem:
                self.recent.forget(session_id)  # the store's answer was lost: read afresh next time
                raise
            outcome = self._settle(session_id, seen.record, change, stored)
            if isinstance(outcome, SessionRecord):
                if change.events and outcome.settings.webhooks:
                    self._hooks_due(session_id)
                if planned.follow:
                    await self.play_bots_quietly(session_id, outcome, planned.chain, planned.now_ms)
                return planned.answer(outcome)
            if isinstance(outcome, Replayed):
                assert planned.replayed is not None, "a change without an Idempotency-Key was answered a replay"
                return planned.replayed(outcome.record)
            seen = Seen(outcome.current, True, None, outcome.changed_ago, outcome.changed_at)
        assert seen is not None
        raise busy(seen.record.version)

    def _hooks_due(self, session_id: str) -> None:
        """The session's webhooks have new events: its entry of the webhook index is made due now, then this
        replica's deliverer wakes; in a task of its own, so that the change's answer does not wait for it (a
        change that stands even if this fails: the entry a running game keeps brings the deliverer back, see
        :mod:`.deliverer`)."""
        task = asyncio.ensure_future(self._mark_hooks(session_id))
        self._marking.add(task)
        task.add_done_callback(self._marking.discard)

    async def _mark_hooks(self, session_id: str) -> None:
        try:
            await self.store.mark_hooks(session_id, self.clock.now_ms())
        except StoreUnavailable:
            logger.warning("webhooks of session %s left to the backstop: the store failed", session_id[:8])
        if self.on_hooks is not None:
            self.on_hooks(session_id)

    # ------------------------------------------------------------------------------------------- bot seats

    @staticmethod
    def bots_follow(record: SessionRecord, state: GameState) -> bool:
        """Whether the service plays the seat to act in ``state`` (a bot seat's, or a seat away: the seat to act,
        or a ghost's human)."""
        return player_to_act(state) in autoplayed(record)[0]

    async def bot_replies(self, record: SessionRecord, state: GameState) -> Chain:
        """The bot moves that will follow ``state`` (the next version of ``record``), decided off the loop: the bot
        seats' and the seats' away (:func:`~service.sessions.lifecycle.autoplayed`)."""
        bots, once = autoplayed(record)
        if player_to_act(state) not in bots:  # the seat to act, or a ghost's human
            return []
        return await self.search.play(bot_chain, state, record.version + 1, bots, MAX_CHAIN, once)

    async def play_bots(self, session_id: str, record: SessionRecord, chain: Chain | None = None,
                        now_ms: int | None = None) -> SessionRecord:
        """Commit the bot moves that follow ``record`` (``chain``, or decided now), one change each, until a human
        seat is to act; if another replica committed first, carry on from what it committed. The clock counts
        each move of ``chain`` as made at ``now_ms`` (the time the move before them was answered with), the
        others as made now. Answers the last record (the session gone: the last one this replica made)."""
        moves, base = chain, record  # the moves decided, and the record the first of them follows
        progressed = True

        async def bot_move(seen: Seen) -> Plan[SessionRecord] | Done[SessionRecord]:
            nonlocal moves, base, now_ms
            current = seen.record
            if not moves or (current.version, current.tag) != (base.version, base.tag):
                bots, once = autoplayed(current)  # as the session is now: paused, a seat back, …
                if player_to_act(current.state) not in bots:
                    return Done(current)
                moves, base, now_ms = await self.search.play(bot_chain, current.state, current.version, bots,
                                                             MAX_CHAIN, once), current, None
            state, events = moves[0]
            at = self.clock.now_ms() if now_ms is None else now_ms
            clock = after_move(current.clock, state, current.version + 1, at)
            change = Change(state=state, events=events, clock=clock)
            mover = None if current.clock is None else current.clock.seat
            if forfeits(clock, mover):  # away so long that the bot keeps the seat
                assert mover is not None
                change = forfeited(current, change, mover)
            return Plan(change, made, follow=False)

        def made(committed: SessionRecord) -> SessionRecord:
            nonlocal moves, base, progressed
            moves, base, progressed = (moves or [])[1:], committed, True
            return committed

        while progressed:
            progressed = False
            try:
                record = await self.run(session_id, bot_move, record)
            except (SessionGone, SessionBusy):
                return record  # gone; or kept changing: the next access plays what is left
        return record

    async def play_bots_quietly(self, session_id: str, record: SessionRecord, chain: Chain | None = None,
                                now_ms: int | None = None) -> SessionRecord:
        """:meth:`play_bots` after a change that is already committed: a store failure now must not turn that
        change's answer into an error; the remaining bot moves are played by the next access."""
        if chain is None and not plays(record, player_to_act(record.state)):
            return record
        try:
            return await self.play_bots(session_id, record, chain, now_ms)
        except StoreUnavailable:
            logger.warning("bot moves of session %s left for the next access: the store failed", session_id[:8])
            return record
