"""A game's whole life at a hosted table: it starts, may pause and resume, and ends over, called off or abandoned.

- **Starting.** A session created with open seats waits for its players: nothing is played (no seat's move, no
  bot's, no clock's) and its turn clock is stopped until every seat is taken (the join that takes the last one
  starts the game, in the same change) or the host starts it (``POST .../start``). ``"start": "host"`` at creation
  makes even a full table wait for the host. A session with no open seats starts at once, as sessions always
  did.
- **Pausing.** The host (or the table host) pauses a running game and resumes it: while paused nothing is
  played and the clock is stopped; a move is refused with 409 ``VERSION_CONFLICT`` (its detail says the game is
  paused), like a move sent before the start or after the end. On resuming, the seat to act has a full turn,
  its clock starting then.
- **Ending.** A game that never got its first card (no card played, in this hand or any before) may be called off:
  it ends with no result. A game whose players are gone (a seat open, left for a bot since the start, or away)
  may end as abandoned: the ending names those seats (``by``). An ended game plays nothing more; its streams
  end, as at game over.

Each of these is one change (a step of :meth:`~service.sessions.changes.Changes.run`): the table's record and the
clock change with one compare-and-set, and the change logs its event (``game_started``, ``game_paused``,
``game_resumed``, ``game_called_off``, ``game_abandoned``), so that two hosts tapping at once on two replicas make
one change. A seat away and back (:mod:`.clock`, :func:`~service.sessions.access.come_back`) logs ``seat_away`` and
``seat_back``, and a seat away past the clock's ``forfeit_after`` ``seat_forfeited``. Where the game is, read from a
record, is :mod:`.lifecycle`'s. """

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from service.sessions.changes import Changes, Plan, Seen
from service.sessions.clock import started, stopped
from service.sessions.lifecycle import absent_seats, no_card_played, status
from service.sessions.log import GameAbandoned, GameCalledOff, GamePaused, GameResumed, GameStarted, TableEvent
from service.sessions.problems import conflict
from service.sessions.schemas import SessionEnded, SessionLife
from service.sessions.store import Change, SessionRecord
from service.sessions.table import Ending, Table
from service.web.problems import Problem

if TYPE_CHECKING:
    from service.sessions.access import Access, Caller


def ended_view(table: Table) -> SessionEnded | None:
    ending = table.ended
    if ending is None:
        return None
    return SessionEnded(how=ending.how, by=list(ending.by) if ending.how == "abandoned" else None,
                        version=ending.version)


def _refused(record: SessionRecord, what: str, case: str) -> Problem:
    version = record.version
    return conflict(version, f"{what} (the session is at version {version})", case)



def may_run_the_game(caller: Caller, path_seat: int | None = None) -> None:
    """Who may start, pause, resume, call off or abandon the game: the host or the table host."""
    from service.sessions.access import host_only

    host_only(caller, "start, pause, resume, call off or abandon the game", "host_only_game")

class Life:
    """Starting, pausing, resuming, calling off and abandoning a session's game (the host or the table host)."""

    def __init__(self, changes: Changes, access: Access) -> None:
        self.changes = changes
        self.access = access

    async def _run(self, session_id: str, token: str,
                   change: Callable[[SessionRecord], tuple[Table, bool, TableEvent]]) -> SessionLife:
        """One change of the game's life by the host: ``change`` gives the new table, whether the clock runs after
        it, and its event (or refuses, on the record as it is)."""
        caller = await self.access.caller(session_id, token)
        may_run_the_game(caller)

        async def step(seen: Seen) -> Plan[SessionLife]:
            current = seen.record
            table, running, event = change(current)
            now = self.changes.clock.now_ms()
            clock = started(current.clock, current.state, now) if running else stopped(current.clock)
            planned = Change(state=current.state, events=[event], table=table, clock=clock)
            return Plan(planned, lambda made: SessionLife(session_id=session_id, version=made.version,
                                                          status=status(table), ended=ended_view(table)),
                        follow=running)

        return await self.changes.run(session_id, step, caller.record)

    async def start(self, session_id: str, token: str) -> SessionLife:
        """Start a game that waits for its seats (open ones are then on the clock like any other)."""

        def start(record: SessionRecord) -> tuple[Table, bool, TableEvent]:
            table = record.settings
            if status(table) != "waiting":
                raise _refused(record, "the game has already started", "started")
            return msgspec.structs.replace(table, waiting=False), True, GameStarted(by="host",
                                                                                     to_act=record.state.to_act)

        return await self._run(session_id, token, start)

    async def pause(self, session_id: str, token: str) -> SessionLife:
        def pause(record: SessionRecord) -> tuple[Table, bool, TableEvent]:
            table = record.settings
            now = "over" if record.state.phase == "game_over" else status(table)
            if now != "running":
                raise _refused(record, f"only a running game can be paused: this one is {now}", "not_running")
            return msgspec.structs.replace(table, paused=True), False, GamePaused(to_act=record.state.to_act)

        return await self._run(session_id, token, pause)

    async def resume(self, session_id: str, token: str) -> SessionLife:
        def resume(record: SessionRecord) -> tuple[Table, bool, TableEvent]:
            table = record.settings
            if status(table) != "paused":
                raise _refused(record, f"only a paused game can be resumed: this one is {status(table)}",
                               "not_paused")
            return msgspec.structs.replace(table, paused=False), True, GameResumed(to_act=record.state.to_act)

        return await self._run(session_id, token, resume)

    async def call_off(self, session_id: str, token: str) -> SessionLife:
        """End a game that never got its first card, with no result."""

        def call_off(record: SessionRecord) -> tuple[Table, bool, TableEvent]:
            table = record.settings
            if table.ended is not None:
                raise _refused(record, "the game has ended already", "ended")
            if not no_card_played(record.state):
                raise _refused(record, "a card was played: the game can no longer be called off (it may end as "
                                       "abandoned if its players are gone)", "cards_played")
            ending = Ending("called_off", (), record.version + 1)
            return msgspec.structs.replace(table, ended=ending), False, GameCalledOff()

        return await self._run(session_id, token, call_off)

    async def abandon(self, session_id: str, token: str) -> SessionLife:
        """End a game whose players are gone as abandoned by them."""

        def abandon(record: SessionRecord) -> tuple[Table, bool, TableEvent]:
            table = record.settings
            if table.ended is not None:
                raise _refused(record, "the game has ended already", "ended")
            if record.state.phase == "game_over":
                raise _refused(record, "the game is over", "ended")
            if table.waiting:
                raise _refused(record, "the game has not started: call it off instead", "not_started")
            by = absent_seats(record)
            if not by:
                raise _refused(record, "every seat's player is at the table: the game cannot end as abandoned",
                               "nobody_gone")
            ending = Ending("abandoned", tuple(by), record.version + 1)
            return msgspec.structs.replace(table, ended=ending), False, GameAbandoned(by=by)

        return await self._run(session_id, token, abandon)


__all__ = ["Life", "ended_view"]
