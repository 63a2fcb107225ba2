"""The service's own app (``service.app.create_app``) with the ops pieces mounted: probes, metrics counted by
the service, request ids and JSON logs, CORS, API keys, rate limits (shared through Redis), Redis outages."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from engine import Options, new_game
from service.app import create_app
from service.config import Settings
from service.referee.snapshots import Sealer
from tests.support import KEY, bearer

from .conftest import RedisServer

# Every app configures the process's logging (JSON on stdout): undo it after each test.
pytestmark = pytest.mark.usefixtures("restore_logging")


def app_with(**settings: Any) -> Litestar:
    prefix = f"app{uuid.uuid4().hex[:8]}:"
    return create_app(Settings(snapshot_keys=(KEY,), log_level="WARNING", **settings), session_key_prefix=prefix,
                      event_heartbeat_seconds=1.0)


def sample(metrics: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus text (0 when absent)."""
    wanted = name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}" if labels else "")
    for line in metrics.splitlines():
        if line.startswith(wanted + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_probes_request_ids_and_one_problem_shape() -> None:
    async with AsyncTestClient(app_with()) as client:
        assert (await client.get("/healthz")).json() == {"status": "ok"}
        ready = await client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json() == {"status": "ready", "checks": {"store": "ok", "snapshot_keys": "ok"}}
        response = await client.get("/v1/rules", headers={"X-Request-ID": "req-42"})
        assert response.headers["x-request-id"] == "req-42"
        assert len((await client.get("/nowhere")).headers["x-request-id"]) == 32  # 404s get one too
        schema = (await client.get("/schema/openapi.json")).json()
    refs = {content["schema"]["$ref"] for item in schema["paths"].values() for op in item.values()
            for status, response in op["responses"].items() if not status.startswith("2")
            for content in response["content"].values()}
    assert refs == {"#/components/schemas/ProblemDetails"}


async def test_readyz_fails_during_shutdown() -> None:
    app = app_with()
    async with AsyncTestClient(app) as client:
        app.state.shutdown.begin_shutdown()
        response = await client.get("/readyz")
    assert response.status_code == 503 and response.json()["code"] == "NOT_READY"
    assert "shutdown=shutting_down" in response.json()["detail"] and response.headers["retry-after"]


async def test_metrics_count_moves_sessions_and_expiry() -> None:
    sealer = Sealer([KEY])
    state, _ = new_game(Options(), seed=3, first_dealer=3)
    snapshot = sealer.seal(state)
    async with AsyncTestClient(app_with(session_idle_seconds=1)) as client:
        ok = await client.post("/v1/games/apply", json={"snapshot": snapshot, "move": {"type": "pass", "seat": 0}})
        assert ok.status_code == 200
        wrong_turn = await client.post("/v1/games/apply", json={"snapshot": snapshot,
                                                                 "move": {"type": "pass", "seat": 2}})
        assert wrong_turn.json()["reason"] == "NOT_YOUR_TURN"
        typo = await client.post("/v1/games/apply", json={"snapshot": snapshot,
                                                           "move": {"type": "play", "seat": 0, "card": "1H"}})
        assert typo.json()["reason"] == "UNKNOWN_CARD"
        validated = await client.post("/v1/games/validate", json={"snapshot": snapshot,
                                                                    "move": {"type": "pass", "seat": 2}})
        assert validated.json()["legal"] is False  # validating is not moving: not counted

        created = (await client.post("/v1/sessions", json={"players": 4, "seed": 3, "known_deal": True,
                                                           "first_dealer": 3})).json()
        url = f"/v1/sessions/{created['session_id']}"
        moved = await client.post(url + "/moves", json={"move": {"type": "pass", "seat": 0}},
                                  headers=bearer(created["seat_tokens"][0]))
        assert moved.status_code == 200, moved.text
        refused = await client.post(url + "/moves", json={"move": {"type": "pass", "seat": 3}},
                                    headers=bearer(created["seat_tokens"][3]))
        assert refused.json()["reason"] == "NOT_YOUR_TURN"
        await asyncio.sleep(1.2)
        assert (await client.get(url, headers=bearer(created["host_token"]))).status_code == 404  # expired
        metrics = await client.get("/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert sample(text, "moves_applied_total") == 2  # one stateless, one in the session
    assert sample(text, "moves_refused_total", reason="NOT_YOUR_TURN") == 2
    assert sample(text, "moves_refused_total", reason="UNKNOWN_CARD") == 1
    assert sample(text, "sessions_created_total") == 1
    assert sample(text, "sessions_expired_total") == 1
    assert sample(text, "http_requests_total", method="POST", route="/v1/games/apply", status="422") == 1
    assert sample(text, "http_requests_total", method="GET", route="/v1/sessions/{session_id}", status="404") == 1
    for name in ("http_request_duration_seconds_bucket", "redis_errors_total"):
        assert f"# TYPE {name.removesuffix('_bucket')}" in text


async def test_api_keys_guard_v1_but_not_the_probes() -> None:
    async with AsyncTestClient(app_with(api_keys=("k-one", "k-two"))) as client:
        missing = await client.get("/v1/rules")
        wrong = await client.post("/v1/sessions", json={"players": 4}, headers={"X-API-Key": "nope"})
        right = await client.get("/v1/rules", headers={"X-API-Key": "k-two"})
        probes = [await client.get(path) for path in ("/healthz", "/readyz", "/metrics")]
    assert (missing.status_code, missing.json()["code"]) == (401, "API_KEY_REQUIRED")
    assert (wrong.status_code, wrong.json()["code"]) == (401, "API_KEY_INVALID")
    assert missing.headers["content-type"] == "application/problem+json"
    assert right.status_code == 200
    assert [p.status_code for p in probes] == [200, 200, 200]


async def test_memory_rate_limit_and_cors_headers() -> None:
    origin = "https://play.example"
    async with AsyncTestClient(app_with(rate_limit_per_minute=2, cors_origins=(origin,))) as client:
        first = await client.get("/v1/rules", headers={"Origin": origin})
        await client.get("/v1/rules")
        limited = await client.get("/v1/rules", headers={"Origin": origin})
        assert (await client.get("/healthz")).status_code == 200  # never limited
    assert first.status_code == 200
    exposed = {h.strip().lower() for h in first.headers["access-control-expose-headers"].split(",")}
    assert {"etag", "location", "retry-after", "idempotent-replayed", "x-request-id"} <= exposed
    assert limited.status_code == 429 and limited.json()["code"] == "RATE_LIMITED"
    assert int(limited.headers["retry-after"]) >= 1
    assert limited.headers["access-control-allow-origin"] == origin  # a browser can read the 429


async def test_redis_rate_limit_is_shared_by_replicas(shared_redis: Any) -> None:
    prefix = f"shared{uuid.uuid4().hex[:8]}:"
    settings = Settings(snapshot_keys=(KEY,), log_level="WARNING", redis_url=shared_redis.url,
                        rate_limit_per_minute=3)
    a = create_app(settings, session_key_prefix=prefix)
    b = create_app(settings, session_key_prefix=prefix)
    async with AsyncTestClient(a) as via_a, AsyncTestClient(b) as via_b:
        statuses = [(await client.get("/v1/rules")).status_code for client in (via_a, via_b, via_a, via_b)]
    assert statuses == [200, 200, 200, 429]
    with shared_redis.sync_client() as redis:
        assert redis.keys(f"{prefix}ratelimit:*")  # under the app's key prefix


async def test_redis_outage_is_503_counted_and_not_ready(disposable_redis: RedisServer) -> None:
    app = create_app(Settings(snapshot_keys=(KEY,), log_level="WARNING", redis_url=disposable_redis.url))
    async with AsyncTestClient(app) as client:
        created = await client.post("/v1/sessions", json={"players": 4})
        assert created.status_code == 201
        disposable_redis.stop()
        down = await client.post("/v1/sessions", json={"players": 4})
        read = await client.get(f"/v1/sessions/{created.json()['session_id']}",
                                headers=bearer(created.json()["host_token"]))
        ready = await client.get("/readyz")
        metrics = (await client.get("/metrics")).text
    for response in (down, read):
        assert response.status_code == 503 and response.json()["code"] == "STORE_UNAVAILABLE"
        assert response.headers["retry-after"] == "1"
    assert ready.status_code == 503 and "store=failed" in ready.json()["detail"]
    assert sample(metrics, "redis_errors_total", operation="session_create") == 1
    assert sample(metrics, "redis_errors_total", operation="session_load") == 1
    assert sample(metrics, "redis_errors_total", operation="ping") >= 1


async def test_json_access_lines_carry_the_request_id(capsys: pytest.CaptureFixture[str]) -> None:
    app = create_app(Settings(snapshot_keys=(KEY,), log_level="INFO"))
    capsys.readouterr()
    async with AsyncTestClient(app) as client:
        response = await client.post("/v1/sessions", json={"players": 4}, headers={"X-Request-ID": "trace-7"})
    assert response.status_code == 201
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    access = [e for e in lines if e["logger"] == "fivehundred.access" and e["request_id"] == "trace-7"]
    assert access and access[0]["status"] == 201 and access[0]["path"] == "/v1/sessions"
    output = json.dumps(lines)
    for token in (response.json()["host_token"], *response.json()["seat_tokens"]):
        assert token not in output
    assert not re.search(r"[A-Za-z0-9_-]{40,}", output)


def test_uvicorn_factory_serves_everything() -> None:
    """``uvicorn --factory service.app:create_app`` needs no argument: settings come from the environment."""
    app = create_app()
    paths = {route.path for route in app.routes}
    assert {"/v1/rules", "/v1/games/apply", "/v1/sessions", "/v1/sessions/{session_id:str}/events", "/healthz",
            "/readyz", "/metrics"} <= paths
