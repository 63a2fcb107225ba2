"""Playing the bot seats' turns of a hosted session: decided off the event loop (in the search pool's bot lane,
ahead of any hint), one compare-and-set each.

What a bot seat plays is :mod:`service.sessions.bots`'s (a deterministic function of the committed state);
this module commits those moves, after a human move or on the next access when a replica did not get to.
"""

from __future__ import annotations

import logging
from typing import Protocol

import msgspec

from engine import Event, GameState, player_to_act, redact_events, view
from service.ops.search import SearchPool
from service.sessions.bots import bot_chain, bot_seats
from service.sessions.clock import ClockSettings, TurnClock, after_move, clock_view
from service.sessions.memo import RecentRecords
from service.sessions.schemas import MoveApplied
from service.sessions.store import Committed, Conflict, SessionRecord, SessionStore, StoreUnavailable

logger = logging.getLogger("fivehundred.sessions")

#: Attempts at read + apply + compare-and-set for a move without If-Match before answering 409.
MOVE_ATTEMPTS = 5

_JSON = msgspec.json.Encoder()

Chain = list[tuple[GameState, list[Event]]]


class MoveCounter(Protocol):
    def move_applied(self, count: int = 1) -> None: ...


class BotTurns:
    """Commits the bot moves that follow a session's record."""

    def __init__(self, store: SessionStore, recent: RecentRecords, metrics: MoveCounter | None,
                 clock: ClockSettings | None = None, search: SearchPool | None = None) -> None:
        self.store = store
        #: Where bot moves are decided: the search pool's bot lane, which hints never hold up.
        self.search = search or SearchPool()
        self.recent = recent
        self.metrics = metrics
        self.clock = clock or ClockSettings()

    async def replies(self, record: SessionRecord, state: GameState) -> Chain:
        """The bot moves that will follow ``state`` (the next version of ``record``), decided off the loop."""
        bots = bot_seats(record.auth)
        if player_to_act(state) not in bots:  # the seat to act, or a ghost's human
            return []
        return await self.search.play(bot_chain, state, record.version + 1, bots)

    @staticmethod
    def answer(seat: int, version: int, state: GameState, events: list[Event], chain: Chain,
               clock: TurnClock | None = None) -> bytes:
        """A move's answer including the bot moves after it: the last version, every event, the last view (and
        the clock after the last move)."""
        final = chain[-1][0] if chain else state
        everything = [*events, *(e for _, bot_events in chain for e in bot_events)]
        return _JSON.encode(MoveApplied(version=version, phase=final.phase, to_act=final.to_act,
                                        events=redact_events(everything, seat), view=view(final, seat),
                                        clock=clock_view(clock)))

    async def play(self, session_id: str, record: SessionRecord, chain: Chain | None = None,
                   now_ms: int | None = None) -> SessionRecord:
        """Commit the bot moves that follow ``record`` (``chain``, or decided now), one compare-and-set each,
        until a human seat is to act; if another replica committed first, carry on from what it committed.
        The clock counts each move as made at ``now_ms`` (the time the move before them was answered with),
        else now."""
        bots = bot_seats(record.auth)
        for _ in range(4 * MOVE_ATTEMPTS):
            if chain is None:
                if player_to_act(record.state) not in bots:
                    return record
                chain = await self.search.play(bot_chain, record.state, record.version, bots)
            for state, events in chain:
                at = self.clock.now_ms() if now_ms is None else now_ms
                clock = after_move(record.clock, state, record.version + 1, at)
                outcome = await self.store.commit(session_id, record, state, events, clock=clock)
                if isinstance(outcome, Committed):
                    record = SessionRecord(outcome.version, state, record.auth, outcome.tag, clock,
                                           table=record.table)
                    if self.metrics is not None:
                        self.metrics.move_applied()
                elif isinstance(outcome, Conflict):
                    record = outcome.current  # another replica played this bot move (or the session moved on)
                    break
                else:
                    return record  # gone (deleted or expired)
                self.recent.remember(session_id, record)
            self.recent.remember(session_id, record)
            chain, now_ms = None, None
        return record

    async def play_quietly(self, session_id: str, record: SessionRecord,
                           chain: Chain | None = None, now_ms: int | None = None) -> SessionRecord:
        """:meth:`play` after a change that is already committed: a store failure now must not turn that
        change's answer into an error; the remaining bot moves are played by the next access."""
        try:
            return await self.play(session_id, record, chain, now_ms)
        except StoreUnavailable:
            logger.warning("bot moves of session %s left for the next access: the store failed", session_id[:8])
            return record
