"""The app factory: ``uvicorn --factory service.app:create_app`` (configuration from the environment).

One app serves everything: the rules catalogue, the stateless games, the hosted sessions (``/v1/sessions``),
and the operational endpoints ``/healthz``, ``/readyz`` and ``/metrics``; around them the ops layer of
:mod:`service.ops` (JSON logs with request ids, request metrics, in-flight tracking for graceful shutdown,
CORS, API keys, rate limits).

>>> from litestar.testing import TestClient
>>> with TestClient(create_app(Settings(snapshot_keys=(bytes(32),), log_level="WARNING"))) as client:
...     client.get("/v1/rules").json()["kitty_size"], client.get("/healthz").json()
(3, {'status': 'ok'})
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Litestar, Router
from litestar.datastructures import State
from litestar.di import Provide
from litestar.middleware import DefineMiddleware
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from engine import Options, new_game
from service.config import Settings, load_settings
from service.demo import demo_router
from service.games.analysis import AnalysisController
from service.games.api import GamesController
from service.games.catalogue import RulesController
from service.games.records import RecordsController
from service.games.suggest import SuggestController
from service.i18n.openapi import language_parameters
from service.ops.apikeys import ApiKeyMiddleware
from service.ops.cors import build_cors_config
from service.ops.envelope import wrap_in_envelope
from service.ops.health import ReadinessCheck, health_route_handlers
from service.ops.logging import json_logging_config
from service.ops.metrics import ServiceMetrics, metrics_route_handler
from service.ops.ratelimit import (
    MemoryRateLimitBackend,
    QuotaReportMiddleware,
    RateLimitBackend,
    RateLimitMiddleware,
    RedisRateLimitBackend,
    SessionCreationLimitMiddleware,
)
from service.ops.shutdown import ShutdownCoordinator
from service.referee.playouts import MemoryPlayoutBudget, PlayoutBudget, RedisPlayoutBudget
from service.referee.search import SEARCH_OPERATIONS, SearchPool
from service.referee.snapshots import Sealer
from service.sessions import SessionsComponent, build_sessions
from service.sessions.guards import token_before_body
from service.sessions.records import SessionRecordController
from service.sessions.redis_store import is_cluster_url, redis_client
from service.web.exception_handlers import exception_handlers
from service.web.fastpath import FastRoute
from service.web.media import require_json
from service.web.openapi import ExactStructSchemaPlugin, openapi_config, swagger_assets_router
from service.web.problems import Problem, ProblemDetails
from service.web.query import QueryParameterMiddleware

logger = logging.getLogger("fivehundred.snapshots")

#: Recent snapshots kept per process (a few MB): a client sending back the snapshot this replica just gave it
#: (or one it opened before) skips decryption, decoding and the integrity check. See service/referee/snapshots.py.
SNAPSHOT_CACHE_SIZE = 2048

#: Prefix of every Redis key the app writes: sessions, and the rate-limit counters (``fh:ratelimit:…``).
SESSION_KEY_PREFIX = "fh:"
#: Seconds between heartbeat comments on an idle event stream.
EVENT_HEARTBEAT_SECONDS = 15.0

GENERATED_KEY_WARNING = (
    "SNAPSHOT_KEYS is not set: sealing snapshots with a key generated at start. Snapshots will not survive a "
    "restart and will not open on other replicas. Set SNAPSHOT_KEYS (comma-separated base64url 32-byte keys; "
    "the first seals, all open) in production."
)


def _snapshot_keys_check(keys: list[bytes]) -> ReadinessCheck:
    """Readiness: the snapshot keys are loaded and work (a sealed state opens again, decrypted in full)."""
    probe = Sealer(keys)  # no cache: every probe really encrypts, decrypts and checks integrity
    state, _ = new_game(Options(), seed=0)

    async def snapshot_keys() -> bool:
        return probe.open(probe.seal(state)) == state

    return snapshot_keys


def _rate_limit_backend(settings: Settings, metrics: ServiceMetrics,
                        key_prefix: str) -> tuple[RateLimitBackend, Redis | None]:
    """Redis fixed windows shared by every replica when ``REDIS_URL`` is set, else this process's memory."""
    if not settings.redis_url:
        return MemoryRateLimitBackend(), None
    client = _redis_limiter_client(settings.redis_url)
    return RedisRateLimitBackend(client, prefix=key_prefix + "ratelimit", on_error=metrics.redis_error), client


def _redis_limiter_client(url: str) -> Any:
    # Each call is bounded by the backend's own timeout (0.5 s, then it fails open); no per-socket timeout.
    # A Redis Cluster URL gets the cluster client (each counter is one key, so one slot).
    return (redis_client(url, connect_timeout=0.5) if is_cluster_url(url)
            else Redis.from_url(url, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)))


def _search_pool(settings: Settings, metrics: ServiceMetrics, key_prefix: str) -> tuple[SearchPool, Redis | None]:
    """The replica's search pool (service/referee/search.py), its playout budgets in Redis when ``REDIS_URL`` is set
    (shared by every replica), else in this process's memory."""
    budget: PlayoutBudget | None = None
    client: Any = None
    if settings.search_playouts_per_minute > 0:
        if settings.redis_url:
            client = _redis_limiter_client(settings.redis_url)
            budget = RedisPlayoutBudget(client, prefix=key_prefix + "playouts", on_error=metrics.redis_error)
        else:
            budget = MemoryPlayoutBudget()
    pool = SearchPool(workers=settings.search_workers, bot_workers=settings.bot_workers,
                      concurrency=settings.search_concurrency, queue=settings.search_queue,
                      worker_nice=settings.search_worker_nice,
                      playouts_per_minute=settings.search_playouts_per_minute, budget=budget,
                      refusal_hold_seconds=settings.search_refusal_hold_seconds)
    pool.attach(metrics)
    return pool, client


def _provided(value: Any) -> Provide:
    """A dependency that is always ``value`` (one object for the app's lifetime)."""

    def provide() -> Any:
        return value

    return Provide(provide, use_cache=True, sync_to_thread=False)


def _route_middleware(settings: Settings, metrics: ServiceMetrics, key_prefix: str,
                      on_shutdown: list[Any]) -> list[Any]:
    """The middleware inside routing and Litestar's CORS layer, so that their 429 and 401 carry CORS headers. Each
    is left out when it is off (``RATE_LIMIT_PER_MINUTE=0``, no ``API_KEYS``): nothing to do on every request. A
    Redis client it opens is closed by a hook appended to ``on_shutdown``."""
    middleware: list[Any] = []
    creation_bounded = settings.session_create_per_minute > 0 or settings.session_create_total_per_minute > 0
    if settings.rate_limit_per_minute > 0 or creation_bounded:
        backend, limiter_client = _rate_limit_backend(settings, metrics, key_prefix)
        if limiter_client is not None:
            on_shutdown.append(limiter_client.aclose)
        # Before the key check, so that guessing keys is itself limited (by address).
        if settings.rate_limit_per_minute > 0:  # it also writes the playout budget's RateLimit fields
            middleware.append(DefineMiddleware(RateLimitMiddleware, backend=backend,
                                               limit=settings.rate_limit_per_minute, window_seconds=60,
                                               known_api_keys=settings.api_keys))
        if creation_bounded:  # sessions are cheap to create and kept for a day: budgets of their own
            middleware.append(DefineMiddleware(SessionCreationLimitMiddleware, backend=backend,
                                               per_client=settings.session_create_per_minute,
                                               total=settings.session_create_total_per_minute,
                                               known_api_keys=settings.api_keys))
    if settings.rate_limit_per_minute <= 0 and settings.search_playouts_per_minute > 0:
        # The playout budget's RateLimit fields on the searches' answers (with the request limit on, its middleware
        # writes them): outermost, so that a 401 or a 400 of a search carries them too.
        middleware.insert(0, DefineMiddleware(QuotaReportMiddleware, operations=SEARCH_OPERATIONS))
    if settings.api_keys:
        middleware.append(DefineMiddleware(ApiKeyMiddleware, api_keys=settings.api_keys))
    middleware.append(QueryParameterMiddleware)  # a repeated or null query parameter: 400, before any handler
    return middleware


def _routes(settings: Settings, sessions: SessionsComponent, readiness: dict[str, ReadinessCheck],
            shutdown: ShutdownCoordinator, metrics: ServiceMetrics) -> list[Any]:
    """The app's routes: the API, the operational endpoints, the OpenAPI viewer's assets, and the demo if on."""
    return [
        # The API's operations declare Accept-Language and lang (texts in six languages; service/i18n).
        Router(path="/", parameters=language_parameters(),
               route_handlers=[RulesController,
                               *([GamesController, SuggestController, RecordsController, AnalysisController]
                                 if settings.stateless_api else []),  # STATELESS_API=false: sessions only
                               *sessions.route_handlers, SessionRecordController]),
        *health_route_handlers(readiness, shutdown=shutdown, problem_schema=ProblemDetails),
        metrics_route_handler(metrics),
        swagger_assets_router(),
        *([demo_router()] if settings.demo_enabled else []),  # the reference web table at /demo/
    ]


def create_app(settings: Settings | None = None, *, session_key_prefix: str = SESSION_KEY_PREFIX,
               event_heartbeat_seconds: float = EVENT_HEARTBEAT_SECONDS) -> Litestar:
    """Build the Litestar app for ``settings`` (default: :func:`service.config.load_settings`).

    ``session_key_prefix`` (of every Redis key) and ``event_heartbeat_seconds`` are for tests and benchmarks
    (several apps on one Redis; quicker heartbeats). ``app.state`` holds ``settings``, ``sealer``, ``sessions``
    (the component), ``metrics``, ``shutdown`` (the :class:`ShutdownCoordinator`) and ``search`` (the
    :class:`~service.referee.search.SearchPool` of suggestions, hints and bot moves).
    """
    settings = settings if settings is not None else load_settings()
    keys = list(settings.snapshot_keys) or [Sealer.generate_key()]
    sealer = Sealer(keys, cache_size=SNAPSHOT_CACHE_SIZE)
    metrics = ServiceMetrics()
    shutdown = ShutdownCoordinator(grace_seconds=settings.shutdown_grace_seconds)
    metrics.count_streams(lambda: shutdown.open_streams)
    search, budget_client = _search_pool(settings, metrics, session_key_prefix)
    sessions = build_sessions(settings, sealer, shutdown=shutdown.shutting_down, key_prefix=session_key_prefix,
                              heartbeat_seconds=event_heartbeat_seconds, metrics=metrics,
                              track_stream=shutdown.track_stream, search=search)
    readiness = {"store": sessions.readiness_check, "snapshot_keys": _snapshot_keys_check(keys)}
    # The shutdown coordinator first (streams may need the store), the search pool after the sessions (their
    # clock sweeper may be deciding a move).
    on_shutdown: list[Any] = [shutdown.on_shutdown, *sessions.on_shutdown, search.stop]
    if budget_client is not None:
        on_shutdown.append(budget_client.aclose)
    state = {"sealer": sealer, "settings": settings, "metrics": metrics, "search": search}
    app = Litestar(
        route_handlers=_routes(settings, sessions, readiness, shutdown, metrics),
        dependencies={**{name: _provided(value) for name, value in state.items()}, **sessions.dependencies},
        exception_handlers=exception_handlers(settings.max_body_bytes),
        before_request=require_json,
        request_max_body_size=settings.max_body_bytes,
        openapi_config=openapi_config(sessions.security_schemes),
        plugins=[ExactStructSchemaPlugin()],
        middleware=_route_middleware(settings, metrics, session_key_prefix, on_shutdown),
        cors_config=build_cors_config(settings.cors_origins),
        logging_config=json_logging_config(settings.log_level, expected_exceptions=(Problem,)),
        on_startup=[shutdown.on_startup, search.start, *sessions.on_startup],
        on_shutdown=on_shutdown,
        state=State({**state, "sessions": sessions, "shutdown": shutdown}),
    )
    # The fast lane passes only through route middleware that lets its requests pass untouched: the query check
    # (the lane takes no query string), the session-creation bounds (another path) and the playout budget's
    # report (the searches only, none of them a fast route); and through the guard that checks a session's token
    # before a body that does not decode (the lane answers only bodies that decode, and hands the others on to
    # the route, whose fast route makes the guard's check: fast_first).
    wrap_in_envelope(app, metrics=metrics, shutdown=shutdown, max_body_bytes=settings.max_body_bytes,
                     passing={FastRoute, QueryParameterMiddleware, SessionCreationLimitMiddleware,
                              QuotaReportMiddleware, token_before_body})
    if settings.keys_generated:
        logger.warning(GENERATED_KEY_WARNING)
    return app
