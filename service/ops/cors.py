"""CORS for browser front ends, built from plain configuration values.

Wired in :func:`service.app.create_app` (service/app.py): ``CORS_ORIGINS`` empty means no CORS layer at all.

>>> build_cors_config([]) is None
True
>>> sorted(build_cors_config(["https://play.example"]).expose_headers)
['ETag', 'Idempotent-Replayed', 'Location', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-ID']
"""

from __future__ import annotations

from collections.abc import Sequence

from litestar.config.cors import CORSConfig
from litestar.types import Method

__all__ = ["DEFAULT_CORS_HEADERS", "DEFAULT_CORS_METHODS", "EXPOSED_HEADERS", "build_cors_config"]

DEFAULT_CORS_METHODS: tuple[Method, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
#: Request headers a browser client may send: content type, seat/host tokens, API key, optimistic
#: concurrency, idempotency, SSE resumption and request correlation.
DEFAULT_CORS_HEADERS: tuple[str, ...] = (
    "Accept",
    "Authorization",
    "Content-Type",
    "If-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-API-Key",
    "X-Request-ID",
)
#: Response headers a browser client may read (``Idempotent-Replayed: true`` marks a replayed session move; the
#: RateLimit fields, a client's budgets: service/ops/ratelimit.py).
EXPOSED_HEADERS: tuple[str, ...] = ("ETag", "X-Request-ID", "Retry-After", "Location", "Idempotent-Replayed",
                                    "RateLimit", "RateLimit-Policy")


def build_cors_config(
    allowed_origins: Sequence[str],
    *,
    methods: Sequence[Method] = DEFAULT_CORS_METHODS,
    headers: Sequence[str] = DEFAULT_CORS_HEADERS,
    max_age: int = 600,
) -> CORSConfig | None:
    """A :class:`CORSConfig` for ``allowed_origins`` (``"*"`` allowed), or ``None`` when there are none.

    Credentials (cookies) are not allowed: the API authenticates with headers, not cookies.
    """
    origins = [origin.strip() for origin in allowed_origins if origin.strip()]
    if not origins:
        return None
    return CORSConfig(
        allow_origins=origins,
        allow_methods=list(methods),
        allow_headers=list(headers),
        expose_headers=list(EXPOSED_HEADERS),
        allow_credentials=False,
        max_age=max_age,
    )
