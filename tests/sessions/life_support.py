"""Helpers of the tests of a game's life (tests/sessions/test_life.py, test_away.py): a service with fast clocks
over the in-process store or a real Redis, the session's whole log as the host reads it, waiting for an event."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from service.app import create_app
from tests.redis_server import RedisServer
from tests.support import bearer

from .conftest import REDIS_FIXTURES, serve_in_process
from .test_clock import fast


@pytest.fixture(params=["memory", "redis"])
async def fast_client(request: pytest.FixtureRequest) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the service with fast clocks (limits from 0.1 s, a sweeper looking every 20 ms), over the
    in-process store or a real Redis."""
    redis: RedisServer | None = None
    if request.param != "memory":
        redis = request.getfixturevalue(REDIS_FIXTURES[request.param])
    app = create_app(fast(redis.url if redis is not None else None),
                     session_key_prefix=f"life{random.randrange(10**9)}:", event_heartbeat_seconds=1)
    async with serve_in_process(app) as url, httpx.AsyncClient(base_url=url, timeout=20) as client:
        yield client


async def create(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    r = await client.post("/v1/sessions", json={"players": 4, "first_dealer": 3, **body})
    assert r.status_code == 201, r.text
    return dict(r.json())


def url_of(created: dict[str, Any]) -> str:
    return f"/v1/sessions/{created['session_id']}"


async def whole_log(client: httpx.AsyncClient, created: dict[str, Any]) -> list[dict[str, Any]]:
    """Every event of the session's log as the host reads it (its catch-up: the host's token is no seat's, so
    reading says nobody is back)."""
    r = await client.get(url_of(created) + "/events/catch-up", headers=bearer(created["host_token"]))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["complete"], body
    return list(body["events"])


def of_type(log: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in log if e["event"]["type"] == kind]


async def wait_for_event(client: httpx.AsyncClient, created: dict[str, Any], kind: str, count: int = 1,
                         timeout: float = 20) -> list[dict[str, Any]]:
    """The log once it holds ``count`` events of type ``kind``."""
    async with asyncio.timeout(timeout):
        while True:
            log = await whole_log(client, created)
            if len(of_type(log, kind)) >= count:
                return log
            await asyncio.sleep(0.05)


async def host_view(client: httpx.AsyncClient, created: dict[str, Any]) -> dict[str, Any]:
    r = await client.get(url_of(created), headers=bearer(created["host_token"]))
    assert r.status_code == 200, r.text
    return dict(r.json())
