"""The app factory: ``uvicorn --factory service.app:create_app`` (configuration from the environment).

>>> from litestar.testing import TestClient
>>> with TestClient(create_app()) as client:
...     client.get("/v1/rules").json()["kitty_size"]
3
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide

from service.catalogue import RulesController
from service.config import Settings, load_settings
from service.exception_handlers import exception_handlers
from service.games import GamesController
from service.openapi import ExactStructSchemaPlugin, openapi_config
from service.snapshots import Sealer

logger = logging.getLogger("fivehundred.snapshots")

#: Recent snapshots kept per process (a few MB): a client sending back the snapshot this replica just gave it
#: (or one it opened before) skips decryption, decoding and the integrity check. See service/snapshots.py.
SNAPSHOT_CACHE_SIZE = 2048

GENERATED_KEY_WARNING = (
    "SNAPSHOT_KEYS is not set: sealing snapshots with a key generated at start. Snapshots will not survive a "
    "restart and will not open on other replicas. Set SNAPSHOT_KEYS (comma-separated base64url 32-byte keys; "
    "the first seals, all open) in production."
)


def create_app(settings: Settings | None = None) -> Litestar:
    """Build the Litestar app for ``settings`` (default: :func:`service.config.load_settings`)."""
    settings = settings if settings is not None else load_settings()
    keys = list(settings.snapshot_keys) or [Sealer.generate_key()]
    sealer = Sealer(keys, cache_size=SNAPSHOT_CACHE_SIZE)

    def provide_sealer() -> Sealer:
        return sealer

    def provide_settings() -> Settings:
        return settings

    route_handlers: list[Any] = [RulesController, GamesController]
    middleware: list[Any] = []
    on_startup: list[Any] = []
    on_shutdown: list[Any] = []

    # --- Lead: mount here -------------------------------------------------------------------------------
    # * the sessions controller: route_handlers.append(SessionsController) (it can take ``sealer`` and
    #   ``settings`` by dependency injection, or read ``app.state.sealer`` / ``app.state.settings``);
    # * health and metrics: route_handlers += [*health_route_handlers(...), metrics_route_handler(...)];
    # * the ops middleware (rate limits, API keys) in ``middleware``; startup/shutdown hooks in
    #   ``on_startup`` / ``on_shutdown``; CORS and logging configs as keyword arguments below; the outermost
    #   ASGI wrappers (request logging, metrics, in-flight) with ``wrap_asgi_handler(app, ...)`` below.
    # See service/ops/__init__.py for the recommended assembly.
    # -------------------------------------------------------------------------------------------------------

    app = Litestar(
        route_handlers=route_handlers,
        dependencies={
            "sealer": Provide(provide_sealer, use_cache=True, sync_to_thread=False),
            "settings": Provide(provide_settings, use_cache=True, sync_to_thread=False),
        },
        exception_handlers=exception_handlers(settings.max_body_bytes),
        request_max_body_size=settings.max_body_bytes,
        openapi_config=openapi_config(),
        plugins=[ExactStructSchemaPlugin()],
        middleware=middleware,
        on_startup=on_startup,
        on_shutdown=on_shutdown,
        state=State({"sealer": sealer, "settings": settings}),
    )
    if settings.keys_generated:
        logger.warning(GENERATED_KEY_WARNING)
    return app
