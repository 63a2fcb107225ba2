"""API keys: when keys are configured, every request must carry one of them in ``X-API-Key``.

Missing key: ``401`` with ``code: API_KEY_REQUIRED``; a key that is not configured: ``401`` with
``code: API_KEY_INVALID``. Keys are compared with :func:`hmac.compare_digest` against every configured key.
The session event stream (``GET /v1/sessions/{id}/events``) also takes the key as the ``api_key`` query
parameter, because a browser's ``EventSource`` cannot send headers; query strings are never logged.
``/healthz``, ``/readyz``, ``/metrics`` and every ``OPTIONS`` request (CORS preflights carry no custom
headers) pass without a key. With no keys configured (``API_KEYS`` empty) everything passes.

API keys identify the *calling application*; they are separate from the per-seat bearer tokens of hosted
sessions, which travel in ``Authorization``.

Wired in :func:`service.app.create_app` (service/app.py).

Use Litestar's ``middleware=[...]`` so the 401 gets CORS headers from Litestar's CORS layer.
"""

from __future__ import annotations

from collections.abc import Collection

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from service.i18n import request_language
from service.web.problems import make_problem, send_problem

from .clients import OPERATIONAL_PATHS, key_matches, presented_api_key

__all__ = ["ApiKeyMiddleware", "key_matches"]


class ApiKeyMiddleware:
    """ASGI middleware refusing HTTP requests without a configured API key (no-op when none configured)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        api_keys: Collection[str],
        header: str = "X-API-Key",
        exempt_paths: Collection[str] = OPERATIONAL_PATHS,
    ) -> None:
        self.app = app
        self.api_keys = tuple(key for key in api_keys if key)
        self.header = header.lower().encode("latin-1")
        self.header_display = header
        self.exempt_paths = frozenset(exempt_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != ScopeType.HTTP
            or not self.api_keys
            or scope["method"] == "OPTIONS"
            or scope["path"] in self.exempt_paths
        ):
            await self.app(scope, receive, send)
            return
        presented = presented_api_key(scope, self.header)
        if presented and key_matches(presented, self.api_keys):
            await self.app(scope, receive, send)
            return
        if not presented:
            problem = make_problem(
                slug="api-key-required",
                title="API key required",
                code="API_KEY_REQUIRED",
                detail=f"Send your API key in the {self.header_display} header.",
                language=request_language(scope),
                params={"header": self.header_display},
            )
        else:
            problem = make_problem(
                slug="api-key-invalid",
                title="API key invalid",
                code="API_KEY_INVALID",
                detail=f"The {self.header_display} header does not hold a valid API key.",
                language=request_language(scope),
                params={"header": self.header_display},
            )
        challenge = f'APIKey header="{self.header_display}"'.encode("latin-1")
        await send_problem(send, problem, headers=[(b"www-authenticate", challenge)])
