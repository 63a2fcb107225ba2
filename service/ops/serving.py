"""The served HTTP protocol: uvicorn's h11 protocol with the connection limits uvicorn itself lacks.

    uvicorn --factory service.app:create_app --http service.ops.serving:GuardedH11Protocol ...

uvicorn bounds only the idle time between two requests of a kept-alive connection (``--timeout-keep-alive``).
A client that opens a connection and sends nothing, or sends its headers a byte at a time (slowloris), or
announces a body and never finishes it, or stops reading its responses, would otherwise hold a connection,
and a server task, for ever. This protocol adds (limits from :func:`service.config.load_serving_limits`,
environment variables in brackets):

* a **header timeout** (``HEADER_TIMEOUT_SECONDS``, 10 s): a request's line and headers must all arrive within
  it, counted from the connection's opening or from the end of the previous response; else ``408`` and the
  connection is closed;
* a **body timeout** (``BODY_TIMEOUT_SECONDS``, 30 s): once the headers are in, the whole body must arrive
  within it; else ``408`` (when no response was started) and closed;
* a **write-stall limit** (``WRITE_STALL_SECONDS``, 30 s): when the connection's write buffer is full (the
  client reads nothing) for that long, the connection is dropped at once, buffer and all. This is what cuts an
  event-stream client that stopped reading: it reconnects with ``Last-Event-ID`` and loses nothing;
* a **connection limit** (``MAX_CONNECTIONS``, 10,000 per process): one connection more is answered ``503``
  (``Retry-After: 1``, no body) and closed before any of it is read.

Behind a proxy that already enforces timeouts (deploy/nginx.conf) these are a backstop; on their own they are
the protection. Everything else is uvicorn's h11 protocol unchanged (see the Dockerfile for why h11).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.config import ServingLimits, load_serving_limits

_LIMITS: ServingLimits | None = None


def serving_limits() -> ServingLimits:
    """The limits, read from the environment once per process."""
    global _LIMITS
    if _LIMITS is None:
        _LIMITS = load_serving_limits()
    return _LIMITS


def _refusal(status: int, reason: str, *extra: str) -> bytes:
    """A bodiless answer of the transport itself (no API operation was reached), then the connection closes."""
    return ("\r\n".join([f"HTTP/1.1 {status} {reason}", "content-length: 0", "connection: close", *extra])
            + "\r\n\r\n").encode()


REQUEST_TIMEOUT = _refusal(408, "Request Timeout")
TOO_MANY_CONNECTIONS = _refusal(503, "Service Unavailable", "retry-after: 1")


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol plus header and body timeouts, a write-stall limit and a connection limit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = serving_limits()
        self._read_timer: asyncio.TimerHandle | None = None
        self._reading: str | None = None  # "headers" or "body": what the read timer is for
        self._stall_timer: asyncio.TimerHandle | None = None
        self._refused = False

    # ------------------------------------------------------------------------------------- connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            self._refused = True
            transport.write(TOO_MANY_CONNECTIONS)
            transport.close()
            return
        self._expect("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_timer()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._reading is None and self.conn.their_state is h11.IDLE:
            self._expect("headers")  # the next request of a kept-alive connection starts
        super().data_received(data)
        self._follow_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow_request()

    # ---------------------------------------------------------------------------------------- reading

    def _follow_request(self) -> None:
        """Move the read timer along with the request: headers, then body, then nothing."""
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            if self._reading != "body":
                self._expect("body")
        elif state is not h11.IDLE and self._reading is not None:
            self._cancel_read_timer()  # the request is in (or the connection is closing)

    def _expect(self, what: str) -> None:
        self._cancel_read_timer()
        seconds = self.limits.header_timeout_seconds if what == "headers" else self.limits.body_timeout_seconds
        self._reading = what
        self._read_timer = self.loop.call_later(seconds, self._read_timed_out)

    def _cancel_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None
        self._reading = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        self._reading = None
        if self.transport.is_closing():
            return
        ours = self.conn.our_state
        if ours is h11.IDLE or (ours is h11.SEND_RESPONSE and self.cycle is not None
                                and not self.cycle.response_started):
            self.transport.write(REQUEST_TIMEOUT)  # no response of ours under way: say why before closing
        self.transport.close()

    # ---------------------------------------------------------------------------------------- writing

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(self.limits.write_stall_seconds, self._write_stalled)

    def resume_writing(self) -> None:
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        super().resume_writing()

    def _write_stalled(self) -> None:
        self._stall_timer = None
        self.transport.abort()  # drops the unsent buffer; connection_lost tells the app the client is gone
