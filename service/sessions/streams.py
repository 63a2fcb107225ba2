"""A session's live events as Server-Sent Events, each redacted for the reader's seat.

Authorised when the stream opens (so that errors are proper responses); then the frames of the session's log
from the reader's ``Last-Event-ID`` on, heartbeats while nothing happens, and a final named event before the
stream closes for good: ``end`` once the game is over and every event was sent, ``revoked`` when the reader's
token stopped working, ``deleted`` or ``expired`` when the session is gone. (A stream cut otherwise, by a
restart or a store that failed, just closes: the reader reconnects with ``Last-Event-ID``.)

One token holds at most :data:`MAX_STREAMS_PER_TOKEN` open streams on a replica (429 ``RATE_LIMITED`` beyond),
so that one leaked watch link costs the service a bounded number of connections per replica.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

import msgspec

from engine import redact_events
from engine.model import GameOver
from service.sessions.access import Access, identify
from service.sessions.clock import deadline_text
from service.sessions.headers import parse_after, parse_event_id
from service.sessions.log import ENDING_EVENTS, REVOKING_EVENTS, TABLE_EVENTS, LogEntry, MoveTimedOut, NextGameStarted
from service.sessions.schemas import LoggedSessionEvent, SessionEvents, StreamClosed, StreamEnd, StreamEvent
from service.sessions.seats import hash_token
from service.sessions.store import NOT_LOGGED, Cursor, LoggedEvent, SessionStore, StoreUnavailable
from service.web.problems import Problem

T = TypeVar("T")

#: Counts an open event stream while its context is entered (e.g. ``ShutdownCoordinator.track_stream``).
StreamTracker = Callable[[], AbstractAsyncContextManager[Any]]

#: The frame that ends a finished game's stream. Browsers: ``source.addEventListener("end", () =>
#: source.close())``; a reader that reconnects anyway (Last-Event-ID at the end) is answered 204, which the SSE
#: standard defines as "stop reconnecting".
END_EVENT = "end"
#: The events that close a stream before the game is over, and why (:class:`StreamClosed`).
REVOKED_EVENT, DELETED_EVENT, EXPIRED_EVENT = "revoked", "deleted", "expired"
#: The most event streams one token holds open on one replica.
MAX_STREAMS_PER_TOKEN = 4

_JSON = msgspec.json.Encoder()

#: The most events one catch-up answers (a whole four-player game to 500 is a few hundred).
CATCH_UP_EVENTS = 2000


def shown(e: LoggedEvent, seat: int | None) -> LogEntry:
    """An entry of the log as ``seat`` may see it (``None``: the public)."""
    return e.event if isinstance(e.event, (MoveTimedOut, *TABLE_EVENTS)) else redact_events((e.event,), seat)[0]


def event_frame(e: LoggedEvent, seat: int | None, to_act: int | None) -> bytes:
    """One Server-Sent Events frame: ``id: <version>-<index>`` and, with no ``event:`` name (so that an
    ``EventSource``'s ``onmessage`` sees it), ``data:`` a :class:`StreamEvent` as ``seat`` may see it."""
    data = StreamEvent(version=e.version, to_act=to_act, event=shown(e, seat), deadline=deadline_text(e.deadline))
    return b"id: %d-%d\ndata: %s\n\n" % (e.version, e.seq, _JSON.encode(data))


def end_frame(version: int) -> bytes:
    return b"event: %s\ndata: %s\n\n" % (END_EVENT.encode(), _JSON.encode(StreamEnd(version=version)))


def closing_frame(reason: str, version: int) -> bytes:
    """The named event that closes a stream for good before the game is over (``revoked``, ``deleted``,
    ``expired``)."""
    return b"event: %s\ndata: %s\n\n" % (reason.encode(), _JSON.encode(StreamClosed(version=version)))


def _mover(event: LogEntry) -> int | None:
    """The seat to act before the version whose first event is ``event``: the seat whose move it records (every
    move's first event names it), or for a change of the table (which changes no turn) the seat to act then."""
    if isinstance(event, TABLE_EVENTS):
        return event.to_act
    seat = getattr(event, "seat", None)
    return seat if isinstance(seat, int) else None


class EventStreams:
    """Opens the sessions' event streams."""

    def __init__(self, store: SessionStore, access: Access, *, stopping: asyncio.Event,
                 heartbeat_seconds: float = 15.0, track_stream: StreamTracker | None = None) -> None:
        self.store = store
        self.access = access
        self.stopping = stopping
        self.heartbeat_seconds = heartbeat_seconds
        self._track_stream = track_stream
        self._reads: set[asyncio.Future[Any]] = set()  # the streams' reads under way, cancelled on stopping
        self._open: dict[bytes, int] = {}  # open streams by their token's hash
        self._watcher: asyncio.Task[None] | None = None

    async def open(self, session_id: str, token: str, last_event_id: str | None) -> AsyncIterator[bytes] | None:
        """Authorize now (so errors are proper responses), then the SSE frames as an async iterator; ``None``
        when the game is over and the reader has had every event (answered 204: stop reconnecting)."""
        cursor = parse_event_id(last_event_id)
        caller = await self.access.caller(session_id, token)
        # A table created with ``series`` goes on after a game: its streams stay open for the next one.
        settings = caller.record.settings
        goes_on = settings.games.continues
        finished = (caller.record.state.phase == "game_over" and not goes_on) or settings.ended is not None
        if finished and not await self.store.read_events(session_id, cursor, 0):
            return None
        if self._open.get(hash_token(token), 0) >= MAX_STREAMS_PER_TOKEN:
            raise Problem("RATE_LIMITED", f"this token already holds {MAX_STREAMS_PER_TOKEN} open event streams "
                                          "here, the most one token may: close one first",
                          headers={"Retry-After": "5"},
                          message=("problem.RATE_LIMITED.detail.streams", {"max": MAX_STREAMS_PER_TOKEN}))
        return self._frames(session_id, token, caller.seat, cursor, finished, goes_on)

    async def since(self, session_id: str, token: str, after: str | None) -> SessionEvents:
        """The caller's catch-up without a stream: the events after ``after`` (:func:`parse_after`) as its seat may
        see them, up to the session's version when read (:data:`CATCH_UP_EVENTS` at most: ``complete`` says
        whether that was all)."""
        cursor = parse_after(after)
        caller = await self.access.caller(session_id, token)
        version, seat = caller.record.version, caller.seat
        out: list[LoggedSessionEvent] = []
        complete = True
        while cursor[0] <= version:
            batch = await self.store.read_events(session_id, cursor, 0)
            batch = [e for e in batch if e.version <= version]
            if not batch:
                break
            if len(out) + len(batch) > CATCH_UP_EVENTS:
                complete = False
                break
            turns = await self._legacy_turns(session_id, batch) if batch[0].to_act == NOT_LOGGED else {}
            out.extend(LoggedSessionEvent(
                id=f"{e.version}-{e.seq}", version=e.version, event=shown(e, seat),
                to_act=turns.get(e.version) if e.to_act == NOT_LOGGED else e.to_act,
                deadline=deadline_text(e.deadline)) for e in batch)
            cursor = batch[-1].version, batch[-1].seq
        return SessionEvents(session_id=session_id, version=version, complete=complete, events=out)

    @contextlib.contextmanager
    def _counted(self, token: str) -> Any:
        key = hash_token(token)
        self._open[key] = self._open.get(key, 0) + 1
        try:
            yield
        finally:
            left = self._open.pop(key) - 1
            if left:
                self._open[key] = left

    async def _frames(self, session_id: str, token: str, seat: int | None, cursor: Cursor,
                      finished: bool, goes_on: bool) -> AsyncIterator[bytes]:
        tracked = self._track_stream() if self._track_stream is not None else contextlib.nullcontext()
        with self._counted(token):
            async for frame in self._tracked_frames(tracked, session_id, token, seat, cursor, finished, goes_on):
                yield frame

    async def _tracked_frames(self, tracked: AbstractAsyncContextManager[Any], session_id: str, token: str,
                              seat: int | None, cursor: Cursor, finished: bool,
                              goes_on: bool) -> AsyncIterator[bytes]:
        async with tracked:
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
                        if not await self.store.exists(session_id):  # the session is gone: say why
                            gone = DELETED_EVENT if await self.store.was_deleted(session_id) else EXPIRED_EVENT
                            yield closing_frame(gone, cursor[0])
                            return
                        yield b": heartbeat\n\n"
                        continue
                    if any(isinstance(e.event, REVOKING_EVENTS) for e in batch) and \
                            not await self._still_valid(session_id, token):
                        # The token was revoked: its stream ends so, and a reconnect is answered 401.
                        yield closing_frame(REVOKED_EVENT, batch[-1].version)
                        return
                    turns = await self._legacy_turns(session_id, batch) if batch[0].to_act == NOT_LOGGED else {}
                    yield b"".join(event_frame(e, seat, turns.get(e.version) if e.to_act == NOT_LOGGED else e.to_act)
                                   for e in batch)
                    cursor = batch[-1].version, batch[-1].seq
                    for e in batch:  # a game over ends the stream, unless the table goes on or a next game began
                        if isinstance(e.event, NextGameStarted):
                            finished = False
                        elif isinstance(e.event, ENDING_EVENTS) or (isinstance(e.event, GameOver) and not goes_on):
                            finished = True
            except StoreUnavailable:
                return  # the client reconnects with Last-Event-ID and loses nothing

    async def _still_valid(self, session_id: str, token: str) -> bool:
        """Whether ``token`` still opens the session (a seat's token stops when it is reissued, or its seat is
        handed on or left)."""
        loaded = await self.store.load(session_id)
        if loaded is None:
            return False
        try:
            identify(loaded.record, loaded, token)
        except Problem:
            return False
        return True

    async def _legacy_turns(self, session_id: str, batch: list[LoggedEvent]) -> dict[int, int | None]:
        """The seat to act after each version of ``batch``, for entries logged before it was logged with each
        version (:data:`~service.sessions.store.NOT_LOGGED`: a session created by an earlier release): the mover
        of the next version's first event (every move's first event names its mover), and for the last version
        the session's own record, or if the session has moved on since, the mover of the next logged version."""
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
        """``work``'s result, or ``None`` if the service starts shutting down first: one watcher of ``stopping``
        cancels every stream's read then (an idle stream holds no task or waiter of its own for it)."""
        task = asyncio.ensure_future(work)
        self._reads.add(task)
        self._watch()
        try:
            if self.stopping.is_set():
                task.cancel()
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and self.stopping.is_set() and (current is None or not current.cancelling()):
                return None  # the read was cancelled by the watcher, not this stream
            raise
        finally:
            self._reads.discard(task)

    def _watch(self) -> None:
        """Start the watcher of ``stopping`` if none runs on this loop (it ends once it has cancelled the reads)."""
        loop = asyncio.get_running_loop()
        watcher = self._watcher
        if watcher is None or watcher.get_loop() is not loop or (watcher.done() and not self.stopping.is_set()):
            self._watcher = loop.create_task(self._cancel_reads_when_stopping())

    async def _cancel_reads_when_stopping(self) -> None:
        await self.stopping.wait()
        for task in list(self._reads):
            task.cancel()
