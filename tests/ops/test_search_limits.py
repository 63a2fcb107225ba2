"""Search bounds (service/referee/search.py) through HTTP against real servers (``uvicorn`` processes started here,
their searches in worker processes of their own):

- with every search slot and queue place taken, a suggestion is answered 503 ``NOT_READY`` with
  ``Retry-After`` at once, while the admitted ones are answered 200;
- a client's playouts per minute: a suggestion that does not fit is 429 ``RATE_LIMITED`` with ``Retry-After``
  and spends nothing; one that fits what is left passes; levels that do not search are not charged; session
  hints draw on the same budget;
- while hints saturate the replica, a session's bot seats still move at once, and so does the turn clock;
- a search worker killed mid-search: its suggestion is 503 ``NOT_READY`` (never a 500), the next is served;
- and no answer of any of it is a 500.

The searches are a 6-player opening bid (seed 20, the longest of the first forty seeds' openings to search: all
5,000 playouts, over 2 s of CPU) and the tests wait on the server's own gauges (``searches_running``,
``search_queue_depth``), not on sleeps, so that what is searching is still searching when the test looks.
"""

from __future__ import annotations

import concurrent.futures
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import assert_problem, bearer

from .served import Server

#: Real servers with worker processes and seconds-long searches: in CI's run, not in the quick loop.
pytestmark = pytest.mark.slow

SATURATED = {"SEARCH_WORKERS": "1", "BOT_WORKERS": "1", "SEARCH_CONCURRENCY": "1", "SEARCH_QUEUE": "1",
             "SEARCH_PLAYOUTS_PER_MINUTE": "0", "SEARCH_WORKER_NICE": "10"}
BUDGETED = {"SEARCH_WORKERS": "1", "BOT_WORKERS": "0", "SEARCH_CONCURRENCY": "2", "SEARCH_QUEUE": "4",
            "SEARCH_PLAYOUTS_PER_MINUTE": "5000"}


@pytest.fixture(scope="module")
def saturable() -> Iterator[Server]:
    """One search at a time and one waiting; no playout budget; a bot worker of its own."""
    server = Server(SATURATED)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def budgeted() -> Iterator[Server]:
    server = Server(BUDGETED)
    yield server
    server.stop()


def opening(url: str, players: int = 6, seed: int = 20) -> tuple[str, int]:
    """A new game's snapshot and the seat to act (an opening bid)."""
    created = httpx.post(url + "/v1/games", json={"players": players, "seed": seed}, timeout=30).json()
    return created["snapshot"], created["to_act"]


def suggest(url: str, snapshot: str, seat: int, budget: int, level: str = "expert",
            headers: dict[str, str] | None = None) -> httpx.Response:
    body: dict[str, Any] = {"snapshot": snapshot, "seat": seat, "level": level, "seed": 1}
    if level == "expert":
        body["budget"] = budget
    return httpx.post(url + "/v1/games/suggest", json=body, headers=headers, timeout=120)


def wait_until(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def metric(url: str, name: str) -> float:
    """One sample of ``/metrics`` (``name`` with its labels, as printed)."""
    for line in httpx.get(url + "/metrics", timeout=30).text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {name} in /metrics")


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def search_workers(server: Server) -> list[int]:
    """The server's hint workers: its spawned children running at a lowered priority (the bot workers and
    multiprocessing's resource tracker run at the server's own)."""
    found = []
    for child in children(server.process.pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            nice = int(Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[16])
        except OSError:
            continue
        if b"spawn_main" in cmdline and nice > os.nice(0):
            found.append(child)
    return found


class Flood:
    """``width`` threads each keeping one suggestion in flight until stopped; every status, and when each
    search that was answered 200 was sent and answered."""

    def __init__(self, url: str, snapshot: str, seat: int, width: int, budget: int) -> None:
        self.statuses: list[int] = []
        self.searched: list[tuple[float, float]] = []
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(url, snapshot, seat, budget), daemon=True)
                        for _ in range(width)]
        for thread in self.threads:
            thread.start()

    def _run(self, url: str, snapshot: str, seat: int, budget: int) -> None:
        while not self.stopping.is_set():
            sent = time.monotonic()
            r = suggest(url, snapshot, seat, budget)
            self.statuses.append(r.status_code)
            if r.status_code == 200:
                self.searched.append((sent, time.monotonic()))
            if r.status_code == 503:
                time.sleep(0.05)

    def stop(self) -> list[int]:
        self.stopping.set()
        for thread in self.threads:
            thread.join(120)
        return self.statuses


def test_a_full_replica_answers_503_with_retry_after_at_once(saturable: Server) -> None:
    snapshot, seat = opening(saturable.url)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        running = pool.submit(suggest, saturable.url, snapshot, seat, 5000)
        assert wait_until(lambda: metric(saturable.url, "searches_running") == 1, 30)  # the first is searching
        waiting = pool.submit(suggest, saturable.url, snapshot, seat, 300)
        assert wait_until(lambda: metric(saturable.url, "search_queue_depth") == 1, 30)  # the second waits
        started = time.monotonic()
        refused = suggest(saturable.url, snapshot, seat, 300)
        answered_in = time.monotonic() - started
        assert not running.done(), "the first search ended before the test looked: make it longer"
        problem = assert_problem(refused, 503, "NOT_READY")
        assert int(refused.headers["retry-after"]) >= 1
        assert problem["instance"] == "/v1/games/suggest"
        assert answered_in < 1.0  # refused at once, not after waiting its turn
        first, second = running.result(), waiting.result()
    assert (first.status_code, second.status_code) == (200, 200), (first.text, second.text)
    assert first.json()["playouts"] > 0 and second.json()["playouts"] > 0
    # Levels that do not search are never queued behind the searches.
    assert suggest(saturable.url, snapshot, seat, 0, level="basic").status_code == 200


def test_the_playout_budget_answers_429_and_spends_nothing_refused(budgeted: Server) -> None:
    snapshot, seat = opening(budgeted.url, players=4, seed=5)
    first = suggest(budgeted.url, snapshot, seat, 3000)
    assert first.status_code == 200, first.text
    spent = first.json()["playouts"]
    # Charged 3000 up front, given back what the search did not spend: it never spends more than its budget, and
    # at least one playout per sampled deal (its pruning may leave much of the budget unspent).
    assert 1 <= first.json()["deals"] <= spent <= 3000
    over = suggest(budgeted.url, snapshot, seat, 5000 - spent + 1)  # one playout more than the minute has left
    problem = assert_problem(over, 429, "RATE_LIMITED")
    assert 1 <= int(over.headers["retry-after"]) <= 60
    assert problem["instance"] == "/v1/games/suggest"
    # What is left of the minute still serves a smaller budget: the refused playouts were not charged.
    fits = suggest(budgeted.url, snapshot, seat, 5000 - spent)
    assert fits.status_code == 200, fits.text
    left = 5000 - spent - fits.json()["playouts"]
    assert_problem(suggest(budgeted.url, snapshot, seat, left + 1), 429, "RATE_LIMITED")
    # A level that does not search is not charged.
    assert suggest(budgeted.url, snapshot, seat, 0, level="basic").status_code == 200
    # Session hints draw on the same client's budget.
    created = httpx.post(budgeted.url + "/v1/sessions", json={"players": 4, "seed": 2, "known_deal": True,
                                                              "first_dealer": 3},
                         timeout=30).json()
    me = bearer(created["seat_tokens"][0])
    hint = httpx.post(f"{budgeted.url}/v1/sessions/{created['session_id']}/suggest",
                      json={"level": "expert", "budget": 5000}, headers=me, timeout=60)
    assert_problem(hint, 429, "RATE_LIMITED")
    assert int(hint.headers["retry-after"]) >= 1
    basic = httpx.post(f"{budgeted.url}/v1/sessions/{created['session_id']}/suggest", json={"level": "basic"},
                       headers=me, timeout=60)
    assert basic.status_code == 200, basic.text


def test_bot_seats_and_the_clock_move_while_hints_are_saturated(saturable: Server) -> None:
    url = saturable.url
    snapshot, seat = opening(url)
    bots = {"1": "expert", "2": "expert", "3": "expert"}
    table = httpx.post(url + "/v1/sessions", json={"players": 4, "seed": 7, "known_deal": True,
                                                   "first_dealer": 3, "bots": bots},
                       timeout=30).json()
    flood = Flood(url, snapshot, seat, width=3, budget=5000)
    try:
        # Saturated: one searching, one waiting, the rest refused.
        assert wait_until(lambda: 503 in flood.statuses, 60), flood.statuses
        assert_problem(suggest(url, snapshot, seat, 300), 503, "NOT_READY")
        me = bearer(table["seat_tokens"][0])
        session = f"{url}/v1/sessions/{table['session_id']}"
        legal = httpx.get(session + "/legal-moves", headers=me, timeout=30).json()["legal_moves"]
        sent = time.monotonic()
        moved = httpx.post(session + "/moves", json={"move": legal[0]}, headers=me, timeout=120)
        answered = time.monotonic()
        assert moved.status_code == 200, moved.text
        body = moved.json()
        # The expert bots moved before the human's move was answered: their moves are in its answer.
        assert body["version"] >= table["version"] + 2 and body["to_act"] in (0, None), body
        # A seat that does not move in time: the clock's expert moves for it, hints or not (the other seats'
        # bots are basic here, so that what is timed is the clock's one search).
        basic = dict.fromkeys(bots, "basic")
        clocked = httpx.post(url + "/v1/sessions", json={"players": 4, "seed": 8, "known_deal": True,
                                                         "first_dealer": 3, "bots": basic,
                                                          "clock": {"move_seconds": 1, "bot": "expert"}},
                             timeout=30).json()
        clocked_url = f"{url}/v1/sessions/{clocked['session_id']}"
        watcher = bearer(clocked["host_token"])

        def clock_moved() -> bool:
            r = httpx.get(clocked_url, headers=watcher, timeout=30)
            return r.status_code == 200 and r.json()["version"] > clocked["version"]

        clock_started = time.monotonic()
        assert wait_until(clock_moved, 60), "the clock did not move"
        clock_answered = time.monotonic()
    finally:
        statuses = flood.stop()
    assert 200 in statuses and 503 in statuses and 500 not in statuses, statuses
    # Neither waited behind the hints: each was done before the searches in flight when it started (one
    # searching, one waiting its turn) were answered. Queued behind them it would have come after both.
    for started, done in ((sent, answered), (clock_started, clock_answered)):
        in_flight = [end for begin, end in flood.searched if begin < started < end]
        assert in_flight and done < max(in_flight), (started, done, flood.searched)


def killed_mid_search(server: Server, snapshot: str, seat: int) -> tuple[int, httpx.Response]:
    """Kill ``server``'s one hint worker while it searches a suggestion: (the worker's pid, the answer)."""
    assert wait_until(lambda: len(search_workers(server)) == 1, 20)
    [worker] = search_workers(server)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        doomed = pool.submit(suggest, server.url, snapshot, seat, 5000)
        assert wait_until(lambda: metric(server.url, "searches_running") == 1, 30)
        time.sleep(0.2)  # the search has reached the worker
        os.kill(worker, 9)
        return worker, doomed.result()


def test_a_search_worker_that_dies_is_a_503_never_a_500(saturable: Server) -> None:
    url = saturable.url
    snapshot, seat = opening(url)
    worker, answer = killed_mid_search(saturable, snapshot, seat)
    problem = assert_problem(answer, 503, "NOT_READY")
    assert answer.headers["retry-after"] == "1" and problem["instance"] == "/v1/games/suggest"
    # A new worker took its place; the next suggestion is searched there.
    again = suggest(url, snapshot, seat, 200)
    assert again.status_code == 200, again.text
    assert again.json()["playouts"] > 0
    assert search_workers(saturable) and worker not in search_workers(saturable)


def test_a_pool_replaced_after_a_worker_died_leaves_no_semaphore_behind() -> None:
    """The broken pool's queues are released like a stopped pool's: the server, stopped afterwards, leaves
    nothing for multiprocessing's resource tracker to warn of."""
    with tempfile.TemporaryFile() as stderr:
        server = Server(SATURATED, stderr=stderr)
        try:
            snapshot, seat = opening(server.url)
            assert_problem(killed_mid_search(server, snapshot, seat)[1], 503, "NOT_READY")
            assert suggest(server.url, snapshot, seat, 200).status_code == 200
            server.stop_cleanly(stderr)
        finally:
            server.stop()
