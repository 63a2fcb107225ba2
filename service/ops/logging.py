"""Structured JSON logs: one JSON object per line on stdout, every line carrying the request id.

Each line has ``timestamp`` (UTC, ISO 8601), ``level``, ``logger``, ``message`` and ``request_id`` (``null``
outside a request), plus any ``extra={...}`` fields and ``exc_info`` for exceptions.

**The service must log only through this formatter** (stdlib ``logging`` → the root handler configured by
:func:`json_logging_config`), never ``print`` and never a handler of its own. Secrets are kept out twice:

1. Nothing sensitive is logged on purpose: the access line has method, path (never the query string),
   status, duration and the client's identity (an API key appears only as a fingerprint); bodies and
   headers are never logged.
2. As a last line of defence, :class:`RedactingFilter` and :class:`JsonLogFormatter` pass every string
   through :func:`scrub`, which removes bearer tokens, ``Authorization``/``X-API-Key`` values, card lists
   (a hand) and any run of 40 or more ``[A-Za-z0-9_-]`` characters (sealed snapshots, seat tokens, keys).

A layer of the request envelope (service/ops/envelope.py), which :func:`service.app.create_app` puts around
the app.

Run uvicorn with ``--no-access-log`` (its access line includes query strings); :func:`json_logging_config`
also silences ``uvicorn.access`` and routes ``uvicorn``/``uvicorn.error`` through the JSON handler.
Inside a request, :func:`get_request_id` (or ``request.state["request_id"]``) gives the current id.
"""

from __future__ import annotations

import logging
import os
import random
import re
import sys
import time
from collections.abc import Collection, Mapping
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar.exceptions import HTTPException
from litestar.logging.config import LoggingConfig
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.types.callable_types import ExceptionLoggingHandler

from .clients import API_KEY_HEADER, OPERATIONAL_PATHS, client_identity, header_value

__all__ = [
    "ACCESS_LOGGER",
    "REQUEST_ID_SCOPE_KEY",
    "JsonLogFormatter",
    "RedactingFilter",
    "RequestLoggingMiddleware",
    "StdoutHandler",
    "accept_request_id",
    "get_request_id",
    "json_logging_config",
    "request_id_var",
    "scrub",
    "with_request_id",
]

ACCESS_LOGGER = "fivehundred.access"
REQUEST_ID_HEADER = "x-request-id"
#: Scope key of a request id already given to the request by a layer outside (the fast lane,
#: service/ops/fastlane.py, handing a request on to the stack): the request keeps it.
REQUEST_ID_SCOPE_KEY = "fivehundred.request_id"

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)


def get_request_id() -> str | None:
    """The id of the request being handled by this task, if any."""
    return request_id_var.get()


# --- redaction -------------------------------------------------------------------------------------------

REDACTED = "[REDACTED]"
# Card tokens of API.md: ranks 2-13 and J Q K A with a suit, and the joker(s).
_CARD = r"(?:1[0-3]|[2-9]|[JQKA])[SCDH]|JK[0-9A-Z]?"
_REDACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    # "Authorization: Bearer x", "'authorization': 'Basic x'", "authorization=x"
    (
        re.compile(r"(?i)(authorization[\"']?\s*[:=,]\s*[\"']?)(?:[A-Za-z]+\s+)?[^\s\"',;}\]]+"),
        r"\1" + REDACTED,
    ),
    (re.compile(r"(?i)(x-api-key[\"']?\s*[:=,]\s*[\"']?)[^\s\"',;}\]]+"), r"\1" + REDACTED),
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+"), r"\1" + REDACTED),
    # Query strings of URLs and paths (third-party libraries log whole URLs).
    (re.compile(r"((?:https?://|/)[^\s?\"'#]*)\?[^\s\"'#]*"), r"\1?" + REDACTED),
    # Three or more card tokens in a row: a hand, a kitty or discards.
    (
        re.compile(rf"(?<![A-Za-z0-9])(?:{_CARD})(?:[\s,;\"']+(?:{_CARD})){{2,}}(?![A-Za-z0-9])"),
        "[CARDS REDACTED]",
    ),
    # Long opaque runs: sealed snapshots, seat and host tokens, keys.
    (re.compile(r"[A-Za-z0-9_-]{40,}"), REDACTED),
)


# Every pattern above needs one of these to match at all; most log strings (methods, paths, statuses, client
# addresses) contain none, and one search clears them instead of six substitutions.
_MAY_NEED_SCRUBBING = re.compile(rf"(?i:authorization|x-api-key|bearer)|\?|[A-Za-z0-9_-]{{40}}|{_CARD}")


def scrub(text: str) -> str:
    """Remove secrets and hidden game information from ``text``.

    >>> scrub("Authorization: Bearer abc.def")
    'Authorization: [REDACTED]'
    >>> scrub("hand 4H, 10D, JS, JK")
    'hand [CARDS REDACTED]'
    >>> scrub("snapshot " + "A" * 48)
    'snapshot [REDACTED]'
    >>> scrub("GET http://host/v1/games?seat=2 200")
    'GET http://host/v1/games?[REDACTED] 200'
    """
    if _MAY_NEED_SCRUBBING.search(text) is None:
        return text
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


def _scrub_value(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, Mapping):
        return {str(k): _scrub_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_scrub_value(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return scrub(repr(value))


class RedactingFilter(logging.Filter):
    """Scrubs a record's message (and stamps the request id) before any handler formats it.

    The message is rendered once here (``msg % args``) and the record's ``args`` cleared, so a handler that
    does not use :class:`JsonLogFormatter` still never sees the raw values.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not lose the line
            message = f"{record.msg!r} % {record.args!r}"
        record.msg = scrub(message)
        record.args = None
        return True


# Attributes every LogRecord has; anything else on a record came from ``extra={...}``.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "request_id",
    "color_message",  # uvicorn's ANSI-coloured duplicate of the message
}


class JsonLogFormatter(logging.Formatter):
    """Formats a record as one line of JSON; every string in it goes through :func:`scrub`."""

    _encoder = msgspec.json.Encoder()

    def format(self, record: logging.LogRecord) -> str:
        request_id = getattr(record, "request_id", None)
        if request_id is None:
            request_id = request_id_var.get()
        entry: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
            # Ids are validated on the way in (accept_request_id) and never hold 40+ opaque characters.
            "request_id": request_id,
        }
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRIBUTES and not key.startswith("_"):
                entry[key] = _scrub_value(value)
        if record.exc_info:
            entry["exc_info"] = scrub(self.formatException(record.exc_info))
        if record.stack_info:
            entry["stack_info"] = scrub(self.formatStack(record.stack_info))
        return self._encoder.encode(entry).decode("utf-8")


class StdoutHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler writing to whatever ``sys.stdout`` is at the moment of each write.

    (A plain ``StreamHandler(sys.stdout)`` keeps the stream it was built with, which defeats output capture
    in tests and any later redirection.)
    """

    def __init__(self) -> None:
        super().__init__(sys.stdout)

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stdout
        super().emit(record)


def _exception_logger(expected: tuple[type[BaseException], ...]) -> ExceptionLoggingHandler:
    """Litestar's hook for exceptions reaching its exception middleware, logging only the unexpected ones.

    Litestar calls it for *every* exception, 404s and validation errors included; an HTTP exception below
    500 or one of the ``expected`` domain errors is a normal answer, not something to page anyone about.
    """

    def log_exception(logger: Any, scope: Scope, tb: list[str]) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, HTTPException) and exc.status_code < 500:
            return
        if expected and isinstance(exc, expected):
            return
        logger.error(
            "uncaught exception on %s %s",
            scope.get("method", "WS"),
            scope.get("path", ""),
            exc_info=exc is not None,
        )

    return log_exception


def json_logging_config(
    level: str = "INFO", *, expected_exceptions: tuple[type[BaseException], ...] = ()
) -> LoggingConfig:
    """A Litestar :class:`~litestar.logging.config.LoggingConfig` sending every log line through
    :class:`RedactingFilter` and :class:`JsonLogFormatter` to stdout.

    Exceptions that reach Litestar's exception handling are logged at ERROR with their traceback, except
    HTTP exceptions below 500 and ``expected_exceptions`` (pass the domain error classes the app maps to
    4xx answers, e.g. illegal moves), which are ordinary answers.

    Pass it as ``Litestar(logging_config=json_logging_config(settings.log_level, expected_exceptions=...))``.
    """
    level = level.upper()
    json_handler = {"()": StdoutHandler, "formatter": "json", "filters": ["redact"], "level": "DEBUG"}
    return LoggingConfig(
        formatters={"json": {"()": JsonLogFormatter}, "standard": {"()": JsonLogFormatter}},
        filters={"redact": {"()": RedactingFilter}},
        # Litestar insists on handlers named "console" and "queue_listener"; both are ours.
        handlers={"console": json_handler, "queue_listener": dict(json_handler)},
        root={"handlers": ["console"], "level": level},
        loggers={
            "litestar": {"level": level, "handlers": [], "propagate": True},
            "uvicorn": {"level": level, "handlers": [], "propagate": True},
            "uvicorn.error": {"level": level, "handlers": [], "propagate": True},
            # Our RequestLoggingMiddleware writes the access line; uvicorn's would carry the query string.
            "uvicorn.access": {"level": "CRITICAL", "handlers": [], "propagate": False},
        },
        configure_root_logger=True,
        disable_existing_loggers=False,
        log_exceptions="always",
        exception_logging_handler=_exception_logger(tuple(expected_exceptions)),
    )


# --- request ids and the access line ---------------------------------------------------------------------

_REQUEST_ID_HEADER = REQUEST_ID_HEADER.encode()
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
_OPAQUE_RUN = re.compile(r"[A-Za-z0-9_-]{40,}")


def accept_request_id(value: bytes | None) -> str:
    """The client's ``X-Request-ID`` if it is sane, else a fresh ``uuid4`` hex id.

    Sane: 1 to 128 characters of ``[A-Za-z0-9._-]``, and no run of 40 or more characters the log scrubber
    would blank out (so the id in every log line is always the one echoed to the client).

    >>> accept_request_id(b"abc-123")
    'abc-123'
    >>> len(accept_request_id(b"bad id with spaces"))
    32
    """
    if value:
        try:
            text = value.decode("ascii")
        except UnicodeDecodeError:
            text = ""
        if _SANE_REQUEST_ID.fullmatch(text) and not _OPAQUE_RUN.search(text):
            return text
    return new_request_id()


#: The random bits of request ids: seeded from the system's randomness, again in a forked child (so that no two
#: processes hand out the same ids). An id is a label, not a secret: a generator in memory serves it without the
#: system call ``os.urandom`` costs on every request.
_IDS = random.Random()
os.register_at_fork(after_in_child=_IDS.seed)
#: A version-4 UUID's fixed bits (version 4, RFC 4122 variant) in a 128-bit integer, and the bits they replace.
_UUID4_BITS = 0x4 << 76 | 0x2 << 62
_UUID4_MASK = ~(0xF << 76 | 0x3 << 62)


def new_request_id() -> str:
    """A fresh request id: a random version-4 UUID as 32 hex digits (the form of ``uuid.uuid4().hex``, built
    without the ``UUID`` object, on every request).

    >>> import uuid
    >>> uuid.UUID(new_request_id()).version
    4
    """
    return (_IDS.getrandbits(128) & _UUID4_MASK | _UUID4_BITS).to_bytes(16).hex()


def with_request_id(headers: Any, encoded_id: bytes) -> list[tuple[bytes, bytes]]:
    """A response's ``headers`` with ``X-Request-ID: encoded_id`` (replacing any the app set), last."""
    out = [(k, v) for k, v in headers if k.lower() != b"x-request-id"]
    out.append((b"x-request-id", encoded_id))
    return out


class RequestLoggingMiddleware:
    """ASGI middleware: request id in, ``X-Request-ID`` out, one access log line per request.

    The id is put in :data:`request_id_var` (so every log line during the request carries it) and in
    ``scope["state"]["request_id"]``. Requests to ``quiet_paths`` (probes, scrapes) are logged at DEBUG.
    :meth:`begin`, :func:`with_request_id` and :meth:`log_access` are its three steps, which the fast lane
    (service/ops/fastlane.py) takes too.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        logger_name: str = ACCESS_LOGGER,
        quiet_paths: Collection[str] = OPERATIONAL_PATHS,
        api_key_header: str = API_KEY_HEADER,
    ) -> None:
        self.app = app
        self.logger = logging.getLogger(logger_name)
        self.quiet_paths = frozenset(quiet_paths)
        self.api_key_header = api_key_header

    @staticmethod
    def begin(scope: Scope, client_id: bytes | None) -> tuple[str, Token[str | None]]:
        """The request's id, kept in ``scope["state"]`` and in :data:`request_id_var` (reset it with the token):
        the one a layer outside gave it (the fast lane handing it on), else the client's ``X-Request-ID``
        (``client_id``) if sane, else a fresh one."""
        request_id = scope.get(REQUEST_ID_SCOPE_KEY)
        if not isinstance(request_id, str):
            request_id = new_request_id() if client_id is None else accept_request_id(client_id)
        state = scope.get("state")
        if state is None:
            scope["state"] = state = {}
        state["request_id"] = request_id
        return request_id, request_id_var.set(request_id)

    def log_access(self, scope: Scope, method: str, path: str, status: int, duration: float) -> None:
        """The access line of a finished request."""
        level = logging.DEBUG if path in self.quiet_paths else logging.INFO
        if self.logger.isEnabledFor(level):  # else nothing to build (LOG_LEVEL=WARNING)
            self.logger.log(
                level,
                "%s %s %s",
                method,
                path,
                status,
                extra={
                    "method": method,
                    "path": path,  # scope["path"] never includes the query string
                    "status": status,
                    "duration_ms": round(duration * 1000, 3),
                    "client": client_identity(scope, api_key_header=self.api_key_header),
                },
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id, token = self.begin(scope, header_value(scope, _REQUEST_ID_HEADER))
        # Captured now: the router may rewrite scope["path"] for mounted apps.
        method = str(scope.get("method", "WS"))
        path = scope["path"]
        started = time.perf_counter()
        status = 500
        encoded_id = request_id.encode("ascii")

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = with_request_id(message.get("headers", ()), encoded_id)
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            self.log_access(scope, method, path, status, time.perf_counter() - started)
            request_id_var.reset(token)
