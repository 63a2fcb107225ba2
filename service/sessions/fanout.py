"""One follower of the session logs per replica: live event streams cost memory, not Redis connections.

A stream that has read everything waits here (:meth:`LogFollower.wait`) instead of in a blocking ``XREAD``
of its own. The follower is subscribed to the change channel of every session that has a waiting stream on
this replica (``<prefix>ev:{<id>}``; the compare-and-set script publishes the new version there in the same
atomic step that appends the events). When a channel says a session changed, the follower reads the new
events **once** (one non-blocking ``XREAD`` from the lowest cursor of that session's waiters) and hands every
waiter the part after its own cursor.

**Links.** The follower holds one subscriber connection per place it listens to, a *link*:

- On one Redis, one link (``SUBSCRIBE``; the script publishes with ``PUBLISH``).
- On a Redis Cluster with sharded pub/sub (the default), one link per shard that owns a followed session's
  slot, to that shard's primary (``SSUBSCRIBE``; the script publishes with ``SPUBLISH``, which the cluster
  keeps inside the slot's shard instead of sending it to every node). A channel goes to the primary that owns
  its slot as the cluster client last read the slots (``shards.route``). When the slot moves, Redis ends the
  subscription itself (an ``sunsubscribe`` the follower did not ask for): the follower re-reads the slots and
  subscribes again where the slot went. When a link's connection breaks (its primary failed), the follower
  re-reads the slots, moves the link's channels to their owners and subscribes again; until a replica is
  promoted the owner is the failed node, tried again with a backoff.
- On a cluster with plain pub/sub (``REDIS_SHARDED_PUBSUB=false``, for Redis 6.2), one link to any node: a
  ``PUBLISH`` reaches every node.

Nothing is lost between a stream's read and its wait: a waiter is registered before its read, so a
notification arriving in between is kept for it; the first waiter of a session reads once more after Redis
confirmed the subscription. Whenever a subscription may have missed a message (its connection broke, its slot
moved), every waiter of the channel is woken to read for itself (so a store outage ends the streams as before,
and the clients reconnect with ``Last-Event-ID``), and the channel is subscribed again, then read again by its
next waiter once confirmed. A quiet connection is checked with ``PING``; a channel without waiters is
unsubscribed after a while.

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
from typing import Any, Protocol

from redis.asyncio.connection import Connection
from redis.exceptions import RedisError

from service.ops import redis_compat
from service.sessions.store import EVENTS_PER_READ, Cursor, LoggedEvent, StoreUnavailable

logger = logging.getLogger("fivehundred.sessions")

#: Seconds of silence on a subscriber connection before it sends ``PING``; no reply in twice that, and it
#: reconnects.
PING_SECONDS = 5.0
#: Seconds a session's channel stays subscribed after its last waiter left (streams wait again at once after
#: each batch, so channels of live streams are never dropped and re-subscribed).
LINGER_SECONDS = 30.0
#: Channels per ``SUBSCRIBE`` / ``UNSUBSCRIBE`` command (sharded commands name one channel each: Redis wants
#: the channels of one command in one slot).
BATCH = 500
#: The longest wait before a link whose connection failed tries again.
MAX_BACKOFF = 1.0
#: The one link of a follower that does not shard.
ANY_NODE = ""


class Shards(Protocol):
    """Where a sharded channel is served: its slot's primary, as ``host:port``."""

    def route(self, channel: str) -> str | None:
        """The node serving ``channel`` as last read (``None``: not known yet)."""

    async def refresh(self) -> None:
        """Read the slots again (a slot moved, or a node failed)."""


def _pack(*parts: bytes | str) -> bytes:
    raw = [p.encode() if isinstance(p, str) else p for p in parts]
    return b"*%d\r\n" % len(raw) + b"".join(b"$%d\r\n%b\r\n" % (len(r), r) for r in raw)


@dataclass(frozen=True)
class _Verbs:
    subscribe: bytes
    unsubscribe: bytes
    message: bytes
    subscribed: bytes
    unsubscribed: bytes
    batch: int


PLAIN = _Verbs(b"SUBSCRIBE", b"UNSUBSCRIBE", b"message", b"subscribe", b"unsubscribe", BATCH)
SHARDED = _Verbs(b"SSUBSCRIBE", b"SUNSUBSCRIBE", b"smessage", b"ssubscribe", b"sunsubscribe", 1)


@dataclass(eq=False)
class _Waiter:
    after: Cursor
    #: Resolved with the waiter's new events, or ``None``: "read for yourself" (a message may have been missed).
    future: asyncio.Future[list[LoggedEvent] | None]


@dataclass(eq=False)
class _Followed:
    channel: bytes
    waiters: set[_Waiter] = field(default_factory=set)
    #: Set once Redis confirmed the subscription on the current connection of its link.
    confirmed: asyncio.Event = field(default_factory=asyncio.Event)
    #: ``SUBSCRIBE`` sent on the current connection (its confirmation may still be on its way).
    requested: bool = False
    idle_since: float = field(default_factory=time.monotonic)
    fetching: bool = False
    dirty: bool = False
    link: _Link | None = None


@dataclass(eq=False)
class _Link:
    """One subscriber connection (to one node) and the channels subscribed on it."""

    node: str
    followed: dict[bytes, _Followed] = field(default_factory=dict)
    wanted: asyncio.Event = field(default_factory=asyncio.Event)
    to_unsubscribe: list[bytes] = field(default_factory=list)
    #: Subscribe confirmations still due for channels that were dropped meanwhile (to be ignored).
    stale: dict[bytes, int] = field(default_factory=dict)
    #: Unsubscribe confirmations asked for (any other ``sunsubscribe``: the slot moved away).
    leaving: dict[bytes, int] = field(default_factory=dict)
    runner: asyncio.Task[None] | None = None
    delay: float = 0.05


class LogFollower:
    """Follows the logs of the sessions that have waiting streams, over one subscriber connection per link.

    ``connect(node)`` gives a new connected redis-py connection to ``node`` (``""``: any node will do);
    ``fetch(session_id, after)`` reads the log without waiting (raising
    :class:`~service.sessions.store.StoreUnavailable` when it cannot); ``channel(session_id)`` names a
    session's change channel; with ``shards``, channels are sharded and each is followed on its slot's primary.
    """

    def __init__(self, connect: Callable[[str], Awaitable[Connection]],
                 fetch: Callable[[str, Cursor], Awaitable[list[LoggedEvent]]], channel: Callable[[str], str], *,
                 shards: Shards | None = None, ping_seconds: float = PING_SECONDS,
                 linger_seconds: float = LINGER_SECONDS) -> None:
        self._connect = connect
        self._fetch = fetch
        self._channel = channel
        self._shards = shards
        self._verbs = SHARDED if shards is not None else PLAIN
        self._ping_seconds = ping_seconds
        self._linger_seconds = linger_seconds
        self._followed: dict[str, _Followed] = {}
        self._by_channel: dict[bytes, str] = {}
        self._links: dict[str, _Link] = {}
        #: Channels waiting for a link (their node not known yet, or being re-read).
        self._unrouted: set[_Followed] = set()
        self._route_wanted = asyncio.Event()
        self._router: asyncio.Task[None] | None = None
        self._closed = False
        self.connections = 0  #: connections made so far (for tests and metrics)
        self.moved = 0  #: channels subscribed again elsewhere after their slot moved or their node failed

    # ------------------------------------------------------------------------------------------ streams

    @property
    def followed(self) -> int:
        """Sessions whose channel this replica follows now."""
        return len(self._followed)

    @property
    def waiting(self) -> int:
        """Streams waiting for events now."""
        return sum(len(f.waiters) for f in self._followed.values())

    @property
    def links(self) -> dict[str, int]:
        """Each link's node and the channels it follows."""
        return {node: len(link.followed) for node, link in self._links.items()}

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
            if not self._closed:
                self._place(followed)
        return followed

    # ---------------------------------------------------------------------------------------- routing

    def _place(self, followed: _Followed, *, reread: bool = False) -> None:
        """Put a channel on the link of the node that serves it (a channel whose node is not known, or must be
        read again first, waits for the router)."""
        node = ANY_NODE if self._shards is None else (
            None if reread else self._shards.route(followed.channel.decode()))
        if node is None:
            self._unrouted.add(followed)
            self._route_wanted.set()
            if self._router is None:
                self._router = asyncio.create_task(self._route())
            return
        link = self._links.get(node)
        if link is None:
            link = self._links[node] = _Link(node)
        followed.link = link
        followed.requested = False
        link.followed[followed.channel] = followed
        link.wanted.set()
        if link.runner is None:
            link.runner = asyncio.create_task(self._run(link))

    def _unlink(self, followed: _Followed) -> None:
        """Take a channel off its link (it was woken: any message it missed, its waiters read for themselves)."""
        link = followed.link
        followed.link = None
        followed.confirmed.clear()
        followed.requested = False
        self._wake(followed.waiters)
        if link is not None and link.followed.get(followed.channel) is followed:
            del link.followed[followed.channel]

    async def _route(self) -> None:
        """Places the channels waiting for a link, reading the slots again first."""
        delay = 0.05
        while not self._closed:
            await self._route_wanted.wait()
            self._route_wanted.clear()
            try:
                assert self._shards is not None
                await self._shards.refresh()
            except Exception as exc:  # the cluster unreachable: the streams read for themselves meanwhile
                logger.warning("event follower could not read the cluster's slots (%s); trying again",
                               type(exc).__name__)
                await asyncio.sleep(delay)
                delay = min(MAX_BACKOFF, delay * 2)
                self._route_wanted.set()
                continue
            delay = 0.05
            pending, self._unrouted = self._unrouted, set()
            for followed in pending:
                if self._by_channel.get(followed.channel) is None:
                    continue  # dropped meanwhile
                node = self._shards.route(followed.channel.decode())
                if node is None:
                    self._unrouted.add(followed)
                else:
                    self._place(followed)
            if self._unrouted:
                await asyncio.sleep(delay)
                self._route_wanted.set()

    def _reroute(self, link: _Link, channels: list[_Followed]) -> None:
        """Channels whose subscription on ``link`` ended (slot moved, node failed): placed again once the slots
        are read again."""
        for followed in channels:
            self._unlink(followed)
            self.moved += 1
            self._place(followed, reread=True)

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

    async def _run(self, link: _Link) -> None:
        """One link's connection: connect, subscribe, read; after a failure, wake its waiters and (sharded)
        move its channels to where their slots are served now, then connect again if any are left."""
        while not self._closed and link.followed:
            conn: Connection | None = None
            try:
                conn = await self._connect(link.node)
                self.connections += 1
                link.delay = 0.05
                for followed in link.followed.values():
                    followed.requested = False
                link.stale.clear()
                link.leaving.clear()
                link.to_unsubscribe.clear()
                link.wanted.set()
                writer = asyncio.create_task(self._write(link, conn))
                try:
                    await self._read(link, conn)
                finally:
                    writer.cancel()
                    with contextlib.suppress(BaseException):
                        await writer
            except (RedisError, OSError, StoreUnavailable) as exc:  # TimeoutError is an OSError
                if not self._closed:
                    logger.warning("event follower lost its Redis connection%s (%s); reconnecting",
                                   f" to {link.node}" if link.node else "", type(exc).__name__)
            except Exception:  # a bug here must not leave streams without a follower
                logger.exception("event follower failed; reconnecting")
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.disconnect()
            if self._closed:
                break
            if self._shards is not None:
                self._reroute(link, list(link.followed.values()))
            else:
                for followed in link.followed.values():
                    followed.confirmed.clear()
                    followed.requested = False
                    self._wake(followed.waiters)
            await asyncio.sleep(link.delay)
            link.delay = min(MAX_BACKOFF, link.delay * 2)
        link.runner = None
        if self._links.get(link.node) is link and not link.followed:
            del self._links[link.node]
        elif link.followed and not self._closed:  # channels placed on it while it was ending
            link.runner = asyncio.create_task(self._run(link))

    async def _write(self, link: _Link, conn: Connection) -> None:
        """Sends the subscriptions wanted, drops idle ones, and pings a quiet connection."""
        verbs = self._verbs
        next_sweep = time.monotonic() + self._linger_seconds
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._ping_seconds):
                    await link.wanted.wait()
            link.wanted.clear()
            now = time.monotonic()
            if now >= next_sweep:
                next_sweep = now + self._linger_seconds
                self._sweep(now)
            subscribe = [f for f in link.followed.values() if not f.requested]
            for f in subscribe:
                f.requested = True
            commands: list[bytes] = []
            if self._shards is not None:
                for channel in link.to_unsubscribe:
                    link.leaving[channel] = link.leaving.get(channel, 0) + 1
            for i in range(0, len(link.to_unsubscribe), verbs.batch):
                commands.append(_pack(verbs.unsubscribe, *link.to_unsubscribe[i:i + verbs.batch]))
            link.to_unsubscribe.clear()
            for i in range(0, len(subscribe), verbs.batch):
                commands.append(_pack(verbs.subscribe, *(f.channel for f in subscribe[i:i + verbs.batch])))
            if not commands:
                commands.append(_pack(b"PING"))
            await redis_compat.send(conn, b"".join(commands))

    def _sweep(self, now: float) -> None:
        for session_id, followed in list(self._followed.items()):
            if followed.waiters or followed.fetching or now - followed.idle_since < self._linger_seconds:
                continue
            del self._followed[session_id]
            del self._by_channel[followed.channel]
            self._unrouted.discard(followed)
            link = followed.link
            if link is None:
                continue
            del link.followed[followed.channel]
            followed.link = None
            if followed.requested:
                if not followed.confirmed.is_set():
                    link.stale[followed.channel] = link.stale.get(followed.channel, 0) + 1
                link.to_unsubscribe.append(followed.channel)
                link.wanted.set()

    async def _read(self, link: _Link, conn: Connection) -> None:
        verbs = self._verbs
        while True:
            async with asyncio.timeout(self._ping_seconds * 3):
                reply: Any = await redis_compat.read_reply(conn, disconnect_on_error=True)
            if not isinstance(reply, list) or not reply:
                continue
            kind = bytes(reply[0])
            if kind == verbs.message:
                self._changed(bytes(reply[1]))
            elif kind == verbs.subscribed:
                channel = bytes(reply[1])
                stale = link.stale.get(channel, 0)
                if stale:
                    link.stale[channel] = stale - 1
                    continue
                followed = link.followed.get(channel)
                if followed is not None:
                    followed.confirmed.set()
            elif kind == verbs.unsubscribed and self._shards is not None:
                channel = bytes(reply[1])
                leaving = link.leaving.get(channel, 0)
                if leaving:
                    link.leaving[channel] = leaving - 1
                    continue
                followed = link.followed.get(channel)  # not asked for: the slot moved to another shard
                if followed is not None:
                    self._reroute(link, [followed])

    async def close(self) -> None:
        self._closed = True
        for followed in self._followed.values():
            self._wake(followed.waiters)
        tasks = [t for t in (self._router, *(link.runner for link in self._links.values())) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self._router = None
        self._links.clear()
