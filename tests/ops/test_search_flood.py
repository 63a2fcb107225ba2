"""What a search costs when its client misbehaves, against real servers (``uvicorn`` processes, their searches in
worker processes of their own; service/referee/search.py):

- a client that goes away while its search waits its turn or runs: the waiting one gives up its place and never
  starts, the running one is interrupted in its worker (which goes idle and takes the next search); a session's
  hint likewise;
- a client that sends again at once after a refusal, before its ``Retry-After``: the refusal is held (without
  CPU), then answered as it would have been;
- the search metrics of ``/metrics`` count all of it;
- a server stopped mid-search (SIGTERM) ends its workers and leaves no semaphore behind (multiprocessing's
  resource tracker warns of none on stderr).
"""

from __future__ import annotations

import json
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .served import Server
from .test_search_limits import metric, opening, search_workers, wait_until

pytestmark = pytest.mark.slow

ONE_AT_A_TIME = {"SEARCH_WORKERS": "1", "BOT_WORKERS": "0", "SEARCH_CONCURRENCY": "1", "SEARCH_QUEUE": "1",
                 "SEARCH_PLAYOUTS_PER_MINUTE": "0", "SEARCH_WORKER_NICE": "10", "SEARCH_REFUSAL_HOLD_SECONDS": "30"}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    started = Server(ONE_AT_A_TIME)
    yield started
    started.stop()


def send_suggestion(server: Server, snapshot: str, seat: int, budget: int) -> socket.socket:
    """A suggestion sent on a connection of its own; its answer is left unread."""
    body = json.dumps({"snapshot": snapshot, "seat": seat, "level": "expert", "seed": 1,
                       "budget": budget}).encode()
    connection = server.connect()
    connection.sendall(b"POST /v1/games/suggest HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                       b"Content-Length: %d\r\n\r\n" % len(body) + body)
    return connection


def status_of(connection: socket.socket) -> tuple[int, dict[str, str]]:
    """The status and headers of the next answer on ``connection`` (its body is left unread)."""
    connection.settimeout(120)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = connection.recv(65536)
        assert chunk, "the server closed the connection"
        head += chunk
    lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100


def idle(pid: int) -> bool:
    """Whether ``pid`` used (almost) no CPU over a quarter of a second."""
    before = cpu_seconds(pid)
    time.sleep(0.25)
    return cpu_seconds(pid) - before < 0.02


def test_a_client_gone_cancels_its_search_waiting_or_running(server: Server) -> None:
    url = server.url
    snapshot, seat = opening(url)
    assert wait_until(lambda: len(search_workers(server)) == 1, 30)
    [worker] = search_workers(server)
    running = send_suggestion(server, snapshot, seat, 5000)
    assert wait_until(lambda: metric(url, "searches_running") == 1, 30)
    waiting = send_suggestion(server, snapshot, seat, 5000)
    assert wait_until(lambda: metric(url, "search_queue_depth") == 1, 30)
    started = metric(url, "searches_started_total")
    # Searching: the worker (at nice 10) spends CPU within the next seconds. On a busy machine (the suite's
    # other processes) it may get none for a quarter of a second at a time.
    assert wait_until(lambda: not idle(worker), 30)
    waiting.close()
    assert wait_until(lambda: metric(url, "search_queue_depth") == 0, 30)
    assert metric(url, 'searches_cancelled_total{stage="queued"}') == 1
    assert metric(url, "searches_started_total") == started  # it never started
    running.close()
    assert wait_until(lambda: metric(url, 'searches_cancelled_total{stage="running"}') == 1, 30)
    assert metric(url, "searches_running") == 0
    assert wait_until(lambda: idle(worker), 30)  # interrupted in its worker, not searched to its end
    assert search_workers(server) == [worker]  # the same worker: it survived, and takes the next search
    again = httpx.post(url + "/v1/games/suggest", json={"snapshot": snapshot, "seat": seat, "level": "expert",
                                                        "seed": 1, "budget": 100}, timeout=120)
    assert again.status_code == 200, again.text
    assert again.json()["playouts"] > 0
    assert metric(url, "search_duration_seconds_count") >= 1


def _table_and_hint(url: str) -> tuple[dict[str, Any], int, bytes]:
    """A new 4-player table whose opening hint (``seed`` 1) spends its whole budget of 5,000 playouts (over a
    second of CPU on the pure engine): a hint that stops early when its decision is clear could end before the
    test closes its connection. The table, the seat to act and the hint's body."""
    created = httpx.post(url + "/v1/sessions", json={"players": 4, "seed": 2, "known_deal": True}, timeout=30)
    assert created.status_code == 201, created.text
    table = created.json()
    return table, table["to_act"], json.dumps({"level": "expert", "budget": 5000, "seed": 1}).encode()


def test_a_client_gone_cancels_its_session_hint(server: Server) -> None:
    url = server.url
    table, seat, body = _table_and_hint(url)
    assert wait_until(lambda: metric(url, "searches_running") == 0 and metric(url, "search_queue_depth") == 0, 60)
    searched = httpx.post(f"{url}/v1/sessions/{table['session_id']}/suggest", content=body, timeout=120,
                          headers={"Content-Type": "application/json",
                                   "Authorization": "Bearer " + table["seat_tokens"][seat]})
    assert searched.status_code == 200, searched.text
    assert searched.json()["playouts"] == 5000  # the premise: this hint searches to its budget's end
    cancelled = metric(url, 'searches_cancelled_total{stage="running"}')
    connection = server.connect()
    connection.sendall(b"POST /v1/sessions/%s/suggest HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                       b"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n"
                       % (table["session_id"].encode(), table["seat_tokens"][seat].encode(), len(body)) + body)
    assert wait_until(lambda: metric(url, "searches_running") == 1, 30)
    connection.close()
    assert wait_until(lambda: metric(url, 'searches_cancelled_total{stage="running"}') == cancelled + 1, 30)
    assert metric(url, "searches_running") == 0


def test_a_refusal_to_a_client_that_sends_again_at_once_is_held(server: Server) -> None:
    url = server.url
    snapshot, seat = opening(url)
    running = send_suggestion(server, snapshot, seat, 5000)
    waiting = send_suggestion(server, snapshot, seat, 5000)
    try:
        assert wait_until(lambda: metric(url, "search_queue_depth") == 1, 30)
        refused_before = metric(url, 'searches_refused_total{reason="busy"}')
        first = send_suggestion(server, snapshot, seat, 5000)
        status, headers = status_of(first)
        assert status == 503 and int(headers["retry-after"]) >= 1  # the first refusal: at once
        again = send_suggestion(server, snapshot, seat, 5000)  # at once, not after its Retry-After
        assert wait_until(lambda: metric(url, "search_refusals_held") == 1, 30)
        # Held: not answered while the other requests are (a probe of the same client included).
        assert httpx.get(url + "/healthz", timeout=30).status_code == 200
        assert metric(url, "search_refusals_held") == 1
        running.close()  # a place frees: the held refusal stays a refusal, answered in its time
        status, headers = status_of(again)
        assert status == 503 and int(headers["retry-after"]) >= 1
        assert metric(url, 'searches_refused_total{reason="busy"}') == refused_before + 2
        assert metric(url, "search_refusals_held") == 0
        first.close()
        again.close()
    finally:
        running.close()
        waiting.close()
    assert wait_until(lambda: metric(url, "searches_running") == 0, 60)


def test_stopping_a_server_mid_search_leaves_no_semaphore_behind() -> None:
    with tempfile.TemporaryFile() as stderr:
        server = Server({**ONE_AT_A_TIME, "SEARCH_WORKERS": "2", "BOT_WORKERS": "1", "SEARCH_CONCURRENCY": "2"},
                        stderr=stderr)
        connections = []
        try:
            snapshot, seat = opening(server.url)
            connections = [send_suggestion(server, snapshot, seat, 5000) for _ in range(3)]
            assert wait_until(lambda: metric(server.url, "searches_running") == 2, 30)
            server.stop_cleanly(stderr)  # SIGTERM, mid-search
        finally:
            for connection in connections:
                connection.close()
            server.stop()
