"""Operational building blocks for the Litestar app: rate limits, API keys, metrics, JSON logs with request
ids, CORS, health probes and graceful shutdown. Each module's docstring shows how to wire it.

Recommended assembly in the app factory (``settings`` is :class:`service.config.Settings`; ``redis`` the
``redis.asyncio.Redis`` client or ``None``)::

    from litestar import Litestar
    from litestar.middleware import DefineMiddleware
    from service.ops.apikeys import ApiKeyMiddleware
    from service.ops.asgi import wrap_asgi_handler
    from service.ops.cors import build_cors_config
    from service.ops.health import health_route_handlers, redis_ping_check
    from service.ops.logging import RequestLoggingMiddleware, json_logging_config
    from service.ops.metrics import MetricsMiddleware, ServiceMetrics, metrics_route_handler
    from service.ops.ratelimit import MemoryRateLimitBackend, RateLimitMiddleware, RedisRateLimitBackend
    from service.ops.shutdown import InflightMiddleware, ShutdownCoordinator
    from service.web.problems import Problem, ProblemDetails

    metrics = ServiceMetrics()
    shutdown = ShutdownCoordinator(grace_seconds=settings.shutdown_grace_seconds)
    limiter = (
        RedisRateLimitBackend(redis, on_error=metrics.redis_error) if redis else MemoryRateLimitBackend()
    )
    checks = {"redis": redis_ping_check(redis)} if redis else {}
    app = Litestar(
        route_handlers=[
            ...,
            *health_route_handlers(checks, shutdown=shutdown, problem_schema=ProblemDetails),
            metrics_route_handler(metrics),
        ],
        middleware=[  # inside routing and CORS: their 429/401 carry CORS headers
            DefineMiddleware(
                RateLimitMiddleware,
                backend=limiter,
                limit=settings.rate_limit_per_minute,  # 0 = off
                window_seconds=60,
                known_api_keys=settings.api_keys,  # only configured keys get budgets of their own
            ),
            DefineMiddleware(ApiKeyMiddleware, api_keys=settings.api_keys),
        ],
        cors_config=build_cors_config(settings.cors_origins),
        logging_config=json_logging_config(settings.log_level, expected_exceptions=(Problem,)),
        on_startup=[shutdown.on_startup],
        on_shutdown=[shutdown.on_shutdown, ...],  # first: streams may still need Redis
    )
    wrap_asgi_handler(  # outermost, sees every request including 404s
        app,
        DefineMiddleware(RequestLoggingMiddleware),
        DefineMiddleware(MetricsMiddleware, metrics=metrics),
        DefineMiddleware(InflightMiddleware, coordinator=shutdown),
    )

Run uvicorn with ``--no-access-log`` (the deploy/Dockerfile does).
"""
