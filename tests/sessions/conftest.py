"""Fixtures for the sessions tests: real ``redis-server`` processes and real HTTP servers, no mocks.

* ``redis_server``: one throwaway redis-server (free port, no persistence) for the whole run; tests keep apart
  by key prefix. Never the shared Redis on 6379.
* ``service``: the service's app (``service.app.create_app``) served by uvicorn *in this process* (so both
  stores can be tested the same way), parametrized over the memory store and the Redis store.
* ``replicas``: two uvicorn *processes* sharing ``redis_server`` (multi-replica tests), each the same app with
  the test knobs of :mod:`tests.sessions.app_factory`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from redis import Redis as SyncRedis

from service.app import create_app
from service.config import Settings
from service.snapshots import Sealer

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_KEY = Sealer.generate_key()
SNAPSHOT_KEYS_ENV = base64.urlsafe_b64encode(SNAPSHOT_KEY).rstrip(b"=").decode()
SEALER = Sealer([SNAPSHOT_KEY])


def die_with_parent() -> None:
    """For ``preexec_fn``: the child gets SIGKILL if this process dies without tearing down (Linux)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A ``redis-server`` child on 127.0.0.1 and a free port; optionally persistent (AOF) across restarts."""

    def __init__(self, *, persist_dir: Path | None = None, port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not on PATH; the sessions tests need it")
        self.binary = binary
        self.port = port or free_port()
        self.persist_dir = persist_dir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
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

    def sync_client(self) -> SyncRedis:
        return SyncRedis(host="127.0.0.1", port=self.port, socket_timeout=2)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@dataclass
class Service:
    """A running service: its base URL, its store's kind and (for Redis) its key prefix; ``app.state`` holds
    the sessions component and the shutdown coordinator."""

    url: str
    kind: str
    prefix: str
    redis: RedisServer | None = None
    app: Any = None


@asynccontextmanager
async def serve_in_process(app: Any) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free port inside the running event loop."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("uvicorn stopped before starting")
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


def settings_for(redis: RedisServer | None, idle_seconds: int = 3600) -> Settings:
    return Settings(redis_url=redis.url if redis is not None else None, snapshot_keys=(SNAPSHOT_KEY,),
                    session_idle_seconds=idle_seconds)


@asynccontextmanager
async def running_service(kind: str, redis: RedisServer | None, *, idle_seconds: int = 3600,
                          heartbeat_seconds: float = 1.0, prefix: str | None = None) -> AsyncIterator[Service]:
    prefix = prefix or f"t{uuid.uuid4().hex[:10]}:"
    backing = redis if kind == "redis" else None
    app = create_app(settings_for(backing, idle_seconds), session_key_prefix=prefix,
                     event_heartbeat_seconds=heartbeat_seconds)
    async with serve_in_process(app) as url:
        yield Service(url, kind, prefix, backing, app)


@pytest.fixture(params=["memory", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def service(store_kind: str, redis_server: RedisServer) -> AsyncIterator[Service]:
    async with running_service(store_kind, redis_server) as svc:
        yield svc


@pytest.fixture
async def client(service: Service) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=service.url, timeout=10) as c:
        yield c


class ServiceProcess:
    """The service in a uvicorn process of its own (one worker, no access log)."""

    def __init__(self, env: dict[str, str], *, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        cmd = [sys.executable, "-m", "uvicorn", "--factory", "tests.sessions.app_factory:create_app",
               "--host", "127.0.0.1", "--port", str(self.port), "--no-access-log", "--log-level", "warning",
               "--timeout-graceful-shutdown", "1"]
        self.process = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL,
                                        preexec_fn=die_with_parent)

    def wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service exited with {self.process.returncode}")
            try:
                httpx.get(self.url + "/readyz", timeout=1)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the service did not start within 30 s") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None


def service_env(redis: RedisServer, prefix: str, *, idle_seconds: int = 3600) -> dict[str, str]:
    return {"REDIS_URL": redis.url, "SNAPSHOT_KEYS": SNAPSHOT_KEYS_ENV, "SESSION_KEY_PREFIX": prefix,
            "SESSION_IDLE_SECONDS": str(idle_seconds), "SESSION_HEARTBEAT_SECONDS": "2"}


@pytest.fixture(scope="session")
def replicas(redis_server: RedisServer) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    """Two service processes sharing one Redis (same key prefix), as two replicas behind a load balancer."""
    env = service_env(redis_server, "replicas:")
    a, b = ServiceProcess(env), ServiceProcess(env)
    try:
        a.launch()
        b.launch()
        a.wait_ready()
        b.wait_ready()
        yield a, b
    finally:
        a.stop()
        b.stop()
