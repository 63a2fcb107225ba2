"""Where the computer players' searches run, and what they may cost: bounded, off the serving process, with
the bot seats first.

An ``expert`` suggestion may ask for up to 5,000 playouts, seconds of CPU. Unbounded, a few clients asking for
such suggestions would take the CPU from every other request of the replica. :class:`SearchPool` bounds that
in three ways:

* **Concurrency** (``SEARCH_CONCURRENCY``): a replica searches at most that many suggestions and hints at once;
  up to ``SEARCH_QUEUE`` more wait their turn (first come, first served); beyond, the request is answered at
  once with 503 ``NOT_READY`` and ``Retry-After`` (an estimate of when a place frees: the recent mean search
  time times the searches ahead, per slot). Nothing was searched or charged.
* **A playout budget per client** (``SEARCH_PLAYOUTS_PER_MINUTE``, :mod:`service.ops.playouts`): a search is
  charged its whole budget before it runs and given back what it did not spend; one that does not fit is
  answered 429 ``RATE_LIMITED`` with ``Retry-After``.
* **Worker processes** (``SEARCH_WORKERS``): the searches run in a pool of processes of their own, at a lower
  CPU priority (``SEARCH_WORKER_NICE``), so the serving process keeps its event loop and its share of the CPU
  for every other request. With ``0`` they run in threads of the serving process (the GIL is then shared with
  the event loop: for tests and small setups).

The bot seats of hosted sessions and the turn clock's moves (:meth:`SearchPool.play`) never wait behind hints:
they have their own lane, with processes of their own (``BOT_WORKERS``, at normal priority) and no bound
other than the sessions that need them (each is a short decision at a bot level's default budget).

A worker process that dies (killed, out of memory) breaks its pool: the pool is replaced by a new one at once.
The hint that was running is answered 503 ``NOT_READY`` (``Retry-After: 1``), never a 500; a bot move is
decided again in the new pool, and if that fails too, in a thread of the serving process (a bot's move is a
deterministic function of the committed state, so where it is decided changes nothing).

Functions sent to a worker must be importable (module level) and take and return picklable values; the
engine's and the bots' are (pure functions of msgspec structures).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import logging
import math
import multiprocessing
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from service.ops.playouts import PlayoutBudget
from service.web.problems import Problem

__all__ = ["Admission", "SearchLane", "SearchPool", "busy_problem"]

logger = logging.getLogger("fivehundred.ops.search")

T = TypeVar("T")

#: prctl's option that signals a process when its parent dies (Linux).
PR_SET_PDEATHSIG = 1
#: The longest ``Retry-After`` a busy answer gives (seconds).
MAX_RETRY_AFTER = 60
#: Seconds stopping waits for a worker to finish what it is doing before ending it.
STOP_SECONDS = 1.0
#: Weight of the newest search in the running mean of search times.
_MEAN_WEIGHT = 0.2


def _worker_start(nice: int, parent: int) -> None:
    """In each new worker: die with the serving process (Linux; a worker left behind would hold its memory for
    ever), and lower its CPU priority by ``nice`` (the serving process keeps its own)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the serving process died before the line above
        os._exit(1)
    if nice > 0:
        with contextlib.suppress(OSError):
            os.nice(nice)


def _warm() -> int:
    """A first task for each worker: its imports happen at start, not in a client's first search."""
    import bots  # noqa: F401  (the import is the point)
    import engine  # noqa: F401

    return os.getpid()


def busy_problem(retry_after: int, detail: str) -> Problem:
    """503 ``NOT_READY``: this replica takes no more searches for now (the frozen ``/v1`` contract's code for a
    service that cannot serve a request yet; the detail says why)."""
    return Problem("NOT_READY", detail, title="Service not ready", headers={"Retry-After": str(retry_after)})


class SearchLane:
    """One kind of work's executor: ``workers`` processes (at ``nice``), or threads of this process when 0."""

    def __init__(self, name: str, workers: int, nice: int = 0) -> None:
        self.name = name
        self.workers = workers
        self.nice = nice
        self._pool: ProcessPoolExecutor | None = None
        self._stopped = False
        #: Pools replaced after a worker died (for logs and tests).
        self.replaced = 0

    def start(self) -> None:
        self._stopped = False
        if self.workers > 0 and self._pool is None:
            self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: the serving process has threads and an event loop a forked child must not inherit.
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_start, initargs=(self.nice, os.getpid()))
        for _ in range(self.workers):
            pool.submit(_warm)
        return pool

    def pids(self) -> list[int]:
        """The worker processes' ids (none when the lane runs in threads)."""
        pool = self._pool
        processes = getattr(pool, "_processes", None) or {}
        return sorted(int(pid) for pid in processes)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker (or a thread); :class:`BrokenProcessPool` when a worker died meanwhile."""
        pool = self._pool
        if pool is None:
            if self._stopped:  # shutting down: not in the serving process (the bot lane falls back to it)
                raise BrokenProcessPool(f"the {self.name} search lane has stopped")
            return await asyncio.to_thread(fn, *args)  # threads (0 workers), or not started (tests)
        try:
            future = asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        except (BrokenProcessPool, RuntimeError):  # broken, or shut down by a replacement under way
            self._replace(pool)
            raise BrokenProcessPool(f"the {self.name} search pool was broken") from None
        try:
            return await future
        except BrokenProcessPool:
            self._replace(pool)
            raise

    def _replace(self, broken: Executor) -> None:
        if self._pool is not broken:
            return  # another caller replaced it already
        self.replaced += 1
        logger.warning("a %s search worker died; starting a new pool", self.name)
        broken.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def stop(self) -> None:
        """End the workers: at once when idle, after :data:`STOP_SECONDS` when searching (its request is gone)."""
        pool, self._pool = self._pool, None
        self._stopped = self.workers > 0
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)  # idle workers exit at once
        deadline = time.monotonic() + STOP_SECONDS
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:  # one still searching: its request is gone
            with contextlib.suppress(Exception):
                if process.is_alive():
                    process.terminate()
                    process.join(5)
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True)


class _Slots:
    """At most ``limit`` holders at once (0: no limit), up to ``queue`` more waiting in order."""

    def __init__(self, limit: int, queue: int) -> None:
        self.limit = limit
        self.queue = queue
        self.running = 0
        self.waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    def full(self) -> bool:
        return self.limit > 0 and self.running >= self.limit and len(self.waiting) >= self.queue

    async def acquire(self) -> None:
        if self.limit <= 0 or (self.running < self.limit and not self.waiting):
            self.running += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # the slot was handed over just as the request went away: pass it on
            else:
                with contextlib.suppress(ValueError):
                    self.waiting.remove(waiter)
            raise

    def release(self) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot goes straight to the next in line
                return
        self.running -= 1


class SearchPool:
    """The replica's searches: :meth:`search` for suggestions and hints (bounded, charged to a client),
    :meth:`play` for bot seats and clock moves (their own lane). Start and stop it with the app."""

    def __init__(self, *, workers: int = 0, bot_workers: int = 0, concurrency: int = 0, queue: int = 0,
                 worker_nice: int = 0, playouts_per_minute: int = 0, budget: PlayoutBudget | None = None,
                 window_seconds: float = 60.0) -> None:
        self.hints = SearchLane("hint", workers, worker_nice)
        self.bots = SearchLane("bot", bot_workers)
        self.slots = _Slots(concurrency, queue)
        self.playouts_per_minute = playouts_per_minute if budget is not None else 0
        self.budget = budget
        self.window_seconds = window_seconds
        #: Running mean of a search's seconds (for ``Retry-After``).
        self.mean_seconds = 1.0
        #: Requests answered 503 (busy) and 429 (budget), for tests and logs.
        self.refused_busy = 0
        self.refused_budget = 0

    async def start(self) -> None:
        self.hints.start()
        self.bots.start()

    async def stop(self) -> None:
        await asyncio.to_thread(self.hints.stop)
        await asyncio.to_thread(self.bots.stop)

    # ------------------------------------------------------------------------------------------ bot lane

    async def play(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` for a bot seat or the clock: in the bot lane, never refused; a dead worker's move is
        decided again (then, if the new pool fails too, in a thread)."""
        for _ in range(2):
            try:
                return await self.bots.run(fn, *args)
            except BrokenProcessPool:
                continue
        return await asyncio.to_thread(fn, *args)

    # ----------------------------------------------------------------------------------------- hint lane

    def _retry_after(self) -> int:
        ahead = self.slots.running + len(self.slots.waiting)
        seconds = self.mean_seconds * max(1, ahead) / max(1, self.slots.limit)
        return max(1, min(MAX_RETRY_AFTER, math.ceil(seconds)))

    def _busy(self) -> Problem:
        self.refused_busy += 1
        retry = self._retry_after()
        return busy_problem(retry, f"this replica is searching {self.slots.running} suggestions with "
                                   f"{len(self.slots.waiting)} waiting, as many as it takes; retry after "
                                   f"{retry} s")

    @contextlib.asynccontextmanager
    async def admitted(self, client: str, playouts: int) -> AsyncIterator[Admission]:
        """A suggestion or hint of up to ``playouts`` playouts for ``client``, admitted: its place among the
        searches taken (after waiting its turn in the queue) and its playouts charged; run it with
        :meth:`Admission.run`. 503 ``NOT_READY`` when every search place and queue place is taken, 429
        ``RATE_LIMITED`` when the playouts do not fit in the client's budget (both before anything is done, so
        a refusal costs little). On leaving, the place is freed and what was not spent given back."""
        if self.slots.full():
            raise self._busy()
        charged = 0
        if playouts > 0 and self.playouts_per_minute > 0 and self.budget is not None:
            decision = await self.budget.charge(client, playouts, self.playouts_per_minute, self.window_seconds)
            if not decision.allowed:
                self.refused_budget += 1
                retry = decision.retry_after
                raise Problem("RATE_LIMITED", f"this client may spend {self.playouts_per_minute} playouts per "
                                              f"{self.window_seconds:g} s and has {decision.spent} spent in "
                                              f"this window; this search asks for {playouts}. Retry after "
                                              f"{retry} s, or ask for a smaller budget",
                              headers={"Retry-After": str(retry)},
                              message=("problem.RATE_LIMITED.detail", {"count": retry}))
            charged = playouts
        admission = Admission(self, charged)
        try:
            if self.slots.full():  # filled while the budget was charged
                raise self._busy()
            await self.slots.acquire()
            try:
                yield admission
            finally:
                self.slots.release()
        finally:
            if charged > admission.spent:
                await self.budget.refund(client, charged - admission.spent)  # type: ignore[union-attr]

    async def search(self, client: str, playouts: int, fn: Callable[..., T], *args: Any,
                     spent: Callable[[T], int] | None = None) -> T:
        """``fn(*args)`` as an admitted search (:meth:`admitted`); ``spent(result)`` is what it used."""
        async with self.admitted(client, playouts) as admission:
            result = await admission.run(fn, *args)
            admission.spend(playouts if spent is None else spent(result))
            return result


class Admission:
    """An admitted search: run it once in the hint lane, and say what it spent (the charge is kept until then)."""

    def __init__(self, pool: SearchPool, charged: int) -> None:
        self.pool = pool
        self.charged = charged
        #: What stays charged: all of it unless :meth:`spend` says less (nothing when the search failed).
        self.spent = 0

    def spend(self, playouts: int) -> None:
        self.spent = min(self.charged, max(0, playouts))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the hint lane: 503 ``NOT_READY`` if its worker dies (or the lane stopped)."""
        started = time.monotonic()
        try:
            result = await self.pool.hints.run(fn, *args)
        except BrokenProcessPool:
            self.pool.refused_busy += 1
            raise busy_problem(1, "the worker searching this suggestion stopped; nothing was searched; retry "
                                  "after 1 s") from None
        self.spent = self.charged
        self.pool.mean_seconds += _MEAN_WEIGHT * (time.monotonic() - started - self.pool.mean_seconds)
        return result
