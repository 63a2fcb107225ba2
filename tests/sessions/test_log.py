"""The session log keeps the seat to act with each version: every stream frame says who is to act at its own
version, live and replayed alike, whatever change came after it; and a log written before the seat to act was
kept (entries with no ``a`` field, as the previous release wrote them) is still read right."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from tests.support import bearer

from .conftest import Service
from .play import read_stream

GAME = {"players": 4, "seed": 42, "known_deal": True, "first_dealer": 3}


async def _passes(client: httpx.AsyncClient, created: dict[str, Any], seats: list[int]) -> str:
    url = f"/v1/sessions/{created['session_id']}"
    for seat in seats:
        r = await client.post(url + "/moves", json={"move": {"type": "pass"}},
                              headers=bearer(created["seat_tokens"][seat]))
        assert r.status_code == 200, r.text
    return url


async def test_a_frame_says_who_is_to_act_at_its_version_after_a_change_that_logs_nothing(
        client: httpx.AsyncClient) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url = await _passes(client, created, [0, 1])
    host = bearer(created["host_token"])
    r = await client.post(url + "/spectators", json={}, headers=host)  # a change of the table: logs no event
    assert r.status_code == 201, r.text
    assert await _turns(client, url, host, 3) == [(1, 0), (2, 1), (3, 2)]
    assert (await client.get(url, headers=host)).json()["view"]["to_act"] == 2


async def _turns(client: httpx.AsyncClient, url: str, headers: dict[str, str],
                 versions: int) -> list[tuple[int, int | None]]:
    """The (version, to_act) of the first frame of each of the first ``versions`` versions of the stream (the first
    version's from a stream read from the start, the others' from one resumed after it: ``Last-Event-ID`` of the
    form ``<version>-<a large index>``)."""
    first, _ = await read_stream(client, url + "/events", headers=headers, count=1)
    rest, _ = await read_stream(client, url + "/events", headers={**headers, "Last-Event-ID": "1-999"},
                                count=versions - 1)
    return [(f.version, f.to_act) for f in [*first, *rest] if f.version is not None]


async def _strip_to_act(redis: Redis, log_key: str) -> int:
    """Rewrite a session's log as a release that did not keep the seat to act wrote it (no ``a`` field)."""
    entries = await redis.xrange(log_key)
    await redis.delete(log_key)
    for entry_id, fields in entries:
        await redis.xadd(log_key, {k: v for k, v in fields.items() if k != b"a"}, id=entry_id)
    await redis.pexpire(log_key, 3_600_000)
    return len(entries)


@pytest.mark.parametrize("store_kind", ["redis"], indirect=True)
async def test_a_log_written_before_the_seat_to_act_was_kept_is_read_right(
        service: Service, client: httpx.AsyncClient) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url = await _passes(client, created, [0, 1])
    assert service.redis is not None
    redis = Redis.from_url(service.redis.url)
    try:
        log_key = f"{service.prefix}s:{{{created['session_id']}}}:log"
        assert all(b"a" in fields for _, fields in await redis.xrange(log_key))
        stripped = await _strip_to_act(redis, log_key)
        host = bearer(created["host_token"])
        assert await _turns(client, url, host, 3) == [(1, 0), (2, 1), (3, 2)]
        # the session goes on from there: the old entries keep their form, the new ones carry the seat to act
        await _passes(client, created, [2])
        assert await _turns(client, url, host, 4) == [(1, 0), (2, 1), (3, 2), (4, 3)]
        logged = await redis.xrange(log_key)
        assert [b"a" in fields for _, fields in logged] == [False] * stripped + [True]
    finally:
        await redis.aclose()
