"""The pieces of the search bounds in-process: the playout budgets (in memory, and in a real redis-server shared
by two backends, failing open when it is gone), the places among the searches and their queue, refusals
held for a client that did not wait out ``Retry-After``, a search cancelled when its client goes, the pool's
metrics, and the search settings read from the environment. (Through HTTP against real servers:
test_search_limits.py, test_search_flood.py.)"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from service.config import ConfigError, Settings, load_settings
from service.ops.metrics import ServiceMetrics
from service.referee import search as search_module
from service.referee.playouts import MemoryPlayoutBudget, RedisPlayoutBudget
from service.referee.search import SearchPool
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
            defaults.search_worker_nice, defaults.search_playouts_per_minute,
            defaults.search_refusal_hold_seconds) == (2, 1, 2, 8, 10, 20_000, 5.0)
    assert load_settings({"SEARCH_REFUSAL_HOLD_SECONDS": "0"}).search_refusal_hold_seconds == 0
    code = Settings()
    assert (code.search_workers, code.search_concurrency, code.search_playouts_per_minute,
            code.search_refusal_hold_seconds) == (0, 0, 0, 0)
    assert load_settings({"SEARCH_PLAYOUTS_PER_MINUTE": "0"}).search_playouts_per_minute == 0
    for bad in ({"SEARCH_PLAYOUTS_PER_MINUTE": "4999"}, {"SEARCH_WORKERS": "-1"}, {"SEARCH_WORKER_NICE": "20"},
                {"SEARCH_QUEUE": "many"}, {"SEARCH_REFUSAL_HOLD_SECONDS": "-1"}):
        with pytest.raises(ConfigError) as error:
            load_settings(bad)
        assert next(iter(bad)) in str(error.value)



async def refused(pool: SearchPool, client: str, playouts: int = 10) -> asyncio.Task[Any]:
    """A request of ``client`` that the full ``pool`` refuses, started: done at once unless it is held."""
    async def ask() -> None:
        async with pool.admitted(client, playouts):
            raise AssertionError("admitted by a full pool")

    task = asyncio.create_task(ask())
    for _ in range(5):
        await asyncio.sleep(0)
    return task


def problem_of(task: asyncio.Task[Any]) -> Problem:
    error = task.exception()
    assert isinstance(error, Problem), error
    return error


async def test_a_refusal_to_a_client_that_did_not_wait_out_retry_after_is_held(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    pool = SearchPool(concurrency=1, queue=0, refusal_hold_seconds=30, clock=clock)
    gate = asyncio.Event()

    async def busy() -> None:
        async with pool.admitted("a", 10):
            await gate.wait()

    holder = asyncio.create_task(busy())
    await asyncio.sleep(0)
    first = await refused(pool, "hammer")
    assert first.done() and problem_of(first).code == "NOT_READY"  # the first refusal: at once
    retry = int(problem_of(first).headers["Retry-After"])
    again = await refused(pool, "hammer")  # back before its Retry-After: held
    assert not again.done() and pool.held == 1
    monkeypatch.setattr(search_module, "MAX_HELD_REFUSALS", 1)
    beyond = await refused(pool, "hammer")  # at most MAX_HELD_REFUSALS are held at once; beyond, at once
    assert beyond.done() and pool.held == 1
    monkeypatch.undo()
    other = await refused(pool, "polite")  # another client's first refusal is not held
    assert other.done() and problem_of(other).code == "NOT_READY"
    clock.now += retry  # a client that waited out its Retry-After is answered at once
    assert (await refused(pool, "polite")).done()
    await pool.stop()  # stopping answers the held refusals at once
    await asyncio.sleep(0)
    assert problem_of(again).code == "NOT_READY" and pool.held == 0
    assert pool.refused["busy"] == 5
    gate.set()
    await holder


async def test_budget_refusals_are_held_too_and_their_retry_after_counts_from_the_answer() -> None:
    clock = Clock()
    budget = MemoryPlayoutBudget(clock=clock)
    pool = SearchPool(playouts_per_minute=5000, budget=budget, refusal_hold_seconds=0.01, clock=clock)
    assert await pool.search("c", 5000, square, 2) == 4
    first = await refused(pool, "c", 1000)
    assert problem_of(first).status == 429 and problem_of(first).headers["Retry-After"] == "60"
    again = await refused(pool, "c", 1000)
    assert not again.done()  # held (for 0.01 s)
    with pytest.raises(Problem) as error:
        await again
    assert error.value.status == 429 and pool.refused["budget"] == 2


async def test_requests_arriving_together_take_no_more_places_than_there_are() -> None:
    pool = SearchPool(concurrency=1, queue=2)
    gate = asyncio.Event()

    async def never() -> None:
        await asyncio.Event().wait()

    async def ask() -> None:
        async with pool.admitted("c", 10, never):
            await gate.wait()

    asking = [asyncio.create_task(ask()) for _ in range(6)]
    await asyncio.sleep(0.01)
    assert pool.slots.running == 1 and len(pool.slots.waiting) == 2 and pool.refused["busy"] == 3
    gate.set()
    outcomes = await asyncio.gather(*asking, return_exceptions=True)
    assert sum(isinstance(o, Problem) for o in outcomes) == 3 and pool.slots.running == 0


async def test_a_client_gone_while_queued_never_starts_and_while_running_frees_its_place() -> None:
    pool = SearchPool(concurrency=1, queue=2)
    release = threading.Event()
    calls: list[str] = []

    def work(name: str) -> str:
        calls.append(name)
        release.wait(10)
        return name

    first_gone, second_gone = asyncio.Event(), asyncio.Event()

    async def gone(event: asyncio.Event) -> None:
        await event.wait()

    running = asyncio.create_task(pool.search("a", 10, work, "first", gone=lambda: gone(first_gone)))
    while not calls:
        await asyncio.sleep(0.01)
    queued = asyncio.create_task(pool.search("b", 10, work, "second", gone=lambda: gone(second_gone)))
    await asyncio.sleep(0.01)
    assert len(pool.slots.waiting) == 1
    second_gone.set()
    with pytest.raises(Problem) as error:
        await queued
    assert error.value.code == "NOT_READY" and not pool.slots.waiting and pool.cancelled["queued"] == 1
    first_gone.set()
    with pytest.raises(Problem):
        await running
    assert pool.cancelled["running"] == 1 and pool.slots.running == 0  # its place is free at once
    release.set()
    assert await pool.search("c", 10, work, "third") == "third"
    assert calls == ["first", "third"]  # the queued one never started


async def test_the_pool_metrics_on_the_apps_registry() -> None:
    metrics = ServiceMetrics()
    pool = SearchPool(concurrency=1, queue=1, playouts_per_minute=5000, budget=MemoryPlayoutBudget())

    class App:
        state = type("State", (), {"metrics": metrics, "settings": Settings(search_refusal_hold_seconds=2.5)})

    await pool.start(App())
    await pool.start(App())  # registered once
    assert pool.refusal_hold_seconds == 2.5
    assert await pool.search("c", 4000, square, 3, spent=lambda _: 1000) == 9
    with pytest.raises(Problem):
        await pool.search("c", 4001, square, 3)
    gate = asyncio.Event()

    async def wait_in(client: str) -> None:
        async with pool.admitted(client, 1):
            await gate.wait()

    holders = [asyncio.create_task(wait_in(name)) for name in ("x", "y")]
    await asyncio.sleep(0.01)
    with pytest.raises(Problem):
        await pool.search("z", 1, square, 3)
    text = metrics.render().decode()
    for line in ("searches_started_total 2.0", 'searches_refused_total{reason="busy"} 1.0',
                 'searches_refused_total{reason="budget"} 1.0', 'searches_refused_total{reason="worker"} 0.0',
                 'searches_cancelled_total{stage="queued"} 0.0', "search_queue_depth 1.0", "searches_running 1.0",
                 "search_refusals_held 0.0", "search_duration_seconds_count 1.0", "search_wait_seconds_count 2.0"):
        assert line in text.splitlines(), (line, text)
    gate.set()
    await asyncio.gather(*holders)
    await pool.stop()
    assert "search_queue_depth 0.0" in metrics.render().decode().splitlines()
