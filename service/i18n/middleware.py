"""The language of each response: negotiated once per request, said in ``Content-Language``, varied on.

:class:`LanguageMiddleware` wraps the whole app (outside routing, so 404s and 405s are covered too). It
negotiates the language from ``Accept-Language`` and the ``lang`` query parameter (see
:mod:`service.i18n.negotiation`), keeps it in the ASGI scope for the handlers and the problem renderer
(:func:`request_language`), and adds ``Content-Language`` and ``Vary: Accept-Language`` to every response
(merged with any ``Vary`` already there, such as CORS's ``Origin``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.i18n.negotiation import MAX_HEADER_LENGTH, negotiate

SCOPE_KEY = "fivehundred.language"
LANG_PARAMETER = "lang"


@lru_cache(maxsize=1024)  # by the raw header: clients send the same few again and again
def negotiated(accept_language: bytes | None, lang: str | None) -> str:
    """The language of a request with this raw ``Accept-Language`` (its first) and ``lang`` query parameter."""
    header = None if accept_language is None else accept_language[:MAX_HEADER_LENGTH].decode("latin-1")
    return negotiate(header, lang)


def request_language(scope: Mapping[str, Any]) -> str:
    """The language of the answer to the request of ``scope`` (negotiated once, then kept in the scope)."""
    language = scope.get(SCOPE_KEY)
    if isinstance(language, str):
        return language
    lang = None
    query = scope.get("query_string", b"")
    if b"lang=" in query:
        for name, value in parse_qsl(bytes(query[:4096]).decode("latin-1")):
            if name == LANG_PARAMETER:
                lang = value
                break
    accept_language = None
    for key, value in scope.get("headers", ()):
        if key == b"accept-language":
            accept_language = bytes(value)
            break
    language = negotiated(accept_language, lang)
    if isinstance(scope, dict):
        scope[SCOPE_KEY] = language
    return language


def with_language(headers: Any, language: bytes) -> list[tuple[bytes, bytes]]:
    """``headers`` with ``Content-Language: language`` and ``Accept-Language`` added to ``Vary``."""
    out: list[tuple[bytes, bytes]] = []
    vary: list[bytes] = []
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"vary":
            vary.append(value)
        elif lowered != b"content-language":
            out.append((name, value))
    if vary:
        parts = [part.strip() for value in vary for part in bytes(value).split(b",") if part.strip()]
        if not any(part.lower() in (b"accept-language", b"*") for part in parts):
            parts.append(b"Accept-Language")
        out.append((b"vary", b", ".join(parts)))
    else:
        out.append((b"vary", b"Accept-Language"))
    out.append((b"content-language", language))
    return out


class LanguageMiddleware:
    """ASGI middleware: negotiate the language, then label every HTTP response with it (its two steps,
    :func:`negotiated` and :func:`with_language`, are the fast lane's too: service/ops/fastlane.py)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        language = request_language(scope).encode()

        async def labelled(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": with_language(message.get("headers", ()), language)}
            await send(message)

        await self.app(scope, receive, labelled)


__all__ = ["LANG_PARAMETER", "LanguageMiddleware", "SCOPE_KEY", "negotiated", "request_language", "with_language"]
