"""Rewrite ``openapi/openapi.json`` from the app: exactly what ``create_app()`` serves at /schema/openapi.json.

    .venv/bin/python openapi/regenerate.py          # rewrite the committed document
    .venv/bin/python openapi/regenerate.py --check  # exit 1 if the committed document is out of date

The test ``tests/api/test_openapi.py`` fails whenever the committed file differs from what the app serves.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "openapi" / "openapi.json"
sys.path.insert(0, str(ROOT))


def served_document() -> dict[str, Any]:
    """The OpenAPI document as the app serves it (fetched over in-process HTTP, not built by hand)."""
    from litestar.testing import TestClient

    from service.app import create_app
    from service.config import Settings

    # A fixed key only avoids the generated-key warning: nothing in the document depends on keys.
    with TestClient(create_app(Settings(snapshot_keys=(bytes(32),), log_level="WARNING"))) as client:
        response = client.get("/schema/openapi.json")
        response.raise_for_status()
        document: dict[str, Any] = response.json()
        return document


def render(document: dict[str, Any]) -> str:
    # Indented for reviewable diffs; the members keep the order the app serves them in.
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if out of date")
    args = parser.parse_args()
    text = render(served_document())
    current = DOCUMENT.read_text() if DOCUMENT.exists() else ""
    if args.check:
        if current != text:
            print(f"{DOCUMENT.relative_to(ROOT)} is out of date: run .venv/bin/python openapi/regenerate.py")
            return 1
        print(f"{DOCUMENT.relative_to(ROOT)} is up to date")
        return 0
    DOCUMENT.write_text(text)
    print(f"wrote {DOCUMENT.relative_to(ROOT)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
