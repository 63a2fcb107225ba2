"""Per-client playout budgets: how much search one client may ask of the service per minute.

A suggestion or hint at level ``expert`` spends up to its ``budget`` of playouts (each one sampled deal played
out for one candidate move), a cost that one request may raise a thousandfold. The request rate limit
(:mod:`service.ops.ratelimit`) counts requests, so it cannot bound that: this counts playouts. Each client (its
API key, else its address: :mod:`service.ops.clients`) may spend ``limit`` playouts per fixed window of
``window_seconds``; a request whose playouts do not fit in what is left of the window is refused (429
``RATE_LIMITED`` with ``Retry-After``, the seconds until the window ends) and spends nothing, so a client
asking for less still fits. A request is charged its whole budget before it is searched (what it may cost), and
given back what it did not use afterwards. Both the charge and the refund answer the window's state after them
(what is spent, when the window ends), read by the same atomic operation that changed it, which the search pool
reports in the answer's RateLimit fields (:func:`service.ops.ratelimit.report_quota`).

Two backends, like the request limit's:

* :class:`MemoryPlayoutBudget`: a dict in this process (one replica, or tests);
* :class:`RedisPlayoutBudget`: one atomic Lua call per charge, shared by every replica; if Redis fails or is
  slow the request is let through (fail open) and ``on_error("playouts")`` is called.

>>> import asyncio
>>> budget = MemoryPlayoutBudget(clock=lambda: 100.0)
>>> [asyncio.run(budget.charge("ip:10.0.0.7", 3000, 5000, 60)).allowed for _ in range(2)]
[True, False]
>>> asyncio.run(budget.charge("ip:10.0.0.7", 2000, 5000, 60)).allowed
True
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import RedisError

from service.ops.redis_compat import cluster_slots_stale

__all__ = ["BudgetDecision", "MemoryPlayoutBudget", "PlayoutBudget", "RedisPlayoutBudget"]

logger = logging.getLogger("fivehundred.ops.playouts")

#: Seconds a cluster client may take to learn the cluster's nodes and slots before a charge.
CLUSTER_INITIALIZE_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class BudgetDecision:
    """The outcome of charging playouts to a client's window."""

    allowed: bool
    spent: int
    """Playouts counted in the current window (this charge included when allowed)."""
    reset_after: float
    """Seconds until the current window ends."""
    measured: bool = True
    """False when the budget failed open: nothing was charged, and there is nothing to report."""

    @property
    def retry_after(self) -> int:
        """``Retry-After`` in whole seconds, never below 1."""
        return max(1, math.ceil(self.reset_after))


class PlayoutBudget(Protocol):
    """Charges ``amount`` playouts to ``key`` if they fit in ``limit`` per ``window_seconds``; gives some back,
    answering what is then spent in the window (``None`` when that is not known: no window, or the budget
    failed)."""

    async def charge(self, key: str, amount: int, limit: int, window_seconds: float) -> BudgetDecision: ...

    async def refund(self, key: str, amount: int) -> BudgetDecision | None: ...


class MemoryPlayoutBudget:
    """Fixed windows in a dict of this process, pruned as they end; at most ``max_clients`` live windows (the
    oldest are dropped beyond: memory stays bounded whatever the traffic)."""

    def __init__(self, *, max_clients: int = 100_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._windows: dict[str, tuple[float, int]] = {}
        self._max_clients = max_clients
        self._clock = clock
        self._window_seconds = 60.0

    def __len__(self) -> int:
        return len(self._windows)

    async def charge(self, key: str, amount: int, limit: int, window_seconds: float) -> BudgetDecision:
        now = self._clock()
        self._window_seconds = window_seconds
        self._prune(now)
        started, spent = self._windows.get(key, (now, 0))
        if now - started >= window_seconds:
            started, spent = now, 0
        reset_after = started + window_seconds - now
        if spent + amount > limit:
            return BudgetDecision(allowed=False, spent=spent, reset_after=reset_after)
        if spent == 0:
            self._windows.pop(key, None)  # re-inserted last: dict order stays the order windows started in
        self._windows[key] = (started, spent + amount)
        return BudgetDecision(allowed=True, spent=spent + amount, reset_after=reset_after)

    async def refund(self, key: str, amount: int) -> BudgetDecision | None:
        entry = self._windows.get(key)
        now = self._clock()
        if entry is None or now - entry[0] >= self._window_seconds:  # the next charge opens a new window
            return None
        started, spent = entry
        if amount > 0:
            spent = max(0, spent - amount)
            self._windows[key] = (started, spent)
        return BudgetDecision(allowed=True, spent=spent, reset_after=started + self._window_seconds - now)

    def _prune(self, now: float) -> None:
        windows = self._windows
        while windows:
            oldest = next(iter(windows))
            started, _ = windows[oldest]
            if now - started < self._window_seconds and len(windows) < self._max_clients:
                break
            del windows[oldest]


# Atomic on the server: refuse (spending nothing) when the amount does not fit, else add it and start the
# window's expiry on its first charge (or repair a key that lost its TTL). Answers {allowed, spent, ttl_ms}.
_CHARGE_LUA = """
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = tonumber(ARGV[1]) end
if spent + tonumber(ARGV[2]) > tonumber(ARGV[3]) then
  return {0, spent, ttl}
end
spent = redis.call('INCRBY', KEYS[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return {1, spent, ttl}
"""

# Give back what a search did not use, never below zero, only while the window lasts. Answers {spent, ttl_ms}
# after it (ttl_ms negative when the window has ended: nothing to give back).
_REFUND_LUA = """
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent > 0 then
  spent = redis.call('DECRBY', KEYS[1], math.min(spent, tonumber(ARGV[1])))
end
return {spent, redis.call('PTTL', KEYS[1])}
"""


class RedisPlayoutBudget:
    """Fixed windows in Redis, shared by every replica using the same ``prefix``; each call bounded by
    ``timeout`` seconds, failing open (and calling ``on_error("playouts")``) on any Redis error."""

    operation = "playouts"

    def __init__(self, client: Redis | RedisCluster, *, prefix: str = "fh:playouts", timeout: float = 0.5,
                 on_error: Callable[[str], None] | None = None) -> None:
        self.client = client
        self._charge = client.register_script(_CHARGE_LUA)
        self._refund = client.register_script(_REFUND_LUA)
        self._prefix = prefix
        self._timeout = timeout
        self._on_error = on_error

    def _failed(self, exc: BaseException) -> None:
        logger.warning("playout budget unavailable, failing open: %s", type(exc).__name__,
                       extra={"operation": self.operation})
        if self._on_error is not None:
            self._on_error(self.operation)

    async def charge(self, key: str, amount: int, limit: int, window_seconds: float) -> BudgetDecision:
        window_ms = max(1, int(window_seconds * 1000))
        try:
            if isinstance(self.client, RedisCluster) and cluster_slots_stale(self.client):
                async with asyncio.timeout(CLUSTER_INITIALIZE_TIMEOUT):  # learning the slots: a few round trips
                    await self.client.initialize()
            async with asyncio.timeout(self._timeout):
                result = await self._charge(keys=[f"{self._prefix}:{key}"], args=[window_ms, amount, limit])
            allowed, spent, ttl_ms = int(result[0]), int(result[1]), int(result[2])
        except (RedisError, OSError, TimeoutError, ValueError, TypeError, IndexError) as exc:
            self._failed(exc)
            return BudgetDecision(allowed=True, spent=0, reset_after=0.0, measured=False)
        return BudgetDecision(allowed=bool(allowed), spent=spent, reset_after=ttl_ms / 1000)

    async def refund(self, key: str, amount: int) -> BudgetDecision | None:
        if amount <= 0:
            return None
        try:
            async with asyncio.timeout(self._timeout):
                result = await self._refund(keys=[f"{self._prefix}:{key}"], args=[amount])
            spent, ttl_ms = int(result[0]), int(result[1])
        except (RedisError, OSError, TimeoutError, ValueError, TypeError, IndexError) as exc:
            self._failed(exc)
            return None
        if ttl_ms < 0:  # the window ended meanwhile: the next charge opens a new one
            return None
        return BudgetDecision(allowed=True, spent=spent, reset_after=ttl_ms / 1000)
