"""Fast routes: a route middleware that answers its route's ordinary requests by calling the route's own
operation, without the framework's per-request machinery (dependency injection, the handler's signature
model, the response object), which costs more than the operation itself on the hottest routes.

Mounted on a route (``middleware=[fast_route(ApplyRequest, answer)]``), so inside every app-level middleware
(CORS, API keys, rate limits, logging, metrics, languages). It reads the body and decodes it with the route's
own strict decoder (:func:`service.web.struct_dto.struct_decoder`); a body that does not decode raises the very
errors the route's DTO raises. It then calls ``answer``, the function the route's handler calls too, and writes
what it returns. Refusals are raised as they are, so the app's exception handlers render them exactly as for
the handler. A request that is not ordinary (no ``Content-Length``, a body over the limit, not
``application/json``) is left to the handler, untouched, which answers exactly as the contract says.

A route's fast route is one of two shortcuts for the same routes: this one, inside routing, declared on the
route; and the fast lane (:mod:`service.ops.fastlane`), the app's outermost layer, which finds the routes that
carry a fast route and answers their ordinary requests before routing, by the same ``answer``, taking the request
envelope's steps itself (service/ops/envelope.py). A request the lane hands on with a refusal reaches the fast
route with that refusal under :data:`FAILURE_SCOPE_KEY`, which the fast route raises in its place.

The speed this buys is measured by ``tests/bench/bench_http.py`` (docs/BENCHMARKS.md, "What the fast route buys");
``tests/api/test_fastpath.py`` checks that both paths give the same answers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from litestar.exceptions import ClientException
from litestar.middleware import DefineMiddleware
from litestar.types import ASGIApp, HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, ReceiveMessage, Scope, Send

from service.web.media import is_json_media_type
from service.web.struct_dto import decode_request

__all__ = ["FAILURE_SCOPE_KEY", "FastAnswer", "FastRoute", "First", "answer_headers", "fast_route", "read_body",
           "replay"]

#: A fast route's answer: the JSON body and the response's other headers.
FastAnswer = tuple[bytes, list[tuple[bytes, bytes]]]
#: ``answer(scope, headers, data)``: the route's operation, given the request's headers (each name's first
#: value, decoded as latin-1, by lower-case name) and its decoded body.
Answer = Callable[[Scope, Mapping[bytes, str], Any], Awaitable[FastAnswer]]
#: ``first(scope)``: what the route checks before it refuses a body that does not decode (raising its own
#: refusal instead), as the route's guards would (:mod:`service.sessions.guards`).
First = Callable[[Scope], Awaitable[None]]

_JSON = b"application/json"
#: Scope key of the exception a layer outside (the fast lane, service/ops/fastlane.py) met answering the request
#: in the route's place: the route raises it again, so that the app renders it as its own.
FAILURE_SCOPE_KEY = "fivehundred.fast_failure"


class FastRoute:
    """ASGI route middleware; build it with :func:`fast_route`."""

    def __init__(self, app: ASGIApp, *, request_type: type[Any], answer: Answer, first: First | None = None) -> None:
        self.app = app
        self.request_type = request_type
        self.answer = answer
        self.first = first
        self._limit: int | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        failure = scope.pop(FAILURE_SCOPE_KEY, None)  # type: ignore[misc]
        if failure is not None:
            if self.first is not None and isinstance(failure, ClientException):  # a body that did not decode
                await self.first(scope)
            raise failure
        limit = self._limit
        if limit is None:  # the app's settings, read once (the app is not built yet when this is)
            limit = self._limit = scope["app"].state.settings.max_body_bytes
        headers: dict[bytes, str] = {}
        for name, value in scope["headers"]:
            headers.setdefault(name, value.decode("latin-1"))
        length = headers.get(b"content-length", "")
        if not (length.isdigit() and 0 < int(length) <= limit and is_json_media_type(headers.get(b"content-type"))):
            await self.app(scope, receive, send)
            return
        body, more = await read_body(receive, limit)
        if body is None:
            return  # the client went away
        if more:  # longer than it said: the handler answers 413
            await self.app(scope, replay(body, more, receive), send)
            return
        try:
            data = decode_request(self.request_type, body)
        except ClientException:
            if self.first is not None:
                await self.first(scope)
            raise
        payload, extra = await self.answer(scope, headers, data)
        start: HTTPResponseStartEvent = {"type": "http.response.start", "status": 200,
                                         "headers": answer_headers(payload, extra)}
        await send(start)
        end: HTTPResponseBodyEvent = {"type": "http.response.body", "body": payload, "more_body": False}
        await send(end)


def answer_headers(payload: bytes, extra: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The headers a fast route sends with ``payload``: its type and length, then the operation's ``extra``."""
    return [(b"content-type", _JSON), (b"content-length", str(len(payload)).encode()), *extra]


def fast_route(request_type: type[Any], answer: Answer, first: First | None = None) -> DefineMiddleware:
    """The route middleware answering ``request_type`` bodies with ``answer`` (``first``: see :data:`First`)."""
    return DefineMiddleware(FastRoute, request_type=request_type, answer=answer, first=first)


def replay(body: bytes, more: bool, receive: Receive) -> Receive:
    """A receive that first returns the body already read, then (if any is left) the rest from the client."""
    sent = False

    async def replayed() -> ReceiveMessage:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replayed


async def read_body(receive: Receive, limit: int) -> tuple[bytes | None, bool]:
    """The request body (``None`` if the client left), and whether more remains after ``limit`` bytes."""
    message = await receive()
    if message["type"] != "http.request":
        return None, False
    body = message.get("body", b"")
    more = message.get("more_body", False)
    if not more or len(body) > limit:  # the usual request: its body in one message
        return body, more
    chunks = [body]
    size = len(body)
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None, False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if size > limit:
            break
    return b"".join(chunks), more
