"""Helpers shared by the test packages: paths, a fixed snapshot key, apps, requests and JSON shapes.

Fixtures shared by every package (the throwaway ``redis-server``) are in ``tests/conftest.py``; the
``redis-server`` processes themselves in :mod:`tests.redis_server`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec

from tests.redis_server import free_port

__all__ = ["KEY", "PROBLEM_JSON", "ROOT", "app_with_key", "as_json", "assert_problem", "bearer", "free_port",
           "jsonable", "records_of"]

#: The repository's root folder.
ROOT = Path(__file__).resolve().parents[1]
#: A fixed snapshot key for apps and sealers in tests (never a production key).
KEY = bytes(range(32))
PROBLEM_JSON = "application/problem+json"
PROBLEM_BASE = "https://fivehundred.dev/problems/"


def app_with_key(**settings: Any) -> Any:
    """The service's app under :data:`KEY`, with quiet logs unless ``settings`` say otherwise."""
    from service.app import create_app  # here: the engine's tests use this module without the service
    from service.config import Settings

    settings.setdefault("log_level", "WARNING")
    return create_app(Settings(snapshot_keys=(KEY,), **settings))


def move_lists(value: Any) -> Any:
    """``enc_hook`` for msgspec: the engine's lazy move sequences (the exchange's ``DiscardChoices``) as the lists
    they equal, which is how the service sends them."""
    from engine import DiscardChoices

    if isinstance(value, DiscardChoices):
        return list(value)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


def jsonable(value: Any) -> Any:
    """``value`` as it looks after a JSON round trip (lists, not tuples)."""
    return msgspec.json.decode(msgspec.json.encode(value, enc_hook=move_lists))


#: What ``obj`` looks like on the wire (the same as :func:`jsonable`).
as_json = jsonable


def bearer(token: str) -> dict[str, str]:
    """The ``Authorization`` header of a session token."""
    return {"Authorization": f"Bearer {token}"}


def assert_problem(response: Any, status: int, code: str, *, reason: str | None = None) -> dict[str, Any]:
    """Check ``response`` (TestClient's or httpx's) is an RFC 9457 problem with this status and code, and
    ``reason`` if given; return its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM_JSON), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["code"] == code, body
    assert body["type"].startswith(PROBLEM_BASE) and body["title"] and body["detail"], body
    if reason is not None:
        assert body.get("reason") == reason, body
    return body


@contextmanager
def records_of(logger_name: str, level: int = logging.DEBUG) -> Iterator[list[logging.LogRecord]]:
    """Records of one logger, captured by a handler on that logger itself (an app's logging configuration
    replaces the root handlers, pytest's caplog among them)."""
    records: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Collect(level)
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def static_site(directory: Path) -> Iterator[str]:
    """``directory`` served over HTTP on a loopback origin of its own (a page that calls the service from another
    origin, as a reader's front end would); yields the origin."""
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), partial(_QuietHandler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
