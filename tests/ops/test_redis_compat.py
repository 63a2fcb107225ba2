"""The service's use of redis-py below its command API (``service/ops/redis_compat.py``): every name it
relies on, with the parameters it passes, and what each function does on a real ``redis-server``. When a
redis-py release moves or changes one of them, these fail naming it."""

from __future__ import annotations

import inspect
from importlib.metadata import version

import pytest
from redis.asyncio import Redis, RedisCluster
from redis.asyncio.cluster import ClusterNode
from redis.exceptions import ResponseError

from service.ops import redis_compat
from tests.cluster_server import RedisClusterServer
from tests.redis_server import RedisServer

REDIS_PY = version("redis")


@pytest.mark.parametrize(("owner", "name"), redis_compat.CONNECTION_METHODS,
                         ids=lambda v: getattr(v, "__qualname__", v))
def test_each_connection_method_is_there(owner: type, name: str) -> None:
    assert callable(getattr(owner, name, None)), (
        f"redis-py {REDIS_PY}: {owner.__module__}.{owner.__qualname__}.{name} is gone; adapt "
        "service/ops/redis_compat.py")


@pytest.mark.parametrize(("owner", "name", "keyword"), [
    (redis_compat.Connection, "send_packed_command", "check_health"),
    (redis_compat.Connection, "read_response", "disconnect_on_error"),
])
def test_the_keywords_passed_are_still_taken(owner: type, name: str, keyword: str) -> None:
    assert keyword in inspect.signature(getattr(owner, name)).parameters, (
        f"redis-py {REDIS_PY}: {owner.__qualname__}.{name} no longer takes {keyword}=; adapt "
        "service/ops/redis_compat.py")


def test_a_cluster_client_has_the_attributes_used() -> None:
    client = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", 1)])  # never connects here
    for name in redis_compat.CLUSTER_ATTRIBUTES:
        assert hasattr(client, name), (
            f"redis-py {REDIS_PY}: RedisCluster().{name} is gone; adapt service/ops/redis_compat.py")
    assert isinstance(client.nodes_manager.slots_cache, dict), (
        f"redis-py {REDIS_PY}: RedisCluster().nodes_manager.slots_cache changed; adapt "
        "service/ops/redis_compat.py")
    assert redis_compat.cluster_slots_stale(client)  # a new client reads the slots first
    assert redis_compat.slot_primary(client, "fh:s:{x}") is None  # not read yet: unknown
    client._initialize = False
    redis_compat.cluster_reread_slots(client)
    assert redis_compat.cluster_slots_stale(client)


async def test_the_slots_read_again_name_each_slots_primary(redis_cluster: RedisClusterServer) -> None:
    client = redis_cluster.async_client()
    try:
        await redis_compat.cluster_refresh_slots(client)
        primary = redis_compat.slot_primary(client, "fh:ev:{x}")
        assert primary is not None and int(primary.port) == redis_cluster.primary_of("fh:s:{x}")
    finally:
        await client.aclose()


async def test_raw_commands_on_a_connection_of_the_clients_settings(redis_server: RedisServer) -> None:
    client = Redis.from_url(redis_server.url)
    conn = redis_compat.new_connection(client)
    try:
        assert not conn.is_connected and conn not in client.connection_pool._in_use_connections
        await redis_compat.connect(conn)
        assert conn.is_connected
        assert not await redis_compat.holds_unread_data(conn)
        await redis_compat.send(conn, b"*1\r\n$4\r\nPING\r\n")
        await redis_compat.send(conn, redis_compat.pack_commands(conn, [("SET", "compat:k", "v"),
                                                                        ("GET", "compat:k")]))
        assert await redis_compat.read_reply(conn) == b"PONG"
        assert await redis_compat.read_reply(conn) in (b"OK", True)
        assert await redis_compat.holds_unread_data(conn)  # GET's reply is still waiting
        assert await redis_compat.read_reply(conn) == b"v"
        await redis_compat.send(conn, redis_compat.pack_commands(conn, [("NOSUCHCOMMAND",)]))
        with pytest.raises(ResponseError):
            await redis_compat.read_reply(conn)
        assert conn.is_connected  # an error reply keeps the connection
    finally:
        await conn.disconnect()
        await client.delete("compat:k")
        await client.aclose()
