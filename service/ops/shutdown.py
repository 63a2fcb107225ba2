"""Graceful shutdown: let in-flight requests finish and tell long-lived event streams to close.

A :class:`ShutdownCoordinator` counts in-flight requests (:meth:`~ShutdownCoordinator.enter` and
:meth:`~ShutdownCoordinator.leave`, around every request in :class:`InflightMiddleware` and the fast lane) and
open event streams (:meth:`~ShutdownCoordinator.track_stream`), and holds :attr:`~ShutdownCoordinator.shutting_down`, an
:class:`asyncio.Event` that streams watch so that they end cleanly instead of being cut.

Why the signal hook: on SIGTERM uvicorn stops accepting connections and then *waits for open connections to
finish before* running the app's shutdown hooks; an open SSE stream never finishes by itself, so the event
must be set when the signal arrives, not at lifespan shutdown. :meth:`~ShutdownCoordinator.on_startup`
therefore chains a handler in front of the server's own SIGTERM/SIGINT handler (only when the server installed
one, in the main thread). :meth:`~ShutdownCoordinator.on_shutdown` sets the event too (for servers without
signal handlers, and tests) and waits at most ``grace_seconds`` for in-flight requests.

The coordinator is built by :func:`service.app.create_app` (``SHUTDOWN_GRACE_SECONDS``); the middleware is a layer
of the request envelope (service/ops/envelope.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from types import FrameType
from typing import Any, TypeVar

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["InflightMiddleware", "ShutdownCoordinator"]

logger = logging.getLogger("fivehundred.ops.shutdown")
T = TypeVar("T")

_SignalHandler = Callable[[int, FrameType | None], Any]


class ShutdownCoordinator:
    """Tracks in-flight requests and open streams; signals and awaits a graceful shutdown."""

    def __init__(
        self,
        *,
        grace_seconds: float = 20.0,
        signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT),
    ) -> None:
        self.grace_seconds = grace_seconds
        self.shutting_down = asyncio.Event()
        self._in_flight = 0
        self._open_streams = 0
        self._drained: asyncio.Event | None = None  # set when the last request leaves, once a shutdown waits for it
        self._signals = signals
        self._chained: dict[int, _SignalHandler] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def in_flight(self) -> int:
        """Requests currently being handled (event streams included)."""
        return self._in_flight

    @property
    def open_streams(self) -> int:
        """Event streams currently open."""
        return self._open_streams

    def enter(self) -> None:
        """Count one more in-flight request (each :meth:`enter` is followed by one :meth:`leave`)."""
        self._in_flight += 1

    def leave(self) -> None:
        """Count one in-flight request as done (the last one wakes a shutdown waiting for it)."""
        self._in_flight -= 1
        if self._in_flight == 0 and self._drained is not None:
            self._drained.set()

    @contextlib.asynccontextmanager
    async def track_stream(self) -> AsyncIterator[asyncio.Event]:
        """Count the enclosed block as an open event stream; yields :attr:`shutting_down` to watch."""
        self._open_streams += 1
        try:
            yield self.shutting_down
        finally:
            self._open_streams -= 1

    async def until_shutdown(self, awaitable: Awaitable[T], *, timeout: float | None = None) -> T | None:
        """Await ``awaitable`` unless shutdown begins or ``timeout`` passes first (then cancel it: None)."""
        task = asyncio.ensure_future(awaitable)
        stop = asyncio.ensure_future(self.shutting_down.wait())
        try:
            await asyncio.wait({task, stop}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if task.cancelled():
            return None
        return task.result()

    def begin_shutdown(self) -> None:
        """Set :attr:`shutting_down` (idempotent). Must be called on the event loop's thread."""
        if not self.shutting_down.is_set():
            logger.info(
                "shutdown started",
                extra={"in_flight": self._in_flight, "open_streams": self._open_streams},
            )
            self.shutting_down.set()

    async def on_startup(self) -> None:
        """Lifespan startup hook: chain :meth:`begin_shutdown` in front of the server's signal handlers."""
        self._loop = asyncio.get_running_loop()
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in self._signals:
            previous = signal.getsignal(sig)
            # Only chain to a handler a server installed; never replace the default behaviour of a process
            # (tests, scripts) that did not ask for signal handling.
            if callable(previous) and previous is not signal.default_int_handler:
                self._chained[sig] = previous
                signal.signal(sig, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.begin_shutdown)
        previous = self._chained.get(signum)
        if previous is not None:
            previous(signum, frame)

    async def on_shutdown(self) -> None:
        """Lifespan shutdown hook: set :attr:`shutting_down`, then wait (bounded) for in-flight requests."""
        self.begin_shutdown()
        started = time.monotonic()
        try:
            if self._in_flight:
                self._drained = drained = asyncio.Event()
                async with asyncio.timeout(self.grace_seconds):
                    await drained.wait()
        except TimeoutError:
            logger.warning(
                "shutdown grace period over with requests still in flight",
                extra={"in_flight": self._in_flight, "open_streams": self._open_streams},
            )
        else:
            logger.info("drained", extra={"waited_ms": round((time.monotonic() - started) * 1000, 1)})
        finally:
            self._restore_signals()

    def _restore_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, previous in self._chained.items():
            if signal.getsignal(sig) == self._on_signal:
                signal.signal(sig, previous)
        self._chained.clear()


class InflightMiddleware:
    """ASGI middleware counting every HTTP request as in flight on a :class:`ShutdownCoordinator`."""

    def __init__(self, app: ASGIApp, *, coordinator: ShutdownCoordinator) -> None:
        self.app = app
        self.coordinator = coordinator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        coordinator = self.coordinator
        coordinator.enter()
        try:
            await self.app(scope, receive, send)
        finally:
            coordinator.leave()
