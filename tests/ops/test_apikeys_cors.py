"""API keys and CORS through a real app."""

from __future__ import annotations

from litestar.testing import AsyncTestClient

from .apps import build_app

KEYS = ["key-one", "key-two"]


async def test_missing_key_is_401_api_key_required() -> None:
    async with AsyncTestClient(build_app(api_keys=KEYS)) as client:
        response = await client.get("/v1/ping")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert "x-api-key" in response.headers["www-authenticate"].lower()
    body = response.json()
    assert body["code"] == "API_KEY_REQUIRED"
    assert body["status"] == 401
    assert body["type"] == "https://fivehundred.dev/problems/api-key-required"
    assert body["title"] and body["detail"]


async def test_wrong_key_is_401_api_key_invalid() -> None:
    async with AsyncTestClient(build_app(api_keys=KEYS)) as client:
        for wrong in ("key-three", "key-on", "key-one-and-more", "KEY-ONE"):
            response = await client.get("/v1/ping", headers={"X-API-Key": wrong})
            assert response.status_code == 401, wrong
            assert response.json()["code"] == "API_KEY_INVALID"


async def test_right_keys_pass() -> None:
    async with AsyncTestClient(build_app(api_keys=KEYS)) as client:
        for key in KEYS:
            response = await client.get("/v1/ping", headers={"X-API-Key": key})
            assert response.status_code == 200
            assert response.json() == {"pong": True}


async def test_no_keys_configured_lets_everything_through() -> None:
    async with AsyncTestClient(build_app(api_keys=[])) as client:
        assert (await client.get("/v1/ping")).status_code == 200
        assert (await client.get("/v1/ping", headers={"X-API-Key": "anything"})).status_code == 200


async def test_operational_paths_and_preflight_need_no_key() -> None:
    app = build_app(api_keys=KEYS, cors_origins=["https://play.example"])
    async with AsyncTestClient(app) as client:
        for path in ("/healthz", "/readyz", "/metrics"):
            assert (await client.get(path)).status_code == 200, path
        preflight = await client.options(
            "/v1/ping",
            headers={
                "Origin": "https://play.example",
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "X-API-Key",
            },
        )
        assert preflight.status_code in (200, 204)
        # A plain OPTIONS (no CORS layer involved) reaches the route's automatic handler without a key, too.
    async with AsyncTestClient(build_app(api_keys=KEYS)) as client:
        assert (await client.options("/v1/ping")).status_code in (200, 204)


async def test_refusals_from_the_middleware_carry_cors_headers() -> None:
    """A browser must be able to read a 401 or 429: the refusal passes through Litestar's CORS layer."""
    app = build_app(api_keys=KEYS, cors_origins=["https://play.example"])
    async with AsyncTestClient(app) as client:
        response = await client.get("/v1/ping", headers={"Origin": "https://play.example"})
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == "https://play.example"


async def test_preflight_from_an_allowed_origin_gets_allow_headers() -> None:
    app = build_app(cors_origins=["https://play.example", "https://other.example"])
    async with AsyncTestClient(app) as client:
        response = await client.options(
            "/v1/ping",
            headers={
                "Origin": "https://play.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "Authorization, If-Match, Idempotency-Key, X-API-Key",
            },
        )
    assert response.status_code in (200, 204)
    assert response.headers["access-control-allow-origin"] == "https://play.example"
    assert "POST" in response.headers["access-control-allow-methods"]
    allowed = {h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "if-match", "idempotency-key", "x-api-key"} <= allowed


async def test_preflight_from_another_origin_is_not_allowed() -> None:
    app = build_app(cors_origins=["https://play.example"])
    async with AsyncTestClient(app) as client:
        response = await client.options(
            "/v1/ping",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
        )
    assert "access-control-allow-origin" not in response.headers


async def test_response_headers_are_exposed_to_browsers() -> None:
    app = build_app(cors_origins=["https://play.example"])
    async with AsyncTestClient(app) as client:
        response = await client.get("/v1/ping", headers={"Origin": "https://play.example"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "https://play.example"
    exposed = {h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"etag", "x-request-id", "retry-after", "location", "idempotent-replayed"} <= exposed
