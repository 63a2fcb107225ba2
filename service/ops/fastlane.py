"""The fast lane: the ordinary requests of the fast routes answered in one step, outside the middleware stack.

A fast route (:mod:`service.web.fastpath`) already skips the framework's handler machinery; its requests still
cross every layer of the app on the way in and out: languages, request ids and the access line, request
metrics, in-flight tracking, response encoding, Litestar's exception layer and router, the route's
middleware. Each is a coroutine frame and a ``send`` wrapper of its own, and on the apply path together they
cost about as much as the operation itself. :class:`FastLane`, the outermost layer of the app (put there by
:func:`service.ops.envelope.wrap_in_envelope`), takes the steps of the outer layers in one frame for a request
that needs nothing else from the stack, and hands every other request to the stack, untouched.

A request takes the lane when it is a ``POST`` to a fast route (its exact path; a path parameter a whole
segment that no route has as a fixed one there), with no query string, a ``Content-Length`` within the body
limit and a JSON ``Content-Type``, at most one ``Accept-Encoding`` (the answer is compressed as the stack
would), no ``Origin`` when CORS is on, and a plain ``Host``.
The app builds the lane only for routes whose middleware are known to let such a request through (no rate
limit, no API keys: see :func:`lane_routes`); with those on, every request goes through the stack.

On the lane the request goes through the same outer layers as on the stack, by their own code: the lane finds
the envelope's layers (:mod:`service.ops.envelope`) below it and takes each one's steps in its place (the request
id and access line of :class:`~service.ops.logging.RequestLoggingMiddleware`, the language of
:func:`~service.i18n.middleware.negotiated` and :func:`~service.i18n.middleware.with_language`, the in-flight count,
the request metrics, the compression of :func:`~service.web.encoding.with_encoding`). It refuses to be built over
a layer it has no step for, so that a new outer layer cannot be skipped by the lane unnoticed. The usual answer
(no extra headers, no encoding negotiated) gets its headers in one list, :func:`usual_headers`, which the lane
checks against the layers' own functions when it is built (:func:`check_usual_headers`) and refuses to be built
with if they differ.

What does not end in a ``200`` leaves the lane before anything is sent: a body that does not decode or an
operation that refuses (a problem) is handed to the stack together with the exception, which the route's
fast route raises again in its place, so that the app's exception handlers render it exactly as before, under
the same request id; a body longer than its ``Content-Length`` is handed on with the bytes already read.
``tests/ops/test_fastlane.py`` compares the lane's answers with the stack's, header by header.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Collection
from time import perf_counter
from typing import Any

from litestar import Litestar
from litestar.middleware import DefineMiddleware
from litestar.routes import ASGIRoute, HTTPRoute
from litestar.types import ASGIApp, Receive, Scope, Send

from service.i18n.middleware import SCOPE_KEY as LANGUAGE_SCOPE_KEY
from service.i18n.middleware import LanguageMiddleware, negotiated, with_language
from service.ops.logging import REQUEST_ID_SCOPE_KEY, RequestLoggingMiddleware, request_id_var, with_request_id
from service.ops.metrics import MetricsMiddleware
from service.ops.shutdown import InflightMiddleware
from service.web.encoding import ResponseEncodingMiddleware, choose_encoding, with_encoding
from service.web.fastpath import FAILURE_SCOPE_KEY, Answer, FastRoute, answer_headers, read_body, replay
from service.web.media import is_json_media_type
from service.web.struct_dto import decode_request

__all__ = ["LANE_LAYERS", "FastLane", "LaneRoute", "LaneRoutes", "check_usual_headers", "lane_routes", "usual_headers"]

#: A ``Host`` the router surely accepts (a subset of what Litestar's host check allows); any other goes
#: through the stack, which checks it.
_PLAIN_HOST = re.compile(r"[0-9A-Za-z.:\[\]-]*")
#: The outer layers the lane takes the steps of, outermost first: the envelope's (service/ops/envelope.py).
LANE_LAYERS: tuple[type[Any], ...] = (LanguageMiddleware, RequestLoggingMiddleware, MetricsMiddleware,
                                      InflightMiddleware, ResponseEncodingMiddleware)
_JSON = b"application/json"
_VARY_LANGUAGE = (b"vary", b"Accept-Language")


class LaneRoute:
    """A fast route on the lane: its path template (the metrics' label), request type and answer, and for a path
    with parameters its segments (a parameter's name, or ``None`` for a fixed segment) and the fixed
    segments."""

    __slots__ = ("answer", "params", "request_type", "segments", "template")

    def __init__(self, template: str, request_type: type[Any], answer: Answer,
                 segments: tuple[str, ...] = (), params: tuple[str | None, ...] = ()) -> None:
        self.template = template
        self.request_type = request_type
        self.answer = answer
        self.segments = segments
        self.params = params

    def match(self, parts: list[str], taken: list[frozenset[str]]) -> dict[str, str] | None:
        """The path parameters of a path split into ``parts`` if it is this route's, else ``None``. A parameter
        must be a whole, non-empty segment that no route has as a fixed segment at that place (``taken``),
        so that the router surely picks this route for it too."""
        if len(parts) != len(self.segments):
            return None
        found: dict[str, str] = {}
        for part, segment, param, fixed in zip(parts, self.segments, self.params, taken, strict=False):
            if param is None:
                if part != segment:
                    return None
            elif not part or part in fixed:
                return None
            else:
                found[param] = part
        return found


class LaneRoutes:
    """The lane's routes: by exact path, and those with path parameters (string parameters only)."""

    def __init__(self, fixed: dict[str, LaneRoute], parametrized: list[LaneRoute], taken: list[frozenset[str]]):
        self.fixed = fixed
        self.parametrized = parametrized
        self.taken = taken

    def __bool__(self) -> bool:
        return bool(self.fixed or self.parametrized)

    def find(self, path: str) -> tuple[LaneRoute, dict[str, str] | None] | None:
        route = self.fixed.get(path)
        if route is not None:
            return route, None
        if self.parametrized and path.startswith("/"):
            parts = path[1:].split("/")
            if len(parts) <= len(self.taken):
                for route in self.parametrized:
                    params = route.match(parts, self.taken)
                    if params is not None:
                        return route, params
        return None


def lane_routes(app: Litestar, passing: Collection[Any]) -> LaneRoutes:
    """The app's fast routes the lane may answer: ``POST`` routes with no guards and no middleware but their
    fast route and ``passing`` (middleware classes, and guards, that let the lane's requests through untouched:
    the caller vouches for them), whose path parameters (if any) are strings."""
    fixed: dict[str, LaneRoute] = {}
    parametrized: list[LaneRoute] = []
    taken: dict[int, set[str]] = {}  # the fixed segments of every route, by place
    # Mounted apps answer every path under theirs: no lane below one.
    mounts = [route.path.rstrip("/") + "/" for route in app.routes
              if isinstance(route, ASGIRoute) and getattr(route.route_handler, "is_mount", False)]
    for route in app.routes:
        for place, component in enumerate(route.path_components):
            if isinstance(component, str):
                taken.setdefault(place, set()).add(component)
        if not isinstance(route, HTTPRoute) or any(p.type is not str for p in route.path_parameters.values()):
            continue
        for handler in route.route_handlers:
            if "POST" not in handler.http_methods or any(g not in passing for g in handler.resolve_guards()):
                continue
            fast: DefineMiddleware | None = None
            others = []
            for middleware in handler.resolve_middleware():
                kind = middleware.middleware if isinstance(middleware, DefineMiddleware) else middleware
                if kind is FastRoute and isinstance(middleware, DefineMiddleware):
                    fast = middleware
                else:
                    others.append(kind)
            if fast is None or any(kind not in passing for kind in others) \
                    or any(route.path.startswith(mount) for mount in mounts):
                continue
            if not route.path_parameters:
                fixed[route.path] = LaneRoute(route.path, fast.kwargs["request_type"], fast.kwargs["answer"])
                continue
            segments = tuple(c if isinstance(c, str) else "" for c in route.path_components)
            params = tuple(None if isinstance(c, str) else c.name for c in route.path_components)
            parametrized.append(LaneRoute(route.path_format, fast.kwargs["request_type"], fast.kwargs["answer"],
                                          segments, params))
    depth = max(taken, default=-1) + 1
    return LaneRoutes(fixed, parametrized, [frozenset(taken.get(place, ())) for place in range(depth)])


class FastLane:
    """ASGI middleware, the app's outermost layer: see the module. ``app`` is the envelope's outermost layer,
    ``below`` the handler the envelope wraps (Litestar's)."""

    def __init__(self, app: ASGIApp, *, routes: LaneRoutes, below: ASGIApp, max_body_bytes: int,
                 cors: bool) -> None:
        self.app = app
        self.routes = routes
        self.limit = max_body_bytes
        self.cors = cors
        layers = []
        layer: Any = app
        while layer is not below:
            layers.append(layer)
            layer = getattr(layer, "app", below)
        kinds = tuple(type(layer) for layer in layers)
        if kinds != LANE_LAYERS:
            raise TypeError(f"the fast lane takes the steps of {[k.__name__ for k in LANE_LAYERS]}, in this order, "
                            f"and the envelope has {[k.__name__ for k in kinds]}: give the lane the new layer's "
                            "steps (service/ops/fastlane.py), or build the app without a lane")
        check_usual_headers()
        _, logging_layer, metrics, inflight, _ = layers
        # Each layer's steps, bound once: the request id and the access line, the request metrics, the in-flight count.
        self.begin = logging_layer.begin
        self.log_access = logging_layer.log_access
        self.observe = metrics.metrics.observe_request
        self.enter = inflight.coordinator.enter
        self.leave = inflight.coordinator.leave

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The lane's requests to the lane; every other one straight to the stack: its awaitable is returned, not
        awaited here, so that a long request (an event stream) holds no frame of this layer."""
        request: dict[str, Any] = scope  # type: ignore[assignment]
        if request["type"] == "http" and request["method"] == "POST" and not request["query_string"] \
                and not request.get("root_path"):
            found = self.routes.find(request["path"])
            if found is not None:
                return self._lane(request, found, receive, send)
        return self.app(scope, receive, send)

    def _lane(self, request: dict[str, Any], found: tuple[LaneRoute, dict[str, str] | None],
              receive: Receive, send: Send) -> Awaitable[None]:
        """The request to :meth:`_serve` if it is an ordinary one, else to the stack (a plain function: the
        request's one coroutine is the one it is handed to)."""
        scope: Scope = request  # type: ignore[assignment]
        route, path_params = found
        headers: dict[bytes, str] = {}
        accept_encodings = 0
        for name, value in request["headers"]:
            if name not in headers:
                headers[name] = value.decode("latin-1")
            elif name == b"accept-encoding":
                accept_encodings += 1
        length = headers.get(b"content-length", "")
        host = headers.get(b"host")
        if not (length.isdigit() and 0 < int(length) <= self.limit) \
                or not is_json_media_type(headers.get(b"content-type")) \
                or accept_encodings or (self.cors and b"origin" in headers) \
                or (host is not None and _PLAIN_HOST.fullmatch(host) is None):
            return self.app(scope, receive, send)  # (several Accept-Encoding headers: the stack merges them)
        if path_params is not None:
            request["path_params"] = path_params
        accept_encoding = headers.get(b"accept-encoding")
        encoding = None if accept_encoding is None else choose_encoding(accept_encoding)
        return self._serve(request, route, headers, encoding, receive, send)

    async def _serve(self, scope: dict[str, Any], route: LaneRoute, headers: dict[bytes, str], encoding: str | None,
                     receive: Receive, send: Send) -> None:
        """The envelope's steps around the route's answer, each layer's own, in the stack's order."""
        started = perf_counter()
        client_id = headers.get(b"x-request-id")
        request_id, token = self.begin(scope, None if client_id is None else client_id.encode("latin-1"))
        scope[REQUEST_ID_SCOPE_KEY] = request_id  # kept if the request is handed on
        accept_language = headers.get(b"accept-language")
        language = negotiated(None if accept_language is None else accept_language.encode("latin-1"), None)
        scope[LANGUAGE_SCOPE_KEY] = language  # as LanguageMiddleware keeps it (request_language), for the stack
        status = 500  # unless a response starts (500 too when the client went away: nothing is sent)
        handed_on: Receive | None = None  # the stack answers instead, with this receive (nothing sent here)
        self.enter()
        try:
            body, more = await read_body(receive, self.limit)
            if body is not None and more:  # longer than it said: the stack's handler answers 413
                handed_on = replay(body, more, receive)
            elif body is not None:
                try:
                    data = decode_request(route.request_type, body)
                    payload, extra = await route.answer(scope, headers, data)  # type: ignore[arg-type]
                except Exception as exc:  # rendered by the stack, as the fast route's own refusals are
                    scope[FAILURE_SCOPE_KEY] = exc
                    handed_on = receive
                else:
                    if encoding is None and not extra:  # the usual answer (the encoding layer leaves it as it is)
                        out = usual_headers(payload, request_id.encode("ascii"), language.encode())
                    else:
                        out = answer_headers(payload, extra)
                        if encoding is not None:
                            out, payload = with_encoding(out, payload, encoding)
                        out = with_language(with_request_id(out, request_id.encode("ascii")), language.encode())
                    status = 200
                    await send({"type": "http.response.start", "status": 200, "headers": out})
                    await send({"type": "http.response.body", "body": payload, "more_body": False})
        finally:
            self.leave()
            if handed_on is None:
                duration = perf_counter() - started
                self.observe("POST", route.template, status, duration)
                self.log_access(scope, "POST", scope["path"], status, duration)
            request_id_var.reset(token)
        if handed_on is not None:  # the stack counts, measures and logs it (under the same request id)
            await self.app(scope, handed_on, send)  # type: ignore[arg-type]


def usual_headers(payload: bytes, encoded_id: bytes, language: bytes) -> list[tuple[bytes, bytes]]:
    """The headers of the usual answer (no extra headers from the operation, no encoding negotiated) in one list:
    what :func:`~service.web.fastpath.answer_headers`, :func:`~service.ops.logging.with_request_id` and
    :func:`~service.i18n.middleware.with_language` give, in the stack's order (:func:`check_usual_headers`)."""
    return [(b"content-type", _JSON), (b"content-length", b"%d" % len(payload)), (b"x-request-id", encoded_id),
            _VARY_LANGUAGE, (b"content-language", language)]


def check_usual_headers() -> None:
    """Refuse a lane whose :func:`usual_headers` no longer are the layers' own (checked when a lane is built)."""
    for payload, encoded_id, language in ((b"{}", b"0" * 32, b"en"), (b"[" * 999, b"client-id.7", b"fr")):
        theirs = with_language(with_request_id(answer_headers(payload, ()), encoded_id), language)
        ours = usual_headers(payload, encoded_id, language)
        if ours != theirs:
            raise TypeError(f"the fast lane's usual headers {ours} are not the envelope's {theirs}: "
                            "make usual_headers (service/ops/fastlane.py) the layers' again")
