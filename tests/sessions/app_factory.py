"""The service's own app (:func:`service.app.create_app`) with two test knobs read from the environment, for
the multi-process tests (each replica a ``uvicorn`` process of its own)::

    REDIS_URL=redis://127.0.0.1:PORT/0 SNAPSHOT_KEYS=... SESSION_KEY_PREFIX=t1: SESSION_HEARTBEAT_SECONDS=2 \\
        uvicorn --factory tests.sessions.app_factory:create_app --port N

Environment: the service's own variables (``REDIS_URL``, ``SNAPSHOT_KEYS``, ``SESSION_IDLE_SECONDS`` …) plus
``SESSION_KEY_PREFIX`` (several test services on one Redis keep apart) and ``SESSION_HEARTBEAT_SECONDS``.
In-process tests call :func:`service.app.create_app` directly.
"""

from __future__ import annotations

import os

from litestar import Litestar

from service import app
from service.config import load_settings


def create_app() -> Litestar:
    """``service.app.create_app`` from the environment, with the key prefix and heartbeat the test asks for."""
    return app.create_app(
        load_settings(),
        session_key_prefix=os.environ.get("SESSION_KEY_PREFIX", app.SESSION_KEY_PREFIX),
        event_heartbeat_seconds=float(os.environ.get("SESSION_HEARTBEAT_SECONDS", app.EVENT_HEARTBEAT_SECONDS)),
    )
