"""Where the computer players' searches run, and what they may cost: bounded, off the serving process, with
the bot seats first.

An ``expert`` suggestion may ask for up to 5,000 playouts, seconds of CPU. Unbounded, a few clients asking for
such suggestions would take the CPU from every other request of the replica. :class:`SearchPool` bounds that
in three ways:

* **Concurrency** (``SEARCH_CONCURRENCY``): a replica searches at most that many suggestions and hints at once;
  up to ``SEARCH_QUEUE`` more wait their turn (first come, first served); beyond, the request is answered
  503 ``NOT_READY`` with ``Retry-After`` (an estimate of when a place frees: the recent mean search time times
  the searches ahead, per slot), at once unless it is held (below). Nothing was searched or charged.
* **A playout budget per client** (``SEARCH_PLAYOUTS_PER_MINUTE``, :mod:`service.referee.playouts`): a search is
  charged its whole budget before it runs and given back what it did not spend; one that does not fit is
  answered 429 ``RATE_LIMITED`` with ``Retry-After``. What the client has left after the charge, the refund or
  the refusal is reported in the answer's RateLimit fields as the ``playouts`` policy
  (:func:`service.ops.ratelimit.report_quota`).
* **Worker processes** (``SEARCH_WORKERS``): the searches run in a pool of processes of their own, at a lower
  CPU priority (``SEARCH_WORKER_NICE``), so the serving process keeps its event loop and its share of the CPU
  for every other request. With ``0`` they run in threads of the serving process (the GIL is then shared with
  the event loop: for tests and small setups).

The bot seats of hosted sessions and the turn clock's moves (:meth:`SearchPool.play`) never wait behind hints:
they have their own lane, with processes of their own (``BOT_WORKERS``, at normal priority) and no bound
other than the sessions that need them (each is a short decision at a bot level's default budget).

**Refusals a client does not wait out are held.** A refusal costs the serving process little, but a client that
sends again at once, whatever ``Retry-After`` said, could have it answer refusals at full rate (the cost of any
request, times the client's connections), which takes the event loop from every other request. So each client is
remembered (a bounded table) with the time its last refusal told it to come back; a refusal to a client that
comes back before that time is held, without CPU (a sleep of the event loop), until that time but at most
``SEARCH_REFUSAL_HOLD_SECONDS``, then answered as it would have been (with its ``Retry-After`` counted from then).
A client that waits out ``Retry-After`` is never held; one that does not is slowed to one refusal per connection
per hold. At most :data:`MAX_HELD_REFUSALS` are held at once (each is an open connection and a sleeping task;
beyond, refusals are answered at once), and stopping the pool answers the held ones at once; holds are
jittered (a half to the whole), so that a client's connections held together are not answered in one burst. A
suggestion is refused before its snapshot is opened (:meth:`SearchPool.charged`, then :meth:`SearchPool.placed`).

**A client that goes away** (its connection closed) while its search waits its turn or runs: the search is
cancelled (:func:`until_disconnected` watches the connection; :meth:`SearchPool.admitted` takes it as
``gone``). A waiting one gives up its place and never starts; a running one is interrupted in its worker (a
signal, :data:`CANCEL_SIGNAL`, makes the search raise :class:`SearchCancelled` at the worker's next Python
instruction: the worker survives and takes the next search), and its place is freed at once. Nothing is
answered to a client that is gone (the service sends a 503 ``NOT_READY`` nobody reads).

**Metrics** (on the app's Prometheus registry, :class:`SearchCollector`): ``searches_started_total``,
``searches_refused_total{reason}`` (``busy``: every place taken; ``budget``: the client's playouts per minute;
``worker``: the worker searching it died), ``searches_cancelled_total{stage}`` (``queued``, ``running``: the
client went away), ``search_queue_depth``, ``searches_running``, ``search_refusals_held``, and the histograms
``search_wait_seconds`` (in the queue) and ``search_duration_seconds`` (searching).

**Stopping** ends the workers (waiting :data:`STOP_SECONDS` for a search under way) and joins the pools' queues
and threads, so that no semaphore of theirs is left for multiprocessing's resource tracker to warn about.

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
import itertools
import logging
import math
import multiprocessing
import multiprocessing.util
import os
import random
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import FrameType
from typing import Any, NoReturn, TypeVar

from prometheus_client import Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from service.ops.ratelimit import PLAYOUT_POLICY, report_quota
from service.referee.playouts import BudgetDecision, PlayoutBudget
from service.web.problems import Problem

__all__ = ["SEARCH_OPERATIONS", "Admission", "SearchCancelled", "SearchCollector", "SearchLane", "SearchPool",
           "busy_problem", "until_disconnected"]

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
#: The most refusals held at once; beyond, refusals are answered at once.
MAX_HELD_REFUSALS = 256
#: The most clients remembered with the time their last refusal told them to come back (oldest forgotten).
MAX_TOLD_CLIENTS = 10_000
#: The signal that interrupts a cancelled search in its worker (the worker then raises :class:`SearchCancelled`).
CANCEL_SIGNAL = signal.SIGUSR1
#: Refusal reasons and cancellation stages, as the metrics label them.
REFUSAL_REASONS = ("busy", "budget", "worker")
CANCEL_STAGES = ("queued", "running")
#: The operations whose searches are charged to the playout budget: their answers report it (RateLimit fields).
SEARCH_OPERATIONS = frozenset({"suggestMove", "suggestSessionMove", "analyseRecords", "getSessionAnalysis"})
#: Buckets (seconds) of the wait and search-time histograms.
SECONDS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class SearchCancelled(Exception):
    """Raised in a worker by a search whose client went away (:data:`CANCEL_SIGNAL`)."""


# In a worker: where the serving process marks the searches it cancels, and the search under way (its token).
_cancel_dir: str | None = None
_current: str | None = None


def _worker_start(nice: int, parent: int, cancel_dir: str | None = None) -> None:
    """In each new worker: die with the serving process (Linux; a worker left behind would hold its memory for
    ever), lower its CPU priority by ``nice`` (the serving process keeps its own), and with ``cancel_dir`` let
    :data:`CANCEL_SIGNAL` interrupt a cancelled search."""
    global _cancel_dir
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the serving process died before the line above
        os._exit(1)
    # The serving process's stop (SIGINT, SIGTERM to its process group) is its own to handle: a worker ends when
    # its pool shuts it down, not in the middle of the pool's queues (which would leave their locks behind).
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice > 0:
        with contextlib.suppress(OSError):
            os.nice(nice)
    if cancel_dir is not None:
        _cancel_dir = cancel_dir
        signal.signal(CANCEL_SIGNAL, _on_cancel)


def _on_cancel(signum: int, frame: FrameType | None) -> None:
    token = _current
    if token is not None and _cancel_dir is not None and os.path.exists(os.path.join(_cancel_dir, token)):
        raise SearchCancelled(token)


def _cancellable(token: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker, interrupted (:class:`SearchCancelled`) when the serving process cancels
    ``token``: it names this worker's process in ``<token>.pid``, and marks a cancelled search ``<token>``
    before it signals the process named (so a search cancelled before it started never starts)."""
    global _current
    _current = token
    try:
        assert _cancel_dir is not None
        with open(os.path.join(_cancel_dir, token + ".pid"), "w") as named:
            named.write(str(os.getpid()))
        if os.path.exists(os.path.join(_cancel_dir, token)):
            raise SearchCancelled(token)
        return fn(*args)
    finally:
        _current = None


def _warm() -> int:
    """A first task for each worker: its imports happen at start, not in a client's first search."""
    import bots  # noqa: F401  (the import is the point)
    import engine  # noqa: F401

    return os.getpid()


def busy_problem(retry_after: int, detail: str) -> Problem:
    """503 ``NOT_READY``: this replica takes no more searches for now (the frozen ``/v1`` contract's code for a
    service that cannot serve a request yet; the detail says why)."""
    return Problem("NOT_READY", detail, title="Service not ready", headers={"Retry-After": str(retry_after)})


async def until_disconnected(receive: Callable[[], Awaitable[Any]]) -> None:
    """Returns when the client of a request whose body was read closes its connection (ASGI ``receive`` then
    answers ``http.disconnect``). Never returns if ``receive`` cannot tell (it raises)."""
    while True:
        try:
            message = await receive()
        except Exception:  # a receive that cannot be called again: no way to tell, so never "gone"
            await asyncio.Event().wait()
        if message.get("type") == "http.disconnect":
            return
        await asyncio.sleep(0.05)  # no other message is expected once the body is read: never spin on one


class SearchLane:
    """One kind of work's executor: ``workers`` processes (at ``nice``), or threads of this process when 0.
    ``cancellable``: a search cancelled while it runs is interrupted in its worker."""

    def __init__(self, name: str, workers: int, nice: int = 0, *, cancellable: bool = False) -> None:
        self.name = name
        self.workers = workers
        self.nice = nice
        self.cancellable = cancellable
        self._pool: ProcessPoolExecutor | None = None
        self._stopped = False
        self._cancel_dir: str | None = None
        self._tokens = itertools.count(1)
        #: Pools replaced after a worker died (for logs and tests).
        self.replaced = 0
        #: Searches interrupted in their worker after their client went away.
        self.interrupted = 0

    def start(self) -> None:
        self._stopped = False
        if self.workers > 0 and self._pool is None:
            if self.cancellable and self._cancel_dir is None:
                try:
                    self._cancel_dir = tempfile.mkdtemp(prefix=f"fivehundred-{self.name}-")
                except OSError:  # no writable temporary directory: searches run to their end
                    logger.warning("no temporary directory: a %s search runs to its end when its client goes",
                                   self.name)
            self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: the serving process has threads and an event loop a forked child must not inherit.
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_start, initargs=(self.nice, os.getpid(), self._cancel_dir))
        for _ in range(self.workers):
            pool.submit(_warm)
        return pool

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker (or a thread); :class:`BrokenProcessPool` when a worker died meanwhile.
        Cancelled (the caller's task), a search of a cancellable lane is interrupted in its worker; in a thread
        it runs to its end (a thread cannot be interrupted)."""
        pool = self._pool
        if pool is None:
            if self._stopped:  # shutting down: not in the serving process (the bot lane falls back to it)
                raise BrokenProcessPool(f"the {self.name} search lane has stopped")
            return await asyncio.to_thread(fn, *args)  # threads (0 workers), or not started (tests)
        cancel_dir = self._cancel_dir
        token = f"{os.getpid()}-{next(self._tokens)}"
        try:
            if cancel_dir is None:
                submitted: Future[T] = pool.submit(fn, *args)
            else:
                submitted = pool.submit(_cancellable, token, fn, *args)
                submitted.add_done_callback(lambda _: _forget(cancel_dir, token))
        except (BrokenProcessPool, RuntimeError):  # broken, or shut down by a replacement under way
            self._replace(pool)
            raise BrokenProcessPool(f"the {self.name} search pool was broken") from None
        try:
            return await asyncio.wrap_future(submitted)
        except BrokenProcessPool:
            self._replace(pool)
            raise
        except asyncio.CancelledError:
            if cancel_dir is not None and not submitted.done():
                self.interrupted += 1
                _interrupt(cancel_dir, token)
            raise

    def _replace(self, broken: Executor) -> None:
        if self._pool is not broken:
            return  # another caller replaced it already
        self.replaced += 1
        logger.warning("a %s search worker died; starting a new pool", self.name)
        broken.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def stop(self) -> None:
        """End the workers: at once when idle, after :data:`STOP_SECONDS` when searching (its request is gone);
        then the pool's queues and threads, so that nothing of theirs outlives it."""
        pool, self._pool = self._pool, None
        self._stopped = self.workers > 0
        if pool is not None:
            _shut(pool)
        if self._cancel_dir is not None:
            shutil.rmtree(self._cancel_dir, ignore_errors=True)
            self._cancel_dir = None


def _shut(pool: ProcessPoolExecutor) -> None:
    processes = list((getattr(pool, "_processes", None) or {}).values())
    # Taken before the first shutdown, which drops the pool's references to them (even without waiting).
    queues = [getattr(pool, "_call_queue", None), getattr(pool, "_result_queue", None)]
    manager = getattr(pool, "_executor_manager_thread", None)
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
        if manager is not None:
            manager.join(5)  # its last use of the queues
    _release(queues)


def _release(queues: list[Any]) -> None:
    """Unlink the semaphores of a shut pool's queues now (each one's own finalizer, which runs once), rather than
    when they are collected: a serving process that ends by its signal (uvicorn re-raises SIGTERM once shut down)
    runs no exit handlers, and multiprocessing's resource tracker would warn of each semaphore left."""
    names = set()
    for queue in queues:
        for attribute in ("_rlock", "_wlock", "_sem"):
            name = getattr(getattr(getattr(queue, attribute, None), "_semlock", None), "name", None)
            if isinstance(name, str):
                names.add(name)
    registry = getattr(multiprocessing.util, "_finalizer_registry", {})
    for finalizer in list(registry.values()):
        arguments = getattr(finalizer, "_args", None)
        if arguments and isinstance(arguments[0], str) and arguments[0] in names:
            with contextlib.suppress(Exception):
                finalizer()


def _forget(cancel_dir: str, token: str) -> None:
    for name in (token, token + ".pid"):
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(cancel_dir, name))


def _interrupt(cancel_dir: str, token: str) -> None:
    """Mark ``token`` cancelled, then signal the worker running it (if it started: else it never will)."""
    try:
        with open(os.path.join(cancel_dir, token), "w"):
            pass
        with open(os.path.join(cancel_dir, token + ".pid")) as named:
            pid = int(named.read() or 0)
    except (OSError, ValueError):
        return
    if pid > 0:
        with contextlib.suppress(OSError):
            os.kill(pid, CANCEL_SIGNAL)


class _Slots:
    """At most ``limit`` holders at once (0: no limit), up to ``queue`` more waiting in order."""

    def __init__(self, limit: int, queue: int) -> None:
        self.limit = limit
        self.queue = queue
        self.running = 0
        self.waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    def full(self) -> bool:
        return self.limit > 0 and self.running >= self.limit and len(self.waiting) >= self.queue

    def enter(self) -> asyncio.Future[None] | None:
        """A place at once (``None``), or a place in the queue: a future done when the place comes."""
        if self.limit <= 0 or (self.running < self.limit and not self.waiting):
            self.running += 1
            return None
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        return waiter

    def leave(self, waiter: asyncio.Future[None]) -> None:
        """Give up a place waited for: its queue place, or the place if it came meanwhile (passed on)."""
        if waiter.done() and not waiter.cancelled():
            self.release()
        else:
            waiter.cancel()
            with contextlib.suppress(ValueError):
                self.waiting.remove(waiter)

    async def acquire(self) -> None:
        waiter = self.enter()
        if waiter is None:
            return
        try:
            await waiter
        except asyncio.CancelledError:
            self.leave(waiter)  # the request went away while waiting
            raise

    def release(self) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot goes straight to the next in line
                return
        self.running -= 1


class SearchCollector:
    """The search pool's metrics for a Prometheus registry (``registry.register(SearchCollector(pool))``),
    read from the pool when scraped."""

    def __init__(self, pool: SearchPool) -> None:
        self.pool = pool

    def collect(self) -> Iterator[Metric]:
        pool = self.pool
        yield CounterMetricFamily("searches_started", "Suggestions and hints admitted and searched (expert).",
                                  value=pool.started)
        refused = CounterMetricFamily("searches_refused", "Suggestions and hints refused, by reason (busy: every "
                                      "place taken; budget: the client's playouts per minute; worker: the "
                                      "worker searching it died).", labels=["reason"])
        for reason in REFUSAL_REASONS:
            refused.add_metric([reason], pool.refused[reason])
        yield refused
        cancelled = CounterMetricFamily("searches_cancelled", "Searches whose client went away, by the stage "
                                        "they were at (queued: never started; running: interrupted).",
                                        labels=["stage"])
        for stage in CANCEL_STAGES:
            cancelled.add_metric([stage], pool.cancelled[stage])
        yield cancelled
        yield GaugeMetricFamily("search_queue_depth", "Searches waiting for a place.",
                                value=len(pool.slots.waiting))
        yield GaugeMetricFamily("searches_running", "Searches holding a place.", value=pool.slots.running)
        yield GaugeMetricFamily("search_refusals_held", "Refusals held until their client's Retry-After.",
                                value=pool.held)
        yield from pool.wait_seconds.collect()
        yield from pool.search_seconds.collect()


class SearchPool:
    """The replica's searches: :meth:`search` for suggestions and hints (bounded, charged to a client),
    :meth:`play` for bot seats and clock moves (their own lane). Start and stop it with the app."""

    def __init__(self, *, workers: int = 0, bot_workers: int = 0, concurrency: int = 0, queue: int = 0,
                 worker_nice: int = 0, playouts_per_minute: int = 0, budget: PlayoutBudget | None = None,
                 window_seconds: float = 60.0, refusal_hold_seconds: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hints = SearchLane("hint", workers, worker_nice, cancellable=True)
        self.bots = SearchLane("bot", bot_workers)
        self.slots = _Slots(concurrency, queue)
        self.playouts_per_minute = playouts_per_minute if budget is not None else 0
        self.budget = budget
        self.window_seconds = window_seconds
        #: The longest a refusal to a client that did not wait out its last ``Retry-After`` is held (0: never).
        self.refusal_hold_seconds = refusal_hold_seconds
        self._clock = clock
        #: Running mean of a search's seconds (for ``Retry-After``).
        self.mean_seconds = 1.0
        #: What the metrics show (:class:`SearchCollector`).
        self.started = 0
        self.refused: collections.Counter[str] = collections.Counter()
        self.cancelled: collections.Counter[str] = collections.Counter()
        self.held = 0
        # Registered nowhere: :class:`SearchCollector` exposes them with the pool's other figures.
        self.wait_seconds = Histogram("search_wait_seconds", "Seconds an admitted search waited for its place.",
                                      buckets=SECONDS_BUCKETS, registry=None)
        self.search_seconds = Histogram("search_duration_seconds", "Seconds a search took in its worker.",
                                        buckets=SECONDS_BUCKETS, registry=None)
        #: Per client, when its last refusal told it to come back (monotonic seconds).
        self._told: collections.OrderedDict[str, float] = collections.OrderedDict()
        self._stopping = asyncio.Event()
        self._registries: list[Any] = []

    def attach(self, metrics: Any = None, settings: Any = None) -> None:
        """Expose the pool's metrics on ``metrics.registry`` (a :class:`~service.ops.metrics.ServiceMetrics`),
        once; take ``SEARCH_REFUSAL_HOLD_SECONDS`` from ``settings`` (a :class:`~service.config.Settings`)."""
        registry = getattr(metrics, "registry", None)
        if registry is not None and not any(r is registry for r in self._registries):
            registry.register(SearchCollector(self))
            self._registries.append(registry)
        hold = getattr(settings, "search_refusal_hold_seconds", None)
        if isinstance(hold, int | float):
            self.refusal_hold_seconds = float(hold)

    async def start(self, app: Any = None) -> None:
        """Start the lanes. As the app's startup hook (``app`` given), also :meth:`attach` to the app's
        ``metrics`` and ``settings`` (its state)."""
        if app is not None:
            state = getattr(app, "state", None)
            self.attach(getattr(state, "metrics", None), getattr(state, "settings", None))
        self._stopping = asyncio.Event()
        self.hints.start()
        self.bots.start()

    async def stop(self) -> None:
        self._stopping.set()  # held refusals are answered now
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

    def _busy(self, held: float = 0.0) -> Problem:
        retry = self._retry_after()
        return busy_problem(retry, f"this replica is searching {self.slots.running} suggestions with "
                                   f"{len(self.slots.waiting)} waiting, as many as it takes; retry after "
                                   f"{retry} s")

    async def _refuse(self, client: str, reason: str, problem: Callable[[float], Problem]) -> NoReturn:
        """Raise ``problem(seconds held)``: at once, or held (see the module's docstring) when ``client`` comes
        back before its last refusal's ``Retry-After``; remember when this one tells it to come back."""
        self.refused[reason] += 1
        now = self._clock()
        due = self._told.get(client)
        hold = 0.0
        if due is not None and due > now and self.refusal_hold_seconds > 0 and self.held < MAX_HELD_REFUSALS:
            # Jittered: the refusals of a client's connections, held together, are not answered all at once.
            hold = min(self.refusal_hold_seconds, due - now) * random.uniform(0.5, 1.0)
        if hold > 0:
            self.held += 1
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), hold)
            finally:
                self.held -= 1
        answer = problem(hold)
        retry = answer.headers.get("Retry-After", "1")
        self._told[client] = self._clock() + (int(retry) if retry.isdigit() else 1)
        self._told.move_to_end(client)
        while len(self._told) > MAX_TOLD_CLIENTS:
            self._told.popitem(last=False)
        raise answer

    def _over_budget(self, playouts: int, spent: int, reset_after: float) -> Callable[[float], Problem]:
        def problem(held: float) -> Problem:
            retry = max(1, math.ceil(reset_after - held))
            report_quota(PLAYOUT_POLICY, quota=self.playouts_per_minute, window_seconds=self.window_seconds,
                         remaining=self.playouts_per_minute - spent, reset_after=reset_after - held,
                         retry_after=retry)
            return Problem("RATE_LIMITED", f"this client may spend {self.playouts_per_minute} playouts per "
                                           f"{self.window_seconds:g} s and has {spent} spent in this window; "
                                           f"this search asks for {playouts}. Retry after {retry} s, or ask for "
                                           f"a smaller budget",
                           headers={"Retry-After": str(retry)}, message=("problem.RATE_LIMITED.detail",
                                                                          {"count": retry}))
        return problem

    @contextlib.asynccontextmanager
    async def admitted(self, client: str, playouts: int,
                       gone: Callable[[], Awaitable[None]] | None = None) -> AsyncIterator[Admission]:
        """A suggestion or hint of up to ``playouts`` playouts for ``client``, admitted: its playouts charged
        (:meth:`charged`) and its place among the searches taken, after waiting its turn in the queue
        (:meth:`placed`); run it with :meth:`Admission.run`. 503 ``NOT_READY`` when every search place and queue
        place is taken, 429 ``RATE_LIMITED`` when the playouts do not fit in the client's budget (both before
        anything is done, so a refusal costs little; held when the client did not wait out its last refusal).
        On leaving, the place is freed and what was not spent given back. ``gone``: returns when the client went
        away (e.g. ``lambda: until_disconnected(receive)``); the search is then cancelled, waiting or running."""
        async with self.charged(client, playouts) as admission, self.placed(admission, client, gone):
            yield admission

    @contextlib.asynccontextmanager
    async def charged(self, client: str, playouts: int) -> AsyncIterator[Admission]:
        """The first half of :meth:`admitted`: the refusals (503 when the replica is full, 429 when the playouts
        do not fit) and the charge, given back on leaving but for what :meth:`Admission.spend` says was spent.
        A caller may prepare its search (open a snapshot) between this and :meth:`placed`."""
        if self.slots.full():
            await self._refuse(client, "busy", self._busy)
        charged = 0
        if playouts > 0 and self.playouts_per_minute > 0 and self.budget is not None:
            decision = await self.budget.charge(client, playouts, self.playouts_per_minute, self.window_seconds)
            if not decision.allowed:
                await self._refuse(client, "budget", self._over_budget(playouts, decision.spent,
                                                                        decision.reset_after))
            self._report(decision)
            charged = playouts
        admission = Admission(self, charged)
        try:
            yield admission
        finally:
            if charged > admission.spent:
                after = await self.budget.refund(client, charged - admission.spent)  # type: ignore[union-attr]
                if after is not None:
                    self._report(after)

    def _report(self, decision: BudgetDecision) -> None:
        """The client's playouts after a charge or a refund, for the answer's RateLimit fields (none when the budget
        failed open)."""
        if decision.measured:
            report_quota(PLAYOUT_POLICY, quota=self.playouts_per_minute, window_seconds=self.window_seconds,
                         remaining=self.playouts_per_minute - decision.spent, reset_after=decision.reset_after)

    @contextlib.asynccontextmanager
    async def placed(self, admission: Admission, client: str,
                     gone: Callable[[], Awaitable[None]] | None = None) -> AsyncIterator[Admission]:
        """The second half of :meth:`admitted`: a place among the searches (503 if the queue filled meanwhile),
        after waiting its turn; freed on leaving. ``gone``: as for :meth:`admitted`."""
        watcher = None if gone is None else asyncio.ensure_future(gone())
        admission.watcher = watcher
        try:
            if self.slots.full():  # filled while the budget was charged or the search prepared
                await self._refuse(client, "busy", self._busy)
            queued = time.monotonic()
            await self._acquire(watcher)
            self.wait_seconds.observe(time.monotonic() - queued)
            self.started += 1
            try:
                yield admission
            finally:
                self.slots.release()
        finally:
            if watcher is not None:
                watcher.cancel()

    async def _acquire(self, watcher: asyncio.Future[None] | None) -> None:
        """A place, or :func:`_gone` when ``watcher`` says the client went away first (its queue place given
        up: it never starts). The queue place is taken at once (no other request can take it meanwhile)."""
        if watcher is None:
            await self.slots.acquire()
            return
        waiter = self.slots.enter()
        if waiter is None:
            return
        try:
            await asyncio.wait((waiter, watcher), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            self.slots.leave(waiter)
            raise
        if waiter.done() and not waiter.cancelled():
            return
        self.slots.leave(waiter)
        self.cancelled["queued"] += 1
        raise _gone()

    async def search(self, client: str, playouts: int, fn: Callable[..., T], *args: Any,
                     spent: Callable[[T], int] | None = None,
                     gone: Callable[[], Awaitable[None]] | None = None) -> T:
        """``fn(*args)`` as an admitted search (:meth:`admitted`); ``spent(result)`` is what it used."""
        async with self.admitted(client, playouts, gone) as admission:
            result = await admission.run(fn, *args)
            admission.spend(playouts if spent is None else spent(result))
            return result


def _gone() -> Problem:
    return busy_problem(1, "the client went away; its search was cancelled")


class Admission:
    """An admitted search: run it once in the hint lane, and say what it spent (the charge is kept until then)."""

    def __init__(self, pool: SearchPool, charged: int, watcher: asyncio.Future[None] | None = None) -> None:
        self.pool = pool
        self.charged = charged
        self.watcher = watcher
        #: What stays charged: all of it unless :meth:`spend` says less (nothing when the search failed).
        self.spent = 0

    def spend(self, playouts: int) -> None:
        self.spent = min(self.charged, max(0, playouts))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the hint lane: 503 ``NOT_READY`` if its worker dies (or the lane stopped), or if the
        client goes away meanwhile (the search is then interrupted in its worker)."""
        pool = self.pool
        if self.watcher is not None and self.watcher.done():  # gone as its place came: it never starts
            pool.cancelled["queued"] += 1
            raise _gone()
        started = time.monotonic()
        running = asyncio.ensure_future(pool.hints.run(fn, *args))
        try:
            if self.watcher is not None:
                await asyncio.wait((running, self.watcher), return_when=asyncio.FIRST_COMPLETED)
                if not running.done():  # the client went away
                    running.cancel()  # interrupts it in its worker (SearchLane.run)
                    await asyncio.wait((running,))
                    if not running.cancelled():
                        running.exception()  # retrieved: whatever it ended with, nobody is waiting for it
                    pool.cancelled["running"] += 1
                    raise _gone()
            result = await running
        except BrokenProcessPool:
            pool.refused["worker"] += 1
            raise busy_problem(1, "the worker searching this suggestion stopped; nothing was searched; retry "
                                  "after 1 s") from None
        except SearchCancelled:  # interrupted though its client is still there (not expected): never a 500
            pool.refused["worker"] += 1
            raise busy_problem(1, "the search was interrupted; retry after 1 s") from None
        finally:
            if not running.done():  # this request's own task was cancelled
                running.cancel()
        elapsed = time.monotonic() - started
        self.spent = self.charged
        pool.search_seconds.observe(elapsed)
        pool.mean_seconds += _MEAN_WEIGHT * (elapsed - pool.mean_seconds)
        return result
