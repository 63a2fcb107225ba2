"""The clock sweeper: each replica's one asyncio task that makes the moves of seats whose time ran out.

Deadlines live in the store, not in a process: every session with a running clock has an entry in the store's
deadline index (:meth:`~service.sessions.store.SessionStore.claim_due`; in Redis the sorted set ``<p>clocks``,
persisted as the sessions are), which the change that sets a deadline updates atomically with it. So a clock
survives the restart of any replica, and of Redis itself when Redis persists its data.

Each pass (at most every ``poll_seconds``, sooner when the earliest deadline is sooner) claims the due entries:
the claim moves them ``claim_seconds`` ahead, so the other replicas pass them over meanwhile (a replica that dies
holding a claim delays those moves by that much, no more). For each claimed session the sweeper reads the
record (the truth: the index is only a pointer to it) and, if its deadline has passed, commits the clock's move
(:func:`~service.sessions.clock.timed_out_move`) by compare-and-set on the version it read, then the bot seats'
replies. The move is a deterministic function of the committed state, so replicas that race for it (a claim
that outlived its holder, say) compute the same move and exactly one commit applies: a timed-out move is never
made twice. A record whose deadline is not due (the entry was stale) or that has no clock any more has its
entry set right, unless a change set it meanwhile. The clock's move that makes a seat away (the clock's
``away_after``-th in a row for it) logs ``seat_away`` after its own events, in the same change: it is made once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from engine import player_to_act
from service.sessions.changes import Changes, Done, Plan, Seen
from service.sessions.clock import after_move, newly_away, timed_out_move
from service.sessions.lifecycle import plays
from service.sessions.log import SeatAway
from service.sessions.problems import SessionBusy, SessionGone
from service.sessions.store import Change, SessionRecord, StoreUnavailable

logger = logging.getLogger("fivehundred.sessions")

#: Due sessions one pass claims at most (the next pass follows at once when there were that many): few, so that
#: a burst of deadlines is shared by the replicas rather than all taken by the first to wake.
CLAIM_BATCH = 16


class ClockSweeper:
    """Makes the timed-out moves of the sessions in one store."""

    def __init__(self, changes: Changes) -> None:
        self.changes = changes
        self.settings = changes.clock
        #: Clock moves this replica committed (for tests and logs).
        self.moves_made = 0
        #: Whether :meth:`run` is running (from the app's startup to its shutdown).
        self.running = False

    async def run(self, stopping: asyncio.Event) -> None:
        """Sweep until ``stopping`` is set; a store outage only delays the next pass."""
        self.running = True
        try:
            while not stopping.is_set():
                delay = self.settings.poll_seconds
                try:
                    delay = await self.sweep()
                except StoreUnavailable:
                    pass  # Redis away: try again on the next pass
                except Exception:  # a defect must not stop the clocks of every session
                    logger.exception("clock sweep failed")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stopping.wait(), delay)
        finally:
            self.running = False

    async def sweep(self) -> float:
        """One pass: claim the due sessions and make their moves; answers how long to wait for the next."""
        settings = self.settings
        now = settings.now_ms()
        due, earliest = await self.changes.store.claim_due(now, now + round(settings.claim_seconds * 1000), CLAIM_BATCH)
        if due:
            await asyncio.gather(*(self.expire(session_id, claimed) for session_id, claimed in due))
        if len(due) >= CLAIM_BATCH:
            return 0.0
        if earliest is None:
            return settings.poll_seconds
        return min(settings.poll_seconds, max(0.0, (earliest - settings.now_ms()) / 1000))

    async def expire(self, session_id: str, claimed: int) -> None:
        """Make the clock's move in one claimed session if its deadline has passed, then settle its entry."""
        store = self.changes.store
        try:
            loaded = await store.load(session_id)
            if loaded is None:  # deleted or expired
                await store.settle_clock(session_id, claimed, None)
                return
            record = loaded.record
            if plays(record, player_to_act(record.state)):  # bot moves a replica did not get to commit
                record = await self.changes.play_bots(session_id, record)
            try:
                record = await self._time_out(session_id, record)
            except SessionGone:
                await store.settle_clock(session_id, claimed, None)
                return
            except SessionBusy:
                return  # the claim lapses, and a later pass looks again
            clock = record.clock
            await store.settle_clock(session_id, claimed, None if clock is None else clock.deadline)
        except StoreUnavailable:
            logger.warning("clock of session %s left for a later pass: the store failed", session_id[:8])

    async def _time_out(self, session_id: str, record: SessionRecord) -> SessionRecord:
        """The clock's move, if it is due on ``record`` (or on what the session is once a race was lost), then
        the bot seats' moves that follow it."""

        async def step(seen: Seen) -> Plan[SessionRecord] | Done[SessionRecord]:
            current, clock = seen.record, seen.record.clock
            if clock is None:
                return Done(current)
            now = self.settings.now_ms()
            change = await self.changes.search.play(timed_out_move, current.state, current.version, current.auth,
                                                    clock, now)
            if change is None:
                return Done(current)
            state, events = change
            # The next turn starts when the move is committed, not when its decision began.
            after = after_move(clock, state, current.version + 1, self.settings.now_ms(), timed_out=True)
            # That many of the clock's moves in a row: the seat is away, and its next moves are made at once.
            away = [SeatAway(seat=seat, to_act=state.to_act) for seat in newly_away(clock, after)]

            def made(committed: SessionRecord) -> SessionRecord:
                self.moves_made += 1
                logger.info("clock moved for seat %s of session %s at version %d (%d ms late)", clock.seat,
                            session_id[:8], committed.version, now - (clock.deadline or now))
                return committed

            return Plan(Change(state=state, events=[*events, *away], clock=after), made, follow=False)

        return await self.changes.play_bots_quietly(session_id, await self.changes.run(session_id, step, record))
