"""Sessions in Redis, shared by any number of replicas.

Keys of session ``<id>`` (``<p>`` is the configurable prefix, default ``fh:``; the ``{<id>}`` hash tag keeps
them in one cluster slot so that one script may touch them all):

=========================  ===========================================================================
``<p>s:{<id>}``            hash: ``v`` (version), ``tag``, ``st`` (msgpack state), ``auth`` (token hashes),
                           ``gv`` (the version of the last change of the game itself, absent before the first
                           move and in a session created before it was kept), ``mg`` (when the game last
                           changed, Redis's clock in microseconds), ``ck``
                           (the turn clock, msgpack, for a session with one: :mod:`.clock`; ``dl`` its deadline
                           in ms since the epoch while it runs), ``tb`` (the
                           table's record: settings, seats' names, invitations, spectators; absent: the defaults)
``<p>s:{<id>}:log``        stream of the engine's events, entry id ``<version>-<index>``, field ``e`` (and
                           ``t``, the tag the change set, on each version's first entry; ``d``, the version's
                           clock deadline in ms since the epoch, on every entry of a version that has one;
                           ``a``, the seat to act once the version was made, empty for nobody, on every entry:
                           entries logged before it was kept have none, :data:`~.store.NOT_LOGGED`)
``<p>s:{<id>}:idem``       hash: ``<seat>:<Idempotency-Key>`` to the first response (msgpack record)
``<p>s:{<id>}:idemq``      list: idempotency fields, oldest first, to forget the oldest beyond a bound
=========================  ===========================================================================

One more key is shared by all sessions: ``<p>clocks``, the deadline index (a sorted set: session id scored by
its clock's deadline, or by a replica's claim on it; :mod:`.sweeper`). The scripts that change a session keep
its entry in step with its ``ck`` (on a Redis Cluster, where the index lives in another slot, by a second
command right after the change: a replica that dies between the two leaves that clock to the sweeper's next
pass over the entry the previous change left, which is never later than the new deadline, or, for a new
session, unindexed).

Every key carries the idle TTL, renewed together by every change. Round trips: creating is one (a script);
reading a session is one (``HMGET``, or a script that also fetches an idempotency record); a move is the
compare-and-set script :data:`COMMIT_LUA`, preceded by that read unless the replica remembers the session's
current record (so one or two; see :mod:`service.sessions.service`). A live SSE reader costs no connection:
it waits on the replica's one follower of the session logs (:mod:`.fanout`: one subscriber connection; on a
cluster, one per shard), which the compare-and-set script notifies through the session's change channel
``<p>ev:{<id>}`` (``PUBLISH``; on a cluster ``SPUBLISH``, :data:`SHARDED_COMMIT_LUA`, which keeps the message in
the shard that owns the session's slot, unless ``sharded_pubsub`` is off).

Any Redis error becomes :class:`StoreUnavailable` (503 with ``Retry-After``: nothing was changed), and is
reported to ``on_error`` with the store operation's name (``session_load``, ``session_commit`` …) when one is
given. Commands are not retried by the client: a compare-and-set whose reply was lost may have been applied,
and re-sending it blindly is exactly what the version check and idempotency keys exist to prevent.

**A commit whose answer is lost** (Redis hung past the bound, or the connection cut after the script was
sent) is followed up before anything is answered: on a fresh connection, within :data:`RESOLVE_TIMEOUT`,
:data:`RESOLVE_LUA` looks for the commit's own tag (in the session, or on the first log entry of the version
it would have made). Found: the move was applied, and is answered as such. Not found while the session is
still at the commit's base: the session gets a fresh tag, so the lost script, if it is still on its way (in
the buffers of a stopped Redis), can no longer apply; then, and only then, 503 ``STORE_UNAVAILABLE`` says that
nothing was applied. If the follow-up fails too, the answer is 503 ``COMMIT_OUTCOME_UNKNOWN``
(:class:`~service.sessions.store.CommitOutcomeUnknown`): the move may have been applied, and a retry with the
same ``Idempotency-Key`` is safe because the key is written by the same script as the move. Connections that
broke while Redis was away are replaced by the pool on next use, so the service recovers by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, cast

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import Connection, SSLConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    RedisError,
    ResponseError,
    TryAgainError,
)

from engine import GameState
from service.ops import redis_compat
from service.sessions.clock import TurnClock, decode_clock, encode_clock
from service.sessions.fanout import LogFollower
from service.sessions.log import LogEntry
from service.sessions.store import (
    DELETED_MEMORY_SECONDS,
    EVENT_DECODER,
    EVENT_ENCODER,
    EVENTS_PER_READ,
    IDEMPOTENCY_DECODER,
    IDEMPOTENCY_ENCODER,
    IDEMPOTENCY_RECORDS_KEPT,
    NOT_LOGGED,
    STATE_DECODER,
    STATE_ENCODER,
    CommitOutcome,
    CommitOutcomeUnknown,
    Committed,
    Conflict,
    Cursor,
    Gone,
    IdempotencyRecord,
    Loaded,
    LoggedEvent,
    Replayed,
    SessionRecord,
    StoreUnavailable,
    new_tag,
)

#: KEYS: hash, log, idem, idemq[, deadline index]. ARGV: ttl_ms, version, tag, state, auth, clock ('' for none),
#: deadline ms ('' for none), session id, table ('' for the defaults: no ``tb`` field, 100 bytes less per new
#: session), the seat to act ('' for nobody), the game version ('' for none), event... → 1 created, 0 id taken.
CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'tag', ARGV[3], 'st', ARGV[4], 'auth', ARGV[5])
if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'tb', ARGV[9]) end
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'gv', ARGV[11]) end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'ck', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'dl', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
for i = 12, #ARGV do
  if ARGV[7] ~= '' then
    redis.call('XADD', KEYS[2], ARGV[2] .. '-' .. (i - 12), 'e', ARGV[i], 'a', ARGV[10], 'd', ARGV[7])
  else
    redis.call('XADD', KEYS[2], ARGV[2] .. '-' .. (i - 12), 'e', ARGV[i], 'a', ARGV[10])
  end
end
if #ARGV >= 12 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
if #KEYS >= 5 and ARGV[7] ~= '' then redis.call('ZADD', KEYS[5], ARGV[7], ARGV[8]) end
return 1
"""

#: KEYS: hash, idem. ARGV: idempotency field ('' for none), the mover's seat ('' for none) → {v, tag, st, auth,
#: record or nil, microseconds since the game last changed or -1 (asked with a seat), clock or nil, table or nil, game
#: version or nil},
#: or nil when the session is gone.
#: (No HMGET inside scripts: the top-level HMGET and EVALSHA counts in ``INFO commandstats`` are then exactly the round
#: trips of reads and writes, which the benchmark reports.)
LOAD_LUA = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return false end
local first = false
if ARGV[1] ~= '' then first = redis.call('HGET', KEYS[2], ARGV[1]) end
local ago = -1
if ARGV[2] ~= '' then
  local moved = redis.call('HGET', KEYS[1], 'mg')
  if moved then
    local now = redis.call('TIME')
    ago = tonumber(now[1]) * 1000000 + tonumber(now[2]) - tonumber(moved)
  end
end
return {v, redis.call('HGET', KEYS[1], 'tag'), redis.call('HGET', KEYS[1], 'st'),
        redis.call('HGET', KEYS[1], 'auth'), first, string.format('%.0f', ago), redis.call('HGET', KEYS[1], 'ck'),
        redis.call('HGET', KEYS[1], 'tb'), redis.call('HGET', KEYS[1], 'gv')}
"""

#: The compare-and-set of a move. KEYS: hash, log, idem, idemq[, deadline index]. ARGV: expected version, expected tag,
#: ttl_ms, new state, new tag, idempotency field ('' for none), idempotency record, records kept, mover's seat ('' for
#: none), the session's change channel, new clock ('' to keep it), its deadline ms ('' for none), session id, the new
#: table ('' to keep it), the new auth ('' to keep it), the seat to act in the new state ('' for nobody), '1' when the
#: change is one of the game (a move: ``gv`` is set to the new version, ``mg`` to Redis's clock in microseconds),
#: event... → {1, new version} | {2, v, tag, st, auth, microseconds since the game last changed or -1 (asked with the
#: mover's seat), clock or nil, table or nil, game version or nil} (the session moved on: its current record) | {3,
#: first record} (the idempotency key was used) | {0} (the session is gone). A new clock's deadline goes to ``dl`` and,
#: with the index key, to the session's entry of the deadline index (both removed without one); every event logged
#: carries the version's deadline (``d``, the kept one when no clock is given). The new tag is also stored with the
#: version's first event (field ``t``), so that a commit whose answer was lost can be recognised later
#: (:data:`RESOLVE_LUA`). The new version is published on the change channel, which the event follower of every replica
#: with a live stream of the session listens to (:mod:`.fanout`).
COMMIT_LUA = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {0} end
if ARGV[6] ~= '' then
  local first = redis.call('HGET', KEYS[3], ARGV[6])
  if first then return {3, first} end
end
local now = redis.call('TIME')
local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
local tag = redis.call('HGET', KEYS[1], 'tag')
if v ~= ARGV[1] or tag ~= ARGV[2] then
  local ago = -1
  if ARGV[9] ~= '' then
    local moved = redis.call('HGET', KEYS[1], 'mg')
    if moved then ago = now_us - tonumber(moved) end
  end
  return {2, v, tag, redis.call('HGET', KEYS[1], 'st'), redis.call('HGET', KEYS[1], 'auth'), string.format('%.0f', ago),
          redis.call('HGET', KEYS[1], 'ck'), redis.call('HGET', KEYS[1], 'tb'), redis.call('HGET', KEYS[1], 'gv')}
end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'v', nv, 'tag', ARGV[5], 'st', ARGV[4])
if ARGV[14] ~= '' then redis.call('HSET', KEYS[1], 'tb', ARGV[14]) end
if ARGV[15] ~= '' then redis.call('HSET', KEYS[1], 'auth', ARGV[15]) end
if ARGV[17] == '1' then redis.call('HSET', KEYS[1], 'gv', nv, 'mg', string.format('%.0f', now_us)) end
local deadline = ARGV[12]
if ARGV[11] ~= '' then
  redis.call('HSET', KEYS[1], 'ck', ARGV[11])
  if deadline ~= '' then redis.call('HSET', KEYS[1], 'dl', deadline) else redis.call('HDEL', KEYS[1], 'dl') end
  if #KEYS >= 5 then
    if deadline ~= '' then redis.call('ZADD', KEYS[5], deadline, ARGV[13])
    else redis.call('ZREM', KEYS[5], ARGV[13]) end
  end
else
  deadline = redis.call('HGET', KEYS[1], 'dl') or ''
end
for i = 18, #ARGV do
  local entry = {'e', ARGV[i], 'a', ARGV[16]}
  if i == 18 then entry[5] = 't'; entry[6] = ARGV[5] end
  if deadline ~= '' then entry[#entry + 1] = 'd'; entry[#entry + 1] = deadline end
  redis.call('XADD', KEYS[2], nv .. '-' .. (i - 18), unpack(entry))
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[6], ARGV[7])
  if redis.call('RPUSH', KEYS[4], ARGV[6]) > tonumber(ARGV[8]) then
    redis.call('HDEL', KEYS[3], redis.call('LPOP', KEYS[4]))
  end
end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
redis.call('PUBLISH', ARGV[10], nv)
return {1, nv}
"""
#: :data:`COMMIT_LUA` on a cluster with sharded pub/sub: the change channel carries the session's hash tag, so
#: ``SPUBLISH`` keeps the message inside the shard that owns the session's slot (a ``PUBLISH`` goes to every node).
SHARDED_COMMIT_LUA = COMMIT_LUA.replace("redis.call('PUBLISH', ARGV[10], nv)", "redis.call('SPUBLISH', ARGV[10], nv)")

#: Whether a commit whose answer was lost was applied, asked on a fresh connection. KEYS: hash, log, idem.
#: ARGV: the commit's expected version, expected tag, new tag, a fresh tag, and its idempotency field ('' for
#: none). → {1, version} (it was applied) | {2} (it was not, and now never will be) | {3, first record} (not
#: this call, but another with the same idempotency key was: its answer) | {0} (the session is gone). If the
#: session is still at the expected version and tag, the commit has not run yet (it may still be on its way,
#: e.g. in the buffers of a Redis that was stopped): the session's tag is replaced by the fresh one (same
#: version, same state), so that commit, should it still arrive, finds another tag and changes nothing.
RESOLVE_LUA = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {0} end
local nv = tonumber(ARGV[1]) + 1
local tag = redis.call('HGET', KEYS[1], 'tag')
if tonumber(v) == nv and tag == ARGV[3] then return {1, nv} end
if tonumber(v) >= nv then
  local entry = redis.call('XRANGE', KEYS[2], nv .. '-0', nv .. '-0')[1]
  if entry then
    local fields = entry[2]
    for i = 1, #fields, 2 do
      if fields[i] == 't' and fields[i + 1] == ARGV[3] then return {1, nv} end
    end
  end
  if ARGV[5] ~= '' then
    local first = redis.call('HGET', KEYS[3], ARGV[5])
    if first then return {3, first} end
  end
  return {2}
end
if v == ARGV[1] and tag == ARGV[2] then redis.call('HSET', KEYS[1], 'tag', ARGV[4]) end
return {2}
"""

#: Claims due sessions of the deadline index. KEYS: index. ARGV: now ms, claim until ms, at most → {{id, ...}, earliest
#: score left or false}: each session due at ``now`` is re-scored to the claim's end, so other replicas pass it over.
CLAIM_LUA = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], id) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, first[2] or false}
"""

#: Settles a claim. KEYS: index. ARGV: session id, the claim's score, the deadline ('' to remove): only while the
#: entry is still the claim (a change that set a new deadline meanwhile wins).
SETTLE_LUA = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""

#: Every store call fails fast (the service answers 503 and the client retries). The bound is one
#: ``asyncio.timeout`` around the whole call rather than redis-py's ``socket_timeout``, which wraps each socket
#: read and write in ``asyncio.wait_for`` (a task apiece: a third of the client's CPU time per command).
#: A call cut short by it disconnects its connection, so no late reply is ever read by another command.
COMMAND_TIMEOUT = 2.0
CONNECT_TIMEOUT = 1.0
#: A commit whose answer was lost (timed out or cut after it was sent) gets this much more to find out, on a
#: fresh connection, whether it was applied (:data:`RESOLVE_LUA`).
RESOLVE_TIMEOUT = 1.0
#: Short commands in flight at once per replica, each on a connection of its own (more queue for a slot): a
#: burst of thousands of streams opening at once costs this many connections, not thousands.
HOT_CONNECTIONS = 32
#: A command that queues for a place (:data:`HOT_CONNECTIONS`, :data:`CLUSTER_IN_FLIGHT`) waits at most this long
#: for one. The wait is not counted in :data:`COMMAND_TIMEOUT`, which bounds Redis's answer: a burst that fills
#: the places is not a Redis that does not answer (:func:`_take_place`).
QUEUE_TIMEOUT = 10.0
#: Commands in flight at once per replica on a cluster (more queue for a place): below the cluster client's
#: connections per node (:data:`CLUSTER_NODE_CONNECTIONS`), which it refuses to exceed rather than wait for one,
#: so that a burst (hundreds of streams opening at once) queues instead of failing.
CLUSTER_IN_FLIGHT = 64
#: After a cluster node failed, the slots are read again at most this often (seconds). Every command that meets
#: the failed node asks for a re-read, and until its replica is promoted the slots read still name it: without a
#: bound, the replica re-reads them for command after command, and the commands of every other slot wait.
REREAD_SECONDS = 0.25
CLUSTER_NODE_CONNECTIONS = 100
#: In a Redis Cluster, a change is acknowledged once this many replicas confirm it (``WAIT``), for at most
#: this many milliseconds; then it is answered as of unknown outcome (see :meth:`RedisStore._replicated`).
CLUSTER_WAIT_REPLICAS = 1
CLUSTER_WAIT_MS = 500
#: How long an answer of :meth:`RedisStore.has_room` (Redis's memory use) is reused.
ROOM_CHECK_SECONDS = 1.0


#: ``REDIS_URL`` schemes that name a Redis Cluster (any of its nodes; more, comma-separated, for a start that
#: survives one being down): ``redis+cluster://[user:password@]host:port[,host:port...]``, ``rediss+cluster://``
#: with TLS. The client discovers the other nodes and follows the slots.
CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")


def is_cluster_url(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEMES)


def cluster_nodes(url: str) -> tuple[list[tuple[str, int]], dict[str, Any]]:
    """The start nodes of a cluster URL, and the connection options it gives (credentials, TLS)."""
    parts = urllib.parse.urlsplit(url)
    credentials, _, hosts = parts.netloc.rpartition("@")
    nodes: list[tuple[str, int]] = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"cluster node {item!r} is not host:port")
        nodes.append((host.strip("[]"), int(port)))
    if parts.path not in ("", "/", "/0"):
        raise ValueError("a Redis Cluster has database 0 only")
    options: dict[str, Any] = {}
    if credentials:
        user, _, password = credentials.partition(":")
        if password:
            options["username"] = urllib.parse.unquote(user) or None
            options["password"] = urllib.parse.unquote(password)
        else:
            options["password"] = urllib.parse.unquote(user)
    if parts.scheme == "rediss+cluster":
        options["ssl"] = True
    return nodes, options


def redis_client(url: str, *, connect_timeout: float = CONNECT_TIMEOUT) -> Redis | RedisCluster:
    """A client for ``url``: one Redis (``redis://``, ``rediss://``, ``unix://``) or a cluster
    (:data:`CLUSTER_SCHEMES`). No retries, no per-socket timeout (callers bound each call themselves); a
    cluster client follows ``MOVED``/``ASK`` redirections and, after a node failed, re-reads the slots before
    its next command, but never sends a command twice."""
    if is_cluster_url(url):
        nodes, options = cluster_nodes(url)
        return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in nodes],
                            max_connections=CLUSTER_NODE_CONNECTIONS,
                            socket_timeout=None, socket_connect_timeout=connect_timeout,
                            retry=Retry(NoBackoff(), 0), protocol=2, decode_responses=False, **options)
    return Redis.from_url(url, socket_timeout=None, socket_connect_timeout=connect_timeout,
                          retry=Retry(NoBackoff(), 0), protocol=2, decode_responses=False)


def _client(url: str) -> Redis:
    return Redis.from_url(url, socket_timeout=None, socket_connect_timeout=CONNECT_TIMEOUT,
                          retry=Retry(NoBackoff(), 0), protocol=2, decode_responses=False)


def _cursor(entry_id: bytes | str) -> Cursor:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    version, _, index = text.partition("-")
    return int(version), int(index)


def _seat_text(seat: int | None) -> str:
    return "" if seat is None else str(seat)


def _pack(*parts: bytes | str) -> bytes:
    """A command in RESP, ready to send."""
    raw = [p.encode() if isinstance(p, str) else p for p in parts]
    return b"*%d\r\n" % len(raw) + b"".join(b"$%d\r\n%b\r\n" % (len(r), r) for r in raw)


class _Connections:
    """Idle connections for the hot path, last in first out, each checked before use exactly as redis-py's
    own pool checks it (``ConnectionPool.ensure_connection``): connected, and neither closed by the server
    (a Redis that restarted) nor holding unread data; otherwise reconnected."""

    def __init__(self, client: Redis, limit: int) -> None:
        self._make: Callable[[], Connection] = functools.partial(redis_compat.new_connection, client)
        self._idle: list[Connection] = []
        self._all: set[Connection] = set()
        #: At most ``limit`` commands in flight at once (so at most that many connections); the others queue.
        self._slots = asyncio.Semaphore(limit)

    async def acquire(self) -> Connection:
        await _take_place(self._slots)
        conn = self._idle.pop() if self._idle else self._make()
        try:
            await redis_compat.connect(conn)  # nothing to do when connected
            try:
                stale = await redis_compat.holds_unread_data(conn)
            except (RedisError, OSError):  # can_read has disconnected it
                stale = True
            if stale:
                await conn.disconnect()
                await redis_compat.connect(conn)
        except BaseException:
            self._all.discard(conn)  # unusable now (Redis away): dropped, not kept
            self._slots.release()
            raise
        self._all.add(conn)
        return conn

    def release(self, conn: Connection) -> None:
        self._idle.append(conn)
        self._slots.release()

    async def close(self) -> None:
        self._idle = []
        for conn in self._all:
            await conn.disconnect()
        self._all.clear()


def _record(fields: Any, clock: Any = None, table: Any = None, game: Any = None) -> SessionRecord:
    """A record from Redis's ``v, tag, st, auth`` (and ``ck``, ``tb`` and ``gv``, ``None`` when absent)."""
    return SessionRecord(int(fields[0]), STATE_DECODER.decode(fields[2]), bytes(fields[3]), bytes(fields[1]),
                         decode_clock(clock), b"" if table is None else bytes(table), 0 if game is None else int(game))


#: The bound of the store call the running task is in (:func:`_bounded`), with that task, which
#: :func:`_take_place` pauses while the call queues for a place. (A task started within a call inherits the
#: variable, not the bound: the task is compared.)
_CALL_BOUND: ContextVar[tuple[asyncio.Task[Any] | None, asyncio.Timeout] | None] = ContextVar(
    "redis_store_call_bound", default=None)


@asynccontextmanager
async def _bounded(seconds: float) -> AsyncIterator[None]:
    """``asyncio.timeout(seconds)`` around a store call, which a wait for a place does not count against."""
    async with asyncio.timeout(seconds) as bound:
        token = _CALL_BOUND.set((asyncio.current_task(), bound))
        try:
            yield
        finally:
            _CALL_BOUND.reset(token)


async def _take_place(places: asyncio.Semaphore) -> None:
    """Acquire one of ``places`` (the commands in flight at once). When none is free the command queues, for at
    most :data:`QUEUE_TIMEOUT`, and its call's bound (:func:`_bounded`) stops while it waits: it starts again,
    with the time it had left, once the command has its place and is about to be sent. So a burst of commands
    queues rather than fails, while a Redis that does not answer a command still fails it in
    :data:`COMMAND_TIMEOUT`."""
    if not places.locked():
        await places.acquire()  # free: at once
        return
    call = _CALL_BOUND.get()
    bound = call[1] if call is not None and call[0] is asyncio.current_task() else None
    if bound is not None and (bound.expired() or bound.when() is None):
        bound = None  # nothing to pause
    loop = asyncio.get_running_loop()
    left = 0.0
    if bound is not None:
        left = cast(float, bound.when()) - loop.time()
        bound.reschedule(None)
    try:
        async with asyncio.timeout(QUEUE_TIMEOUT):
            await places.acquire()
    finally:
        if bound is not None:
            bound.reschedule(loop.time() + max(left, 0.0))


@asynccontextmanager
async def _place(places: asyncio.Semaphore) -> AsyncIterator[None]:
    await _take_place(places)
    try:
        yield
    finally:
        places.release()


@asynccontextmanager
async def _guard(operation: str, on_error: Callable[[str], None] | None,
                 seconds: float = COMMAND_TIMEOUT) -> AsyncIterator[None]:
    try:
        async with _bounded(seconds):
            yield
    except (RedisError, OSError) as exc:  # TimeoutError is an OSError
        if on_error is not None:
            on_error(operation)
        raise StoreUnavailable() from exc


class _ClusterShards:
    """Where the follower finds a session's sharded change channel: the primary of the channel's slot (the
    session's own, by its hash tag), as the cluster client last read the slots."""

    def __init__(self, client: RedisCluster) -> None:
        self._client = client

    def route(self, channel: str) -> str | None:
        node = redis_compat.slot_primary(self._client, channel)
        return None if node is None else f"{node.host}:{node.port}"

    async def refresh(self) -> None:
        async with asyncio.timeout(CONNECT_TIMEOUT + COMMAND_TIMEOUT):
            await redis_compat.cluster_refresh_slots(self._client)


class RedisStore:
    """A :class:`~service.sessions.store.SessionStore` on Redis."""

    def __init__(self, url: str, idle_seconds: int, *, prefix: str = "fh:", max_wait: float = 30.0,
                 on_error: Callable[[str], None] | None = None, command_timeout: float = COMMAND_TIMEOUT,
                 resolve_timeout: float = RESOLVE_TIMEOUT, max_fill: int = 0,
                 wait_replicas: int = CLUSTER_WAIT_REPLICAS, wait_ms: int = CLUSTER_WAIT_MS,
                 sharded_pubsub: bool = True) -> None:
        self.idle_seconds = idle_seconds
        #: In a cluster, a change is acknowledged once this many replicas have it (or every replica of its
        #: slot, if fewer), waiting up to ``wait_ms`` (:meth:`_replicated`).
        self.wait_replicas = wait_replicas
        self.wait_ms = wait_ms
        #: :meth:`has_room` is ``False`` once Redis uses this percentage of its ``maxmemory`` (0: no bound).
        self.max_fill = max_fill
        self._room: tuple[float, bool] = (0.0, True)  # (checked at, answer)
        self.command_timeout = command_timeout
        self.resolve_timeout = resolve_timeout
        self._on_error = on_error
        self.prefix = prefix
        self._ttl_ms = str(idle_seconds * 1000)
        self.cluster = is_cluster_url(url)
        self._url = url
        self.client: Any
        if self.cluster:
            self.client = redis_client(url)
            self._in_flight = asyncio.Semaphore(CLUSTER_IN_FLIGHT)
            self._reread_at = 0.0
        else:
            single = _client(url)
            self.client = single
            self._hot = _Connections(single, HOT_CONNECTIONS)
            self._fresh: Callable[[], Connection] = functools.partial(redis_compat.new_connection, single)
        self._max_wait = max_wait
        self._create = self.client.register_script(CREATE_LUA)
        self._load = self.client.register_script(LOAD_LUA)
        #: Changes published with ``SPUBLISH`` and followed per shard (a cluster, unless turned off).
        self.sharded = self.cluster and sharded_pubsub
        self._commit = self.client.register_script(SHARDED_COMMIT_LUA if self.sharded else COMMIT_LUA)
        self._resolve = self.client.register_script(RESOLVE_LUA)
        self._claim = self.client.register_script(CLAIM_LUA)
        self._settle = self.client.register_script(SETTLE_LUA)
        self._next_node = 0
        # Live streams wait on the replica's one follower of the session logs, not on a connection each.
        self.follower = LogFollower(self._subscriber, self._read_now, self.channel,
                                    shards=_ClusterShards(self.client) if self.sharded else None)

    def keys(self, session_id: str) -> tuple[str, str, str, str]:
        base = f"{self.prefix}s:{{{session_id}}}"
        return base, base + ":log", base + ":idem", base + ":idemq"

    def clock_index(self) -> str:
        """The deadline index: every session with a running clock, scored by its deadline (or a claim)."""
        return f"{self.prefix}clocks"

    def hook_index(self) -> str:
        """The webhook index: every session whose webhooks have something to deliver, or may have (a backstop),
        scored by when (or by a claim)."""
        return f"{self.prefix}hooks"

    def hook_states_key(self, session_id: str) -> str:
        """The delivery state of the session's webhooks (a hash: webhook id to its msgpack state)."""
        return f"{self.prefix}s:{{{session_id}}}:hooks"

    def _change_keys(self, session_id: str) -> list[str]:
        """The keys of a change: the session's, and (one Redis only: in a cluster it is in another slot) the
        deadline index."""
        keys = list(self.keys(session_id))
        return keys if self.cluster else [*keys, self.clock_index()]

    async def _index_in_cluster(self, session_id: str, clock: TurnClock | None) -> None:
        """In a cluster, the deadline index's entry, set by a command of its own after the change."""
        if clock is None:
            return
        async with _guard("session_clock", self._on_error, self.command_timeout):
            if clock.deadline is None:
                await self.client.zrem(self.clock_index(), session_id)
            else:
                await self.client.zadd(self.clock_index(), {session_id: clock.deadline})

    def channel(self, session_id: str) -> str:
        """The pub/sub channel on which every change of the session publishes its new version."""
        return f"{self.prefix}ev:{{{session_id}}}"

    async def _subscriber(self, node: str) -> Connection:
        """A new connection for the follower: to the Redis; to ``node`` (``host:port``) of the cluster, the
        primary of the shards it follows; or, with plain pub/sub, to any node of the cluster (each time the next
        one: a publish reaches every node, and a node that failed is passed over on the next try)."""
        conn = self._cluster_node_connection(node) if self.cluster else self._fresh()
        async with asyncio.timeout(CONNECT_TIMEOUT + self.command_timeout):
            await redis_compat.connect(conn)
        return conn

    def _cluster_node_connection(self, node: str = "") -> Connection:
        nodes, options = cluster_nodes(self._url)
        if node:
            host, _, port_text = node.rpartition(":")
            port = int(port_text)
        else:
            known = [(n.host, n.port) for n in self.client.get_nodes()] or nodes
            host, port = known[self._next_node % len(known)]
            self._next_node += 1
        kind = SSLConnection if options.pop("ssl", False) else Connection
        return kind(host=host, port=port, socket_timeout=None, socket_connect_timeout=CONNECT_TIMEOUT,
                    retry=Retry(NoBackoff(), 0), protocol=2, **options)

    async def create(self, session_id: str, record: SessionRecord, events: Sequence[LogEntry]) -> bool:
        deadline = record.clock.deadline if record.clock is not None else None
        args: list[Any] = [self._ttl_ms, str(record.version), record.tag, STATE_ENCODER.encode(record.state),
                           record.auth, encode_clock(record.clock), "" if deadline is None else str(deadline),
                           session_id, record.table, _seat_text(record.state.to_act),
                           str(record.game_version) if record.game_version else ""]
        args.extend(EVENT_ENCODER.encode(e) for e in events)
        async with _guard("session_create", self._on_error, self.command_timeout):
            if self.cluster:  # acknowledged once a replica has it (see _replicated)
                try:
                    created = bool(await self._replicated(self._create, self.keys(session_id), args))
                except CommitOutcomeUnknown:
                    raise StoreUnavailable("the session store could not confirm the new session in time; "
                                           "create it again") from None
            else:
                return bool(await self._create(keys=self._change_keys(session_id), args=args))
        if created:
            await self._index_in_cluster(session_id, record.clock)
        return created

    async def load(self, session_id: str, idempotency_field: str | None = None, *,
                   seat: int | None = None) -> Loaded | None:
        hash_key, _, idem_key, _ = self.keys(session_id)
        reply: Any
        async with _guard("session_load", self._on_error, self.command_timeout):
            if idempotency_field is None and seat is None:
                reply = await self._call(b"HMGET", hash_key, b"v", b"tag", b"st", b"auth", b"ck", b"tb", b"gv")
                if reply and reply[0] is not None:
                    return Loaded(_record(reply, reply[4], reply[5], reply[6]), None)
            else:
                reply = await self._evalsha(self._load, [hash_key, idem_key],
                                            [idempotency_field or "", "" if seat is None else str(seat)])
        if not reply or reply[0] is None:
            return None
        replay = IDEMPOTENCY_DECODER.decode(reply[4]) if reply[4] is not None else None
        ago = int(reply[5])
        return Loaded(_record(reply, reply[6], reply[7], reply[8]), replay, None if ago < 0 else ago / 1e6)

    async def commit(self, session_id: str, base: SessionRecord, state: GameState, events: Sequence[LogEntry],
                     idempotency: tuple[str, IdempotencyRecord] | None = None, *,
                     seat: int | None = None, clock: TurnClock | None = None, table: bytes | None = None,
                     auth: bytes | None = None, ended: bool = False) -> CommitOutcome:
        outcome = await self._commit_change(session_id, base, state, events, idempotency, seat, clock, table, auth,
                                            ended)
        if self.cluster and isinstance(outcome, Committed):
            # The change stands if this fails: the previous entry brings the sweeper back to the session.
            with contextlib.suppress(StoreUnavailable):
                await self._index_in_cluster(session_id, clock)
        return outcome

    async def _commit_change(self, session_id: str, base: SessionRecord, state: GameState,
                             events: Sequence[LogEntry], idempotency: tuple[str, IdempotencyRecord] | None,
                             seat: int | None, clock: TurnClock | None, table: bytes | None,
                             auth: bytes | None, ended: bool = False) -> CommitOutcome:
        field, first = ("", b"") if idempotency is None else (
            idempotency[0], IDEMPOTENCY_ENCODER.encode(idempotency[1]))
        tag = new_tag()
        deadline = clock.deadline if clock is not None else None
        args: list[Any] = [str(base.version), base.tag, self._ttl_ms, STATE_ENCODER.encode(state), tag, field,
                           first, str(IDEMPOTENCY_RECORDS_KEPT), "" if seat is None else str(seat),
                           self.channel(session_id), encode_clock(clock), "" if deadline is None else str(deadline),
                           session_id, b"" if table is None else table, b"" if auth is None else auth,
                           "" if ended or state.to_act is None else str(state.to_act),
                           "1" if state is not base.state else ""]
        args.extend(EVENT_ENCODER.encode(e) for e in events)
        keys = self._change_keys(session_id)
        reply: Any
        sent = [False]
        try:
            async with _bounded(self.command_timeout):
                if self.cluster:
                    reply = await self._replicated(self._commit, keys, args, sent)
                else:
                    reply = await self._evalsha(self._commit, keys, args, sent)
        except CommitOutcomeUnknown:
            if self._on_error is not None:
                self._on_error("session_commit")
            raise
        except (RedisError, OSError) as exc:  # TimeoutError is an OSError
            if self._on_error is not None:
                self._on_error("session_commit")
            if not sent[0]:
                raise StoreUnavailable() from exc  # never sent: nothing was applied
            return await self._resolve_lost(keys, base, tag, field)
        code = int(reply[0])
        if code == 1:
            return Committed(int(reply[1]), tag)
        if code == 2:
            ago = int(reply[5])
            return Conflict(_record(reply[1:], reply[6], reply[7], reply[8]), None if ago < 0 else ago / 1e6)
        if code == 3:
            return Replayed(IDEMPOTENCY_DECODER.decode(reply[1]))
        return Gone()

    async def _resolve_lost(self, keys: Sequence[str], base: SessionRecord, tag: bytes,
                            field: str) -> CommitOutcome:
        """A commit was sent and its answer lost: was it applied? Asked on a fresh connection, within
        :attr:`resolve_timeout`; a commit found not applied is also made unable to apply later."""
        if self.cluster:
            return await self._resolve_lost_in_cluster(keys, base, tag, field)
        conn = self._fresh()
        try:
            async with asyncio.timeout(self.resolve_timeout):
                await redis_compat.connect(conn)
                await redis_compat.send(conn, _pack(b"EVAL", RESOLVE_LUA, "3", keys[0], keys[1], keys[2],
                                                    str(base.version), base.tag, tag, new_tag(), field))
                reply: Any = await redis_compat.read_reply(conn)
        except (RedisError, OSError) as exc:
            if self._on_error is not None:
                self._on_error("session_commit")
            raise CommitOutcomeUnknown() from exc
        finally:
            await conn.disconnect()
        return self._resolved(reply, tag)

    @staticmethod
    def _resolved(reply: Any, tag: bytes) -> CommitOutcome:
        code = int(reply[0])
        if code == 1:
            return Committed(int(reply[1]), tag)
        if code == 3:
            return Replayed(IDEMPOTENCY_DECODER.decode(reply[1]))
        if code == 0:
            return Gone()
        raise StoreUnavailable("the session store did not answer in time; the move was not applied: "
                               "retry shortly")

    async def _resolve_lost_in_cluster(self, keys: Sequence[str], base: SessionRecord, tag: bytes,
                                       field: str) -> CommitOutcome:
        """:meth:`_resolve_lost` through the cluster client: the connection that failed was dropped, and the
        client re-reads the slots first if a node failed (the session may now be on a promoted replica)."""
        try:
            async with asyncio.timeout(self.resolve_timeout):
                reply: Any = await self.client.execute_command(
                    "EVAL", RESOLVE_LUA, "3", keys[0], keys[1], keys[2], str(base.version), base.tag, tag,
                    new_tag(), field)
        except (RedisError, OSError) as exc:
            if self._on_error is not None:
                self._on_error("session_commit")
            raise CommitOutcomeUnknown() from exc
        return self._resolved(reply, tag)

    # The hot path (a move's read and compare-and-set) sends a command packed here, on a connection of its
    # own small pool (:class:`_Connections`): less than half the client CPU of ``Redis.execute_command``
    # per command (measured ~50 against ~120 µs for the compare-and-set), which is most of what a move costs
    # beyond the engine and HTTP. The same redis-py connections and error handling: a connection interrupted
    # mid-command is disconnected by redis-py itself and reconnects on its next use.

    async def _send(self, packed: bytes, sent: list[bool] | None = None) -> Any:
        """Send one command and read its reply; ``sent[0]`` is set once the command may have reached Redis
        (a failure before that changed nothing)."""
        conn = await self._hot.acquire()
        try:
            if sent is not None:
                sent[0] = True
            await redis_compat.send(conn, packed)
            return await redis_compat.read_reply(conn)
        finally:
            self._hot.release(conn)

    async def _replicated(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any],
                          sent: list[bool] | None = None) -> Any:
        """A change in a cluster: the script, then ``WAIT`` on the same connection to the primary that owns the
        session's slot, so that a change is acknowledged only once a replica has it too (replication is
        asynchronous: a primary that fails right after answering would otherwise take the change with it when
        its replica takes over). If fewer than :attr:`wait_replicas` replicas confirm within :attr:`wait_ms`,
        the change is in the primary but its survival is not known: :class:`CommitOutcomeUnknown`, and a
        retry with the same ``Idempotency-Key`` is safe (it finds the change and answers it, or applies it
        again if a failover lost it). So a primary left without a replica in sync (its replica was promoted
        after it failed, and it is not back yet) takes no moves until one is; ``wait_replicas=0`` trades that
        for the risk of losing acknowledged moves in a failover."""
        async with _place(self._in_flight):
            return await self._replicated_now(script, keys, args, sent)

    async def _replicated_now(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any],
                              sent: list[bool] | None) -> Any:
        client = self.client
        use_eval = False
        for _ in range(3):
            self._bound_rereads()
            if redis_compat.cluster_slots_stale(client):  # a node failed since: re-read the slots first
                await client.initialize()
            primary = redis_compat.slot_primary(client, keys[0])
            if primary is None:
                raise StoreUnavailable()
            need = self.wait_replicas
            conn = redis_compat.node_connection(primary)
            head = (b"EVAL", script.script) if use_eval else (b"EVALSHA", script.sha)
            commands: list[tuple[Any, ...]] = [(*head, str(len(keys)), *keys, *args)]
            if need:
                commands.append((b"WAIT", str(need), str(self.wait_ms)))
            try:
                if sent is not None:
                    sent[0] = True
                await redis_compat.send(conn, redis_compat.pack_commands(conn, commands))
                error: ResponseError | None = None
                try:
                    reply: Any = await redis_compat.read_reply(conn)
                except ResponseError as exc:  # an error reply: the WAIT's reply still follows
                    error = exc
                acked = int(await redis_compat.read_reply(conn)) if need else 0
            except BaseException:
                await conn.disconnect()  # mid-command: never reused with a reply still on its way
                redis_compat.cluster_reread_slots(client)  # the node may have failed: re-read the slots first
                raise
            finally:
                redis_compat.release_node_connection(primary, conn)
            if error is None:
                if acked < need:
                    raise CommitOutcomeUnknown()
                return reply
            if sent is not None:
                sent[0] = False  # an error reply: the script did not run
            if isinstance(error, NoScriptError):  # a promoted replica, a restarted node: EVAL caches it there
                use_eval = True
            elif isinstance(error, (MovedError, AskError, TryAgainError, ClusterDownError)):
                redis_compat.cluster_reread_slots(client)  # the slot moved (a failover): follow it
                await asyncio.sleep(0.05)
            else:
                raise error
        raise StoreUnavailable()

    async def _call(self, *parts: bytes | str, sent: list[bool] | None = None) -> Any:
        """One command: on the hot path of one Redis, or through the cluster client to the node that owns its
        keys' slot (one slot per session: the hash tag)."""
        if not self.cluster:
            return await self._send(_pack(*parts), sent)
        if sent is not None:
            sent[0] = True
        name = parts[0].decode() if isinstance(parts[0], bytes) else parts[0]  # the cluster routes by str names
        async with _place(self._in_flight):
            self._bound_rereads()
            return await self.client.execute_command(name, *parts[1:])

    def _bound_rereads(self) -> None:
        """Let the cluster client read the slots again (as a failed node asked) at most every
        :data:`REREAD_SECONDS`."""
        if not redis_compat.cluster_slots_stale(self.client):
            return
        now = time.monotonic()
        if now - self._reread_at < REREAD_SECONDS:
            redis_compat.cluster_keep_slots(self.client)
        else:
            self._reread_at = now

    async def _evalsha(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any],
                       sent: list[bool] | None = None) -> Any:
        try:
            return await self._call(b"EVALSHA", script.sha, str(len(keys)), *keys, *args, sent=sent)
        except NoScriptError:  # a Redis that restarted or was flushed, a promoted replica: load it and go on
            if sent is not None:
                sent[0] = False  # Redis answered: nothing ran
            if self.cluster:  # EVAL caches the script on the node that owns the keys
                text = cast(str, script.script)
                return await self._call(b"EVAL", text, str(len(keys)), *keys, *args, sent=sent)
            script.sha = await self.client.script_load(script.script)
            return await self._call(b"EVALSHA", script.sha, str(len(keys)), *keys, *args, sent=sent)

    async def delete(self, session_id: str) -> bool:
        async with _guard("session_delete", self._on_error, self.command_timeout):
            existed = bool(await self.client.delete(*self.keys(session_id)))
            if existed:  # remembered a while, so that the session's streams say why they end
                await self.client.set(self.keys(session_id)[0] + ":deleted", b"1", ex=DELETED_MEMORY_SECONDS)
            return existed

    async def was_deleted(self, session_id: str) -> bool:
        async with _guard("session_deleted", self._on_error, self.command_timeout):
            return bool(await self._call(b"EXISTS", self.keys(session_id)[0] + ":deleted"))

    async def exists(self, session_id: str) -> bool:
        async with _guard("session_exists", self._on_error, self.command_timeout):
            return bool(await self._call(b"EXISTS", self.keys(session_id)[0]))

    async def read_events(self, session_id: str, after: Cursor, wait: float) -> list[LoggedEvent]:
        if wait <= 0:
            return await self._read_now(session_id, after)
        return await self.follower.wait(session_id, after, min(wait, self._max_wait))

    async def _read_now(self, session_id: str, after: Cursor) -> list[LoggedEvent]:
        """Up to :data:`EVENTS_PER_READ` events after ``after``, without waiting (one ``XREAD``)."""
        log_key = self.keys(session_id)[1]
        reply: Any
        async with _guard("session_events", self._on_error, self.command_timeout):
            reply = await self._call(b"XREAD", b"COUNT", str(EVENTS_PER_READ), b"STREAMS", log_key,
                                     f"{after[0]}-{after[1]}")
        if not reply:
            return []
        out: list[LoggedEvent] = []
        entries = reply[0][1] if isinstance(reply, list) else next(iter(reply.values()))[0]
        for entry_id, fields in entries:
            version, index = _cursor(entry_id)
            named = fields if isinstance(fields, dict) else {fields[k]: fields[k + 1] for k in range(0, len(fields), 2)}
            deadline, to_act = named.get(b"d"), named.get(b"a")
            out.append(LoggedEvent(version, index, EVENT_DECODER.decode(named[b"e"]),
                                   None if deadline is None else int(deadline),
                                   NOT_LOGGED if to_act is None else int(to_act) if to_act else None))
        return out

    async def claim_due(self, now_ms: int, until_ms: int, limit: int) -> tuple[list[tuple[str, int]], int | None]:
        """A read-only look at the earliest entry first (what every pass costs while nothing is due: one
        ``ZRANGE``), then the claim script when something is."""
        reply: Any
        async with _guard("session_clock", self._on_error, self.command_timeout):
            first = await self._call(b"ZRANGE", self.clock_index(), b"0", b"0", b"WITHSCORES")
            if not first or int(float(first[1])) > now_ms:
                return [], int(float(first[1])) if first else None
            reply = await self._evalsha(self._claim, [self.clock_index()], [str(now_ms), str(until_ms), str(limit)])
        ids = [m.decode() if isinstance(m, bytes) else str(m) for m in reply[0]]
        earliest = int(float(reply[1])) if reply[1] else None
        return [(sid, until_ms) for sid in ids], earliest

    async def settle_clock(self, session_id: str, claimed_ms: int, deadline_ms: int | None) -> None:
        async with _guard("session_clock", self._on_error, self.command_timeout):
            await self._evalsha(self._settle, [self.clock_index()],
                                [session_id, str(claimed_ms), "" if deadline_ms is None else str(deadline_ms)])

    async def mark_hooks(self, session_id: str, at_ms: int) -> None:
        async with _guard("session_hooks", self._on_error, self.command_timeout):
            await self._call(b"ZADD", self.hook_index(), b"LT", str(at_ms), session_id)

    async def claim_hooks(self, now_ms: int, until_ms: int, limit: int) -> tuple[list[tuple[str, int]], int | None]:
        """As :meth:`claim_due` (the same scripts, on the webhook index)."""
        reply: Any
        async with _guard("session_hooks", self._on_error, self.command_timeout):
            first = await self._call(b"ZRANGE", self.hook_index(), b"0", b"0", b"WITHSCORES")
            if not first or int(float(first[1])) > now_ms:
                return [], int(float(first[1])) if first else None
            reply = await self._evalsha(self._claim, [self.hook_index()], [str(now_ms), str(until_ms), str(limit)])
        ids = [m.decode() if isinstance(m, bytes) else str(m) for m in reply[0]]
        earliest = int(float(reply[1])) if reply[1] else None
        return [(sid, until_ms) for sid in ids], earliest

    async def settle_hooks(self, session_id: str, claimed_ms: int, next_ms: int | None) -> None:
        async with _guard("session_hooks", self._on_error, self.command_timeout):
            await self._evalsha(self._settle, [self.hook_index()],
                                [session_id, str(claimed_ms), "" if next_ms is None else str(next_ms)])

    async def hook_states(self, session_id: str) -> dict[str, bytes]:
        reply: Any
        async with _guard("session_hooks", self._on_error, self.command_timeout):
            reply = await self.client.hgetall(self.hook_states_key(session_id))
        return {(k.decode() if isinstance(k, bytes) else str(k)): v for k, v in reply.items()}

    async def save_hook_states(self, session_id: str, states: dict[str, bytes], dropped: Sequence[str] = ()) -> None:
        key = self.hook_states_key(session_id)
        async with _guard("session_hooks", self._on_error, self.command_timeout):
            if dropped:
                await self.client.hdel(key, *dropped)
            if states:
                await self.client.hset(key, mapping=states)
                await self.client.pexpire(key, int(self._ttl_ms))

    async def has_room(self) -> bool:
        """``used_memory`` below ``max_fill`` percent of ``maxmemory`` (``INFO memory``, asked at most once a
        second). A Redis without ``maxmemory`` is not bounded here: give it one (deploy/SCALING.md)."""
        if not self.max_fill:
            return True
        now = time.monotonic()
        checked, answer = self._room
        if now - checked < ROOM_CHECK_SECONDS:
            return answer
        async with _guard("session_create", self._on_error, self.command_timeout):
            if self.cluster:  # every primary must have room: a new session may land on any of them
                infos = list((await self.client.info("memory", target_nodes=RedisCluster.PRIMARIES)).values())
            else:
                infos = [await self.client.info("memory")]
        answer = all(int(i.get("maxmemory", 0)) == 0
                     or int(i.get("used_memory", 0)) < int(i["maxmemory"]) * self.max_fill / 100 for i in infos)
        self._room = (now, answer)
        return answer

    async def ping(self) -> bool:
        async with _guard("ping", self._on_error, self.command_timeout):
            return bool(await self.client.ping())

    async def open(self) -> None:
        if self.cluster:  # learn the nodes and slots now rather than within the first request's bound
            with contextlib.suppress(RedisError, OSError):
                async with asyncio.timeout(CONNECT_TIMEOUT * 5):
                    await self.client.initialize()
            return
        # The scripts loaded now, so that no request pays a NOSCRIPT and a load on its way (a Redis down at start
        # is not an error here: the first command that finds a script missing loads it, as after a restart).
        with contextlib.suppress(RedisError, OSError):
            async with asyncio.timeout(CONNECT_TIMEOUT * 5):
                for script in (self._create, self._load, self._commit, self._resolve, self._claim, self._settle):
                    script.sha = await self.client.script_load(script.script)

    async def close(self) -> None:
        await self.follower.close()
        if not self.cluster:
            await self._hot.close()
        await self.client.aclose()
