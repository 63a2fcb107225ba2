"""The IETF RateLimit fields (service/ops/ratelimit.py) through the service's own app, on the in-process store
and on a real redis-server: the request limit's ``"default"`` policy on every limited answer, counting down with
each request and agreeing with the 429's ``Retry-After``; one budget for two replicas on one Redis; the playout
budget's ``"playouts"`` policy on the searches, counting down by what each search spent; nothing for a limit that
is off or whose Redis is down; readable by a browser through CORS; and the bot seats' and the turn clock's moves
charged to neither."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from engine import Options
from service.app import create_app
from service.config import Settings
from service.ops.fastlane import FastLane
from service.referee.playouts import BudgetDecision, PlayoutBudget
from tests.analysis.players import level_player, play_records
from tests.support import KEY, ROOT, assert_problem, bearer

from .conftest import RedisServer

# Every app configures the process's logging (JSON on stdout): undo it after each test.
pytestmark = pytest.mark.usefixtures("restore_logging")

_ITEM = re.compile(r'^"(?P<name>[a-z]+)";(?P<params>.*)$')
#: The fields' patterns as the committed contract declares them.
_DECLARED = {name.lower(): spec["schema"]["pattern"] for name, spec in
             json.loads((ROOT / "openapi/openapi.json").read_text())["components"]["headers"].items()
             if name.startswith("RateLimit")}


def items(value: str | None) -> dict[str, dict[str, int]]:
    """A RateLimit or RateLimit-Policy value as ``{policy: {parameter: integer}}`` (a structured-field List of
    Items whose values are Strings and whose parameters are Integers)."""
    parsed: dict[str, dict[str, int]] = {}
    for member in (value or "").split(", ") if value else ():
        match = _ITEM.match(member)
        assert match is not None, value
        params = dict(p.split("=") for p in match["params"].split(";"))
        assert match["name"] not in parsed, value
        parsed[match["name"]] = {k: int(v) for k, v in params.items()}
    return parsed


def fields(response: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """The answer's RateLimit-Policy and RateLimit, each checked against the contract's pattern."""
    assert set(_DECLARED) == {"ratelimit-policy", "ratelimit"}
    for name, pattern in _DECLARED.items():
        value = response.headers.get(name)
        assert value is None or re.search(pattern, value), (name, value, pattern)
    return items(response.headers.get("ratelimit-policy")), items(response.headers.get("ratelimit"))


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The limits' store: this process's memory, or a real redis-server (the suite's own, on a free port)."""
    if request.param == "memory":
        yield None
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        yield server.url


def app_with(redis_url: str | None, prefix: str | None = None, **settings: Any) -> Litestar:
    return create_app(Settings(snapshot_keys=(KEY,), log_level="WARNING", redis_url=redis_url or "", **settings),
                      session_key_prefix=prefix or f"rl{uuid.uuid4().hex[:8]}:")


# ----------------------------------------------------------------------------------------- the request limit


async def test_the_request_policy_counts_down_to_the_429_and_its_retry_after(store: str | None) -> None:
    async with AsyncTestClient(app_with(store, rate_limit_per_minute=4)) as client:
        answers = [await client.get("/v1/rules"), await client.post("/v1/games", json={"players": 4}),
                   await client.get("/v1/rules"), await client.post("/v1/games", json={"players": 9}),
                   await client.get("/v1/rules"), await client.get("/v1/rules")]
        probes = [await client.get(path) for path in ("/healthz", "/readyz", "/metrics")]
    assert [a.status_code for a in answers] == [200, 201, 200, 400, 429, 429]
    resets = []
    for answer, left in zip(answers, (3, 2, 1, 0, 0, 0), strict=True):
        policy, limit = fields(answer)
        assert policy == {"default": {"q": 4, "w": 60}}, answer.headers
        assert limit["default"]["r"] == left, answer.headers
        resets.append(limit["default"]["t"])
    assert resets[-1] >= 1 and resets == sorted(resets, reverse=True) and resets[0] <= 60  # one window, running out
    for refused in answers[4:]:
        assert_problem(refused, 429, "RATE_LIMITED")
        assert fields(refused)[1]["default"]["t"] == int(refused.headers["retry-after"])
    for probe in probes:  # never limited: no fields
        assert probe.status_code == 200
        assert "ratelimit" not in probe.headers and "ratelimit-policy" not in probe.headers


async def test_two_replicas_on_one_redis_count_down_one_budget(redis_server: RedisServer) -> None:
    prefix = f"replicas{uuid.uuid4().hex[:8]}:"
    keys = ("shared-client", "another-client")  # each key a client of its own
    a = app_with(redis_server.url, prefix, rate_limit_per_minute=5, api_keys=keys)
    b = app_with(redis_server.url, prefix, rate_limit_per_minute=5, api_keys=keys)
    key = {"X-API-Key": "shared-client"}
    async with AsyncTestClient(a) as via_a, AsyncTestClient(b) as via_b:
        answers = [await replica.get("/v1/rules", headers=key) for replica in (via_a, via_b) * 3]
        other = await via_b.get("/v1/rules", headers={"X-API-Key": "another-client"})
    assert [a.status_code for a in answers] == [200] * 5 + [429]
    assert [fields(a)[1]["default"]["r"] for a in answers] == [4, 3, 2, 1, 0, 0]
    assert fields(answers[-1])[1]["default"]["t"] == int(answers[-1].headers["retry-after"])
    assert fields(other)[1]["default"]["r"] == 4  # a budget of its own


async def test_no_fields_for_a_limit_that_is_off(store: str | None) -> None:
    async with AsyncTestClient(app_with(store, rate_limit_per_minute=0, search_playouts_per_minute=0)) as client:
        rules = await client.get("/v1/rules")
        game = (await client.post("/v1/games", json={"players": 4, "seed": 5})).json()
        hint = await client.post("/v1/games/suggest", json={"snapshot": game["snapshot"], "seat": game["to_act"],
                                                            "level": "expert", "budget": 200, "seed": 1})
    for answer in (rules, hint):
        assert answer.status_code == 200, answer.text
        assert "ratelimit" not in answer.headers and "ratelimit-policy" not in answer.headers


async def test_a_redis_that_does_not_answer_lets_requests_through_without_fields(
        disposable_redis: RedisServer) -> None:
    app = app_with(disposable_redis.url, rate_limit_per_minute=3)
    async with AsyncTestClient(app) as client:
        before = await client.get("/v1/rules")
        disposable_redis.stop()
        during = [await client.get("/v1/rules") for _ in range(4)]  # past the limit: nothing counts them
    assert fields(before)[1] == {"default": {"r": 2, "t": fields(before)[1]["default"]["t"]}}
    for answer in during:
        assert answer.status_code == 200
        assert "ratelimit" not in answer.headers and "ratelimit-policy" not in answer.headers


async def test_a_browser_reads_the_fields_through_cors() -> None:
    origin = "https://play.example"
    app = app_with(None, rate_limit_per_minute=2, cors_origins=(origin,))
    async with AsyncTestClient(app) as client:
        answers = [await client.get("/v1/rules", headers={"Origin": origin}) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    for answer in answers:
        assert answer.headers["access-control-allow-origin"] == origin
        exposed = {h.strip().lower() for h in answer.headers["access-control-expose-headers"].split(",")}
        assert {"ratelimit", "ratelimit-policy", "retry-after"} <= exposed
        assert fields(answer)[0] == {"default": {"q": 2, "w": 60}}
    assert [fields(a)[1]["default"]["r"] for a in answers] == [1, 0, 0]


# ------------------------------------------------------------------------------------------ the playout budget


def _suggest(game: dict[str, Any], budget: int) -> dict[str, Any]:
    return {"snapshot": game["snapshot"], "seat": game["to_act"], "level": "expert", "budget": budget, "seed": 1}


async def test_the_playout_policy_counts_down_by_what_each_search_spent(store: str | None) -> None:
    """A suggestion, a session hint and an analysis, one client: each answer's ``playouts`` item is the budget less
    everything spent so far (charged up front, the unspent part given back before the answer)."""
    [record] = play_records([level_player("basic")] * 4, seed=3, hands=1, options=Options(players=4))
    # A quota under the largest budget (5,000) plus one: the request for one playout more than is left is valid
    # however little the searches before it spent.
    quota = 4000
    async with AsyncTestClient(app_with(store, search_playouts_per_minute=quota)) as client:
        game = (await client.post("/v1/games", json={"players": 4, "seed": 5})).json()
        rules = await client.get("/v1/rules")  # not a search: the playout budget says nothing
        basic = await client.post("/v1/games/suggest", json={"snapshot": game["snapshot"], "seat": game["to_act"],
                                                             "level": "basic"})
        first = await client.post("/v1/games/suggest", json=_suggest(game, 1500))
        table = (await client.post("/v1/sessions", json={"players": 4, "seed": 2, "known_deal": True,
                                                          "first_dealer": 3})).json()
        hint = await client.post(f"/v1/sessions/{table['session_id']}/suggest", json={"level": "expert",
                                 "budget": 1200}, headers=bearer(table["seat_tokens"][0]))
        analysis = await client.post("/v1/records/analyse", json={"record": msgspec.to_builtins(record),
                                                                   "seats": [0], "seed": 3, "budget": 4})
        spent = [r.json()["playouts"] for r in (first, hint, analysis)]
        over = await client.post("/v1/games/suggest", json=_suggest(game, quota - sum(spent) + 1))
    for answer in (rules, basic):
        assert answer.status_code == 200 and "ratelimit" not in answer.headers
    assert spent[0] < 1500  # a search that spent less than it was charged: the rest given back
    left = quota
    for answer, playouts in zip((first, hint, analysis), spent, strict=True):
        assert answer.status_code == 200, answer.text
        assert playouts >= 1
        left -= playouts
        policy, limit = fields(answer)
        assert policy == {"playouts": {"q": quota, "w": 60}}
        assert limit["playouts"]["r"] == left, (spent, answer.headers["ratelimit"])
        assert 1 <= limit["playouts"]["t"] <= 60
    # One playout more than is left: refused, spending nothing; what is left and the Retry-After in its fields.
    assert_problem(over, 429, "RATE_LIMITED")
    assert fields(over)[1]["playouts"] == {"r": left, "t": int(over.headers["retry-after"])}


async def test_the_playout_report_keeps_the_fast_lane_and_leaves_its_answers_alone() -> None:
    """With the request limit off, the searches' report lets every other request through untouched: the fast
    routes keep their lane, and their answers (and every other operation's) carry no fields."""
    app = app_with(None, search_playouts_per_minute=20000)
    assert isinstance(app.asgi_handler, FastLane)
    async with AsyncTestClient(app) as client:
        game = (await client.post("/v1/games", json={"players": 4, "seed": 5})).json()
        moves = (await client.post("/v1/games/legal-moves", json={"snapshot": game["snapshot"]})).json()
        applied = await client.post("/v1/games/apply", json={"snapshot": game["snapshot"],
                                                             "move": moves["legal_moves"][0]})
    assert applied.status_code == 200, applied.text
    assert "ratelimit" not in applied.headers and "ratelimit-policy" not in applied.headers


async def test_both_policies_in_one_field_on_a_search() -> None:
    async with AsyncTestClient(app_with(None, rate_limit_per_minute=50, search_playouts_per_minute=5000)) as client:
        game = (await client.post("/v1/games", json={"players": 4, "seed": 5})).json()
        hint = await client.post("/v1/games/suggest", json=_suggest(game, 700))
    assert hint.status_code == 200, hint.text
    assert hint.headers["ratelimit-policy"] == '"default";q=50;w=60, "playouts";q=5000;w=60'
    limit = fields(hint)[1]
    assert limit["default"]["r"] == 48 and limit["playouts"]["r"] == 5000 - hint.json()["playouts"]


# --------------------------------------------------------------------------------- bot seats and the turn clock


class CountedBudget:
    """A playout budget that counts every charge, over the app's own."""

    def __init__(self, budget: PlayoutBudget) -> None:
        self.budget = budget
        self.charges: list[tuple[str, int]] = []

    async def charge(self, key: str, amount: int, limit: int, window_seconds: float) -> BudgetDecision:
        self.charges.append((key, amount))
        return await self.budget.charge(key, amount, limit, window_seconds)

    async def refund(self, key: str, amount: int) -> BudgetDecision | None:
        return await self.budget.refund(key, amount)


async def test_bot_seats_and_the_clock_are_charged_to_no_limit(store: str | None) -> None:
    """Three expert bot seats answer a human's move, and a turn clock's expert bot moves for a seat that let its
    time run out: none of it is charged to the playout budget, and the human's move is one request of the
    request limit however many moves it set off. A hint of the same client, afterwards, is charged (the count
    counts)."""
    app = app_with(store, rate_limit_per_minute=100, search_playouts_per_minute=5000)
    budget = CountedBudget(app.state.search.budget)
    app.state.search.budget = budget
    async with AsyncTestClient(app) as client:
        bots = {"1": "expert", "2": "expert", "3": "expert"}
        table = (await client.post("/v1/sessions", json={"players": 4, "seed": 7, "known_deal": True,
                                                          "first_dealer": 3, "bots": bots})).json()
        me = bearer(table["seat_tokens"][0])
        session = f"/v1/sessions/{table['session_id']}"
        legal = await client.get(session + "/legal-moves", headers=me)
        moved = await client.post(session + "/moves", json={"move": legal.json()["legal_moves"][0]}, headers=me)
        assert moved.status_code == 200, moved.text
        assert moved.json()["version"] >= table["version"] + 2  # the bots moved in its answer
        assert fields(moved)[1]["default"]["r"] == fields(legal)[1]["default"]["r"] - 1
        clocked = (await client.post("/v1/sessions", json={
            "players": 4, "seed": 8, "known_deal": True, "first_dealer": 3, "bots": dict.fromkeys(bots, "basic"),
            "clock": {"move_seconds": 1, "bot": "expert"}})).json()
        watcher = bearer(clocked["host_token"])
        for _ in range(300):
            seen = await client.get(f"/v1/sessions/{clocked['session_id']}", headers=watcher)
            if seen.json()["version"] > clocked["version"]:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the clock did not move")
        assert budget.charges == []
        hint = await client.post(session + "/suggest", json={"level": "expert", "budget": 300}, headers=me)
    assert hint.status_code == 200, hint.text
    assert [amount for _, amount in budget.charges] == [300]
