"""Session creation is bounded: per client (429), for all clients together (503), and by the store's room
(503 before Redis's ``maxmemory``, or the in-process store's session bound, is reached); moves go on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

import httpx
import pytest

from service.app import create_app
from service.config import (
    DEFAULT_MEMORY_MAX_SESSIONS,
    DEFAULT_SESSION_CREATE_PER_MINUTE,
    DEFAULT_SESSION_CREATE_TOTAL_PER_MINUTE,
    DEFAULT_SESSION_STORE_MAX_FILL,
    ConfigError,
    Settings,
    load_settings,
)
from tests.support import assert_problem, bearer

from .conftest import RedisServer, serve_in_process, settings_for
from .play import Game

BODY = {"players": 4}


@asynccontextmanager
async def serving(settings: Settings, prefix: str = "lim:") -> AsyncIterator[httpx.AsyncClient]:
    async with serve_in_process(create_app(settings, session_key_prefix=prefix)) as url, \
            httpx.AsyncClient(base_url=url, timeout=10) as client:
        yield client


async def test_each_client_may_create_only_so_many_sessions_a_minute(store_redis: RedisServer | None) -> None:
    settings = replace(settings_for(store_redis), api_keys=("key-a", "key-b"), session_create_per_minute=3)
    async with serving(settings, prefix=f"lim{id(settings)}:") as client:
        a, b = {"X-API-Key": "key-a"}, {"X-API-Key": "key-b"}
        created = []
        for _ in range(3):
            r = await client.post("/v1/sessions", json=BODY, headers=a)
            assert r.status_code == 201, r.text
            created.append(r.json())
        refused = await client.post("/v1/sessions", json=BODY, headers=a)
        assert_problem(refused, 429, "RATE_LIMITED")
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert (await client.post("/v1/sessions", json=BODY, headers=b)).status_code == 201  # another client
        # Other requests of the same client are not counted against it.
        session = created[0]
        r = await client.get(f"/v1/sessions/{session['session_id']}", headers={**a, **bearer(session["host_token"])})
        assert r.status_code == 200


async def test_all_clients_together_may_create_only_so_many_sessions_a_minute(
        store_redis: RedisServer | None) -> None:
    settings = replace(settings_for(store_redis), api_keys=("key-a", "key-b"), session_create_total_per_minute=4)
    async with serving(settings, prefix=f"tot{id(settings)}:") as client:
        for key in ("key-a", "key-b", "key-a", "key-b"):
            assert (await client.post("/v1/sessions", json=BODY, headers={"X-API-Key": key})).status_code == 201
        refused = await client.post("/v1/sessions", json=BODY, headers={"X-API-Key": "key-b"})
        assert_problem(refused, 503, "STORE_UNAVAILABLE")
        assert int(refused.headers["retry-after"]) >= 1


async def test_off_by_default_in_code_and_nothing_is_counted() -> None:
    async with serving(settings_for(None)) as client:
        for _ in range(40):  # more than the served per-client default
            assert (await client.post("/v1/sessions", json=BODY)).status_code == 201


async def test_the_memory_store_refuses_new_sessions_when_full_and_moves_go_on() -> None:
    settings = replace(settings_for(None), memory_max_sessions=2)
    async with serving(settings) as client:
        first = await Game.create(client)
        second = await Game.create(client)
        r = await client.post("/v1/sessions", json=BODY)
        assert_problem(r, 503, "STORE_UNAVAILABLE")
        assert "full" in r.json()["detail"]
        await first.play(2)  # the sessions it holds go on
        assert (await client.delete(second.url, headers=second.host)).status_code == 204
        assert (await client.post("/v1/sessions", json=BODY)).status_code == 201  # room again


async def test_redis_refuses_new_sessions_before_maxmemory_and_moves_go_on() -> None:
    redis = RedisServer()
    redis.start()
    try:
        admin = redis.sync_client()
        settings = replace(settings_for(redis), session_store_max_fill=80)
        async with serving(settings) as client:
            game = await Game.create(client)
            used = int(admin.info("memory")["used_memory"])
            admin.config_set("maxmemory", str(int(used * 1.2)))  # used is above 80 % of it, with room for writes
            await asyncio.sleep(1.1)  # the store's answer is reused for a second
            r = await client.post("/v1/sessions", json=BODY)
            assert_problem(r, 503, "STORE_UNAVAILABLE")
            assert "full" in r.json()["detail"]
            await game.play(2)  # moves in existing sessions are not refused
            admin.config_set("maxmemory", str(used * 10))
            await asyncio.sleep(1.1)
            assert (await client.post("/v1/sessions", json=BODY)).status_code == 201
    finally:
        redis.stop()


def test_the_environment_bounds_creation_by_default() -> None:
    settings = load_settings({})
    assert settings.session_create_per_minute == DEFAULT_SESSION_CREATE_PER_MINUTE == 30
    assert settings.session_create_total_per_minute == DEFAULT_SESSION_CREATE_TOTAL_PER_MINUTE == 300
    assert settings.session_store_max_fill == DEFAULT_SESSION_STORE_MAX_FILL == 80
    assert settings.memory_max_sessions == DEFAULT_MEMORY_MAX_SESSIONS == 10_000
    off = load_settings({"SESSION_CREATE_PER_MINUTE": "0", "SESSION_CREATE_TOTAL_PER_MINUTE": "0",
                         "SESSION_STORE_MAX_FILL": "0", "MEMORY_MAX_SESSIONS": "0"})
    assert (off.session_create_per_minute, off.session_create_total_per_minute, off.session_store_max_fill,
            off.memory_max_sessions) == (0, 0, 0, 0)
    for env in ({"SESSION_CREATE_PER_MINUTE": "-1"}, {"SESSION_STORE_MAX_FILL": "101"},
                {"SESSION_CREATE_TOTAL_PER_MINUTE": "many"}, {"MEMORY_MAX_SESSIONS": "-5"}):
        with pytest.raises(ConfigError, match=next(iter(env))):
            load_settings(env)
