"""One follower of the session logs per replica: live event streams cost memory, not Redis connections.

A stream that has read everything waits here (:meth:`LogFollower.wait`) instead of in a blocking ``XREAD``
of its own. The follower holds **one** Redis connection in subscriber mode, subscribed to the change
channel of every session that has a waiting stream on this replica (``<prefix>ev:{<id>}``; the compare-and-set
script publishes the new version there in the same atomic step that appends the events). When a channel
says a session changed, the follower reads the new events **once** (one non-blocking ``XREAD`` from the
lowest cursor of that session's waiters) and hands every waiter the part after its own cursor.

Nothing is lost between a stream's read and its wait: a waiter is registered before its read, so a
notification arriving in between is kept for it; the first waiter of a session reads once more after Redis
confirmed the subscription. When the subscriber connection breaks, every waiter is woken to read for itself
(so a store outage ends the streams as before, and the clients reconnect with ``Last-Event-ID``), and the
follower reconnects and subscribes again. A quiet connection is checked with ``PING``; a channel without
waiters is unsubscribed after a while.

Buffering is bounded by construction: the follower keeps nothing for a stream that is not waiting (a
stream whose client reads slowly is still sending its previous frames, and reads from the log, at its own
cursor, only when it asks for more), so per stream there is at most one read's worth of events
(:data:`~service.sessions.store.EVENTS_PER_READ`) on top of the connection's write buffer. A client that
stops reading altogether is cut by the server's write-stall limit (:mod:`service.ops.serving`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio.connection import Connection
from redis.exceptions import RedisError

from service.ops import redis_compat
from service.sessions.store import EVENTS_PER_READ, Cursor, LoggedEvent, StoreUnavailable

logger = logging.getLogger("fivehundred.sessions")

#: Seconds of silence on the subscriber connection before it sends ``PING``; no reply in twice that, and it
#: reconnects.
PING_SECONDS = 5.0
#: Seconds a session's channel stays subscribed after its last waiter left (streams wait again at once after
#: each batch, so channels of live streams are never dropped and re-subscribed).
LINGER_SECONDS = 30.0
#: Channels per ``SUBSCRIBE`` / ``UNSUBSCRIBE`` command.
BATCH = 500


def _pack(*parts: bytes | str) -> bytes:
    raw = [p.encode() if isinstance(p, str) else p for p in parts]
    return b"*%d\r\n" % len(raw) + b"".join(b"$%d\r\n%b\r\n" % (len(r), r) for r in raw)


@dataclass(eq=False)
class _Waiter:
    after: Cursor
    #: Resolved with the waiter's new events, or ``None``: "read for yourself" (the connection broke).
    future: asyncio.Future[list[LoggedEvent] | None]


@dataclass(eq=False)
class _Followed:
    channel: bytes
    waiters: set[_Waiter] = field(default_factory=set)
    #: Set once Redis confirmed the subscription on the current connection.
    confirmed: asyncio.Event = field(default_factory=asyncio.Event)
    #: ``SUBSCRIBE`` sent on the current connection (its confirmation may still be on its way).
    requested: bool = False
    idle_since: float = field(default_factory=time.monotonic)
    fetching: bool = False
    dirty: bool = False


class LogFollower:
    """Follows the logs of the sessions that have waiting streams, over one subscriber connection.

    ``connect`` gives a new connected redis-py connection (any node of a cluster will do: a publish reaches
    every node); ``fetch(session_id, after)`` reads the log without waiting (raising
    :class:`~service.sessions.store.StoreUnavailable` when it cannot); ``channel(session_id)`` names a
    session's change channel.
    """

    def __init__(self, connect: Callable[[], Awaitable[Connection]],
                 fetch: Callable[[str, Cursor], Awaitable[list[LoggedEvent]]], channel: Callable[[str], str], *,
                 ping_seconds: float = PING_SECONDS, linger_seconds: float = LINGER_SECONDS) -> None:
        self._connect = connect
        self._fetch = fetch
        self._channel = channel
        self._ping_seconds = ping_seconds
        self._linger_seconds = linger_seconds
        self._followed: dict[str, _Followed] = {}
        self._by_channel: dict[bytes, str] = {}
        #: Subscribe confirmations still due for channels that were dropped meanwhile (to be ignored).
        self._stale: dict[bytes, int] = {}
        self._to_unsubscribe: list[bytes] = []
        self._wanted = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._closed = False
        self.connections = 0  #: connections made so far (for tests and metrics)

    # ------------------------------------------------------------------------------------------ streams

    @property
    def followed(self) -> int:
        """Sessions whose channel this replica follows now."""
        return len(self._followed)

    @property
    def waiting(self) -> int:
        """Streams waiting for events now."""
        return sum(len(f.waiters) for f in self._followed.values())

    async def wait(self, session_id: str, after: Cursor, timeout: float) -> list[LoggedEvent]:
        """The events after ``after`` (up to one read's worth), waiting up to ``timeout`` seconds for some;
        ``[]`` if none came in time."""
        followed = self._follow(session_id)
        waiter = _Waiter(after, asyncio.get_running_loop().create_future())
        followed.waiters.add(waiter)
        try:
            confirmed = followed.confirmed.is_set()
            batch = await self._fetch(session_id, after)
            if batch:
                return batch
            try:
                async with asyncio.timeout(timeout):
                    if not confirmed:
                        await followed.confirmed.wait()
                        if not waiter.future.done():
                            batch = await self._fetch(session_id, after)  # what came before the subscription
                            if batch:
                                return batch
                    got = await waiter.future
            except TimeoutError:
                return []
            return got if got is not None else await self._fetch(session_id, after)
        finally:
            followed.waiters.discard(waiter)
            followed.idle_since = time.monotonic()
            if not waiter.future.done():
                waiter.future.cancel()

    def _follow(self, session_id: str) -> _Followed:
        followed = self._followed.get(session_id)
        if followed is None:
            channel = self._channel(session_id).encode()
            followed = self._followed[session_id] = _Followed(channel)
            self._by_channel[channel] = session_id
            self._wanted.set()
        if self._runner is None and not self._closed:
            self._runner = asyncio.create_task(self._run())
        return followed

    # ---------------------------------------------------------------------------------------- fan-out

    def _changed(self, channel: bytes) -> None:
        session_id = self._by_channel.get(channel)
        followed = self._followed.get(session_id) if session_id is not None else None
        if followed is None or not followed.waiters:
            return
        followed.dirty = True
        if not followed.fetching:
            followed.fetching = True
            asyncio.create_task(self._fan_out(session_id, followed))  # type: ignore[arg-type]

    async def _fan_out(self, session_id: str, followed: _Followed) -> None:
        """One read for every waiter of the session, each handed the events after its own cursor."""
        try:
            while followed.dirty:
                followed.dirty = False
                waiters = [w for w in followed.waiters if not w.future.done()]
                if not waiters:
                    return
                try:
                    events = await self._fetch(session_id, min(w.after for w in waiters))
                except StoreUnavailable:
                    self._wake(waiters)  # each reads for itself, and its stream ends if the store is away
                    return
                full = len(events) >= EVENTS_PER_READ
                for w in waiters:
                    if w.future.done():
                        continue
                    mine = [e for e in events if (e.version, e.seq) > w.after]
                    if mine:
                        w.future.set_result(mine)
                    elif full:
                        w.future.set_result(None)  # its events lie beyond this read: it reads them itself
        finally:
            followed.fetching = False

    @staticmethod
    def _wake(waiters: Any) -> None:
        for w in waiters:
            if not w.future.done():
                w.future.set_result(None)

    # ------------------------------------------------------------------------------------- connection

    async def _run(self) -> None:
        delay = 0.05
        while not self._closed:
            conn: Connection | None = None
            try:
                conn = await self._connect()
                self.connections += 1
                delay = 0.05
                for followed in self._followed.values():
                    followed.requested = False
                self._stale.clear()
                self._to_unsubscribe.clear()
                self._wanted.set()
                writer = asyncio.create_task(self._write(conn))
                try:
                    await self._read(conn)
                finally:
                    writer.cancel()
                    with contextlib.suppress(BaseException):
                        await writer
            except (RedisError, OSError, StoreUnavailable) as exc:  # TimeoutError is an OSError
                if not self._closed:
                    logger.warning("event follower lost its Redis connection (%s); reconnecting",
                                   type(exc).__name__)
            except Exception:  # a bug here must not leave streams without a follower
                logger.exception("event follower failed; reconnecting")
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.disconnect()
            for followed in self._followed.values():
                followed.confirmed.clear()
                followed.requested = False
                self._wake(followed.waiters)
            if self._closed:
                return
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)

    async def _write(self, conn: Connection) -> None:
        """Sends the subscriptions wanted, drops idle ones, and pings a quiet connection."""
        next_sweep = time.monotonic() + self._linger_seconds
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._ping_seconds):
                    await self._wanted.wait()
            self._wanted.clear()
            now = time.monotonic()
            if now >= next_sweep:
                next_sweep = now + self._linger_seconds
                self._sweep(now)
            subscribe = [f for f in self._followed.values() if not f.requested]
            for f in subscribe:
                f.requested = True
            commands: list[bytes] = []
            for i in range(0, len(self._to_unsubscribe), BATCH):
                commands.append(_pack(b"UNSUBSCRIBE", *self._to_unsubscribe[i:i + BATCH]))
            self._to_unsubscribe.clear()
            for i in range(0, len(subscribe), BATCH):
                commands.append(_pack(b"SUBSCRIBE", *(f.channel for f in subscribe[i:i + BATCH])))
            if not commands:
                commands.append(_pack(b"PING"))
            await redis_compat.send(conn, b"".join(commands))

    def _sweep(self, now: float) -> None:
        for session_id, followed in list(self._followed.items()):
            if followed.waiters or followed.fetching or now - followed.idle_since < self._linger_seconds:
                continue
            del self._followed[session_id]
            del self._by_channel[followed.channel]
            if followed.requested:
                if not followed.confirmed.is_set():
                    self._stale[followed.channel] = self._stale.get(followed.channel, 0) + 1
                self._to_unsubscribe.append(followed.channel)

    async def _read(self, conn: Connection) -> None:
        while True:
            async with asyncio.timeout(self._ping_seconds * 3):
                reply: Any = await redis_compat.read_reply(conn, disconnect_on_error=True)
            if not isinstance(reply, list) or not reply:
                continue
            kind = bytes(reply[0])
            if kind == b"message":
                self._changed(bytes(reply[1]))
            elif kind == b"subscribe":
                channel = bytes(reply[1])
                stale = self._stale.get(channel, 0)
                if stale:
                    self._stale[channel] = stale - 1
                    continue
                session_id = self._by_channel.get(channel)
                if session_id is not None:
                    self._followed[session_id].confirmed.set()

    async def close(self) -> None:
        self._closed = True
        for followed in self._followed.values():
            self._wake(followed.waiters)
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(BaseException):
                await self._runner
            self._runner = None
