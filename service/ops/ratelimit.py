"""Per-client rate limiting: a fixed window of ``limit`` requests per ``window_seconds``.

A client is its API key when it sends one, else its address (see :mod:`service.ops.clients`). Over the limit
the middleware answers ``429`` with an RFC 9457 body (``code: RATE_LIMITED``) and ``Retry-After`` in whole
seconds. ``/healthz``, ``/readyz`` and ``/metrics`` are never limited.

Two backends share the small :class:`RateLimitBackend` interface:

* :class:`MemoryRateLimitBackend`: a dict in this process, pruned as windows end. Right for one replica.
* :class:`RedisRateLimitBackend`: one atomic Lua call per request (``INCR``, ``PEXPIRE``, ``PTTL``), so
  every replica draws on the same budget. If Redis fails or is slow the request is let through (fail open: an
  outage of the limiter must not become an outage of the API) and ``on_error("ratelimit")`` is called, which
  is where :meth:`service.ops.metrics.ServiceMetrics.redis_error` goes.

Wiring (``RATE_LIMIT_PER_MINUTE=0`` means off; :class:`RateLimitMiddleware` passes everything when
``limit <= 0``)::

    from litestar.middleware import DefineMiddleware
    from service.ops.ratelimit import MemoryRateLimitBackend, RateLimitMiddleware, RedisRateLimitBackend

    backend = (
        RedisRateLimitBackend(redis_client, on_error=metrics.redis_error)
        if redis_client is not None
        else MemoryRateLimitBackend()
    )
    Litestar(
        ...,
        middleware=[
            DefineMiddleware(
                RateLimitMiddleware,
                backend=backend,
                limit=settings.rate_limit_per_minute,
                window_seconds=60,
                known_api_keys=settings.api_keys,
            ),
            ...,  # ApiKeyMiddleware after it, so key guessing is itself rate limited by address
        ],
    )

Put it in Litestar's ``middleware=[...]`` (not :func:`service.ops.asgi.wrap_asgi_handler`) so that Litestar's
CORS layer adds its headers to the 429 and a browser can read ``Retry-After``.

**Every client sees its budget before it is refused.** Each answer of a limited request carries the IETF
RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11, structured fields): ``RateLimit-Policy`` names each
policy with its quota and window, ``RateLimit`` what is left of it and the seconds until its window ends::

    RateLimit-Policy: "default";q=600;w=60, "playouts";q=20000;w=60
    RateLimit: "default";r=598;t=41, "playouts";r=19490;t=37

A request's readings are gathered in a :class:`QuotaReport` while it is served: the request limit's from the
count that let it through (the backend's one call: no other round trip), and any other limit's through
:func:`report_quota` (the search pool's playout budget does, from its charge and from what it gives back), and
written on the answer as it starts, whatever its status. The limit's own 429 says ``r=0`` and a ``t`` equal to its
``Retry-After``. A reading the limiter could not take (Redis down: the request is let through) is left out, so
when a limit fails open its policy is not shown; a limit that is off (``limit <= 0``) is never shown.
:class:`QuotaReportMiddleware` gathers the readings of some operations only (the searches) when the request limit
is off.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, Protocol

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from redis.asyncio import Redis, RedisCluster
from redis.exceptions import RedisError

from service.i18n import request_language
from service.ops.redis_compat import cluster_slots_stale
from service.web.problems import make_problem, send_problem

from .clients import API_KEY_HEADER, OPERATIONAL_PATHS, client_identity

__all__ = [
    "PLAYOUT_POLICY",
    "REQUEST_POLICY",
    "MemoryRateLimitBackend",
    "QuotaReport",
    "QuotaReportMiddleware",
    "RateLimitBackend",
    "RateLimitDecision",
    "RateLimitMiddleware",
    "RedisRateLimitBackend",
    "SessionCreationLimitMiddleware",
    "report_quota",
    "whole_seconds",
]

logger = logging.getLogger("fivehundred.ops.ratelimit")


#: The request limit's policy in the RateLimit fields; the search pool's playout budget is :data:`PLAYOUT_POLICY`.
REQUEST_POLICY = "default"
PLAYOUT_POLICY = "playouts"


def whole_seconds(seconds: float) -> int:
    """Seconds as ``Retry-After`` and a RateLimit ``t`` give them: whole, rounded up, never below 1.

    >>> whole_seconds(40.2), whole_seconds(0.0), whole_seconds(60)
    (41, 1, 60)
    """
    return max(1, math.ceil(seconds))


@dataclass(frozen=True, slots=True)
class RateLimitDecision:
    """The outcome of counting one request against a client's window."""

    allowed: bool
    count: int
    """Requests counted in the current window, this one included (0 when the limiter failed open)."""
    reset_after: float
    """Seconds until the current window ends."""
    measured: bool = True
    """False when the limiter failed open: nothing was counted, and there is nothing to report."""

    @property
    def retry_after(self) -> int:
        """``Retry-After`` in whole seconds, never below 1."""
        return whole_seconds(self.reset_after)


#: A policy's name as the fields quote it, and its ``RateLimit-Policy`` item, by (name, quota, window): the same
#: few for every request.
_POLICY_ITEMS: dict[tuple[str, int, int], tuple[bytes, bytes]] = {}
#: A reading: the policy's name (quoted, as in the fields), its ``RateLimit-Policy`` item, what is left, when the
#: window ends (the report's clock), and the ``t`` a refusal pinned (its ``Retry-After``) or 0.
_Reading = tuple[bytes, bytes, int, float, int]


def _policy_item(name: str, quota: int, window: int) -> tuple[bytes, bytes]:
    item = _POLICY_ITEMS.get((name, quota, window))
    if item is None:
        if len(_POLICY_ITEMS) > 64:  # a few policies live at once; a configuration that keeps changing: start over
            _POLICY_ITEMS.clear()
        quoted = b'"%s"' % name.encode()
        item = _POLICY_ITEMS[name, quota, window] = (quoted, b"%s;q=%d;w=%d" % (quoted, quota, window))
    return item


class QuotaReport:
    """The quota readings of one request, written on its answer as the RateLimit fields (see the module).

    >>> report = QuotaReport(clock=lambda: 100.0)
    >>> report.add("default", quota=600, window_seconds=60, remaining=598, reset_after=40.2)
    >>> report.add("playouts", quota=20000, window_seconds=60, remaining=0, reset_after=7.5, retry_after=8)
    >>> for name, value in report.headers():
    ...     print(name.decode(), value.decode())
    ratelimit-policy "default";q=600;w=60, "playouts";q=20000;w=60
    ratelimit "default";r=598;t=41, "playouts";r=0;t=8
    """

    __slots__ = ("_clock", "readings")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.readings: list[_Reading] = []
        self._clock = clock

    def add(self, name: str, *, quota: int, window_seconds: float, remaining: int, reset_after: float,
            retry_after: int | None = None) -> None:
        """The state of policy ``name`` now (a later reading of one policy replaces its earlier one): ``remaining``
        of ``quota`` units in a window of ``window_seconds``, which ends in ``reset_after`` seconds; ``retry_after``:
        the ``Retry-After`` of a refusal, which its ``t`` then says exactly."""
        quoted, policy = _policy_item(name, quota, max(1, round(window_seconds)))
        reading = (quoted, policy, max(0, remaining), self._clock() + reset_after, retry_after or 0)
        readings = self.readings
        for i, other in enumerate(readings):
            if other[0] == quoted:
                readings[i] = reading
                return
        readings.append(reading)

    def headers(self) -> list[tuple[bytes, bytes]]:
        """``RateLimit-Policy`` and ``RateLimit``, ``t`` counted to now; none without a reading."""
        readings = self.readings
        if not readings:
            return []
        now = self._clock()
        if len(readings) == 1:
            quoted, policy, left, deadline, pinned = readings[0]
            return [(b"ratelimit-policy", policy),
                    (b"ratelimit", b"%s;r=%d;t=%d" % (quoted, left, pinned or whole_seconds(deadline - now)))]
        return [(b"ratelimit-policy", b", ".join(r[1] for r in readings)),
                (b"ratelimit", b", ".join(b"%s;r=%d;t=%d" % (quoted, left, pinned or whole_seconds(deadline - now))
                                          for quoted, _, left, deadline, pinned in readings))]


_current_report: contextvars.ContextVar[QuotaReport | None] = contextvars.ContextVar("quota_report", default=None)


def report_quota(name: str, *, quota: int, window_seconds: float, remaining: int, reset_after: float,
                 retry_after: int | None = None) -> None:
    """Add a reading to the report of the request being served (:meth:`QuotaReport.add`), if one is gathered."""
    report = _current_report.get()
    if report is not None:
        report.add(name, quota=quota, window_seconds=window_seconds, remaining=remaining, reset_after=reset_after,
                   retry_after=retry_after)


async def _served_with_report(app: ASGIApp, scope: Scope, receive: Receive, send: Send, report: QuotaReport) -> None:
    """``app`` serving the request with ``report`` gathered, its fields written on the answer as it starts."""

    async def send_with_fields(message: Message) -> None:
        if message["type"] == "http.response.start":
            fields = report.headers()
            if fields:
                message = {**message, "headers": [*message.get("headers", ()), *fields]}
        await send(message)

    token = _current_report.set(report)
    try:
        await app(scope, receive, send_with_fields)
    finally:
        _current_report.reset(token)


class RateLimitBackend(Protocol):
    """Counts a request for ``key`` and says whether it fits in ``limit`` per ``window_seconds``."""

    async def hit(self, key: str, limit: int, window_seconds: float) -> RateLimitDecision: ...


class MemoryRateLimitBackend:
    """Fixed windows kept in a dict of this process; for a single replica or for tests.

    A window starts at a client's first request and lasts ``window_seconds``. Entries are kept in the order
    their windows started, so ended windows are pruned from the front in amortised O(1). If more than
    ``max_clients`` windows are live at once the oldest are dropped (those clients get a fresh budget: memory
    is bounded whatever the traffic).
    """

    def __init__(self, *, max_clients: int = 100_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._windows: dict[str, tuple[float, int]] = {}
        self._max_clients = max_clients
        self._clock = clock

    def __len__(self) -> int:
        return len(self._windows)

    async def hit(self, key: str, limit: int, window_seconds: float) -> RateLimitDecision:
        now = self._clock()
        self._prune(now, window_seconds)
        started, count = self._windows.get(key, (now, 0))
        if now - started >= window_seconds:
            started, count = now, 0
        count += 1
        if count == 1:
            # Re-insert so dict order stays the order in which windows started.
            self._windows.pop(key, None)
        self._windows[key] = (started, count)
        return RateLimitDecision(allowed=count <= limit, count=count, reset_after=started + window_seconds - now)

    def _prune(self, now: float, window_seconds: float) -> None:
        windows = self._windows
        while windows:
            oldest_key = next(iter(windows))
            started, _ = windows[oldest_key]
            if now - started < window_seconds and len(windows) < self._max_clients:
                break
            del windows[oldest_key]


# One round trip, atomic on the server: count, start the window's expiry on the first hit (or repair a key
# that somehow lost its TTL), and report how long the window has left.
_FIXED_WINDOW_LUA = """
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
"""


#: Seconds a cluster client may take to learn the cluster's nodes and slots before a count.
CLUSTER_INITIALIZE_TIMEOUT = 5.0


class RedisRateLimitBackend:
    """Fixed windows in Redis, shared by every replica that uses the same ``prefix``.

    ``client`` is a ``redis.asyncio.Redis`` or ``RedisCluster`` (each counter is one key, so one slot); give it
    modest ``socket_timeout``/``socket_connect_timeout``.
    Each call is additionally bounded by ``timeout`` seconds; on any Redis error or timeout the request is
    allowed and ``on_error("ratelimit")`` is called.
    """

    operation = "ratelimit"

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        prefix: str = "fh:ratelimit",
        timeout: float = 0.5,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self._script = client.register_script(_FIXED_WINDOW_LUA)
        self._prefix = prefix
        self._timeout = timeout
        self._on_error = on_error

    async def hit(self, key: str, limit: int, window_seconds: float) -> RateLimitDecision:
        window_ms = max(1, int(window_seconds * 1000))
        try:
            if isinstance(self.client, RedisCluster) and cluster_slots_stale(self.client):
                # A cluster client first learns the nodes and slots (a few round trips, once, and again after
                # a node failed): not within the bound of one request's count.
                async with asyncio.timeout(CLUSTER_INITIALIZE_TIMEOUT):
                    await self.client.initialize()
            async with asyncio.timeout(self._timeout):
                result = await self._script(keys=[f"{self._prefix}:{key}"], args=[window_ms])
            count, ttl_ms = int(result[0]), int(result[1])
        except (RedisError, OSError, TimeoutError, ValueError, TypeError, IndexError) as exc:
            logger.warning(
                "rate limiter unavailable, failing open: %s",
                type(exc).__name__,
                extra={"operation": "ratelimit"},
            )
            if self._on_error is not None:
                self._on_error(self.operation)
            return RateLimitDecision(allowed=True, count=0, reset_after=0.0, measured=False)
        return RateLimitDecision(allowed=count <= limit, count=count, reset_after=ttl_ms / 1000)


class RateLimitMiddleware:
    """ASGI middleware applying a :class:`RateLimitBackend` to every HTTP request but the exempt paths, and
    writing the RateLimit fields on each answer it lets through or refuses (the module).

    ``limit <= 0`` disables limiting. ``known_api_keys``: when given, only those keys identify a client (an
    unknown ``X-API-Key`` counts against the caller's address; with an empty collection every client is
    counted by address). Pass the configured ``API_KEYS``: an unchecked header value would let a caller mint
    a fresh budget per request. ``None`` trusts any key value (tests, or when keys are checked upstream).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        backend: RateLimitBackend,
        limit: int,
        window_seconds: float = 60.0,
        exempt_paths: Collection[str] = OPERATIONAL_PATHS,
        api_key_header: str = API_KEY_HEADER,
        known_api_keys: Collection[str] | None = None,
    ) -> None:
        self.app = app
        self.backend = backend
        self.limit = limit
        self.window_seconds = window_seconds
        self.exempt_paths = frozenset(exempt_paths)
        self.api_key_header = api_key_header
        self.known_api_keys = None if known_api_keys is None else tuple(known_api_keys)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or self.limit <= 0 or scope["path"] in self.exempt_paths:
            await self.app(scope, receive, send)
            return
        key = client_identity(scope, api_key_header=self.api_key_header, known_api_keys=self.known_api_keys)
        report = QuotaReport()
        try:
            decision = await self.backend.hit(key, self.limit, self.window_seconds)
        except Exception:  # a limiter bug must not take the API down: fail open, loudly
            logger.exception("rate limiter failed, failing open")
            await _served_with_report(self.app, scope, receive, send, report)
            return
        retry_after = None if decision.allowed else decision.retry_after
        if decision.measured:
            report.add(REQUEST_POLICY, quota=self.limit, window_seconds=self.window_seconds,
                       remaining=self.limit - decision.count, reset_after=decision.reset_after,
                       retry_after=retry_after)
        if retry_after is None:
            await _served_with_report(self.app, scope, receive, send, report)
            return
        problem = make_problem(
            slug="rate-limited",
            title="Too many requests",
            code="RATE_LIMITED",
            detail=(
                f"This client may make {self.limit} requests per {self.window_seconds:g} s; "
                f"retry after {retry_after} s."
            ),
            language=request_language(scope), instance=scope["path"],
            params={"count": retry_after},
        )
        await send_problem(send, problem, headers=[(b"retry-after", str(retry_after).encode()), *report.headers()])


class QuotaReportMiddleware:
    """Gathers the quota readings of the requests to ``operations`` (operation ids: the searches, which the playout
    budget reports to) and writes them on their answers (the module), for an app whose request limit is off (with
    it on, :class:`RateLimitMiddleware` gathers every limited request's). Every other request passes through
    untouched, in one call and no frame of its own."""

    def __init__(self, app: ASGIApp, *, operations: Collection[str]) -> None:
        self.app = app
        self.operations = frozenset(operations)

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        handler = scope.get("route_handler")
        if getattr(handler, "operation_id", None) in self.operations:
            return _served_with_report(self.app, scope, receive, send, QuotaReport())
        return self.app(scope, receive, send)


class SessionCreationLimitMiddleware:
    """Bounds ``POST /v1/sessions`` per client and overall, each in fixed windows of ``window_seconds``.

    A session is cheap to create and is kept for a day, so creations get budgets of their own, tighter than
    the general request limit: ``per_client`` per client (its API key, or its address; over it ``429
    RATE_LIMITED`` with ``Retry-After``) and ``total`` for all clients together (over it ``503
    STORE_UNAVAILABLE`` with ``Retry-After``: the store takes no more new sessions for now; moves go on).
    Either is off at ``0``. The counts live in the same backend as the general limit (Redis when configured,
    so the budgets are shared by every replica; a failing backend lets creations through).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        backend: RateLimitBackend,
        per_client: int,
        total: int,
        window_seconds: float = 60.0,
        path: str = "/v1/sessions",
        api_key_header: str = API_KEY_HEADER,
        known_api_keys: Collection[str] | None = None,
    ) -> None:
        self.app = app
        self.backend = backend
        self.per_client = per_client
        self.total = total
        self.window_seconds = window_seconds
        self.paths = frozenset({path, path + "/"})
        self.api_key_header = api_key_header
        self.known_api_keys = None if known_api_keys is None else tuple(known_api_keys)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope.get("method") != "POST" or scope["path"] not in self.paths:
            await self.app(scope, receive, send)
            return
        try:
            refusal = await self._refusal(scope)
        except Exception:  # a limiter bug must not take creation down: fail open, loudly
            logger.exception("session creation limiter failed, failing open")
            refusal = None
        if refusal is None:
            await self.app(scope, receive, send)
            return
        problem, retry_after = refusal
        await send_problem(send, problem, headers=[(b"retry-after", str(retry_after).encode())])

    async def _refusal(self, scope: Scope) -> tuple[Any, int] | None:
        if self.per_client > 0:
            key = client_identity(scope, api_key_header=self.api_key_header, known_api_keys=self.known_api_keys)
            mine = await self.backend.hit("create:" + key, self.per_client, self.window_seconds)
            if not mine.allowed:
                return make_problem(
                    slug="rate-limited", title="Too many requests", code="RATE_LIMITED",
                    detail=(f"This client may create {self.per_client} sessions per {self.window_seconds:g} s; "
                            f"retry after {mine.retry_after} s."),
                    language=request_language(scope), instance=scope["path"],
                    params={"count": mine.retry_after}), mine.retry_after
        if self.total > 0:
            everyone = await self.backend.hit("create:all", self.total, self.window_seconds)
            if not everyone.allowed:
                return make_problem(
                    slug="store-unavailable", title="Session store unavailable",
                    code="STORE_UNAVAILABLE",
                    detail=(f"The service creates at most {self.total} sessions per {self.window_seconds:g} s "
                            f"for all clients; retry after {everyone.retry_after} s."),
                    language=request_language(scope), instance=scope["path"]), everyone.retry_after
        return None
