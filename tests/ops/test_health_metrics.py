"""Liveness, readiness and Prometheus metrics through a real app."""

from __future__ import annotations

import re

from litestar.testing import AsyncTestClient
from redis.asyncio import Redis

from service.ops.health import ReadinessCheck
from service.ops.metrics import ServiceMetrics
from service.ops.shutdown import ShutdownCoordinator

from .apps import build_app
from .conftest import RedisServer


def redis_ping_check(client: Redis) -> ReadinessCheck:
    """A readiness check that PINGs ``client`` (the service's own checks ping its stores)."""

    async def ping_redis() -> bool:
        return bool(await client.ping())

    return ping_redis


async def test_healthz_is_always_ok() -> None:
    async def broken() -> None:
        raise ConnectionError("store down")

    async with AsyncTestClient(build_app(checks={"redis": broken})) as client:
        response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_readyz_200_when_every_check_passes(redis_server: RedisServer) -> None:
    redis = redis_server.client()

    async def fine() -> bool:
        return True

    app = build_app(checks={"redis": redis_ping_check(redis), "other": fine}, closers=[redis.aclose])
    async with AsyncTestClient(app) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"redis": "ok", "other": "ok"}}


async def test_readyz_503_when_redis_is_gone(disposable_redis: RedisServer) -> None:
    redis = disposable_redis.client()
    app = build_app(checks={"redis": redis_ping_check(redis)}, closers=[redis.aclose])
    async with AsyncTestClient(app) as client:
        assert (await client.get("/readyz")).status_code == 200
        disposable_redis.stop()
        response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    assert int(response.headers["retry-after"]) >= 1
    body = response.json()
    assert body["code"] == "NOT_READY"
    assert body["status"] == 503
    assert body["type"] == "https://fivehundred.dev/problems/not-ready"
    assert "redis=failed" in body["detail"]


async def test_readyz_503_on_false_or_slow_checks_and_during_shutdown() -> None:
    import asyncio

    async def says_no() -> bool:
        return False

    async def hangs() -> None:
        await asyncio.sleep(30)

    async with AsyncTestClient(build_app(checks={"no": says_no, "slow": hangs})) as client:
        response = await client.get("/readyz")
    assert response.status_code == 503
    assert "no=failed" in response.json()["detail"]
    assert "slow=timeout" in response.json()["detail"]

    shutdown = ShutdownCoordinator()
    async with AsyncTestClient(build_app(shutdown=shutdown)) as client:
        assert (await client.get("/readyz")).status_code == 200
        shutdown.shutting_down.set()
        response = await client.get("/readyz")
    assert response.status_code == 503
    assert "shutdown=shutting_down" in response.json()["detail"]


async def test_probe_handlers_are_documented_with_operation_ids() -> None:
    schema = build_app().openapi_schema.to_schema()
    operations = {
        path: methods["get"]["operationId"] for path, methods in schema["paths"].items() if "get" in methods
    }
    assert operations["/healthz"] == "getHealth"
    assert operations["/readyz"] == "getReadiness"
    assert operations["/metrics"] == "getMetrics"
    readyz = schema["paths"]["/readyz"]["get"]["responses"]
    assert "application/problem+json" in readyz["503"]["content"]
    assert "application/json" in readyz["200"]["content"]


def sample(exposition: str, name: str, **labels: str) -> float | None:
    """The value of one sample in a text exposition, matching labels exactly (in any order)."""
    for line in exposition.splitlines():
        match = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
        if not match or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
        if found == labels:
            return float(match.group(3))
    return None


async def test_request_metrics_by_route_template_and_status() -> None:
    metrics = ServiceMetrics()
    async with AsyncTestClient(build_app(metrics=metrics, api_keys=["k"])) as client:
        for item_id in (1, 2, 3):
            assert (await client.get(f"/v1/items/{item_id}", headers={"X-API-Key": "k"})).status_code == 200
        assert (await client.get("/v1/items/4")).status_code == 401
        for junk in ("/nope", "/v1/nope/1", "/v1/nope/2"):
            assert (await client.get(junk)).status_code == 404
        response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    route = "/v1/items/{item_id}"
    assert sample(text, "http_requests_total", method="GET", route=route, status="200") == 3.0
    assert sample(text, "http_requests_total", method="GET", route=route, status="401") == 1.0
    # Unknown paths share one label value: no cardinality explosion.
    assert sample(text, "http_requests_total", method="GET", route="unmatched", status="404") == 3.0
    assert "/nope" not in text
    assert sample(text, "http_request_duration_seconds_bucket", method="GET", route=route, le="+Inf") == 4.0
    assert (
        sample(text, "http_request_duration_seconds_bucket", method="GET", route=route, le="0.1") is not None
    )
    assert sample(text, "http_request_duration_seconds_count", method="GET", route=route) == 4.0


async def test_domain_counters_appear_with_their_labels() -> None:
    metrics = ServiceMetrics()
    metrics.move_applied()
    metrics.move_applied()
    metrics.move_refused("MUST_FOLLOW_SUIT")
    metrics.move_refused("NOT_YOUR_TURN")
    metrics.move_refused("NOT_YOUR_TURN")
    metrics.session_created()
    metrics.session_expired(3)
    metrics.redis_error("session_load")
    metrics.move_refused('weird "label"\nwith junk')
    async with AsyncTestClient(build_app(metrics=metrics)) as client:
        text = (await client.get("/metrics")).text
    assert sample(text, "moves_applied_total") == 2.0
    assert sample(text, "moves_refused_total", reason="MUST_FOLLOW_SUIT") == 1.0
    assert sample(text, "moves_refused_total", reason="NOT_YOUR_TURN") == 2.0
    assert sample(text, "moves_refused_total", reason="weird__label__with_junk") == 1.0
    assert sample(text, "sessions_created_total") == 1.0
    assert sample(text, "sessions_expired_total") == 3.0
    assert sample(text, "redis_errors_total", operation="session_load") == 1.0


async def test_two_apps_in_one_process_keep_separate_registries() -> None:
    first, second = ServiceMetrics(), ServiceMetrics()
    first.move_applied()
    async with (
        AsyncTestClient(build_app(metrics=first)) as a,
        AsyncTestClient(build_app(metrics=second)) as b,
    ):
        assert sample((await a.get("/metrics")).text, "moves_applied_total") == 1.0
        assert sample((await b.get("/metrics")).text, "moves_applied_total") == 0.0
