"""Fixtures for the sessions tests: real ``redis-server`` processes and real HTTP servers, no mocks.

* ``redis_server``: one throwaway redis-server (free port, no persistence) for the whole run; tests keep apart
  by key prefix. Never the shared Redis on 6379.
* ``service``: the service's app (``service.app.create_app``) served by uvicorn *in this process* (so every
  store is tested the same way), parametrized over the memory store, the Redis store on one Redis, and the
  Redis store on a Redis Cluster (``redis_cluster``, tests/conftest.py).
* ``replicas``: two uvicorn *processes* sharing ``redis_server`` (multi-replica tests), each the same app with
  the test knobs of :mod:`tests.sessions.app_factory`; ``three_replicas``, three of them.
"""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn

from service.app import create_app
from service.config import Settings
from service.referee.snapshots import Sealer
from tests.cluster_server import RedisClusterServer, running_cluster
from tests.redis_server import RedisServer, die_with_parent, free_port
from tests.support import ROOT

SNAPSHOT_KEY = Sealer.generate_key()
SNAPSHOT_KEYS_ENV = base64.urlsafe_b64encode(SNAPSHOT_KEY).rstrip(b"=").decode()
SEALER = Sealer([SNAPSHOT_KEY])


@dataclass
class Service:
    """A running service: its base URL, its store's kind and (for Redis) its key prefix; ``app.state`` holds
    the sessions component and the shutdown coordinator."""

    url: str
    kind: str
    prefix: str
    redis: RedisServer | None = None
    app: Any = None


#: The in-process test servers' keep-alive, in seconds (see :func:`serve_in_process`).
KEEP_ALIVE_SECONDS = 120


@asynccontextmanager
async def serve_in_process(app: Any) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free port inside the running event loop.

    Its keep-alive outlasts any test's idle connection (uvicorn's default is five seconds): a test's client
    that reuses a pooled connection after waiting on a slow request (a bot's search on a busy machine) would
    otherwise now and then send on one the server is closing, and fail with a ``ReadError``."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=1, timeout_keep_alive=KEEP_ALIVE_SECONDS)
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


def settings_for(redis: RedisServer | None, idle_seconds: int = 3600, **overrides: Any) -> Settings:
    """The test service's settings (``overrides``: other :class:`Settings` fields)."""
    return Settings(redis_url=redis.url if redis is not None else None, snapshot_keys=(SNAPSHOT_KEY,),
                    session_idle_seconds=idle_seconds, **overrides)


@asynccontextmanager
async def running_service(kind: str, redis: RedisServer | None, *, idle_seconds: int = 3600,
                          heartbeat_seconds: float = 1.0, prefix: str | None = None,
                          **overrides: Any) -> AsyncIterator[Service]:
    prefix = prefix or f"t{uuid.uuid4().hex[:10]}:"
    backing = redis if kind in REDIS_FIXTURES else None
    app = create_app(settings_for(backing, idle_seconds, **overrides), session_key_prefix=prefix,
                     event_heartbeat_seconds=heartbeat_seconds)
    async with serve_in_process(app) as url:
        yield Service(url, kind, prefix, backing, app)


#: The stores every session test runs on: in-process, one Redis, and a Redis Cluster (three primaries, three
#: replicas: ``redis_cluster`` of tests/conftest.py).
STORE_KINDS = ["memory", "redis", "cluster"]
REDIS_FIXTURES = {"redis": "redis_server", "cluster": "redis_cluster"}


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store_redis(store_kind: str, request: pytest.FixtureRequest) -> RedisServer | None:
    """The Redis (or cluster) of a ``redis`` or ``cluster`` store, None for the memory store (whose tests then
    need no redis-server)."""
    fixture = REDIS_FIXTURES.get(store_kind)
    return None if fixture is None else request.getfixturevalue(fixture)  # type: ignore[no-any-return]


@pytest.fixture
async def service(store_kind: str, store_redis: RedisServer | None) -> AsyncIterator[Service]:
    async with running_service(store_kind, store_redis) as svc:
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


def service_env(redis: Any, prefix: str, *, idle_seconds: int = 3600) -> dict[str, str]:
    """The environment of a service process on ``redis`` (a RedisServer or a RedisClusterServer); the tests
    create sessions faster than the served per-client default allows."""
    return {"REDIS_URL": redis.url, "SNAPSHOT_KEYS": SNAPSHOT_KEYS_ENV, "SESSION_KEY_PREFIX": prefix,
            "SESSION_IDLE_SECONDS": str(idle_seconds), "SESSION_HEARTBEAT_SECONDS": "2",
            "SESSION_CREATE_PER_MINUTE": "0", "SESSION_CREATE_TOTAL_PER_MINUTE": "0"}


@pytest.fixture(scope="session")
def replicas(redis_server: RedisServer) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    """Two service processes sharing one Redis (same key prefix), as two replicas behind a load balancer."""
    yield from _two_replicas(service_env(redis_server, "replicas:"))


@pytest.fixture(scope="session")
def cluster_replicas(redis_cluster: Any) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    """Two service processes sharing one Redis Cluster."""
    yield from _two_replicas(service_env(redis_cluster, "creplicas:"))


@pytest.fixture(scope="session")
def three_replicas(redis_server: RedisServer) -> Iterator[list[ServiceProcess]]:
    """Three service processes sharing one Redis (same key prefix), as three replicas behind a load balancer."""
    replicas = [ServiceProcess(service_env(redis_server, "replicas3:")) for _ in range(3)]
    try:
        for replica in replicas:
            replica.launch()
        for replica in replicas:
            replica.wait_ready()
        yield replicas
    finally:
        for replica in replicas:
            replica.stop()


def _two_replicas(env: dict[str, str]) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
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


@pytest.fixture
def own_cluster() -> Iterator[RedisClusterServer]:
    """A cluster of the test's own (the shared ``redis_cluster`` is for tests that leave its nodes and slots
    alone): its slots move, its nodes fail."""
    with running_cluster() as cluster:
        yield cluster
