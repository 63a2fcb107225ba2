"""Every problem alike: the ones the ops layer answers before any route (401, 429, 503) carry ``instance`` as
the route handlers' do, and ``Allow`` lists a path's methods in one order on every path."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from service.web.exception_handlers import METHOD_ORDER
from tests.support import app_with_key, assert_problem

from .helpers import Client

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def test_a_429_names_its_instance() -> None:
    with TestClient(app_with_key(rate_limit_per_minute=2)) as client:
        answers = [client.get("/v1/rules?players=5") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    problem = assert_problem(answers[-1], 429, "RATE_LIMITED")
    assert problem["instance"] == "/v1/rules"
    assert set(problem) >= {"type", "title", "status", "code", "detail", "instance"}


def test_a_401_names_its_instance() -> None:
    with TestClient(app_with_key(api_keys=("k" * 32,))) as client:
        problem = assert_problem(client.post("/v1/games", json={}), 401, "API_KEY_REQUIRED")
        assert problem["instance"] == "/v1/games"
        wrong = client.post("/v1/games", json={}, headers={"X-API-Key": "w" * 32})
        assert assert_problem(wrong, 401, "API_KEY_INVALID")["instance"] == "/v1/games"


def test_allow_lists_methods_in_one_order_on_every_path(client: Client) -> None:
    document: dict[str, Any] = client.get("/schema/openapi.json").json()
    rank = {m: i for i, m in enumerate(METHOD_ORDER)}
    seen = 0
    for template, item in document["paths"].items():
        path = template.replace("{session_id}", "A" * 22)
        allowed = {m.upper() for m in item if m.upper() in METHODS}
        for method in METHODS:
            if method in allowed:
                continue
            response = client.request(method, path)
            if response.status_code != 405:
                continue
            problem = assert_problem(response, 405, "METHOD_NOT_ALLOWED")
            methods = [m.strip() for m in response.headers["allow"].split(",")]
            assert methods == sorted(methods, key=lambda m: rank[m]), (path, methods)
            assert set(methods) >= allowed, (path, methods)
            assert response.headers["allow"] in problem["detail"], problem["detail"]
            seen += 1
    assert seen > 20
