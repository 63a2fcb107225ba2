"""A small app with only the sessions component and the service's problem handlers, for the sessions tests.

In process: ``create_app(settings, key_prefix=...)``. As a server (the multi-process tests)::

    REDIS_URL=redis://127.0.0.1:PORT/0 SNAPSHOT_KEYS=... SESSION_KEY_PREFIX=t1: \\
        uvicorn --factory tests.sessions.app_factory:create_app --port N

Environment: the service's own variables (``REDIS_URL``, ``SNAPSHOT_KEYS``, ``SESSION_IDLE_SECONDS``) plus
``SESSION_KEY_PREFIX`` and ``SESSION_HEARTBEAT_SECONDS`` for the tests.
"""

from __future__ import annotations

import asyncio
import os

from litestar import Litestar, Response, get
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components

from service.config import Settings, load_settings
from service.exception_handlers import exception_handlers
from service.sessions import SessionsComponent, build_sessions
from service.snapshots import Sealer


def create_app(settings: Settings | None = None, *, key_prefix: str | None = None,
               heartbeat_seconds: float | None = None, shutdown: asyncio.Event | None = None) -> Litestar:
    """The test app (also a ``uvicorn --factory`` target reading the environment)."""
    settings = settings or load_settings()
    keys = list(settings.snapshot_keys) or [Sealer.generate_key()]
    prefix = key_prefix if key_prefix is not None else os.environ.get("SESSION_KEY_PREFIX", "fh:")
    heartbeat = heartbeat_seconds if heartbeat_seconds is not None else float(
        os.environ.get("SESSION_HEARTBEAT_SECONDS", "15"))
    sessions = build_sessions(settings, Sealer(keys), shutdown=shutdown, key_prefix=prefix,
                              heartbeat_seconds=heartbeat)
    return _app(sessions)


def _app(sessions: SessionsComponent) -> Litestar:
    @get("/readyz", include_in_schema=False)
    async def readyz() -> Response[dict[str, bool]]:
        ok = await sessions.readiness_check()
        return Response({"ready": ok}, status_code=200 if ok else 503)

    app = Litestar(
        route_handlers=[*sessions.route_handlers, readyz],
        dependencies=dict(sessions.dependencies),
        on_startup=list(sessions.on_startup),
        on_shutdown=list(sessions.on_shutdown),
        exception_handlers=exception_handlers(65_536),
        openapi_config=OpenAPIConfig(title="sessions (test)", version="0",
                                     components=Components(security_schemes=dict(sessions.security_schemes))),
        debug=False,
    )
    app.state.sessions = sessions  # for tests that look inside (e.g. counting Redis round trips)
    return app
