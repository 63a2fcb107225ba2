"""Fixtures for the ops tests: throwaway ``redis-server`` processes on free ports.

The tests start their own servers (never the shared Redis on 127.0.0.1:6379), with persistence off, and
kill them at teardown.
"""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator

import pytest
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A ``redis-server`` child process on 127.0.0.1 and a free port."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not on PATH (apt-get install redis-server); the ops tests need it")
        self.binary = binary
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        probe = SyncRedis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.2, socket_timeout=0.2)
        try:
            while True:
                try:
                    if probe.ping():
                        return
                except Exception:
                    if self.process.poll() is not None:
                        raise RuntimeError(f"redis-server exited with {self.process.returncode}") from None
                    if time.monotonic() > deadline:
                        raise RuntimeError("redis-server did not answer PING within 10 s") from None
                    time.sleep(0.02)
        finally:
            probe.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def client(self) -> Redis:
        """A fresh asyncio client (bind it to the test's own event loop by creating it inside the test)."""
        return Redis.from_url(
            self.url,
            socket_timeout=0.5,
            socket_connect_timeout=0.5,
            retry=Retry(NoBackoff(), 0),
        )


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server for the whole session; tests keep apart by using unique key prefixes."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def disposable_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own, which the test may stop."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def key_prefix() -> str:
    return f"test:{uuid.uuid4().hex[:12]}"


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Undo the global logging configuration a test app installs."""
    names = ["", "litestar", "uvicorn", "uvicorn.error", "uvicorn.access", "fivehundred.access"]
    saved = []
    for name in names:
        lg = logging.getLogger(name)
        saved.append((lg, list(lg.handlers), list(lg.filters), lg.level, lg.propagate, lg.disabled))
    yield
    for lg, handlers, filters, level, propagate, disabled in saved:
        lg.handlers[:] = handlers
        lg.filters[:] = filters
        lg.setLevel(level)
        lg.propagate = propagate
        lg.disabled = disabled
