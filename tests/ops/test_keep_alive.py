"""The served protocol's keep-alive timeout (service/ops/serving.py, armed lazily): an idle kept-alive connection
is closed once ``--timeout-keep-alive`` has passed since its last response, and a connection in use for longer
than that is not (until it falls idle)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from .served import PROTOCOL, Server

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    server = Server({}, cmd=["uvicorn", "--factory", "tests.sessions.app_factory:create_app", "--http", PROTOCOL,
                             "--no-access-log", "--timeout-keep-alive", "1"])
    yield server
    server.stop()


def _answer(sock: socket.socket) -> bytes:
    got = b""
    while not got.endswith(b'{"status":"ok"}'):
        chunk = sock.recv(65536)
        assert chunk, got
        got += chunk
    return got


def test_an_idle_connection_is_closed_after_the_timeout(server: Server) -> None:
    sock = server.connect()
    sock.sendall(REQUEST)
    _answer(sock)
    answered = time.monotonic()
    sock.settimeout(10)
    assert sock.recv(1) == b""  # closed by the server
    idle = time.monotonic() - answered
    assert 0.8 <= idle < 5, idle


def test_a_connection_in_use_stays_open_past_the_timeout(server: Server) -> None:
    sock = server.connect()
    started = time.monotonic()
    while time.monotonic() - started < 2.5:  # a request every 0.4 s, for two and a half timeouts
        sock.sendall(REQUEST)
        assert b"200 OK" in _answer(sock)
        time.sleep(0.4)
    sock.sendall(REQUEST)
    assert b"200 OK" in _answer(sock)
    answered = time.monotonic()
    sock.settimeout(10)
    assert sock.recv(1) == b""  # then idle: closed the timeout after its last response, not before
    idle = time.monotonic() - answered
    assert 0.8 <= idle < 5, idle
