"""A join whose answer was lost is answered again: the same ``Idempotency-Key`` (or, for a join sent without one,
the same name for a while) gets the same seat and the same token back, over every store; the token is never kept
(the table keeps a salt it is derived from with the invitation's code, which only the player holds)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import msgspec
from redis.asyncio import Redis

from service.sessions import seating as seating_module
from tests.support import assert_problem, bearer

from .conftest import Service


async def _create(client: httpx.AsyncClient) -> dict[str, Any]:
    r = await client.post("/v1/sessions", json={"players": 4, "bots": {"1": "basic", "3": "basic"},
                                                "open_seats": [0, 2]})
    assert r.status_code == 201, r.text
    return dict(r.json())


def _code(created: dict[str, Any], seat: int) -> str:
    return str(next(i["code"] for i in created["invitations"] if i["seat"] == seat))


async def _kept_bytes(service: Service, session_id: str) -> bytes:
    """Everything the store keeps of the session, as bytes (every Redis key's values; the memory store's record)."""
    if service.redis is None:
        store = service.app.state.sessions.service.store
        return msgspec.msgpack.encode(store._sessions[session_id].record)
    kept = b""
    if service.kind == "cluster":
        return kept  # the Redis of one node does not hold every key: the one-Redis run checks the bytes
    redis: Any = Redis.from_url(service.redis.url)
    try:
        async for key in redis.scan_iter(match=f"{service.prefix}*{session_id}*"):
            kind = await redis.type(key)
            if kind == b"hash":
                kept += b"".join(k + v for k, v in (await redis.hgetall(key)).items())
            elif kind == b"stream":
                kept += b"".join(b"".join(k + v for k, v in fields.items()) for _, fields in await redis.xrange(key))
            elif kind == b"list":
                kept += b"".join(await redis.lrange(key, 0, -1))
        assert kept
    finally:
        await redis.aclose()
    return kept


async def test_a_join_retried_with_its_key_gets_the_same_seat_and_token(client: httpx.AsyncClient,
                                                                        service: Service) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    code = _code(created, 0)
    body = {"code": code, "name": "Ana"}
    key = {"Idempotency-Key": "phone-1-join"}
    first = await client.post(url + "/join", json=body, headers=key)
    assert first.status_code == 200, first.text
    assert "idempotent-replayed" not in first.headers
    joined = first.json()
    # The answer was lost on the way (a train's tunnel): the phone sends the same request again, more than once,
    # after the table changed meanwhile.
    assert (await client.post(url + "/spectators", json={}, headers=host)).status_code == 201
    for _ in range(2):
        again = await client.post(url + "/join", json=body, headers=key)
        assert again.status_code == 200, again.text
        assert again.json() == joined
        assert again.headers["idempotent-replayed"] == "true" and again.headers["etag"] == f'"{joined["version"]}"'
    # One seat_joined, one version: the retries changed nothing.
    versions = (await client.get(url + "/events/catch-up", headers=host)).json()["events"]
    assert [e["event"]["seat"] for e in versions if e["event"]["type"] == "seat_joined"] == [0]
    mine = (await client.get(url, headers=bearer(joined["seat_token"]))).json()
    assert mine["seat"] == 0 and mine["seats"][0] == {"seat": 0, "kind": "human", "name": "Ana"}
    # Not the same join: the key under another name, another key, no key.
    assert_problem(await client.post(url + "/join", json={"code": code, "name": "Bo"}, headers=key), 422,
                   "IDEMPOTENCY_KEY_REUSED")
    for headers in ({"Idempotency-Key": "phone-2-join"}, {}):
        assert_problem(await client.post(url + "/join", json=body, headers=headers), 409, "INVITATION_REDEEMED")
    assert_problem(await client.post(url + "/join", json=body, headers={"Idempotency-Key": "k" * 129}), 400,
                   "INVALID_IDEMPOTENCY_KEY")
    # The token is nowhere in the store: only its hash, and the salt it was derived with from the code.
    kept = await _kept_bytes(service, created["session_id"])
    assert joined["seat_token"].encode() not in kept and code.encode() not in kept
    # Once the seat's token was reissued, the invitation answers no token any more.
    r = await client.post(url + "/seats/0/token", json={}, headers=host)
    assert r.status_code == 200, r.text
    assert_problem(await client.post(url + "/join", json=body, headers=key), 409, "INVITATION_REDEEMED")
    assert_problem(await client.get(url, headers=bearer(joined["seat_token"])), 401, "TOKEN_REVOKED")


async def test_a_join_without_a_key_is_answered_again_for_the_same_name_for_a_while(
        client: httpx.AsyncClient, monkeypatch: Any) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    body = {"code": _code(created, 2), "name": "  Bo  "}
    first = await client.post(url + "/join", json=body)
    assert first.status_code == 200, first.text
    again = await client.post(url + "/join", json={**body, "name": "Bo"})  # the name as the service keeps it
    assert again.status_code == 200 and again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert_problem(await client.post(url + "/join", json={**body, "name": "Cy"}), 409, "INVITATION_REDEEMED")
    # A key now is another join's (this one was sent without).
    assert_problem(await client.post(url + "/join", json=body, headers={"Idempotency-Key": "k"}), 409,
                   "INVITATION_REDEEMED")
    # Past the window (the service runs in this process): the name alone opens nothing any more.
    monkeypatch.setattr(seating_module, "JOIN_REPLAY_SECONDS", 0)
    assert_problem(await client.post(url + "/join", json=body), 409, "INVITATION_REDEEMED")


async def test_the_same_join_sent_twice_at_once_gets_one_seat_and_one_token(client: httpx.AsyncClient) -> None:
    """A retry that overtakes its first attempt: both answered the same seat and token, one change made."""
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    body = {"code": _code(created, 0), "name": "Ana"}
    answers = await asyncio.gather(*(client.post(url + "/join", json=body, headers={"Idempotency-Key": "twice"})
                                     for _ in range(6)))
    assert {a.status_code for a in answers} == {200}, [a.text for a in answers]
    assert len({a.json()["seat_token"] for a in answers}) == 1
    assert sum(a.headers.get("idempotent-replayed") != "true" for a in answers) == 1
    host = bearer(created["host_token"])
    events = (await client.get(url + "/events/catch-up", headers=host)).json()["events"]
    assert sum(e["event"]["type"] == "seat_joined" for e in events) == 1
