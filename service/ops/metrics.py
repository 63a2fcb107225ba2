"""Prometheus metrics on a registry of their own (never the global one: several apps in one process, as in
tests, must not clash).

Metric names (also listed in ``deploy/SCALING.md``):

* ``http_requests_total{method,route,status}``: requests by route *template* (``/v1/sessions/{session_id}``),
  or ``unmatched`` for paths no route knows, so unknown paths cannot explode the label set.
* ``http_request_duration_seconds{method,route}``: latency histogram (event streams are left out: their
  duration is the client's connection time, not the service's latency).
* ``event_streams_open``: event streams open on the replica now (read at each scrape).
* ``moves_applied_total``, ``moves_refused_total{reason}``, ``sessions_created_total``,
  ``sessions_expired_total``, ``redis_errors_total{operation}``: counted by the service through the helpers
  of :class:`ServiceMetrics`.

A layer of the request envelope (service/ops/envelope.py), which :func:`service.app.create_app` puts around
the app.

Wrapping the outermost ASGI handler (rather than Litestar's ``middleware=[...]``, which runs only for
matched routes) lets 404s and 405s be counted too, under ``route="unmatched"``.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from litestar import get
from litestar.enums import ScopeType
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

__all__ = [
    "METRICS_MEDIA_TYPE",
    "MetricsMiddleware",
    "ServiceMetrics",
    "metrics_route_handler",
    "route_label",
]

#: The classic Prometheus text format, which every scraper understands.
METRICS_MEDIA_TYPE = CONTENT_TYPE_PLAIN_0_0_4

DEFAULT_LATENCY_BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip

_KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.:-]")
UNMATCHED_ROUTE = "unmatched"
#: Labelled request metrics kept per (method, route, status); the labels are bounded, the bound is a backstop.
_MAX_CACHED_CHILDREN = 4096


def _bounded_label(value: str, *, fallback: str = "other", max_length: int = 64) -> str:
    """Label values passed in by callers (reasons, operations) are trimmed to a safe alphabet and length."""
    cleaned = _LABEL_VALUE.sub("_", value)[:max_length]
    return cleaned or fallback


class ServiceMetrics:
    """Every metric of the service, on one dedicated :class:`~prometheus_client.CollectorRegistry`."""

    def __init__(
        self,
        registry: CollectorRegistry | None = None,
        *,
        namespace: str = "",
        latency_buckets: Sequence[float] = DEFAULT_LATENCY_BUCKETS,
    ) -> None:
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        self._request_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        # Finished requests not yet added to the two request metrics: (requests, latencies observed, their sum,
        # per bucket), by (method, route, status). Added when the registry is collected (a scrape), by the
        # collector registered here first, so before the metrics themselves: every scrape sees every request.
        self._pending: dict[tuple[str, str, int], list[Any]] = {}
        self._bounds: tuple[float, ...] = ()
        self.registry.register(_PendingRequests(self))
        ns = namespace
        self.http_requests_total = Counter(
            "http_requests_total",
            "HTTP requests by method, route template and status code.",
            ("method", "route", "status"),
            namespace=ns,
            registry=self.registry,
        )
        self.http_request_duration_seconds = Histogram(
            "http_request_duration_seconds",
            "HTTP request latency by method and route template (event streams excluded).",
            ("method", "route"),
            namespace=ns,
            buckets=tuple(latency_buckets),
            registry=self.registry,
        )
        self._bounds = tuple(self.http_request_duration_seconds._upper_bounds)  # +Inf last
        self.moves_applied_total = Counter(
            "moves_applied_total", "Moves applied to a game.", namespace=ns, registry=self.registry
        )
        self.moves_refused_total = Counter(
            "moves_refused_total",
            "Moves refused as illegal, by stable reason code.",
            ("reason",),
            namespace=ns,
            registry=self.registry,
        )
        self.sessions_created_total = Counter(
            "sessions_created_total", "Hosted sessions created.", namespace=ns, registry=self.registry
        )
        self.sessions_expired_total = Counter(
            "sessions_expired_total",
            "Hosted sessions found expired or removed for idleness.",
            namespace=ns,
            registry=self.registry,
        )
        self.redis_errors_total = Counter(
            "redis_errors_total",
            "Redis calls that failed or timed out, by operation.",
            ("operation",),
            namespace=ns,
            registry=self.registry,
        )

        self.webhook_deliveries_total = Counter(
            "webhook_deliveries_total",
            "Webhook deliveries, by outcome (delivered: answered 2xx; failed: anything else, retried).",
            ("outcome",),
            namespace=ns,
            registry=self.registry,
        )
        self.webhooks_disabled_total = Counter(
            "webhooks_disabled_total",
            "Webhooks disabled after failing for longer than WEBHOOK_RETRY_SECONDS.",
            namespace=ns,
            registry=self.registry,
        )
        self.event_streams_open = Gauge(
            "event_streams_open",
            "Event streams open on this replica (what fills a replica before its CPU does: the autoscaler's "
            "metric beside CPU, deploy/SCALING.md).",
            namespace=ns,
            registry=self.registry,
        )

    # -- helpers the service calls --------------------------------------------------------------------

    def count_streams(self, open_streams: Callable[[], int]) -> None:
        """Read ``event_streams_open`` from ``open_streams`` at each scrape."""
        self.event_streams_open.set_function(open_streams)

    def move_applied(self, count: int = 1) -> None:
        """Count ``count`` applied moves."""
        self.moves_applied_total.inc(count)

    def move_refused(self, reason: str) -> None:
        """Count one refused move under its stable reason code (e.g. ``MUST_FOLLOW_SUIT``)."""
        self.moves_refused_total.labels(reason=_bounded_label(reason)).inc()

    def session_created(self) -> None:
        """Count one created session."""
        self.sessions_created_total.inc()

    def session_expired(self, count: int = 1) -> None:
        """Count ``count`` sessions that expired."""
        self.sessions_expired_total.inc(count)

    def webhook_delivered(self) -> None:
        self.webhook_deliveries_total.labels(outcome="delivered").inc()

    def webhook_failed(self) -> None:
        self.webhook_deliveries_total.labels(outcome="failed").inc()

    def webhook_disabled(self) -> None:
        self.webhooks_disabled_total.inc()

    def redis_error(self, operation: str) -> None:
        """Count one failed Redis call; ``operation`` is a short fixed name such as ``session_load``."""
        self.redis_errors_total.labels(operation=_bounded_label(operation)).inc()

    # -- request metrics -------------------------------------------------------------------------------

    def observe_request(self, method: str, route: str, status: int, duration: float | None) -> None:
        """Record one finished request; ``duration`` ``None`` skips the latency histogram.

        Kept in plain counts until the next scrape (``prometheus_client``'s ``inc`` and ``observe`` take a lock
        and walk the buckets on every call, a cost on every request): what a scrape shows is the same."""
        key = (method if method in _KNOWN_METHODS else "OTHER", route, status)
        pending = self._pending.get(key)
        if pending is None:
            if len(self._pending) >= _MAX_CACHED_CHILDREN:
                self.flush_requests()
            pending = self._pending[key] = [0, 0, 0.0, [0] * len(self._bounds)]
        pending[0] += 1
        if duration is not None:
            pending[1] += 1
            pending[2] += duration
            pending[3][bisect_left(self._bounds, duration)] += 1  # the first bucket whose bound is >= duration

    def flush_requests(self) -> None:
        """Add the requests recorded since the last flush to the request metrics (each scrape does)."""
        pending, self._pending = self._pending, {}
        for (method, route, status), (count, observed, total, buckets) in pending.items():
            children = self._request_children.get((method, route, status))
            if children is None:  # labels() builds and locks on every call: each child is looked up once
                if len(self._request_children) >= _MAX_CACHED_CHILDREN:
                    self._request_children.clear()
                children = self._request_children[(method, route, status)] = (
                    self.http_requests_total.labels(method=method, route=route, status=str(status)),
                    self.http_request_duration_seconds.labels(method=method, route=route))
            children[0].inc(count)
            if observed:
                histogram = children[1]
                histogram._sum.inc(total)
                for bucket, n in zip(histogram._buckets, buckets, strict=True):
                    if n:
                        bucket.inc(n)

    def render(self) -> bytes:
        """The registry in Prometheus text exposition format."""
        return generate_latest(self.registry)


class _PendingRequests(Collector):
    """Registered first on a :class:`ServiceMetrics` registry: collecting it adds the pending requests to the
    request metrics (and yields nothing of its own)."""

    def __init__(self, metrics: ServiceMetrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterable[Metric]:
        self.metrics.flush_requests()
        return ()


def route_label(scope: Scope) -> str:
    """The route template Litestar matched for this request, or ``unmatched``.

    Litestar's router writes ``scope["path_template"]`` (e.g. ``/v1/sessions/{session_id}``) and
    ``scope["route_handler"]`` when it finds a route; both are absent for 404s and 405s.
    """
    template = scope.get("path_template")
    if isinstance(template, str) and template:
        return template
    handler = scope.get("route_handler")
    paths = getattr(handler, "paths", None)
    if paths:
        return str(sorted(paths)[0])
    return UNMATCHED_ROUTE


class MetricsMiddleware:
    """ASGI middleware recording ``http_requests_total`` and ``http_request_duration_seconds``."""

    def __init__(self, app: ASGIApp, *, metrics: ServiceMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        streaming = False

        async def send_wrapper(message: Message) -> None:
            nonlocal status, streaming
            if message["type"] == "http.response.start":
                status = message["status"]
                for name, value in message.get("headers", ()):
                    if name.lower() == b"content-type" and value.startswith(b"text/event-stream"):
                        streaming = True
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            # Read after the call: the router fills in the template while the request runs.
            duration = None if streaming else time.perf_counter() - started
            self.metrics.observe_request(scope["method"], route_label(scope), status, duration)


METRICS_EXAMPLE = """\
# HELP http_requests_total HTTP requests by method, route template and status code.
# TYPE http_requests_total counter
http_requests_total{method="POST",route="/v1/games/apply",status="200"} 1042.0
# HELP moves_applied_total Moves applied to a game.
# TYPE moves_applied_total counter
moves_applied_total 1311.0
# HELP moves_refused_total Moves refused as illegal, by stable reason code.
# TYPE moves_refused_total counter
moves_refused_total{reason="MUST_FOLLOW_SUIT"} 7.0
"""


def metrics_route_handler(metrics: ServiceMetrics, *, path: str = "/metrics") -> HTTPRouteHandler:
    """A ``GET /metrics`` handler (``operation_id="getMetrics"``) serving ``metrics`` in text format."""

    @get(
        path,
        operation_id="getMetrics",
        summary="Prometheus metrics",
        description="The service's metrics in the Prometheus text exposition format.",
        tags=["operations"],
        media_type=METRICS_MEDIA_TYPE,
        sync_to_thread=False,
        cache_control=None,
        responses={
            200: ResponseSpec(
                data_container=str,
                description="The metrics, one sample per line.",
                media_type=METRICS_MEDIA_TYPE,
                generate_examples=False,
                examples=[Example(summary="A few samples", value=METRICS_EXAMPLE)],
            )
        },
    )
    def serve_metrics() -> str:
        return metrics.render().decode("utf-8")

    return serve_metrics
