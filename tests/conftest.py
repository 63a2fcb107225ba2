"""Fixtures shared by the test packages: throwaway ``redis-server`` processes and a throwaway Redis Cluster
(started once, when a test first asks; never the shared Redis on 6379). The ``slow`` marker is registered in
pyproject.toml: ``pytest -m "not slow"`` is the quick loop, CI runs everything."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster_server import RedisClusterServer, running_cluster
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


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterServer]:
    """Three primaries and three replicas on free ports (tests keep apart by key prefix)."""
    with running_cluster() as cluster:
        yield cluster
