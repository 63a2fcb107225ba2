"""Rate limiting through a real app, with the in-process backend and with a real redis-server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from redis.asyncio import Redis

from service.ops.metrics import ServiceMetrics
from service.ops.ratelimit import (
    MemoryRateLimitBackend,
    RateLimitBackend,
    RateLimitMiddleware,
    RedisRateLimitBackend,
)

from .apps import build_app
from .conftest import RedisServer

BackendFactory = Callable[[], RateLimitBackend]


@pytest.fixture(params=["memory", "redis", "cluster"])
def make_backend(request: pytest.FixtureRequest, key_prefix: str) -> BackendFactory:
    """Builds backends of one kind; Redis ones share this test's key prefix, as replicas would.

    A Redis backend's client is closed by the app's shutdown hook (see ``build_app``): the test client runs
    the app on an event loop of its own, and a connection must be closed on the loop that opened it.
    """
    # Only the Redis kinds start a redis-server (or a cluster): the memory backend's tests need none.
    fixture = {"redis": "redis_server", "cluster": "redis_cluster"}.get(request.param)
    redis_server: Any = request.getfixturevalue(fixture) if fixture is not None else None

    def factory() -> RateLimitBackend:
        if redis_server is None:
            return MemoryRateLimitBackend()
        client = redis_server.client() if request.param == "redis" else redis_server.async_client()
        return RedisRateLimitBackend(client, prefix=key_prefix)

    return factory


def assert_rate_limited(response: object) -> None:
    from httpx import Response

    assert isinstance(response, Response)
    assert response.status_code == 429
    assert response.headers["content-type"] == "application/problem+json"
    retry_after = int(response.headers["retry-after"])
    assert retry_after >= 1
    body = response.json()
    assert body["type"] == "https://fivehundred.dev/problems/rate-limited"
    assert body["status"] == 429
    assert body["code"] == "RATE_LIMITED"
    assert body["title"]
    assert body["detail"]


async def test_requests_pass_up_to_the_limit_then_429(make_backend: BackendFactory) -> None:
    app = build_app(limiter=make_backend(), limit=3, window_seconds=30)
    async with AsyncTestClient(app) as client:
        for _ in range(3):
            assert (await client.get("/v1/ping")).status_code == 200
        limited = await client.get("/v1/ping")
        assert_rate_limited(limited)
        assert 1 <= int(limited.headers["retry-after"]) <= 30
        # The request id layer still wraps the refusal.
        assert limited.headers["x-request-id"]


async def test_budget_comes_back_after_the_window(make_backend: BackendFactory) -> None:
    app = build_app(limiter=make_backend(), limit=2, window_seconds=1)
    async with AsyncTestClient(app) as client:
        assert (await client.get("/v1/ping")).status_code == 200
        assert (await client.get("/v1/ping")).status_code == 200
        limited = await client.get("/v1/ping")
        assert_rate_limited(limited)
        assert limited.headers["retry-after"] == "1"
        await asyncio.sleep(1.1)
        assert (await client.get("/v1/ping")).status_code == 200


async def test_separate_keys_have_separate_budgets(make_backend: BackendFactory) -> None:
    app = build_app(limiter=make_backend(), limit=2, window_seconds=30)
    async with AsyncTestClient(app) as client:
        alice = {"X-API-Key": "alice-key"}
        bob = {"X-API-Key": "bob-key"}
        for _ in range(2):
            assert (await client.get("/v1/ping", headers=alice)).status_code == 200
        assert_rate_limited(await client.get("/v1/ping", headers=alice))
        # Bob, and a caller without a key (counted by address), are untouched by Alice's spending.
        for _ in range(2):
            assert (await client.get("/v1/ping", headers=bob)).status_code == 200
            assert (await client.get("/v1/ping")).status_code == 200
        assert_rate_limited(await client.get("/v1/ping", headers=bob))
        assert_rate_limited(await client.get("/v1/ping"))


async def test_unknown_keys_cannot_mint_budgets_when_keys_are_known(make_backend: BackendFactory) -> None:
    app = build_app(limiter=make_backend(), limit=2, window_seconds=30, known_api_keys=["real"])
    async with AsyncTestClient(app) as client:
        assert (await client.get("/v1/ping", headers={"X-API-Key": "made-up-1"})).status_code == 200
        assert (await client.get("/v1/ping", headers={"X-API-Key": "made-up-2"})).status_code == 200
        assert_rate_limited(await client.get("/v1/ping", headers={"X-API-Key": "made-up-3"}))
        assert (await client.get("/v1/ping", headers={"X-API-Key": "real"})).status_code == 200


async def test_operational_paths_are_never_limited(make_backend: BackendFactory) -> None:
    app = build_app(limiter=make_backend(), limit=1, window_seconds=30)
    async with AsyncTestClient(app) as client:
        assert (await client.get("/v1/ping")).status_code == 200
        assert_rate_limited(await client.get("/v1/ping"))
        for _ in range(5):
            assert (await client.get("/healthz")).status_code == 200
            assert (await client.get("/readyz")).status_code == 200
            assert (await client.get("/metrics")).status_code == 200


async def test_zero_limit_means_off(make_backend: BackendFactory) -> None:
    app = build_app(limiter=make_backend(), limit=0, window_seconds=30)
    async with AsyncTestClient(app) as client:
        for _ in range(20):
            assert (await client.get("/v1/ping")).status_code == 200


def _async_client(redis: Any) -> Any:
    return redis.async_client() if hasattr(redis, "async_client") else redis.client()


async def test_redis_limit_is_shared_by_two_app_instances(shared_redis: Any, key_prefix: str) -> None:
    backend_a = RedisRateLimitBackend(_async_client(shared_redis), prefix=key_prefix)
    backend_b = RedisRateLimitBackend(_async_client(shared_redis), prefix=key_prefix)
    app_a = build_app(limiter=backend_a, limit=3, window_seconds=30)
    app_b = build_app(limiter=backend_b, limit=3, window_seconds=30)
    async with AsyncTestClient(app_a) as replica_a, AsyncTestClient(app_b) as replica_b:
        key = {"X-API-Key": "shared-client"}
        assert (await replica_a.get("/v1/ping", headers=key)).status_code == 200
        assert (await replica_b.get("/v1/ping", headers=key)).status_code == 200
        assert (await replica_a.get("/v1/ping", headers=key)).status_code == 200
        assert_rate_limited(await replica_b.get("/v1/ping", headers=key))
        assert_rate_limited(await replica_a.get("/v1/ping", headers=key))


async def test_redis_down_fails_open_and_counts_the_error(disposable_redis: RedisServer) -> None:
    metrics = ServiceMetrics()
    backend = RedisRateLimitBackend(disposable_redis.client(), on_error=metrics.redis_error, timeout=0.5)
    app = build_app(limiter=backend, limit=1, window_seconds=30, metrics=metrics)
    async with AsyncTestClient(app) as client:
        assert (await client.get("/v1/ping")).status_code == 200
        assert_rate_limited(await client.get("/v1/ping"))
        disposable_redis.stop()
        for _ in range(3):
            assert (await client.get("/v1/ping")).status_code == 200
        exposition = (await client.get("/metrics")).text
    assert 'redis_errors_total{operation="ratelimit"} 3.0' in exposition


async def test_redis_hang_is_bounded_by_the_timeout(disposable_redis: RedisServer) -> None:
    """A Redis that stops answering (SIGSTOP) costs at most the backend timeout, then fails open."""
    import os
    import signal
    import time

    assert disposable_redis.process is not None
    errors: list[str] = []
    redis = Redis.from_url(disposable_redis.url, socket_timeout=5, retry=None)
    try:
        backend = RedisRateLimitBackend(redis, timeout=0.2, on_error=errors.append)
        assert (await backend.hit("k", 5, 30)).count == 1
        os.kill(disposable_redis.process.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            decision = await backend.hit("k", 5, 30)
            assert time.monotonic() - started < 1.0
        finally:
            os.kill(disposable_redis.process.pid, signal.SIGCONT)
        assert decision.allowed
        assert errors == ["ratelimit"]
    finally:
        await redis.aclose()


# --- the in-process backend on its own ---------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_memory_backend_prunes_ended_windows() -> None:
    clock = FakeClock()
    backend = MemoryRateLimitBackend(clock=clock)
    for i in range(50):
        await backend.hit(f"client-{i}", 10, 60)
    assert len(backend) == 50
    clock.now += 61
    await backend.hit("latecomer", 10, 60)
    assert len(backend) == 1


async def test_memory_backend_is_bounded() -> None:
    clock = FakeClock()
    backend = MemoryRateLimitBackend(max_clients=10, clock=clock)
    for i in range(100):
        clock.now += 0.01
        await backend.hit(f"client-{i}", 10, 60)
    assert len(backend) == 10


async def test_memory_backend_retry_after_counts_down() -> None:
    clock = FakeClock()
    backend = MemoryRateLimitBackend(clock=clock)
    assert (await backend.hit("c", 1, 60)).allowed
    clock.now += 20.5
    decision = await backend.hit("c", 1, 60)
    assert not decision.allowed
    assert decision.retry_after == 40
    clock.now += 39.0
    assert (await backend.hit("c", 1, 60)).retry_after == 1
    clock.now += 0.6
    assert (await backend.hit("c", 1, 60)).allowed


def test_middleware_is_constructible_without_litestar() -> None:
    async def app(scope: object, receive: object, send: object) -> None:  # pragma: no cover
        return None

    middleware = RateLimitMiddleware(app, backend=MemoryRateLimitBackend(), limit=5)
    assert middleware.window_seconds == 60.0
