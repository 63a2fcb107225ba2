"""A real browser on another origin plays a hosted session through ``fetch`` (CORS) and an ``EventSource``.

Debian's Chromium (``/usr/bin/chromium``, installed by ``.ci/run`` when missing), headless, driven by
Playwright's Python package. The page (``page.html``) is served by a second small HTTP server on another port,
so every call is cross-origin: the service runs the README's way with ``CORS_ORIGINS`` naming the page's
origin. The page creates a session, follows the host's event stream with an ``EventSource`` (the token in
``?access_token=``, since an EventSource cannot send headers), and plays every move with ``Authorization``
and ``If-Match``, reading each new ``ETag``. It never closes the EventSource: the test checks that the stream
stops by itself at game over (the browser ends up ``CLOSED`` and does not reconnect again and again), and
that it delivered every event once, in order.

Without Chromium the test is skipped on a developer's machine and fails under CI (``CI`` set), where
``.ci/run`` provides it.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.conftest import SCENARIO
from tests.clients.tooling import CONTRACT, LiveService
from tests.support import static_site

#: The quick loop (``pytest -m "not slow"``) leaves these out: a real browser.
pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WATCH_MS = 5000  # how long the page watches the EventSource after the game is over
CLOSED, CONNECTING = 2, 0  # EventSource.readyState


@pytest.fixture(scope="module")
def page_server() -> Iterator[str]:
    with static_site(HERE) as origin:
        yield origin


@pytest.fixture(scope="module")
def cors_service(page_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    service = LiveService.start(tmp_path_factory.mktemp("browser") / "service.log",
                                {"CORS_ORIGINS": page_server})
    try:
        yield service
    finally:
        service.stop()


def event_types() -> list[str]:
    """Every event type the contract names (the ``const`` of each event schema's ``type``)."""
    schemas = json.loads(CONTRACT.read_text())["components"]["schemas"]
    names = {s["properties"]["type"].get("const") for s in schemas.values()
             if isinstance(s.get("properties", {}).get("type"), dict)}
    return sorted(n for n in names if isinstance(n, str)) + ["end"]


def event_type(data: str) -> str:
    """The type of the event a frame's data carries (bare, or wrapped with the session's version and to_act)."""
    parsed = json.loads(data)
    return str(parsed.get("event", parsed)["type"])


def test_browser_plays_a_session_cross_origin_and_the_stream_stops_at_game_over(
        page_server: str, cors_service: LiveService) -> None:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing (.ci/run installs Debian's chromium)")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    query = urllib.parse.urlencode({"api": cors_service.url, "setup": json.dumps(SCENARIO["session"]),
                                    "events": json.dumps(event_types()), "watch_ms": WATCH_MS})
    console: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.goto(f"{page_server}/page.html?{query}")
            page.wait_for_function("window.result && window.result.done", timeout=90_000)
            result: dict[str, Any] = page.evaluate("window.result")
        finally:
            browser.close()

    assert result["failure"] is None, f"{result['failure']}\nconsole:\n" + "\n".join(console)
    assert result["created_etag"] == '"1"', "the page could not read the ETag (CORS expose headers)"
    for before, move in enumerate(result["moves"], start=1):
        assert move == {"if_match": before, "etag": f'"{before + 1}"', "version": before + 1}
    assert result["final_phase"] == "game_over"

    # Every event arrived once, in order: what a plain HTTP reader of the same stream gets (read to its end).
    received = [e for e in result["events"] if e["type"] != "end"]
    url = f"{cors_service.url}/v1/sessions/{result['session']['id']}/events"
    with httpx.Client(timeout=10) as http:
        plain = http.get(url, headers={"Authorization": f"Bearer {result['session']['host_token']}"})
    assert plain.status_code == 200
    frames = [dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
              for block in plain.text.split("\n\n")]
    expected = [(f["id"], event_type(f["data"])) for f in frames if "data" in f and f.get("event") != "end"]
    assert [(e["id"], event_type(e["data"])) for e in received] == expected
    assert expected[-1][1] == "game_over" and len(expected) > len(result["moves"])

    # The stream stopped by itself: CLOSED within the watch, not reconnecting again and again.
    states = result["states"]
    assert result["final_state"] == CLOSED, f"the EventSource did not stop by itself: {states}"
    closed_at = next(s["at"] for s in states if s["state"] == CLOSED)
    assert closed_at - result["game_over_at"] < WATCH_MS - 1000, states
    assert sum(1 for s in states if s["state"] == CONNECTING) <= 2, f"reconnection loop: {states}"
    assert result["opens"] <= 2, result["opens"]
