"""The served protocol's limits (service/ops/serving.py), against real uvicorn processes started here with the
served protocol (the app of tests.sessions.app_factory, for a quicker heartbeat): a slowloris client, a
connection that sends nothing, a body that never finishes and a client that stops reading are cut; a
connection over the limit is refused; ordinary requests, kept-alive connections and event streams are not
disturbed."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from service.config import ConfigError, load_serving_limits

from .served import PROTOCOLS, Server

#: Real connections held open against the served protocol's timeouts: in CI's run, not in the quick loop.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=PROTOCOLS, ids=lambda p: p.rsplit(":", 1)[1])
def timed(request: pytest.FixtureRequest) -> Iterator[Server]:
    """Short read timeouts and write-stall limit, a generous connection limit; each served protocol."""
    server = Server({"HEADER_TIMEOUT_SECONDS": "1", "BODY_TIMEOUT_SECONDS": "1", "WRITE_STALL_SECONDS": "1",
                     "MAX_CONNECTIONS": "200"}, protocol=request.param)
    yield server
    server.stop()


def read_until_closed(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes (or ``seconds`` pass: then the test fails), and when."""
    sock.settimeout(seconds)
    started = time.monotonic()
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for {seconds} s")
    return got, time.monotonic() - started


def test_a_slowloris_client_is_cut_with_408(timed: Server) -> None:
    sock = timed.connect()
    started = time.monotonic()
    sock.sendall(b"GET /healthz HTTP/1.1\r\n")
    got = b""
    sock.settimeout(0.2)
    try:
        for byte in b"Host: x\r\nX-Slow: " + b"a" * 100:  # a byte every 0.2 s: never a whole header block
            sock.sendall(bytes([byte]))
            try:
                chunk = sock.recv(65536)
                got += chunk
                if not chunk:
                    break
            except TimeoutError:
                continue
    except (BrokenPipeError, ConnectionResetError):
        pass
    elapsed = time.monotonic() - started
    assert got.startswith(b"HTTP/1.1 408 "), got
    assert 0.9 <= elapsed < 4, elapsed  # cut at the header timeout (1 s), while it was still trickling
    sock.close()


def test_a_connection_that_sends_nothing_is_closed(timed: Server) -> None:
    with timed.connect() as sock:
        got, elapsed = read_until_closed(sock, 5)
    assert got.startswith(b"HTTP/1.1 408 ") and elapsed < 4


def test_a_body_that_never_finishes_is_cut(timed: Server) -> None:
    with timed.connect() as sock:
        sock.sendall(b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"players\"")
        got, elapsed = read_until_closed(sock, 5)
    assert got.startswith(b"HTTP/1.1 408 ") and elapsed < 4


def test_ordinary_and_kept_alive_requests_pass(timed: Server) -> None:
    with httpx.Client(base_url=timed.url, timeout=10) as client:
        for _ in range(3):
            assert client.get("/healthz").status_code == 200
            time.sleep(0.4)  # idle between requests: the header timer restarts with each request
        assert client.post("/v1/games", json={"players": 4, "seed": 1}).status_code == 201


def test_an_event_stream_outlives_the_read_timeouts(timed: Server) -> None:
    with httpx.Client(base_url=timed.url, timeout=10) as client:
        created = client.post("/v1/sessions", json={"players": 4}).json()
        headers = {"Authorization": f"Bearer {created['host_token']}"}
        with client.stream("GET", f"/v1/sessions/{created['session_id']}/events", headers=headers) as r:
            assert r.status_code == 200
            started = time.monotonic()
            lines = r.iter_lines()
            while time.monotonic() - started < 2.5:  # beyond every timeout of this server
                next(lines)
                if r.is_closed:
                    pytest.fail("the stream was closed")
            token = created["seat_tokens"][0]
            assert client.get(f"/v1/sessions/{created['session_id']}",
                              headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_a_client_that_stops_reading_is_cut(timed: Server) -> None:
    """Pipelined requests for the contract (hundreds of KB each), never read: the write buffer fills and stays
    full, and the connection is dropped after the write-stall limit rather than held."""
    size = len(httpx.get(timed.url + "/schema/openapi.json").content)
    requests = 40
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", timed.port))
        sock.sendall(b"GET /schema/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * requests)
        time.sleep(4)  # well past the 1 s limit, reading nothing
        got, _ = read_until_closed(sock, 5)
    assert len(got) < size * requests / 2, (len(got), size * requests)


def test_the_limits_are_validated() -> None:
    assert load_serving_limits({}).max_connections == 10_000
    assert load_serving_limits({"HEADER_TIMEOUT_SECONDS": "2.5"}).header_timeout_seconds == 2.5
    for env in ({"HEADER_TIMEOUT_SECONDS": "soon"}, {"BODY_TIMEOUT_SECONDS": "0"}, {"MAX_CONNECTIONS": "0"},
                {"WRITE_STALL_SECONDS": "-1"}):
        with pytest.raises(ConfigError, match=next(iter(env))):
            load_serving_limits(env)


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.rsplit(":", 1)[1])
def test_a_connection_over_the_limit_is_refused_with_503(protocol: str) -> None:
    server = Server({"MAX_CONNECTIONS": "8", "HEADER_TIMEOUT_SECONDS": "60"}, protocol=protocol)
    held: list[socket.socket] = []
    try:
        for _ in range(8):
            held.append(server.connect())
        time.sleep(0.3)  # all eight accepted by the server
        with server.connect() as extra:
            got, _ = read_until_closed(extra, 5)
        assert got.startswith(b"HTTP/1.1 503 "), got
        assert b"retry-after: 1" in got.lower()
        assert got.endswith(b"\r\n\r\n") and b"content-length: 0" in got  # no body: no API operation ran
        for sock in held[:2]:
            sock.close()
        time.sleep(0.3)
        assert httpx.get(server.url + "/healthz", timeout=5).status_code == 200  # room again
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_the_served_defaults_bound_session_creation_per_client(timed: Server) -> None:
    """No SESSION_CREATE_* in the environment: one client gets 30 sessions a minute, then 429."""
    with httpx.Client(base_url=timed.url, timeout=10) as client:
        statuses = [client.post("/v1/sessions", json={"players": 4}).status_code for _ in range(31)]
    # (Other tests of this module may have created a session or two from this address in the same minute.)
    assert statuses[0] == 201 and 28 <= statuses.count(201) <= 30
    first_refusal = statuses.index(429)
    assert set(statuses[first_refusal:]) == {429}
