"""A tiny Litestar app with the ops pieces wired in the way the service's app factory wires them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any

from litestar import Litestar, Request, get, post
from litestar.logging.config import LoggingConfig
from litestar.middleware import DefineMiddleware
from litestar.params import FromPath
from litestar.response import ServerSentEvent

from service.ops.apikeys import ApiKeyMiddleware
from service.ops.asgi import wrap_asgi_handler
from service.ops.cors import build_cors_config
from service.ops.health import ReadinessCheck, health_route_handlers
from service.ops.logging import RequestLoggingMiddleware, get_request_id
from service.ops.metrics import MetricsMiddleware, ServiceMetrics, metrics_route_handler
from service.ops.ratelimit import RateLimitBackend, RateLimitMiddleware, RedisRateLimitBackend
from service.ops.shutdown import InflightMiddleware, ShutdownCoordinator

app_logger = logging.getLogger("fivehundred.test")


@get("/v1/ping", sync_to_thread=False)
def ping() -> dict[str, bool]:
    return {"pong": True}


@get("/v1/items/{item_id:int}", sync_to_thread=False)
def item(item_id: FromPath[int]) -> dict[str, int]:
    return {"item_id": item_id}


@post("/v1/echo", status_code=200)
async def echo(request: Request[Any, Any, Any]) -> dict[str, Any]:
    body = await request.body()
    # A careless log line: the scrubber must still keep the snapshot and the hand out of the log.
    app_logger.info("echo received %s and hand %s", body.decode(), "4H, 10D, JS, QC, JK")
    return {"length": len(body), "request_id": get_request_id()}


def build_app(
    *,
    limiter: RateLimitBackend | None = None,
    limit: int = 0,
    window_seconds: float = 60.0,
    known_api_keys: Collection[str] | None = None,
    api_keys: Sequence[str] = (),
    cors_origins: Sequence[str] = (),
    checks: Mapping[str, ReadinessCheck] | None = None,
    metrics: ServiceMetrics | None = None,
    shutdown: ShutdownCoordinator | None = None,
    logging_config: LoggingConfig | None = None,
    extra_handlers: Sequence[Any] = (),
    closers: Sequence[Callable[[], Awaitable[Any]]] = (),
) -> Litestar:
    """The app; Redis clients (the limiter's and ``closers``) are closed by its shutdown hook, on the loop
    that used them, as the service's factory does."""
    metrics = metrics or ServiceMetrics()
    shutdown = shutdown or ShutdownCoordinator(grace_seconds=2)
    middleware = []
    limiter_closers = [limiter.client.aclose] if isinstance(limiter, RedisRateLimitBackend) else []
    if limiter is not None:
        middleware.append(
            DefineMiddleware(
                RateLimitMiddleware,
                backend=limiter,
                limit=limit,
                window_seconds=window_seconds,
                known_api_keys=known_api_keys,
            )
        )
    middleware.append(DefineMiddleware(ApiKeyMiddleware, api_keys=api_keys))
    app = Litestar(
        route_handlers=[
            ping,
            item,
            echo,
            *health_route_handlers(checks, shutdown=shutdown, timeout=1.0),
            metrics_route_handler(metrics),
            *extra_handlers,
        ],
        middleware=middleware,
        cors_config=build_cors_config(cors_origins),
        logging_config=logging_config,
        on_startup=[shutdown.on_startup],
        on_shutdown=[shutdown.on_shutdown, *closers, *limiter_closers],
    )
    return wrap_asgi_handler(
        app,
        DefineMiddleware(RequestLoggingMiddleware),
        DefineMiddleware(MetricsMiddleware, metrics=metrics),
        DefineMiddleware(InflightMiddleware, coordinator=shutdown),
    )


def stream_handler(shutdown: ShutdownCoordinator) -> Any:
    """An SSE endpoint that ticks until shutdown begins, then says goodbye and ends."""

    @get("/v1/stream", sync_to_thread=False)
    def stream() -> ServerSentEvent:
        async def events() -> AsyncIterator[str]:
            async with shutdown.track_stream() as stopping:
                yield "hello"
                while not stopping.is_set():
                    await shutdown.until_shutdown(asyncio.sleep(3600), timeout=0.05)
                yield "goodbye"

        return ServerSentEvent(events())

    return stream


def slow_handler(delay: float) -> Any:
    @get("/v1/slow")
    async def slow() -> dict[str, str]:
        await asyncio.sleep(delay)
        return {"done": "yes"}

    return slow
