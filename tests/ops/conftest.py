"""Fixtures for the ops tests: a key prefix per test, and logging restored after an app configured it.

The throwaway ``redis-server`` fixtures (``redis_server``, ``disposable_redis``) are the suite's own, in
``tests/conftest.py``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.redis_server import RedisServer

__all__ = ["RedisServer"]


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
