"""The pieces of the search bounds in-process: the playout budgets (in memory, and in a real redis-server shared
by two backends, failing open when it is gone), the places among the searches and their queue, and the search
settings read from the environment. (Through HTTP against real servers: test_search_limits.py.)"""

from __future__ import annotations

import asyncio

import pytest

from service.config import ConfigError, Settings, load_settings
from service.ops.metrics import ServiceMetrics
from service.ops.playouts import MemoryPlayoutBudget, RedisPlayoutBudget
from service.ops.search import SearchPool
from service.web.problems import Problem
from tests.redis_server import RedisServer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_memory_budget_refuses_what_does_not_fit_and_spends_nothing_then() -> None:
    clock = Clock()
    budget = MemoryPlayoutBudget(clock=clock)
    assert (await budget.charge("a", 3000, 5000, 60)).allowed
    refused = await budget.charge("a", 3000, 5000, 60)
    assert not refused.allowed and refused.spent == 3000 and refused.retry_after == 60
    assert (await budget.charge("b", 5000, 5000, 60)).allowed  # another client has its own
    assert (await budget.charge("a", 2000, 5000, 60)).allowed  # the refused 3000 were not counted
    assert not (await budget.charge("a", 1, 5000, 60)).allowed
    await budget.refund("a", 1500)
    assert (await budget.charge("a", 1500, 5000, 60)).spent == 5000
    clock.now += 45
    assert (await budget.charge("a", 1, 5000, 60)).retry_after == 15
    clock.now += 15  # a new window
    fresh = await budget.charge("a", 5000, 5000, 60)
    assert fresh.allowed and fresh.spent == 5000 and len(budget) == 1  # ended windows are pruned


async def test_redis_budget_is_shared_and_fails_open(redis_server: RedisServer, disposable_redis: RedisServer,
                                                    key_prefix: str) -> None:
    one = RedisPlayoutBudget(redis_server.client(), prefix=key_prefix)
    other = RedisPlayoutBudget(redis_server.client(), prefix=key_prefix)
    assert (await one.charge("ip:1", 4000, 5000, 30)).allowed
    refused = await other.charge("ip:1", 2000, 5000, 30)
    assert not refused.allowed and refused.spent == 4000 and 1 <= refused.retry_after <= 30
    await other.refund("ip:1", 1000)
    allowed = await one.charge("ip:1", 2000, 5000, 30)
    assert allowed.allowed and allowed.spent == 5000
    await one.refund("ip:1", 99_999)  # never below zero
    assert (await other.charge("ip:1", 5000, 5000, 30)).spent == 5000
    metrics = ServiceMetrics()
    gone = RedisPlayoutBudget(disposable_redis.client(), prefix=key_prefix, on_error=metrics.redis_error)
    disposable_redis.stop()
    assert (await gone.charge("ip:1", 5000, 5000, 30)).allowed  # fail open
    await gone.refund("ip:1", 10)


def square(x: int) -> int:
    return x * x


async def test_places_queue_in_order_and_refuse_beyond_the_queue() -> None:
    pool = SearchPool(concurrency=1, queue=2)
    gate = asyncio.Event()
    order: list[str] = []

    async def hold(name: str) -> None:
        async with pool.admitted("c", 10) as admission:
            order.append(name)
            if name == "first":
                await gate.wait()
            assert await admission.run(square, 3) == 9

    first = asyncio.create_task(hold("first"))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(hold(n)) for n in ("second", "third")]
    await asyncio.sleep(0)
    with pytest.raises(Problem) as refused:
        async with pool.admitted("c", 10):
            pass
    assert refused.value.code == "NOT_READY" and int(refused.value.headers["Retry-After"]) >= 1
    waiting[0].cancel()  # a client gone while waiting gives up its queue place
    await asyncio.sleep(0)
    gate.set()
    await first
    await waiting[1]
    assert order == ["first", "third"] and pool.slots.running == 0 and not pool.slots.waiting


async def test_a_budget_refusal_comes_before_any_place_is_taken() -> None:
    pool = SearchPool(concurrency=1, queue=0, playouts_per_minute=5000, budget=MemoryPlayoutBudget())
    assert await pool.search("c", 5000, square, 4, spent=lambda _: 1000) == 16
    with pytest.raises(Problem) as refused:
        await pool.search("c", 4001, square, 4)
    assert refused.value.status == 429 and refused.value.code == "RATE_LIMITED"
    assert refused.value.headers["Retry-After"].isdigit() and pool.slots.running == 0
    assert await pool.search("c", 4000, square, 5) == 25  # given back what the first did not spend
    assert await pool.search("other", 5000, square, 2) == 4


def test_search_settings_from_the_environment() -> None:
    defaults = load_settings({})
    assert (defaults.search_workers, defaults.bot_workers, defaults.search_concurrency, defaults.search_queue,
            defaults.search_worker_nice, defaults.search_playouts_per_minute) == (2, 1, 2, 8, 10, 20_000)
    code = Settings()
    assert (code.search_workers, code.search_concurrency, code.search_playouts_per_minute) == (0, 0, 0)
    assert load_settings({"SEARCH_PLAYOUTS_PER_MINUTE": "0"}).search_playouts_per_minute == 0
    for bad in ({"SEARCH_PLAYOUTS_PER_MINUTE": "4999"}, {"SEARCH_WORKERS": "-1"}, {"SEARCH_WORKER_NICE": "20"},
                {"SEARCH_QUEUE": "many"}):
        with pytest.raises(ConfigError) as error:
            load_settings(bad)
        assert next(iter(bad)) in str(error.value)

