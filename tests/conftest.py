"""Fixtures shared by the test packages: a throwaway Redis Cluster (started once, when a test first asks)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster_server import RedisClusterServer


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterServer]:
    """Three primaries and three replicas on free ports (tests keep apart by key prefix)."""
    cluster = RedisClusterServer()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
