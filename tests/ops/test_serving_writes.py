"""The served protocols' coalesced writes (service/ops/serving.py ``_CoalescingTransport``): what one turn of the
event loop writes goes out in one write, in order, by the end of that turn; closing sends it first, aborting
drops it; and a response over a served connection arrives whole."""

from __future__ import annotations

import asyncio
from typing import Any

from service.ops import serving

from .served import PROTOCOLS, Server


class _Recording(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []

    def write(self, data: Any) -> None:
        self.calls.append(("write", bytes(data)))

    def close(self) -> None:
        self.calls.append(("close", None))

    def abort(self) -> None:
        self.calls.append(("abort", None))

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


def test_one_turns_writes_go_out_as_one() -> None:
    async def scenario() -> list[tuple[str, Any]]:
        real = _Recording()
        transport = serving._CoalescingTransport(real, asyncio.get_running_loop())
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(b"body")
        assert real.calls == []  # kept until the end of the turn
        assert transport.get_write_buffer_size() == len(b"HTTP/1.1 200 OK\r\n\r\nbody")
        await asyncio.sleep(0)
        transport.write(b"next turn")
        await asyncio.sleep(0)
        return real.calls

    assert asyncio.run(scenario()) == [("write", b"HTTP/1.1 200 OK\r\n\r\nbody"), ("write", b"next turn")]


def test_closing_sends_what_was_kept_and_aborting_drops_it() -> None:
    async def scenario() -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        loop = asyncio.get_running_loop()
        closed, aborted = _Recording(), _Recording()
        first = serving._CoalescingTransport(closed, loop)
        first.write(b"408")
        first.close()
        second = serving._CoalescingTransport(aborted, loop)
        second.write(b"stalled")
        second.abort()
        await asyncio.sleep(0)  # the scheduled flushes find nothing left
        return closed.calls, aborted.calls

    closed, aborted = asyncio.run(scenario())
    assert closed == [("write", b"408"), ("close", None)]
    assert aborted == [("abort", None)]


def test_pipelined_responses_come_whole_and_in_order() -> None:
    for protocol in PROTOCOLS:
        server = Server({}, protocol=protocol)
        try:
            sock = server.connect()
            sock.settimeout(10)
            ids = [f"pipelined-{n}" for n in range(3)]
            sock.sendall(b"".join(f"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: {i}\r\n\r\n".encode()
                                  for i in ids))
            got = b""
            while got.count(b'{"status":"ok"}') < len(ids):
                chunk = sock.recv(65536)
                assert chunk, got
                got += chunk
            sock.close()
            heads = got.split(b"HTTP/1.1 200 OK")[1:]
            assert [h.split(b"x-request-id: ")[1].split(b"\r\n")[0].decode() for h in heads] == ids
        finally:
            server.stop()
