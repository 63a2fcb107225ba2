"""The two tutorials, each playing a whole hosted game against a live service.

* ``docs/tutorials/python_bot.py`` runs as a subprocess, as its page tells a reader to run it.
* ``docs/tutorials/browser.html`` runs in Debian's Chromium (``/usr/bin/chromium``, headless, driven by
  Playwright, as ``tests/browser/`` launches it), served by a small HTTP server on another origin, so every call
  is cross-origin and the service allows that origin in ``CORS_ORIGINS``; the test clicks the first move button
  until the game is over, then checks that the page's log holds every event of the seat's stream, once. Without
  Chromium it is skipped on a developer's machine and fails under CI (``CI`` set).

And the code each tutorial quotes is the code that runs: every line of its excerpts is in the program.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.clients.tooling import LiveService
from tests.docs.conftest import TUTORIALS

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def moves_applied(url: str) -> float:
    metrics = httpx.get(f"{url}/metrics", timeout=10).text
    return sum(float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("moves_applied_total"))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 11])
def test_the_python_bot_plays_a_whole_game(service: LiveService, seed: int) -> None:
    before = moves_applied(service.url)
    run = subprocess.run([sys.executable, str(TUTORIALS / "python_bot.py"), "--api", service.url, "--seed", str(seed)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    outcome = json.loads(lines[-1])
    assert outcome["phase"] == "game_over", outcome
    assert outcome["result"]["reason"] and isinstance(outcome["scores"], list), outcome
    assert outcome["moves"] >= 1 and outcome["version"] > outcome["moves"], outcome  # the bots moved too
    assert lines[-2].startswith(f"game over after {outcome['moves']} moves of ours"), lines[-2]
    assert sum(1 for line in lines if line.startswith("v")) == outcome["moves"]  # one line per move of ours
    assert moves_applied(service.url) - before >= outcome["moves"]


def chromium_or_skip() -> None:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing (.ci/run installs Debian's chromium)")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")


@pytest.mark.slow
def test_the_browser_page_plays_a_whole_game(page_server: str, service: LiveService) -> None:
    chromium_or_skip()
    from playwright.sync_api import sync_playwright

    console: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
            page.goto(f"{page_server}/browser.html?api={service.url}")
            page.click("#deal")
            clicks = 0
            while True:
                page.wait_for_function(
                    "document.getElementById('status').textContent.startsWith('Game over')"
                    " || document.querySelector('#moves button:not([disabled])') !== null", timeout=30_000)
                status = page.text_content("#status") or ""
                if status.startswith("Game over"):
                    break
                page.click("#moves button:not([disabled]) >> nth=0")
                clicks += 1
                assert clicks < 200, "the game did not end"
            page.wait_for_function(
                "[...document.querySelectorAll('#log li')].some(li => li.textContent === '(the stream has ended)')",
                timeout=30_000)
            log = page.eval_on_selector_all("#log li", "items => items.map(item => item.textContent)")
            session = page.evaluate("session")
        finally:
            browser.close()

    assert re.fullmatch(r"Game over: scores -?\d+ / -?\d+, your side (wins|loses)\.", status), (status, console)
    assert clicks >= 1
    assert log[-1] == "(the stream has ended)" and log[-2].startswith("v") and "game over" in log[-2], log[-3:]
    # Every event of the seat's stream is in the page's log once, in order: a plain reading of the same stream.
    with httpx.Client(timeout=10) as http:
        plain = http.get(f"{service.url}/v1/sessions/{session['id']}/events",
                         headers={"Authorization": f"Bearer {session['token']}"})
    assert plain.status_code == 200
    frames = [json.loads(line[len("data: "):]) for line in plain.text.splitlines() if line.startswith("data: ")]
    versions = [f"v{frame['version']} " for frame in frames if "event" in frame]
    shown = [line for line in log if line.startswith("v")]
    assert len(shown) == len(versions), (shown, versions)
    assert all(s.startswith(v) for s, v in zip(shown, versions, strict=True)), (shown, versions)


def excerpts(markdown: Path, lang: str) -> list[str]:
    blocks = re.findall(rf"^```{lang}\n(.*?)^```", markdown.read_text(), re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip() not in ("", "...")]


@pytest.mark.parametrize(("page", "program", "lang"), [("python-bot.md", "python_bot.py", "python"),
                                                       ("browser.md", "browser.html", "js"),
                                                       ("outside-bot.md", "outside_bot.py", "python")])
def test_the_tutorials_quote_the_code_that_runs(page: str, program: str, lang: str) -> None:
    code = {line.strip() for line in (TUTORIALS / program).read_text().splitlines()}
    quoted = excerpts(TUTORIALS / page, lang)
    assert len(quoted) >= 10, quoted
    missing = [line for line in quoted if line not in code]
    assert not missing, f"docs/tutorials/{page} quotes lines {program} does not have: {missing}"


def _new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(32)).decode()


def _kit_against_tutorial_bot(bot_secret: str, kit_secret: str, *kit_args: str) -> subprocess.CompletedProcess[str]:
    """The tutorial's bot started as its page starts it (with ``bot_secret``), and the kit run against it (with
    ``kit_secret`` and ``kit_args``)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bot = subprocess.Popen([sys.executable, str(TUTORIALS / "outside_bot.py"), "--port", str(port),
                            "--secret", bot_secret], stdout=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None and "outside bot on" in bot.stdout.readline()
        return subprocess.run([sys.executable, str(TUTORIALS.parents[1] / "tools" / "bot_kit.py"),
                               "--bot-url", f"http://127.0.0.1:{port}/", "--secret", kit_secret, *kit_args],
                              capture_output=True, text=True, timeout=300)
    finally:
        bot.terminate()
        bot.wait(timeout=10)


@pytest.mark.slow
def test_the_bot_kit_finds_the_tutorial_bot_ready() -> None:
    """docs/tutorials/outside-bot.md's commands: the tutorial's bot, started as the page starts it, and the kit
    run against it, which plays its deals in duplicate and reports it ready."""
    secret = _new_secret()
    run = _kit_against_tutorial_bot(secret, secret, "--deals", "2", "--target", "100", "--move-seconds", "1")
    assert run.returncode == 0, run.stdout + run.stderr
    report = run.stdout
    assert "legality:    0 of" in report and "deadlines:   0 of" in report and "READY" in report.splitlines()[-1]
    assert "the same move" in report and report.count("duplicate:   deal") == 2
    asked = int(report.split("legality:    0 of ")[1].split()[0])
    assert asked >= 10  # the bot played its seat's turns itself
    # And a bot that is not ready is told so: a wrong secret, so the bot refuses every turn (401).
    run = _kit_against_tutorial_bot(_new_secret(), secret, "--deals", "1", "--target", "50", "--move-seconds", "0.3")
    assert run.returncode == 1 and "NOT READY" in run.stdout, run.stdout + run.stderr
