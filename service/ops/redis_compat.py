"""The one place the service uses redis-py below its command API.

Its command API (``Redis.execute_command``, scripts, pub/sub) costs more than twice the client CPU per command
of sending a command packed once on a connection of the service's own (measured ~120 against ~50 µs for the
move's compare-and-set), and it cannot send a cluster script and its ``WAIT`` on one connection to the slot's
primary. So the sessions' hot path (:mod:`service.sessions.redis_store`), their event follower
(:mod:`service.sessions.fanout`) and the cluster rate limiter (:mod:`.ratelimit`) use redis-py's connections
directly, through these functions only. They rely on the names in :data:`CONNECTION_METHODS` and
:data:`CLUSTER_ATTRIBUTES`, which redis-py does not document as stable: importing this module fails naming any
method that is gone, and ``tests/ops/test_redis_compat.py`` checks the rest (signatures, the cluster client's
attributes) and their behaviour on a real ``redis-server``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import Connection, ConnectionPool

#: (class, method): the connection-level methods used, checked when this module is imported.
CONNECTION_METHODS: tuple[tuple[type, str], ...] = (
    (ConnectionPool, "make_connection"),
    (Connection, "connect"),
    (Connection, "can_read"),
    (Connection, "send_packed_command"),
    (Connection, "read_response"),
    (Connection, "pack_commands"),
    (ClusterNode, "acquire_connection"),
    (ClusterNode, "release"),
)
#: Attributes of a cluster client (set per instance, so checked by the tests): whether it must re-read the
#: slots before its next command (``_initialize``, redis-py's own flag), and its slot table.
CLUSTER_ATTRIBUTES = ("_initialize", "nodes_manager")

for _owner, _name in CONNECTION_METHODS:
    if not callable(getattr(_owner, _name, None)):
        raise ImportError(f"redis-py has no {_owner.__module__}.{_owner.__qualname__}.{_name}: "
                          f"service/ops/redis_compat.py must be adapted to this release")


def new_connection(client: Redis) -> Connection:
    """A new connection with ``client``'s settings, outside its pool (not yet connected)."""
    make: Callable[[], Connection] = client.connection_pool.make_connection  # (untyped in redis-py)
    return make()


async def connect(conn: Connection) -> None:
    """Connect, if not connected (and authenticate, select the database, as the pool would)."""
    opened: Callable[[], Awaitable[None]] = conn.connect  # (untyped in redis-py)
    await opened()


async def holds_unread_data(conn: Connection) -> bool:
    """Whether a connected connection has data waiting (a late reply, or the server closed it): then it is not
    fit for a new command. Raises (and disconnects) if the connection is broken."""
    return bool(await conn.can_read())


async def send(conn: Connection, packed: bytes | Iterable[bytes]) -> None:
    """Send a command (or commands) already packed in RESP, without redis-py's health check round trip."""
    await conn.send_packed_command(packed, check_health=False)


async def read_reply(conn: Connection, *, disconnect_on_error: bool = True) -> Any:
    """The next reply on the connection (an error reply is raised as redis-py's ``ResponseError``)."""
    return await conn.read_response(disconnect_on_error=disconnect_on_error)


def pack_commands(conn: Connection, commands: Iterable[tuple[Any, ...]]) -> list[bytes]:
    """Commands packed in RESP with the connection's encoder, ready for :func:`send`."""
    return conn.pack_commands(commands)


def cluster_slots_stale(client: RedisCluster) -> bool:
    """Whether the cluster client will re-read the nodes and slots before its next command."""
    return bool(client._initialize)


def cluster_keep_slots(client: RedisCluster) -> None:
    """Have the cluster client keep the slots it has for its next command (undo a re-read it was asked for)."""
    client._initialize = False


def cluster_reread_slots(client: RedisCluster) -> None:
    """Have the cluster client re-read the nodes and slots before its next command (a node may have failed)."""
    client._initialize = True


async def cluster_refresh_slots(client: RedisCluster) -> None:
    """Read the cluster's nodes and slots again now (a slot moved, or a node failed)."""
    await client.nodes_manager.initialize()


def slot_primary(client: RedisCluster, key: str) -> ClusterNode | None:
    """The primary that owns ``key``'s slot, as the client last read the slots (``None``: unknown)."""
    nodes = client.nodes_manager.slots_cache.get(client.keyslot(key)) or []
    primary: ClusterNode | None = nodes[0] if nodes else None
    return primary


def node_connection(node: ClusterNode) -> Connection:
    """A connection from ``node``'s pool; give it back with :func:`release_node_connection`."""
    return node.acquire_connection()


def release_node_connection(node: ClusterNode, conn: Connection) -> None:
    node.release(conn)


__all__ = ["CLUSTER_ATTRIBUTES", "CONNECTION_METHODS", "cluster_keep_slots", "cluster_refresh_slots",
           "cluster_reread_slots",
           "cluster_slots_stale", "connect", "holds_unread_data", "new_connection", "node_connection",
           "pack_commands", "read_reply", "release_node_connection", "send", "slot_primary"]
