"""Fixtures for the ops tests: throwaway ``redis-server`` processes on free ports.

The tests start their own servers (never the shared Redis on 127.0.0.1:6379), with persistence off, and
kill them at teardown.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.redis_server import RedisServer

__all__ = ["RedisServer"]


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server for the whole session; tests keep apart by using unique key prefixes."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def disposable_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own, which the test may stop."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(params=["redis", "cluster"])
def shared_redis(request: pytest.FixtureRequest) -> Any:
    """One Redis, or a Redis Cluster (tests/conftest.py): what a limiter shared by replicas may run on."""
    return request.getfixturevalue("redis_server" if request.param == "redis" else "redis_cluster")


@pytest.fixture
def key_prefix() -> str:
    return f"test:{uuid.uuid4().hex[:12]}"


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Undo the global logging configuration a test app installs."""
    names = ["", "litestar", "uvicorn", "uvicorn.error", "uvicorn.access", "fivehundred.access"]
    saved = []
    for name in names:
        lg = logging.getLogger(name)
        saved.append((lg, list(lg.handlers), list(lg.filters), lg.level, lg.propagate, lg.disabled))
    yield
    for lg, handlers, filters, level, propagate, disabled in saved:
        lg.handlers[:] = handlers
        lg.filters[:] = filters
        lg.setLevel(level)
        lg.propagate = propagate
        lg.disabled = disabled
