"""Graceful shutdown: in-flight requests finish, open event streams end when shutdown begins.

These tests drive the app with httpx's ASGI transport on the test's own event loop (Litestar's test clients
run the app on a loop in another thread and serve one request at a time), so that requests really overlap
with the shutdown hook.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import httpx
import pytest

from service.ops.shutdown import ShutdownCoordinator

from .apps import build_app, slow_handler, stream_handler


def asgi_client(app: object) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://replica")  # type: ignore[arg-type]


async def wait_for(condition: object, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.005)


async def test_in_flight_request_completes_before_shutdown_returns() -> None:
    shutdown = ShutdownCoordinator(grace_seconds=5)
    app = build_app(shutdown=shutdown, extra_handlers=[slow_handler(0.3)])
    async with asgi_client(app) as client:
        request = asyncio.create_task(client.get("/v1/slow"))
        await wait_for(lambda: shutdown.in_flight == 1)
        started = time.monotonic()
        await shutdown.on_shutdown()
        waited = time.monotonic() - started
        assert shutdown.shutting_down.is_set()
        assert request.done()
        response = await request
    assert response.status_code == 200
    assert response.json() == {"done": "yes"}
    assert 0.1 < waited < 2.0
    assert shutdown.in_flight == 0


async def test_shutdown_wait_is_bounded_by_the_grace_period() -> None:
    shutdown = ShutdownCoordinator(grace_seconds=0.2)
    app = build_app(shutdown=shutdown, extra_handlers=[slow_handler(1.0)])
    async with asgi_client(app) as client:
        request = asyncio.create_task(client.get("/v1/slow"))
        await wait_for(lambda: shutdown.in_flight == 1)
        started = time.monotonic()
        await shutdown.on_shutdown()
        assert time.monotonic() - started < 0.6
        assert not request.done()
        assert (await request).status_code == 200  # the server, not this hook, decides when to cut it


async def test_open_stream_ends_cleanly_when_shutdown_begins() -> None:
    shutdown = ShutdownCoordinator(grace_seconds=5)
    app = build_app(shutdown=shutdown, extra_handlers=[stream_handler(shutdown)])
    async with asgi_client(app) as client:
        request = asyncio.create_task(client.get("/v1/stream"))
        await wait_for(lambda: shutdown.open_streams == 1)
        await asyncio.sleep(0.1)
        assert not request.done()  # the stream stays open until told otherwise
        await asyncio.wait_for(shutdown.on_shutdown(), timeout=3)
        response = await asyncio.wait_for(request, timeout=3)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "data: hello" in response.text
    assert "data: goodbye" in response.text
    assert shutdown.open_streams == 0
    assert shutdown.in_flight == 0


async def test_until_shutdown_returns_the_result_or_none() -> None:
    shutdown = ShutdownCoordinator()

    async def value() -> int:
        return 7

    assert await shutdown.until_shutdown(value()) == 7
    assert await shutdown.until_shutdown(asyncio.sleep(10, result="late"), timeout=0.01) is None
    asyncio.get_running_loop().call_later(0.02, shutdown.begin_shutdown)
    started = time.monotonic()
    assert await shutdown.until_shutdown(asyncio.sleep(10, result="late")) is None
    assert time.monotonic() - started < 1


async def test_signal_sets_the_event_and_reaches_the_servers_handler() -> None:
    """With a server's SIGTERM handler installed (as uvicorn does), SIGTERM starts the shutdown at once."""
    received: list[int] = []

    def server_handler(signum: int, frame: object) -> None:
        received.append(signum)

    previous = signal.signal(signal.SIGTERM, server_handler)
    try:
        shutdown = ShutdownCoordinator(signals=(signal.SIGTERM,))
        await shutdown.on_startup()
        os.kill(os.getpid(), signal.SIGTERM)
        await wait_for(shutdown.shutting_down.is_set, timeout=2)
        assert received == [signal.SIGTERM]
        await shutdown.on_shutdown()
        assert signal.getsignal(signal.SIGTERM) is server_handler  # restored
    finally:
        signal.signal(signal.SIGTERM, previous)


async def test_no_server_handler_means_no_signal_hook() -> None:
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("this process already handles SIGTERM")
    shutdown = ShutdownCoordinator(signals=(signal.SIGTERM,))
    await shutdown.on_startup()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    await shutdown.on_shutdown()
