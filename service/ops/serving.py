"""The served HTTP protocols: uvicorn's, with the connection limits uvicorn itself lacks.

    uvicorn --factory service.app:create_app --http service.ops.serving:GuardedHttpToolsProtocol ...

:class:`GuardedHttpToolsProtocol` (what the README, the Dockerfile, the Compose file and the manifests run) is
uvicorn's httptools protocol; :class:`GuardedH11Protocol` is uvicorn's pure-Python h11 protocol with the same
guards (slower: ``tests/bench/bench_http.py --http`` measures both side by side). Both serve a request that
offers ``Upgrade: h2c`` (Java's HttpClient does, on every plain-http request) as HTTP/1.1 with its body: h11
ignores the offer by itself; uvicorn's own httptools protocol loses the body (Kludex/uvicorn#2722), which
:class:`GuardedHttpToolsProtocol` fixes.

uvicorn bounds only the idle time between two requests of a kept-alive connection (``--timeout-keep-alive``).
A client that opens a connection and sends nothing, or sends its headers a byte at a time (slowloris), or
announces a body and never finishes it, or stops reading its responses, would otherwise hold a connection,
and a server task, for ever. These protocols add (limits from :func:`service.config.load_serving_limits`,
environment variables in brackets):

* a **header timeout** (``HEADER_TIMEOUT_SECONDS``, 10 s): a request's line and headers must all arrive within
  it, counted from the connection's opening or from the request's first byte; else ``408`` and the
  connection is closed;
* a **body timeout** (``BODY_TIMEOUT_SECONDS``, 30 s): once the headers are in, the whole body must arrive
  within it; else ``408`` (when no response was started) and closed;
* a **write-stall limit** (``WRITE_STALL_SECONDS``, 30 s): when the connection's write buffer is full (the
  client reads nothing) for that long, the connection is dropped at once, buffer and all. This is what cuts an
  event-stream client that stopped reading: it reconnects with ``Last-Event-ID`` and loses nothing;
* a **connection limit** (``MAX_CONNECTIONS``, 10,000 per process): one connection more is answered ``503``
  (``Retry-After: 1``, no body) and closed before any of it is read.

Both also send a response's head and body in one write to the socket when the app gives them in one turn of the
event loop, as every complete answer does (:class:`_CoalescingTransport`): uvicorn writes them separately, two
system calls where one does. :class:`GuardedHttpToolsProtocol` also arms its keep-alive timer once per idle spell
rather than once per request (closing an idle connection after the same ``--timeout-keep-alive``).

Behind a proxy that already enforces timeouts (deploy/nginx.conf) these are a backstop; on their own they are
the protection. Everything else is uvicorn's protocol unchanged. Both classes build on uvicorn's protocols'
internals (the request cycle, the parser, the keep-alive timer, the upgrade checks), so a uvicorn upgrade may
change what they rely on: tests/ops/test_serving.py and tests/api/test_h2c.py run them in real uvicorn
processes and fail if it does.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import httptools
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

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


class _CoalescingTransport(asyncio.Transport):
    """A connection's transport whose writes of one turn of the event loop go out as one write.

    uvicorn writes a response's head and its body separately, and each write to a socket with an empty buffer
    is a system call, on the loopback a costly one (the receiver's side of TCP runs in it). Here the first
    write of a turn is kept and a flush is scheduled for the end of the turn (``call_soon``); the writes that
    follow in the same turn (the body, sent by the app in the same step as the head) join it. Nothing waits
    longer than the turn: a head whose body comes later (an event stream) goes out at the end of the turn.
    Closing flushes first; aborting drops what is kept, as it drops the transport's own buffer."""

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pending = self._pending
        if pending is None:
            self._pending = [bytes(data)]
            self._loop.call_soon(self.flush)
        else:
            pending.append(bytes(data))

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Write what this turn kept (nothing if already written)."""
        pending = self._pending
        if pending is not None:
            self._pending = None
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def discard(self) -> None:
        """Forget what was kept (the connection is gone)."""
        self._pending = None

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = None
        self._transport.abort()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def get_write_buffer_size(self) -> int:
        kept = sum(len(data) for data in self._pending) if self._pending else 0
        return self._transport.get_write_buffer_size() + kept

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)


class _Pipeline(list[Any]):
    """The requests pipelined behind the one under way, as uvicorn's protocol uses them (``appendleft``, ``pop``,
    truth): a list, whose empty instance is a tenth of an empty deque's size, which every connection (an idle
    event stream's too) holds for its whole life while almost none ever pipelines."""

    __slots__ = ()

    def appendleft(self, item: Any) -> None:
        self.insert(0, item)


class _Guards(asyncio.Protocol):
    """What both served protocols guard alike: the connection limit, the read timers' arming and the write-stall
    cut. Each protocol says itself when a request's head or body is still awaited (``_expect``) and what a read
    timeout answers (``_read_timed_out``)."""

    limits: ServingLimits
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    connections: set[Any]

    def _init_guards(self) -> None:
        self.limits = serving_limits()
        self._read_timer: asyncio.TimerHandle | None = None
        self._reading: str | None = None  # "headers" or "body": what the read timer is for
        self._stall_timer: asyncio.TimerHandle | None = None
        self._refused = False

    def _read_timed_out(self) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------- connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = _CoalescingTransport(transport, self.loop)  # what the request cycles write to
        if len(self.connections) > self.limits.max_connections:
            self._refused = True
            transport.write(TOO_MANY_CONNECTIONS)
            transport.close()
            return
        self._expect("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        if isinstance(self.transport, _CoalescingTransport):
            self.transport.discard()
        self._cancel_read_timer()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        super().connection_lost(exc)

    # ---------------------------------------------------------------------------------------- reading

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

    def handle_websocket_upgrade(self, *args: Any) -> None:
        transport = self.transport  # the WebSocket protocol gets the connection's own transport
        if isinstance(transport, _CoalescingTransport):
            transport.flush()
            self.transport = transport._transport
        super().handle_websocket_upgrade(*args)  # type: ignore[misc]

    def _write_stalled(self) -> None:
        self._stall_timer = None
        self.transport.abort()  # drops the unsent buffer; connection_lost tells the app the client is gone


class GuardedH11Protocol(_Guards, H11Protocol):
    """uvicorn's h11 protocol plus header and body timeouts, a write-stall limit and a connection limit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._init_guards()

    # ------------------------------------------------------------------------------------- connection

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



# ---------------------------------------------------------------------------------------------- httptools


class _AfterUpgradeOffer:
    """The callbacks of a fresh parser that continues a connection after an ``Upgrade`` offer was ignored.

    httptools (llhttp) stops at the end of the head of a request offering an upgrade, treats it as bodiless and
    expects the connection to change protocols; uvicorn then loses the body (Kludex/uvicorn#2722). The fresh
    parser is first fed a synthetic head with the request's own framing (``Content-Length`` or
    ``Transfer-Encoding``), whose callbacks are swallowed here, so that it reads the body that follows and hands
    it on; every later request of the connection it parses as usual, for the protocol."""

    __slots__ = ("priming", "protocol")

    def __init__(self, protocol: GuardedHttpToolsProtocol, priming: bool) -> None:
        self.protocol = protocol
        self.priming = priming

    def on_message_begin(self) -> None:
        if not self.priming:
            self.protocol.on_message_begin()

    def on_url(self, url: bytes) -> None:
        if not self.priming:
            self.protocol.on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self.priming:
            self.protocol.on_header(name, value)

    def on_headers_complete(self) -> None:
        if self.priming:
            self.priming = False
        else:
            self.protocol.on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self.protocol.on_body(body)

    def on_message_complete(self) -> None:
        self.protocol.on_message_complete()


class GuardedHttpToolsProtocol(_Guards, HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits of :class:`GuardedH11Protocol`, and a request offering an
    upgrade other than to a WebSocket (``Upgrade: h2c``, which Java's HttpClient sends) served as HTTP/1.1 with
    its body, as HTTP allows (RFC 9110 section 7.8), instead of losing the body.

    The read timers cost nothing for a request that arrives whole: a timer is armed only when a request's head
    or body is still incomplete at the end of the bytes received (or at a connection's opening)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._init_guards()
        self._idle_since: float | None = None  # when the connection's last response completed, while idle
        self._in_request = False  # from a request's first byte to its last
        self._head_read = False  # the request's head is complete (its body may not be)
        self._completed = 0  # requests read whole on this connection
        self.pipeline = _Pipeline()  # type: ignore[assignment]  # (uvicorn's deque: 600 bytes per connection)

    # ------------------------------------------------------------------------------------- connection

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        self._unset_keepalive_if_required()
        completed = self._completed
        while True:
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserError:
                msg = "Invalid HTTP request received."
                self.logger.warning(msg)
                self.send_400_response(msg)
                return
            except httptools.HttpParserUpgrade as exc:
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                    return
                data = data[exc.args[0]:]
                self._ignore_upgrade_offer()
                if data:
                    continue
            break
        if self._in_request:
            wanted = "body" if self._head_read else "headers"
            if self._reading != wanted:
                self._expect(wanted)
        elif self._completed != completed:
            self._cancel_read_timer()  # the request is in: no timer until the next one starts
        elif self._reading is None:
            self._expect("headers")  # bytes between requests (blank lines): the next head is under way

    def _ignore_upgrade_offer(self) -> None:
        """Go on as HTTP/1.1 after the head of a request offering an upgrade (see :class:`_AfterUpgradeOffer`)."""
        framing = b""
        for name, value in self.headers:
            if name == b"transfer-encoding":
                framing = b"transfer-encoding: " + value
            elif name == b"content-length" and not framing and value.strip() != b"0":
                framing = b"content-length: " + value
        relay = _AfterUpgradeOffer(self, priming=bool(framing))
        self.parser = httptools.HttpRequestParser(relay)
        self.parser.set_dangerous_leniencies(lenient_data_after_close=True)  # as uvicorn's own parser
        if framing and self.cycle is not None:
            self.cycle.more_body = True  # the app's task has not run yet: it reads the body that follows
            self._in_request = self._head_read = True
            self.parser.feed_data(b"POST / HTTP/1.1\r\n" + framing + b"\r\n\r\n")

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timeout_keep_alive_task is not None:
            self.timeout_keep_alive_task.cancel()
            self.timeout_keep_alive_task = None
        super().connection_lost(exc)

    # -------------------------------------------------------------------------------------- keep-alive

    # uvicorn arms a keep-alive timer after every response and cancels it when the next request's bytes come:
    # a timer made and unmade per request. Here a timer is armed only when none is (so at most one per idle
    # spell), and when it fires it closes the connection only if it has been idle for the whole keep-alive
    # timeout since its last response, else it is armed again for the time left. A connection is closed after
    # the same idle time as by uvicorn.

    def _unset_keepalive_if_required(self) -> None:
        self._idle_since = None  # busy: a timer firing now leaves the connection open

    def on_response_complete(self) -> None:
        # uvicorn's (HttpToolsProtocol.on_response_complete), with the keep-alive timer armed lazily.
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self._idle_since = None
        self.flow.resume_reading()  # unpause data reads if needed
        if self.pipeline:  # start the next pipelined request, if any; else the connection is idle
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
        else:
            self._idle_since = self.loop.time()
            if self.timeout_keep_alive_task is None:
                self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self._keep_alive_due)

    def _keep_alive_due(self) -> None:
        self.timeout_keep_alive_task = None
        idle_since = self._idle_since
        if idle_since is None:
            return  # a request is under way: its response arms the timer again
        left = idle_since + self.timeout_keep_alive - self.loop.time()
        if left > 0:
            self.timeout_keep_alive_task = self.loop.call_later(left, self._keep_alive_due)
        else:
            self.timeout_keep_alive_handler()

    # -------------------------------------------------------------------------------- parser callbacks

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_request = True
        self._head_read = False

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._head_read = True

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_request = False
        self._completed += 1

    # ---------------------------------------------------------------------------------------- reading

    def _read_timed_out(self) -> None:
        what = self._reading
        self._read_timer = None
        self._reading = None
        if self.transport.is_closing():
            return
        cycle = self.cycle  # during a head, the previous request's (if any); during a body, this request's
        if what == "headers":
            idle = cycle is None or not cycle.response_started or cycle.response_complete
        else:
            idle = cycle is None or not cycle.response_started
        if idle:
            self.transport.write(REQUEST_TIMEOUT)  # no response of ours under way: say why before closing
        self.transport.close()

