"""Revocable spectators, a bound on one token's open streams, and streams that say why they end (issue 46); over
every store."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx

from tests.support import assert_problem, bearer

from .conftest import Service, running_service
from .play import SseEvent, sse_events


async def _create(client: httpx.AsyncClient) -> dict[str, Any]:
    r = await client.post("/v1/sessions", json={"players": 4, "first_dealer": 3, "bots": {"1": "basic", "3": "basic"},
                                                "open_seats": [0, 2]})
    assert r.status_code == 201, r.text
    return dict(r.json())


async def _join(client: httpx.AsyncClient, url: str, code: str, name: str) -> dict[str, str]:
    r = await client.post(url + "/join", json={"code": code, "name": name})
    assert r.status_code == 200, r.text
    return bearer(r.json()["seat_token"])


async def _until_closed(client: httpx.AsyncClient, url: str, headers: dict[str, str],
                        opened: asyncio.Event | None = None) -> list[SseEvent]:
    """Every event of the stream, until the service closes it (named ones included)."""
    got: list[SseEvent] = []
    async with asyncio.timeout(15), client.stream("GET", url + "/events", headers=headers) as r:
        assert r.status_code == 200
        if opened is not None:
            opened.set()
        async for item in sse_events(r):
            if item is not None:
                got.append(item)
    return got


async def _closing(client: httpx.AsyncClient, url: str, headers: dict[str, str], act: Any) -> SseEvent:
    opened = asyncio.Event()
    reader = asyncio.create_task(_until_closed(client, url, headers, opened))
    await opened.wait()
    await asyncio.sleep(0.3)
    await act()
    events = await reader
    assert events and events[-1].event not in ("", "message"), events[-3:]
    return events[-1]


async def test_a_spectator_token_is_revoked_and_its_stream_says_so(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host, table = bearer(created["host_token"]), bearer(created["table_host_token"])
    minted = [(await client.post(url + "/spectators", json={}, headers=who)).json() for who in (host, table)]
    watcher, other = (bearer(m["spectator_token"]) for m in minted)
    assert (await client.get(url, headers=watcher)).status_code == 200

    async def revoke() -> None:
        r = await client.delete(url + f"/spectators/{minted[0]['spectator_id']}", headers=table)
        assert r.status_code == 204, r.text

    last = await _closing(client, url, watcher, revoke)
    assert last.event == "revoked" and "version" in last.data
    assert_problem(await client.get(url, headers=watcher), 401, "TOKEN_REVOKED")
    assert_problem(await client.get(url + "/events", headers=watcher), 401, "TOKEN_REVOKED")
    assert (await client.get(url, headers=other)).status_code == 200  # the other one still works
    assert_problem(await client.delete(url + f"/spectators/{minted[0]['spectator_id']}", headers=host),
                   404, "NOT_FOUND")
    assert_problem(await client.delete(url + f"/spectators/{minted[1]['spectator_id']}", headers=other),
                   403, "FORBIDDEN")
    # Seats see the revocation in their log, as every change of the table.
    frames = [e for e in await _frames_so_far(client, url, host) if e.data.get("type") == "spectator_revoked"]
    assert [f.data["spectator_id"] for f in frames] == [minted[0]["spectator_id"]]


async def _frames_so_far(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> list[SseEvent]:
    got: list[SseEvent] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(3), client.stream("GET", url + "/events", headers=headers) as r:
            async for item in sse_events(r):
                if item is None:
                    break
                got.append(item)
    return got


async def test_one_token_holds_a_bounded_number_of_streams(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    spectator = bearer((await client.post(url + "/spectators", json={},
                                          headers=bearer(created["host_token"]))).json()["spectator_token"])
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(4):
            r = await stack.enter_async_context(client.stream("GET", url + "/events", headers=spectator))
            assert r.status_code == 200
        assert_problem(await client.get(url + "/events", headers=spectator), 429, "RATE_LIMITED")
    for _ in range(50):  # the streams closed: the token may open one again
        async with client.stream("GET", url + "/events", headers=spectator) as r:
            if r.status_code == 200:
                break
        await asyncio.sleep(0.1)
    assert r.status_code == 200


async def test_a_stream_says_when_its_seat_token_is_replaced(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    ana = await _join(client, url, created["invitations"][0]["code"], "Ana")

    async def reissue() -> None:
        assert (await client.post(url + "/seats/0/token", json={}, headers=host)).status_code == 200

    assert (await _closing(client, url, ana, reissue)).event == "revoked"
    assert_problem(await client.get(url, headers=ana), 401, "TOKEN_REVOKED")


async def test_a_revoked_token_stays_revoked_once_its_seat_is_taken_again(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    ana = await _join(client, url, created["invitations"][0]["code"], "Ana")
    r = await client.post(url + "/seats/0/invitation", json={}, headers=host)
    assert r.status_code == 200, r.text
    assert_problem(await client.get(url, headers=ana), 401, "TOKEN_REVOKED")
    cy = await _join(client, url, r.json()["invitation"]["code"], "Cy")
    assert_problem(await client.get(url, headers=ana), 401, "TOKEN_REVOKED")
    assert_problem(await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=ana),
                   401, "TOKEN_REVOKED")
    assert_problem(await client.get(url + "/events", headers=ana), 401, "TOKEN_REVOKED")
    # A player who leaves: the same, before and after the seat is taken again.
    assert (await client.post(url + "/leave", json={}, headers=cy)).status_code == 200
    assert_problem(await client.get(url, headers=cy), 401, "TOKEN_REVOKED")
    r = await client.post(url + "/seats/0/invitation", json={}, headers=host)
    await _join(client, url, r.json()["invitation"]["code"], "Di")
    for token in (ana, cy):
        assert_problem(await client.get(url, headers=token), 401, "TOKEN_REVOKED")


async def test_a_stream_says_when_its_session_is_deleted(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    spectator = bearer((await client.post(url + "/spectators", json={}, headers=host)).json()["spectator_token"])

    async def delete() -> None:
        assert (await client.delete(url, headers=host)).status_code == 204

    assert (await _closing(client, url, spectator, delete)).event == "deleted"


async def test_a_stream_says_when_its_session_expired(service: Service) -> None:
    async with running_service(service.kind, service.redis, idle_seconds=2) as short, \
            httpx.AsyncClient(base_url=short.url, timeout=30) as client:
        created = await _create(client)
        url = f"/v1/sessions/{created['session_id']}"
        events = await _until_closed(client, url, bearer(created["host_token"]))
        assert events[-1].event == "expired", events[-3:]
