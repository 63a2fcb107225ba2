"""The fast lane: the ordinary requests of the fast routes answered in one step, outside the middleware stack.

A fast route (:mod:`service.web.fastpath`) already skips the framework's handler machinery; its requests still
cross every layer of the app on the way in and out: languages, request ids and the access line, request
metrics, in-flight tracking, response encoding, Litestar's exception layer and router, the route's
middleware. Each is a coroutine frame and a ``send`` wrapper of its own, and on the apply path together they
cost about as much as the operation itself. :class:`FastLane`, the outermost layer of the app
(:func:`service.app.create_app`), does the work of all of them at once for a request that needs nothing else
from them, and hands every other request to the stack, untouched.

A request takes the lane when it is a ``POST`` to a fast route (its exact path; a path parameter a whole
segment that no route has as a fixed one there), with no query string, a ``Content-Length`` within the body
limit and a JSON ``Content-Type``, at most one ``Accept-Encoding`` (the answer is compressed as the stack
would), no ``Origin`` when CORS is on, and a plain ``Host``.
The app builds the lane only for routes whose middleware are known to let such a request through (no rate
limit, no API keys: see :func:`lane_routes`); with those on, every request goes through the stack.

On the lane the request gets what the stack would give it: its request id (the client's ``X-Request-ID`` if
sane, else a fresh one) in the scope and in every log line while it runs, its language (``Accept-Language``)
in the scope, the in-flight count (graceful shutdown waits for it), and on the way out the same headers in the
same order (see :func:`_headers`), the body compressed as :class:`~service.web.encoding.ResponseEncodingMiddleware`
would, the same request metrics and the same access line.

What does not end in a ``200`` leaves the lane before anything is sent: a body that does not decode or an
operation that refuses (a problem) is handed to the stack together with the exception, which the route's
fast route raises again in its place, so that the app's exception handlers render it exactly as before, under
the same request id; a body longer than its ``Content-Length`` is handed on with the bytes already read.
``tests/ops/test_fastlane.py`` compares the lane's answers with the stack's, header by header.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Collection, Iterable
from typing import Any

from litestar import Litestar
from litestar.middleware import DefineMiddleware
from litestar.routes import ASGIRoute, HTTPRoute
from litestar.types import ASGIApp, Receive, Scope, Send

from service.i18n import negotiate
from service.i18n.middleware import SCOPE_KEY as LANGUAGE_SCOPE_KEY
from service.i18n.negotiation import MAX_HEADER_LENGTH
from service.ops.clients import API_KEY_HEADER, client_identity
from service.ops.logging import (
    ACCESS_LOGGER,
    REQUEST_ID_SCOPE_KEY,
    accept_request_id,
    new_request_id,
    request_id_var,
)
from service.ops.metrics import ServiceMetrics
from service.ops.shutdown import ShutdownCoordinator
from service.web.encoding import choose_encoding, encoded_body
from service.web.fastpath import FAILURE_SCOPE_KEY, Answer, FastRoute, read_body, replay
from service.web.media import is_json_media_type
from service.web.struct_dto import decode_request

__all__ = ["FastLane", "LaneRoute", "LaneRoutes", "lane_routes"]

#: A ``Host`` the router surely accepts (a subset of what Litestar's host check allows); any other goes
#: through the stack, which checks it.
_PLAIN_HOST = re.compile(r"[0-9A-Za-z.:\[\]-]*")
_JSON = b"application/json"
_LANGUAGES_KEPT = 1024


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


def lane_routes(app: Litestar, passing: Collection[type[Any]]) -> LaneRoutes:
    """The app's fast routes the lane may answer: ``POST`` routes with no guards and no middleware but their
    fast route and ``passing`` (middleware classes that let the lane's requests through untouched: the caller
    vouches for them), whose path parameters (if any) are strings."""
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
            if "POST" not in handler.http_methods or handler.resolve_guards():
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
    """ASGI middleware, the app's outermost layer: see the module."""

    def __init__(self, app: ASGIApp, *, routes: LaneRoutes, metrics: ServiceMetrics,
                 coordinator: ShutdownCoordinator, max_body_bytes: int, cors: bool,
                 logger_name: str = ACCESS_LOGGER, api_key_header: str = API_KEY_HEADER) -> None:
        self.app = app
        self.routes = routes
        self.metrics = metrics
        self.coordinator = coordinator
        self.limit = max_body_bytes
        self.cors = cors
        self.logger = logging.getLogger(logger_name)
        self.api_key_header = api_key_header
        self._languages: dict[str | None, str] = {}

    def _language(self, accept_language: str | None) -> str:
        """The language :func:`~service.i18n.request_language` negotiates for a request with this
        ``Accept-Language`` (its first) and no query, by the raw header: clients send the same few."""
        language = self._languages.get(accept_language)
        if language is None:
            if len(self._languages) >= _LANGUAGES_KEPT:
                self._languages.clear()
            header = None if accept_language is None else accept_language[:MAX_HEADER_LENGTH]
            language = self._languages[accept_language] = negotiate(header, None)
        return language

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

    async def _lane(self, request: dict[str, Any], found: tuple[LaneRoute, dict[str, str] | None],
                    receive: Receive, send: Send) -> None:
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
            await self.app(scope, receive, send)  # (several Accept-Encoding headers: the stack merges them)
            return
        if path_params is not None:
            request["path_params"] = path_params
        await self._serve(request, route, headers, choose_encoding(headers.get(b"accept-encoding")), receive, send)

    async def _serve(self, scope: dict[str, Any], route: LaneRoute, headers: dict[bytes, str], encoding: str | None,
                     receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        raw_id = headers.get(b"x-request-id")
        request_id = new_request_id() if raw_id is None else accept_request_id(raw_id.encode("latin-1"))
        scope["state"]["request_id"] = scope[REQUEST_ID_SCOPE_KEY] = request_id
        language = self._language(headers.get(b"accept-language"))
        scope[LANGUAGE_SCOPE_KEY] = language  # as LanguageMiddleware keeps it, for the answer and the stack
        token = request_id_var.set(request_id)
        status = 500  # unless a response starts (500 too when the client went away: nothing is sent)
        handed_on: Receive | None = None  # the stack answers instead, with this receive (nothing sent here)
        coordinator = self.coordinator  # counted in flight as InflightMiddleware counts
        coordinator.enter()
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
                    compressed = False
                    if encoding is not None:
                        payload, compressed = encoded_body(payload, encoding, _JSON)
                    status = 200
                    await send({"type": "http.response.start", "status": 200,
                                "headers": _headers(payload, extra, request_id, language, encoding, compressed)})
                    await send({"type": "http.response.body", "body": payload, "more_body": False})
        finally:
            coordinator.leave()
            if handed_on is None:
                self._account(scope, route, status, time.perf_counter() - started)
            request_id_var.reset(token)
        if handed_on is not None:  # the stack counts, measures and logs it (under the same request id)
            await self.app(scope, handed_on, send)  # type: ignore[arg-type]

    def _account(self, scope: dict[str, Any], route: LaneRoute, status: int, duration: float) -> None:
        """The request metrics and the access line, as the stack's layers give them."""
        self.metrics.observe_request("POST", route.template, status, duration)
        level = logging.INFO
        if self.logger.isEnabledFor(level):
            path = scope["path"]
            self.logger.log(level, "%s %s %s", "POST", path, status,
                            extra={"method": "POST", "path": path, "status": status,
                                   "duration_ms": round(duration * 1000, 3),
                                   "client": client_identity(scope, api_key_header=self.api_key_header)})


def _headers(payload: bytes, extra: Iterable[tuple[bytes, bytes]], request_id: str, language: str,
             encoding: str | None, compressed: bool) -> list[tuple[bytes, bytes]]:
    """The answer's headers as the stack sends them: the fast route's (``Content-Type``, the route's own);
    with an encoding negotiated, ``Content-Encoding`` if compressed; ``Content-Length``; the request id
    (replacing any); ``Vary`` (the route's, then ``Accept-Encoding`` if an encoding was negotiated, then
    ``Accept-Language``) and ``Content-Language`` (replacing any)."""
    length = (b"content-length", str(len(payload)).encode())
    if encoding is None and not extra:  # the usual answer
        return [(b"content-type", _JSON), length, (b"x-request-id", request_id.encode("ascii")),
                (b"vary", b"Accept-Language"), (b"content-language", language.encode())]
    out = [(b"content-type", _JSON)] if encoding is not None else [(b"content-type", _JSON), length]
    vary: list[bytes] = []
    for name, value in extra:
        lowered = name.lower()
        if lowered == b"vary":
            vary.append(value)
        elif lowered not in (b"x-request-id", b"content-language", b"content-length"):
            out.append((name, value))
    if encoding is not None:  # the encoding layer puts the length last, after the encoding
        if compressed:
            out.append((b"content-encoding", encoding.encode()))
        out.append(length)
    out.append((b"x-request-id", request_id.encode("ascii")))
    if not vary and encoding is None:
        out.append((b"vary", b"Accept-Language"))
    elif not vary:
        out.append((b"vary", b"Accept-Encoding, Accept-Language"))
    else:
        parts = [part.strip() for value in vary for part in bytes(value).split(b",") if part.strip()]
        if encoding is not None and b"accept-encoding" not in {part.lower() for part in parts}:
            parts.append(b"Accept-Encoding")
        if not any(part.lower() in (b"accept-language", b"*") for part in parts):
            parts.append(b"Accept-Language")
        out.append((b"vary", b", ".join(parts)))
    out.append((b"content-language", language.encode()))
    return out
