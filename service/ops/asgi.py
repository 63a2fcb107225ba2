"""Wrapping a Litestar app's outermost ASGI handler.

Litestar's ``middleware=[...]`` runs inside routing: only for requests that matched a route. Request ids,
access logs and request metrics must also cover 404s, 405s and CORS preflights, so those middlewares go
around Litestar's whole handler (its exception handling, CORS layer and router) instead.

The request envelope (service/ops/envelope.py) wraps the app's handler with it.

Middlewares given here see every HTTP request (the ``app`` and ``state`` keys of the scope are already set)
but sit outside Litestar's CORS layer, so a response they produce themselves would lack CORS headers: keep
those that answer requests on their own (rate limit, API keys) in Litestar's ``middleware=[...]``.
"""

from __future__ import annotations

from collections.abc import Callable

from litestar import Litestar
from litestar.types import ASGIApp

__all__ = ["wrap_asgi_handler"]


def wrap_asgi_handler(app: Litestar, *middleware: Callable[[ASGIApp], ASGIApp]) -> Litestar:
    """Wrap ``app``'s ASGI handler in ``middleware`` (outermost first) and return ``app``."""
    handler: ASGIApp = app.asgi_handler
    for factory in reversed(middleware):
        handler = factory(handler)
    app.asgi_handler = handler
    return app
