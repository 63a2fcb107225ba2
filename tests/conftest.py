"""Fixtures of every test package: throwaway ``redis-server`` processes (never the shared Redis on 6379), and
the ``slow`` marker (``pytest -m "not slow"`` is the quick loop; CI runs everything)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.redis_server import RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server (free port, no persistence) for the whole run; tests keep apart by key prefix."""
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
