"""``STATELESS_API=false`` (issue 46): a player-facing replica serves the sessions and not the stateless API."""

from __future__ import annotations

import httpx

from service.app import create_app
from service.config import load_settings
from tests.support import assert_problem

from .conftest import SNAPSHOT_KEYS_ENV, serve_in_process


async def test_a_replica_without_the_stateless_api_serves_sessions_only() -> None:
    settings = load_settings({"SNAPSHOT_KEYS": SNAPSHOT_KEYS_ENV, "STATELESS_API": "false"})
    async with serve_in_process(create_app(settings)) as url, httpx.AsyncClient(base_url=url, timeout=30) as client:
        for path in ("/v1/games", "/v1/games/apply", "/v1/games/suggest", "/v1/records/verify"):
            assert_problem(await client.post(path, json={"players": 4}), 404, "NOT_FOUND")
        r = await client.post("/v1/sessions", json={"players": 4, "bots": {"1": "basic", "2": "basic", "3": "basic"}})
        assert r.status_code == 201, r.text
        assert (await client.get("/v1/rules")).status_code == 200
        paths = (await client.get("/schema/openapi.json")).json()["paths"]
        assert not [p for p in paths if p.startswith(("/v1/games", "/v1/records"))]
