"""The live service the executed examples and the tutorials run against, started once for both: the README's
way (``tests/clients/tooling.py``), on the in-process store, with a fixed snapshot key and the tutorials' page
server allowed as a CORS origin (the page is served from another origin, as a reader's would be)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.tooling import LiveService
from tests.support import static_site

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
KEY = "Zml2ZS1odW5kcmVkLWRvY3MtZXhhbXBsZXMta2V5LTE"  # 32 bytes, base64url: the examples' fixed snapshot key


@pytest.fixture(scope="package")
def page_server() -> Iterator[str]:
    """``docs/tutorials/`` over HTTP, on an origin of its own."""
    with static_site(TUTORIALS) as origin:
        yield origin


@pytest.fixture(scope="package")
def service(page_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    live = LiveService.start(tmp_path_factory.mktemp("docs") / "service.log",
                             {"SNAPSHOT_KEYS": KEY, "LOG_LEVEL": "WARNING", "CORS_ORIGINS": page_server})
    try:
        yield live
    finally:
        live.stop()
