"""An open event stream's wait for its next events: a client that goes away cancels the read it was waiting on
(and the cancellation goes on up), and shutdown ends every waiting stream by cancelling their reads, streams
opened after it included, leaving none behind."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from service.sessions.streams import EventStreams


class _Store:
    """A session whose log never grows: each read waits until cancelled, and says so."""

    def __init__(self) -> None:
        self.waiting = 0
        self.cancelled = 0

    async def read_events(self, session_id: str, cursor: Any, wait: float) -> list[Any]:
        self.waiting += 1
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.waiting -= 1
        return []


class _Access:
    async def caller(self, session_id: str, token: str) -> Any:
        return SimpleNamespace(record=SimpleNamespace(state=SimpleNamespace(phase="auction"),
                                                      settings=SimpleNamespace(ended=None)), seat=0)


async def _opened(streams: EventStreams) -> Any:
    frames = await streams.open("s1", "token", None)
    assert frames is not None
    assert await anext(frames) == b"retry: 1000\n\n"
    return frames


async def _until(condition: Any) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached")


async def test_a_client_going_away_cancels_its_read() -> None:
    store = _Store()
    streams = EventStreams(store, _Access(), stopping=asyncio.Event())  # type: ignore[arg-type]
    frames = await _opened(streams)
    reader = asyncio.create_task(anext(frames))
    await _until(lambda: store.waiting == 1)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert (store.waiting, store.cancelled) == (0, 1)
    await frames.aclose()


async def test_shutdown_ends_every_waiting_stream() -> None:
    store = _Store()
    stopping = asyncio.Event()
    streams = EventStreams(store, _Access(), stopping=stopping)  # type: ignore[arg-type]
    opened = [await _opened(streams) for _ in range(3)]
    readers = [asyncio.create_task(anext(frames, None)) for frames in opened]
    await _until(lambda: store.waiting == 3)
    stopping.set()
    assert await asyncio.gather(*readers) == [None, None, None]  # each stream ended, none raised
    assert (store.waiting, store.cancelled) == (0, 3)
    late = await _opened(streams)  # opened once shutdown began: it ends at once
    assert await anext(late, None) is None
    assert store.waiting == 0
