"""The reference web table shows the game's life (docs/API.md, "A game's life"): a seat away and back, a game
waiting to start, paused and resumed by the host, each from the session's view and kept up from the stream.

Real Chromium, with the fixtures of ``tests/browser/test_table.py``. The page plays seat 0, joined by its
invitation; everything else (the host's requests, a second player's) is plain HTTP from the test.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.browser import test_table as table
from tests.clients.tooling import LiveService

# The fixtures of the table's browser tests (a live service, Chromium, a fresh page), and its mark (slow).
service, browser, page, pytestmark = table.service, table.browser, table.page, table.pytestmark
STEP_MS = table.STEP_MS


def _table(service: LiveService, **fields: Any) -> dict[str, Any]:
    """A four-player table hosted over HTTP, seat 0 open for the page (seat 3 deals: seat 0 bids first)."""
    body = {"players": 4, "first_dealer": 3, "open_seats": [0], "options": {"target": 500}, **fields}
    with httpx.Client(base_url=service.url, timeout=10) as http:
        answer = http.post("/v1/sessions", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def _join(page: Page, service: LiveService, created: dict[str, Any]) -> None:
    page.goto(f"{service.url}/demo/?step_ms={STEP_MS}&join={created['session_id']}"
              f"&code={created['invitations'][0]['code']}")
    page.wait_for_selector("#join:not([hidden])")
    page.fill("#join [name=name]", "Ana")
    page.click("#join-button")
    page.wait_for_selector("#table:not([hidden])")


def _post(service: LiveService, created: dict[str, Any], action: str) -> None:
    with httpx.Client(base_url=service.url, timeout=10) as http:
        answer = http.post(f"/v1/sessions/{created['session_id']}/{action}", json={},
                           headers={"Authorization": f"Bearer {created['host_token']}"})
    assert answer.status_code == 200, answer.text


def _left_ms(page: Page) -> list[tuple[str, int]]:
    """The clock's deadline and time left as the page shows it, sampled every 100 ms for a second."""
    samples = []
    for _ in range(10):
        deadline, left = page.eval_on_selector("#clock", "e => [e.dataset.deadline ?? '', e.dataset.leftMs ?? '']")
        if deadline and left:
            samples.append((str(deadline), int(left)))
        page.wait_for_timeout(100)
    return samples


def test_a_seat_away_is_marked_and_its_player_coming_back_clears_it(page: Page, service: LiveService) -> None:
    """Seat 2's player (its token from the table's creation, never used by the page) lets the one-second clock
    run out once: it is away, and the page's seat list marks it (and its name), while the clock counts down; a
    request with seat 2's own token brings it back, and the mark goes."""
    created = _table(service, bots={"1": "basic", "3": "basic"},
                     clock={"move_seconds": 1, "away_after": 1, "bot": "basic"})
    away_token = created["seat_tokens"][2]
    assert away_token
    _join(page, service, created)
    page.wait_for_selector('#seats [data-seat="2"] > .away:not([hidden])', timeout=10_000)
    assert page.get_attribute("#table-life", "data-status") == "running"
    assert "Seat 2" in page.inner_text("#away") and page.get_attribute("#away", "data-seats") == "2"
    assert page.is_hidden('#seats [data-seat="1"] > .away')  # a bot's seat is never away
    # The clock counts down: two readings of one turn (one deadline), the later one smaller.
    samples = _left_ms(page)
    assert any(d1 == d2 and l2 < l1 for (d1, l1), (d2, l2) in zip(samples, samples[1:], strict=False)), samples

    with httpx.Client(base_url=service.url, timeout=10) as http:  # seat 2's player looks at its phone
        back = http.get(f"/v1/sessions/{created['session_id']}", headers={"Authorization": f"Bearer {away_token}"})
    assert back.status_code == 200
    page.wait_for_selector('#seats [data-seat="2"] > .away', state="hidden", timeout=5_000)
    page.wait_for_selector('#log li:text-is("Seat 2 is back")', state="attached", timeout=5_000)


def test_the_host_pauses_and_resumes_and_the_clock_stands_still_meanwhile(page: Page, service: LiveService) -> None:
    """A table the host starts: the page waits (the clock does not run), then runs once the host starts it; the
    host pauses it: the page says so and the clock stops; resumed, the clock counts down again."""
    created = _table(service, bots={"1": "basic", "2": "basic", "3": "basic"}, start="host",
                     clock={"move_seconds": 30, "bot": "basic"})
    _join(page, service, created)
    page.wait_for_selector("body[data-life=waiting]")
    assert page.inner_text("#life") == "Waiting for the host to start the game."
    assert page.get_attribute("#clock", "data-stopped") == "true" and _left_ms(page) == []

    _post(service, created, "start")
    page.wait_for_selector("body[data-life=running]")
    page.wait_for_selector("body[data-turn=you]")
    assert page.is_hidden("#life") and len(_left_ms(page)) > 0

    _post(service, created, "pause")
    page.wait_for_selector("body[data-life=paused]")
    assert page.inner_text("#life") == "Paused by the host." and page.inner_text("#status") == "Paused by the host."
    assert page.inner_text("#clock") == "Clock stopped: paused"
    assert page.get_attribute("#clock", "data-stopped") == "true"
    assert _left_ms(page) == []  # no time running
    page.wait_for_selector("body[data-turn=others]")  # and nothing to play: no bid is offered
    assert page.locator("#controls [data-legal=true]").count() == 0 and page.is_hidden("#hint")

    _post(service, created, "resume")
    page.wait_for_selector("body[data-life=running]")
    page.wait_for_selector("body[data-turn=you]")
    samples = _left_ms(page)
    assert len(samples) >= 2 and samples[-1][1] < samples[0][1] <= 30_000, samples
    log = page.eval_on_selector_all("#log li", "items => items.map(li => li.textContent)")
    assert "The host paused the game" in log and "The host resumed the game" in log, log
