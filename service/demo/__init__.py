"""The reference web table at ``/demo/``: a static page that plays a hosted session against the bots.

The page (``static/index.html``, ``table.css``, ``table.js``: plain HTML, CSS and JavaScript, no build step)
uses only the public API, as a third-party front end would: it creates a session with bot seats, reads its
seat's view and legal moves, sends moves with ``If-Match`` and an ``Idempotency-Key``, and follows its seat's
event stream. Served from the service's own origin, so it needs no CORS. On by default; ``DEMO_ENABLED=false``
leaves it out (see :mod:`service.config`).
"""

from __future__ import annotations

from pathlib import Path

from litestar import Router
from litestar.static_files import create_static_files_router

#: Where the page is served (``/demo`` and ``/demo/`` both answer the index; it links its files absolutely).
DEMO_PATH = "/demo"
STATIC = Path(__file__).resolve().parent / "static"


def demo_router() -> Router:
    """The table's static files (not in the OpenAPI document)."""
    return create_static_files_router(path=DEMO_PATH, directories=[STATIC], html_mode=True, name="demo",
                                      include_in_schema=False, send_as_attachment=False)


__all__ = ["DEMO_PATH", "demo_router"]
