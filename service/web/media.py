"""Request bodies are JSON, said so: every operation that takes a body requires ``Content-Type: application/json``.

Without this check any body would be parsed as JSON whatever its declared type, so an HTML form on another
site (``text/plain``, ``application/x-www-form-urlencoded`` and ``multipart/form-data`` need no CORS preflight)
could create games and sessions in a visitor's browser. Anything else is answered 415 ``UNSUPPORTED_MEDIA_TYPE``
before the body is read. Parameters (``; charset=utf-8``) are allowed; the type and subtype are compared
case-insensitively, as RFC 9110 says. JSON is UTF-8 (RFC 8259, section 8.1): a body declared in another
``charset`` (``latin-1``, ``utf-16``) is refused 415 too, rather than read as UTF-8 into something else.

>>> is_json_media_type("application/json; charset=utf-8"), is_json_media_type("text/plain"), is_json_media_type(None)
(True, False, False)
>>> is_json_media_type('application/json; charset="UTF-8"'), is_json_media_type("application/json; charset=utf-16")
(True, False)
"""

from __future__ import annotations

from typing import Any

from litestar import Request

from service.web.problems import Problem

#: Methods whose operations in this API all take a JSON body.
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def is_json_media_type(value: str | bytes | None) -> bool:
    """Whether a ``Content-Type`` header value is ``application/json`` (parameters allowed)."""
    if value is None:
        return False
    if value == "application/json" or value == b"application/json":  # the usual value, at once
        return True
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    media_type, *parameters = text.split(";")
    if media_type.strip().lower() != "application/json":
        return False
    for parameter in parameters:
        name, _, given = parameter.partition("=")
        if name.strip().lower() == "charset" and given.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


def unsupported_media_type(value: str | None) -> Problem:
    shown = "no Content-Type" if not value else repr(value[:60])
    return Problem("UNSUPPORTED_MEDIA_TYPE",
                   f"send the request body as Content-Type: application/json, in UTF-8 (got {shown})",
                   title="Unsupported media type", headers={"Accept-Post": "application/json"})


async def require_json(request: Request[Any, Any, Any]) -> None:
    """``before_request`` hook: 415 for a body-taking operation called without ``application/json``.

    A coroutine function although it never waits: Litestar runs a plain function given as a hook in its thread
    pool, a hop that cost every request (tests/bench/bench_http.py measures ``GET /healthz`` through it)."""
    if request.method in BODY_METHODS:
        value = request.headers.get("content-type")
        if not is_json_media_type(value):
            raise unsupported_media_type(value)


__all__ = ["BODY_METHODS", "is_json_media_type", "require_json", "unsupported_media_type"]
