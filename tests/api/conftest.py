"""Fixtures for the stateless API tests: one in-process app under fixed snapshot keys, driven by TestClient.

Every test also checks that the last-resort handler (500 ``INTERNAL``) was never reached: no input may produce
a server error.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.config import Settings
from service.referee.snapshots import Sealer
from tests.support import KEY, records_of

KEY_A = KEY
KEY_B = bytes(range(100, 132))


@pytest.fixture(scope="session")
def app() -> Litestar:
    return create_app(Settings(snapshot_keys=(KEY_A,)))


@pytest.fixture(scope="session")
def client(app: Litestar) -> Iterator[TestClient[Litestar]]:
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def sealer() -> Sealer:
    """A sealer under the app's key but without its cache: what it opens was really decrypted and decoded,
    and what it seals the app has never seen."""
    return Sealer([KEY_A])


@pytest.fixture(autouse=True)
def no_internal_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail any test during which the app answered 500 (the last-resort handler logs every such error)."""
    with records_of("fivehundred.errors", logging.ERROR) as errors:
        yield
    if request.node.get_closest_marker("expects_internal_error"):
        assert errors, "the last-resort handler was expected to log the error"
        return
    assert not errors, "the app answered 500:\n" + "\n".join(
        f"{r.getMessage()}\n{r.exc_text or ''}" for r in errors)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "expects_internal_error: the test provokes the last-resort 500 handler")
