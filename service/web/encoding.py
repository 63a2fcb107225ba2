"""Smaller answers for phones: compression in the encodings a client offers, and validators on the answers that
can be cached.

One ASGI middleware around the app's whole handler (fast routes, problems, 404s and the health routes
included), so every answer is treated alike:

* **Compression.** A complete body of at least :data:`MIN_COMPRESS_BYTES` in a text type (JSON, problem JSON,
  text, JavaScript, HTML, CSS, SVG, YAML) is sent ``br`` (brotli) or ``gzip``, whichever the request's
  ``Accept-Encoding`` prefers (brotli on a tie, as it is smaller; ``identity`` otherwise), with
  ``Vary: Accept-Encoding``. A streamed answer (``text/event-stream``, or any body sent in parts) is passed on
  as it comes, never buffered: an event stream must reach its reader frame by frame. An answer that already
  has a ``Content-Encoding`` is left alone.
* **Validators.** A ``GET`` of a cacheable path (:data:`CACHEABLE_PATHS`: the rules catalogue and the OpenAPI
  document) gets a weak ``ETag`` (a digest of its uncompressed body, so one tag for every encoding, as RFC 9110
  allows for a weak validator) and ``Cache-Control``; a request whose ``If-None-Match`` names that tag (or
  ``*``) is answered ``304 Not Modified`` with no body. The body still varies with the query (player count,
  preset, ``lang``) and with ``Accept-Language`` (``Vary``), each variant with its own tag.

``tests/api/test_encoding.py`` checks all of this with a real client against a live uvicorn.
"""

from __future__ import annotations

import gzip
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, cast

import brotli  # type: ignore[import-untyped]
from litestar.types import ASGIApp, HTTPResponseBodyEvent, HTTPResponseStartEvent, Message, Receive, Scope, Send

__all__ = ["CACHEABLE_PATHS", "CACHE_CONTROL", "MIN_COMPRESS_BYTES", "ResponseEncodingMiddleware",
           "choose_encoding", "etag_matches", "with_encoding"]

#: Bodies smaller than this are sent as they are (the headers would eat most of the gain).
MIN_COMPRESS_BYTES = 512
#: Answers that change only when the service is deployed again (or with their query and language).
CACHEABLE_PATHS = frozenset({"/v1/rules", "/schema/openapi.json", "/schema/openapi.yaml", "/schema/openapi.yml"})
#: Caches may keep a cacheable answer for ten minutes, then revalidate it with its ETag.
CACHE_CONTROL = b"public, max-age=600"
#: Media types worth compressing (their ``type/subtype``, or a prefix ending in ``/``).
_COMPRESSIBLE = ("application/json", "application/problem+json", "application/javascript", "application/yaml",
                 "application/x-yaml", "application/vnd.oai.openapi", "application/vnd.oai.openapi+json",
                 "image/svg+xml", "text/")
_GZIP_LEVEL = 6
_BROTLI_QUALITY = 5  # brotli's fast qualities: smaller than gzip -6 at about its cost
#: A cacheable body is compressed once (then kept), so at the encoders' best.
_BEST_GZIP_LEVEL, _BEST_BROTLI_QUALITY = 9, 11
#: Compressed cacheable bodies kept by (ETag, encoding): the rules catalogue is compressed once, not per request.
_CACHE_SIZE = 64


def choose_encoding(accept_encoding: str | None) -> str | None:
    """The encoding to send for an ``Accept-Encoding`` value: ``"br"``, ``"gzip"`` or ``None`` (identity).

    >>> choose_encoding("gzip, deflate, br"), choose_encoding("gzip;q=1.0, br;q=0.5"), choose_encoding(None)
    ('br', 'gzip', None)
    >>> choose_encoding("br;q=0, gzip"), choose_encoding("*"), choose_encoding("identity"), choose_encoding("br;q=x")
    ('gzip', 'br', None, None)
    """
    if not accept_encoding:
        return None
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        weights[name.strip().lower()] = q
    star = weights.get("*", 0.0)
    br, gz = weights.get("br", star), weights.get("gzip", weights.get("x-gzip", star))
    if br <= 0 and gz <= 0:
        return None
    return "br" if br >= gz else "gzip"


def etag_matches(if_none_match: str, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak comparison, RFC 9110 13.1.2), or is ``*``.

    >>> etag_matches('W/"abc", "def"', 'W/"def"'), etag_matches("*", 'W/"x"'), etag_matches('"abd"', 'W/"abc"')
    (True, True, False)
    """
    tags = [t.strip() for t in if_none_match.split(",")]
    return "*" in tags or etag.removeprefix("W/") in {t.removeprefix("W/") for t in tags}


def _compressible(content_type: bytes) -> bool:
    media = content_type.split(b";")[0].strip().lower().decode("latin-1")
    return any(media.startswith(t) if t.endswith("/") else media == t for t in _COMPRESSIBLE)


def _compress(body: bytes, encoding: str, *, best: bool = False) -> bytes:
    if encoding == "br":
        return bytes(brotli.compress(body, quality=_BEST_BROTLI_QUALITY if best else _BROTLI_QUALITY))
    return gzip.compress(body, compresslevel=_BEST_GZIP_LEVEL if best else _GZIP_LEVEL, mtime=0)


def with_encoding(headers: Iterable[tuple[bytes, bytes]], body: bytes, encoding: str | None,
                  compress: Callable[[bytes, str], bytes] = _compress) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """A complete answer's headers and body as :class:`ResponseEncodingMiddleware` sends them when the client
    accepts ``encoding``: ``Vary: Accept-Encoding``, the body compressed (by ``compress``) if it is worth it, with
    its ``Content-Encoding``, and its ``Content-Length`` last. The fast lane (service/ops/fastlane.py) calls it
    too."""
    out = _with_vary([(k, v) for k, v in headers if k.lower() != b"content-length"], b"Accept-Encoding")
    content_type = next((v for k, v in out if k.lower() == b"content-type"), b"")
    if encoding is not None and len(body) >= MIN_COMPRESS_BYTES and _compressible(bytes(content_type)):
        body = compress(body, encoding)
        out.append((b"content-encoding", encoding.encode()))
    out.append((b"content-length", str(len(body)).encode()))
    return out, body


def _with_vary(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> list[tuple[bytes, bytes]]:
    """``headers`` with ``name`` in ``Vary`` (one ``Vary`` header, its values kept)."""
    out: list[tuple[bytes, bytes]] = []
    parts: list[bytes] = []
    for key, value in headers:
        if key.lower() == b"vary":
            parts += [p.strip() for p in bytes(value).split(b",") if p.strip()]
        else:
            out.append((key, value))
    if name.lower() not in {p.lower() for p in parts}:
        parts.append(name)
    out.append((b"vary", b", ".join(parts)))
    return out


def _start(status: int, headers: list[tuple[bytes, bytes]]) -> HTTPResponseStartEvent:
    return {"type": "http.response.start", "status": status, "headers": headers}


def _body(body: bytes) -> HTTPResponseBodyEvent:
    return {"type": "http.response.body", "body": body, "more_body": False}


class ResponseEncodingMiddleware:
    """ASGI middleware: compression and validators as the module says."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._compressed: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = cast("dict[str, Any]", scope)
        if request["type"] != "http":
            await self.app(scope, receive, send)
            return
        accept = if_none_match = None
        for name, value in request["headers"]:
            if name == b"accept-encoding":
                accept = value.decode("latin-1") if accept is None else f"{accept}, {value.decode('latin-1')}"
            elif name == b"if-none-match":
                if_none_match = value.decode("latin-1")
        encoding = choose_encoding(accept)
        cacheable = request["method"] == "GET" and request["path"] in CACHEABLE_PATHS
        if (encoding is None and not cacheable) or request["method"] == "HEAD":
            await self.app(scope, receive, send)  # identity suits every cache: no Vary needed
            return
        start: dict[str, Any] | None = None

        async def wrapped(sent: Message) -> None:
            nonlocal start
            message = cast("dict[str, Any]", sent)
            if message["type"] == "http.response.start":
                start = message
                headers = message.get("headers", [])
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                encoded = any(k.lower() == b"content-encoding" for k, _ in headers)
                if encoded or message["status"] in (204, 304) or content_type.startswith(b"text/event-stream") \
                        or not (cacheable or _compressible(bytes(content_type))):
                    start = None
                    await send(sent)
                return
            if message["type"] != "http.response.body" or start is None:
                await send(sent)
                return
            pending, start = start, None
            body = bytes(message.get("body", b""))
            if message.get("more_body", False):  # streamed: passed on as it comes, never buffered
                await send(cast("HTTPResponseStartEvent", pending))
                await send(sent)
                return
            await self._answer(pending, body, encoding, cacheable and pending["status"] == 200, if_none_match,
                               send)

        await self.app(scope, receive, wrapped)

    async def _answer(self, start: dict[str, Any], body: bytes, encoding: str | None, cacheable: bool,
                      if_none_match: str | None, send: Send) -> None:
        """Send a complete answer: validated, compressed, or as it is."""
        headers: list[tuple[bytes, bytes]] = [(k, v) for k, v in start.get("headers", [])
                                               if k.lower() != b"content-length"]
        etag = None
        if cacheable:
            etag = 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'
            headers = [(k, v) for k, v in headers if k.lower() not in (b"etag", b"cache-control")]
            headers += [(b"etag", etag.encode("latin-1")), (b"cache-control", CACHE_CONTROL)]
            if if_none_match is not None and etag_matches(if_none_match, etag):
                kept = [(k, v) for k, v in _with_vary(headers, b"Accept-Encoding")
                        if k.lower() not in (b"content-type",)]
                await send(_start(304, kept))
                await send(_body(b""))
                return
        headers, body = with_encoding(headers, body, encoding, lambda raw, chosen: self._encoded(raw, chosen, etag))
        await send(_start(start["status"], headers))
        await send(_body(body))

    def _encoded(self, body: bytes, encoding: str, etag: str | None) -> bytes:
        if etag is None:
            return _compress(body, encoding)
        key = (etag, encoding)
        cached = self._compressed.get(key)
        if cached is None:
            cached = self._compressed[key] = _compress(body, encoding, best=True)
            if len(self._compressed) > _CACHE_SIZE:
                self._compressed.popitem(last=False)
        else:
            self._compressed.move_to_end(key)
        return cached
