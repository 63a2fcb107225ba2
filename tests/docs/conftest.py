"""The live service the executed examples and the tutorials run against, started once for both: the README's
way (``tests/clients/tooling.py``), on the in-process store, with a fixed snapshot key and the tutorials' page
server allowed as a CORS origin (the page is served from another origin, as a reader's would be)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.clients.tooling import LiveService
from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
KEY = "Zml2ZS1odW5kcmVkLWRvY3MtZXhhbXBsZXMta2V5LTE"  # 32 bytes, base64url: the examples' fixed snapshot key


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="package")
def page_server() -> Iterator[str]:
    """``docs/tutorials/`` over HTTP, on an origin of its own."""
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), partial(QuietHandler, directory=str(TUTORIALS)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="package")
def service(page_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    live = LiveService.start(tmp_path_factory.mktemp("docs") / "service.log",
                             {"SNAPSHOT_KEYS": KEY, "LOG_LEVEL": "WARNING", "CORS_ORIGINS": page_server})
    try:
        yield live
    finally:
        live.stop()
