"""Hosted sessions (docs/API.md, "Hosted sessions"): one entry point, :func:`build_sessions`.

Mounting it in the app factory::

    sessions = build_sessions(settings, sealer, shutdown=coordinator.shutting_down, metrics=metrics,
                              track_stream=coordinator.track_stream)
    app = Litestar(
        route_handlers=[..., *sessions.route_handlers],
        dependencies={**sessions.dependencies},
        on_startup=[..., *sessions.on_startup],
        on_shutdown=[*sessions.on_shutdown, ...],
        openapi_config=OpenAPIConfig(..., components=Components(security_schemes=sessions.security_schemes)),
    )
    readiness = {"store": sessions.readiness_check}

The store is Redis when ``settings.redis_url`` is set (shared by every replica), else in-process memory.
Errors are :class:`~service.web.problems.Problem` s; the app's exception handler renders them (and Litestar's own
400 for a body that does not decode).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from litestar import Controller
from litestar.di import Provide
from litestar.openapi.spec import SecurityScheme

from service.config import Settings
from service.ops.egress import EgressPolicy
from service.referee.search import SearchPool
from service.referee.snapshots import Sealer
from service.sessions.analysis_route import SessionAnalysisController
from service.sessions.api import SECURITY_SCHEMES, SessionsController
from service.sessions.changes import SessionMetrics
from service.sessions.clock import ClockSettings
from service.sessions.deliverer import WebhookDeliverer, WebhookMetrics, WebhookSettings
from service.sessions.memory import MemoryStore
from service.sessions.outside_bots import OutsideBots
from service.sessions.redis_store import RedisStore
from service.sessions.service import SessionService
from service.sessions.store import SessionStore, StoreUnavailable
from service.sessions.streams import StreamTracker
from service.sessions.sweeper import ClockSweeper

__all__ = ["MemoryStore", "RedisStore", "SessionMetrics", "SessionService", "SessionStore", "SessionsComponent",
           "StreamTracker", "build_sessions"]

logger = logging.getLogger("fivehundred.sessions")

Hook = Callable[[], Awaitable[None]]

#: Sessions whose last record a replica keeps to save a read per move (a few KB each).
REMEMBERED_SESSIONS = 4096


@dataclass(frozen=True)
class SessionsComponent:
    """Everything the app needs to serve ``/v1/sessions``."""

    route_handlers: list[type[Controller]]
    dependencies: dict[str, Provide]
    on_startup: list[Hook]
    on_shutdown: list[Hook]
    #: ``True`` when the store answers (for ``/readyz``); never raises.
    readiness_check: Callable[[], Awaitable[bool]]
    #: The bearer scheme the session endpoints reference; add it to the OpenAPI components.
    security_schemes: dict[str, SecurityScheme] = field(default_factory=lambda: dict(SECURITY_SCHEMES))
    service: SessionService | None = None
    #: This replica's clock sweeper (:mod:`.sweeper`), run from startup to shutdown.
    sweeper: ClockSweeper | None = None
    #: This replica's webhook deliverer (:mod:`.deliverer`), run from startup to shutdown.
    deliverer: WebhookDeliverer | None = None


def build_sessions(settings: Settings, sealer: Sealer, *, shutdown: asyncio.Event | None = None,
                   key_prefix: str = "fh:", heartbeat_seconds: float = 15.0, metrics: SessionMetrics | None = None,
                   track_stream: StreamTracker | None = None, search: SearchPool | None = None) -> SessionsComponent:
    """The sessions component over Redis (``settings.redis_url``) or, without it, an in-process store.

    ``shutdown``, once set, ends every open event stream (its ``on_shutdown`` hook sets it too).
    ``key_prefix`` namespaces the Redis keys (tests use their own). ``metrics`` counts moves applied and
    refused (by reason), sessions created, sessions expired (the memory store only: Redis expires keys
    silently) and Redis errors (by store operation). ``track_stream`` is entered for each open event stream.
    ``search`` decides the bot seats' and the clock's moves (its bot lane) and the hints (its hint lane).
    """
    store: SessionStore
    remembered = 0  # the memory store is its own memory
    if settings.redis_url:
        store = RedisStore(settings.redis_url, settings.session_idle_seconds, prefix=key_prefix,
                           max_wait=heartbeat_seconds, on_error=metrics.redis_error if metrics else None,
                           max_fill=settings.session_store_max_fill,
                           sharded_pubsub=settings.redis_sharded_pubsub)
        remembered = REMEMBERED_SESSIONS
    else:
        store = MemoryStore(settings.session_idle_seconds,
                            on_expired=metrics.session_expired if metrics else None,
                            max_sessions=settings.memory_max_sessions)
    stopping = shutdown if shutdown is not None else asyncio.Event()
    clock = ClockSettings(min_move_seconds=settings.clock_min_move_seconds,
                          poll_seconds=settings.clock_poll_seconds, claim_seconds=settings.clock_claim_seconds)
    egress = EgressPolicy(hosts=settings.webhook_hosts, allow_http=settings.webhook_allow_http,
                          allow_private=settings.webhook_allow_private)
    service = SessionService(store, sealer, stopping=stopping, heartbeat_seconds=heartbeat_seconds,
                             remembered_sessions=remembered, metrics=metrics, track_stream=track_stream,
                             clock=clock, search=search, egress=egress)
    sweeper = ClockSweeper(service.changes)
    deliverer = WebhookDeliverer(service.changes, egress, WebhookSettings(
        timeout_seconds=settings.webhook_timeout_seconds, retry_seconds=settings.webhook_retry_seconds,
        concurrency=settings.webhook_concurrency, poll_seconds=settings.webhook_poll_seconds,
        claim_seconds=settings.webhook_claim_seconds, clock_low_seconds=settings.webhook_clock_low_seconds),
        metrics=metrics if isinstance(metrics, WebhookMetrics) else None)
    service.changes.on_hooks = service.webhooks.wake = deliverer.wake
    deliverer.turns = OutsideBots(service.moves, clock.now_ms)
    sweeping: list[asyncio.Task[None]] = []

    def provide_session_service() -> SessionService:
        return service

    async def ready() -> bool:
        try:
            return await store.ping()
        except StoreUnavailable:
            return False

    async def start() -> None:
        await store.open()
        if not await ready():
            # Not fatal: requests answer 503 until the store is back, and /readyz says so.
            logger.warning("session store unreachable at startup; sessions answer 503 until it is back")
        # Each replica's clock sweeper: makes the moves of seats whose turn clock ran out (until shutdown).
        sweeping.append(asyncio.create_task(sweeper.run(stopping), name="clock-sweeper"))
        # And its webhook deliverer: POSTs the sessions' events to their webhooks (until shutdown).
        sweeping.append(asyncio.create_task(deliverer.run(stopping), name="webhook-deliverer"))

    async def stop() -> None:
        stopping.set()
        for task in sweeping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), 5)
            task.cancel()
        sweeping.clear()
        await store.close()

    return SessionsComponent(
        route_handlers=[SessionsController, SessionAnalysisController],
        dependencies={"session_service": Provide(provide_session_service, sync_to_thread=False,
                                                 use_cache=True)},
        on_startup=[start], on_shutdown=[stop], readiness_check=ready, service=service, sweeper=sweeper,
        deliverer=deliverer)
