"""The request envelope: the service's outer layers, written once, around Litestar's whole handler.

Litestar's ``middleware=[...]`` runs inside routing, only for requests that matched a route. Languages, request
ids and the access line, request metrics, the in-flight count and response encoding must also cover 404s, 405s
and CORS preflights, so these layers wrap Litestar's whole handler (its exception layer, CORS layer and router)
instead, outermost first:

1. :class:`~service.i18n.LanguageMiddleware`: every response says its language, 404s included;
2. :class:`~service.ops.logging.RequestLoggingMiddleware`: the request id, in and out, and the JSON access line
   (run uvicorn with ``--no-access-log``);
3. :class:`~service.ops.metrics.MetricsMiddleware`: the request metrics;
4. :class:`~service.ops.shutdown.InflightMiddleware`: the in-flight count that graceful shutdown waits for;
5. :class:`~service.web.encoding.ResponseEncodingMiddleware`: validators and compression of every answer.

Around them, when the app has fast routes its middleware lets through, the fast lane
(:mod:`service.ops.fastlane`) answers those routes' ordinary requests, taking each of these layers' own steps
in one frame; it refuses to be built over a layer it has no step for.

A layer here sits outside Litestar's CORS layer, so an answer it produced itself would lack CORS headers:
middleware that answers requests on its own (rate limits, API keys) belongs in Litestar's ``middleware=[...]``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from litestar import Litestar
from litestar.middleware import DefineMiddleware

from service.i18n import LanguageMiddleware
from service.ops.asgi import wrap_asgi_handler
from service.ops.fastlane import FastLane, lane_routes
from service.ops.logging import RequestLoggingMiddleware
from service.ops.metrics import MetricsMiddleware, ServiceMetrics
from service.ops.shutdown import InflightMiddleware, ShutdownCoordinator
from service.web.encoding import ResponseEncodingMiddleware

__all__ = ["outer_layers", "wrap_in_envelope"]


def outer_layers(metrics: ServiceMetrics, shutdown: ShutdownCoordinator) -> list[DefineMiddleware]:
    """The envelope's layers, outermost first (see the module)."""
    return [
        DefineMiddleware(LanguageMiddleware),
        DefineMiddleware(RequestLoggingMiddleware),
        DefineMiddleware(MetricsMiddleware, metrics=metrics),
        DefineMiddleware(InflightMiddleware, coordinator=shutdown),
        DefineMiddleware(ResponseEncodingMiddleware),
    ]


def wrap_in_envelope(app: Litestar, *, metrics: ServiceMetrics, shutdown: ShutdownCoordinator,
                     max_body_bytes: int, passing: Collection[Any]) -> Litestar:
    """Wrap ``app``'s handler in the envelope, and the envelope in the fast lane if any fast route may take it
    (``passing``: the route middleware known to let the lane's requests through, see
    :func:`~service.ops.fastlane.lane_routes`; ``max_body_bytes``: the app's body limit). Returns ``app``."""
    below = app.asgi_handler
    wrap_asgi_handler(app, *outer_layers(metrics, shutdown))
    routes = lane_routes(app, passing=passing)
    if routes:
        app.asgi_handler = FastLane(app.asgi_handler, routes=routes, below=below,
                                    max_body_bytes=max_body_bytes, cors=app.cors_config is not None)
    return app
