"""A table's life on a phone, over both stores: every stream frame says who is to act at its own version (the log
keeps it with each version; a log written before, with no ``a`` field as the previous release wrote it, is read
right), catch-up without a stream, a change of the table never refusing a move chosen before it, and a double
tap that ends a thrown-in hand landing once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from tests.support import assert_problem, bearer

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


# ----------------------------------------------------------------------------------- catch-up without a stream


async def test_a_catch_up_answers_what_the_stream_sends_after_a_point_as_json(client: httpx.AsyncClient) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url = await _passes(client, created, [0, 1, 2])
    seat1 = bearer(created["seat_tokens"][1])
    whole = (await client.get(url + "/events/catch-up", headers=seat1)).json()
    assert whole["complete"] is True and whole["version"] == 4
    streamed, _ = await read_stream(client, url + "/events", headers=seat1, count=len(whole["events"]))
    assert [(e["id"], e["version"], e["to_act"], e["event"]) for e in whole["events"]] == [
        (f.id, f.version, f.to_act, f.data) for f in streamed]
    # seat 1 sees its own hand dealt, not another seat's
    dealt = {e["event"]["seat"]: e["event"]["cards"] for e in whole["events"]
             if e["event"]["type"] == "cards_received"}
    assert len(dealt[1]) == 10 and [cards for seat, cards in dealt.items() if seat != 1] == [None] * 3
    # after a version: every event of later versions; after an event id: the rest
    after2 = (await client.get(url + "/events/catch-up", params={"after": "2"}, headers=seat1)).json()
    assert [e["version"] for e in after2["events"]] == [3, 4]
    first = whole["events"][0]["id"]
    rest = (await client.get(url + "/events/catch-up", params={"after": first}, headers=seat1)).json()
    assert rest["events"] == whole["events"][1:]
    assert (await client.get(url + "/events/catch-up", params={"after": "4"}, headers=seat1)).json()["events"] == []
    bad = await client.get(url + "/events/catch-up", params={"after": "x-1"}, headers=seat1)
    assert bad.status_code == 400 and bad.json()["code"] == "INVALID_LAST_EVENT_ID"
    assert (await client.get(url + "/events/catch-up")).status_code == 401


async def test_a_catch_up_is_compressed_like_other_answers(client: httpx.AsyncClient) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url = await _passes(client, created, [0, 1, 2])
    r = await client.get(url + "/events/catch-up", headers={**bearer(created["host_token"]),
                                                             "accept-encoding": "gzip"})
    assert r.status_code == 200 and r.headers.get("content-encoding") == "gzip", r.headers


# --------------------------------------------------------------------------- table changes never refuse a move


async def test_a_change_of_the_table_never_refuses_a_move_chosen_before_it(client: httpx.AsyncClient) -> None:
    created = (await client.post("/v1/sessions", json={**GAME, "open_seats": [3]})).json()
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    seat0, seat1 = bearer(created["seat_tokens"][0]), bearer(created["seat_tokens"][1])
    chosen = (await client.get(url, headers=seat0)).json()["version"]
    # while seat 0 chooses: a spectator, a reissued token, a player joining the open seat
    assert (await client.post(url + "/spectators", json={}, headers=host)).status_code == 201
    reissued = await client.post(url + "/seats/2/token", json={}, headers=host)
    assert reissued.status_code == 200, reissued.text
    code = created["invitations"][0]["code"]
    assert (await client.post(url + "/join", json={"code": code, "name": "Dee"})).status_code == 200
    now = (await client.get(url, headers=seat0)).json()["version"]
    assert now == chosen + 3
    moved = await client.post(url + "/moves", json={"move": {"type": "pass"}},
                              headers={**seat0, "If-Match": f'"{chosen}"'})
    assert moved.status_code == 200, moved.text
    assert moved.json()["version"] == now + 1
    # a move chosen before another seat's move is still refused: the game is not as it was
    stale = await client.post(url + "/moves", json={"move": {"type": "pass"}},
                              headers={**seat1, "If-Match": f'"{now}"'})
    assert stale.status_code == 409 and stale.json()["code"] == "VERSION_CONFLICT"
    assert stale.json()["current_version"] == now + 1


# --------------------------------------------------------------------------------- a double tap across a deal


async def test_a_double_tap_that_ends_a_thrown_in_hand_lands_once(service: Service,
                                                                   client: httpx.AsyncClient) -> None:
    """Seat 0 deals and bids last; the three bots pass, so seat 0's pass throws the hand in, the bots call in the
    next hand, and seat 0 is to act again. The twin of that pass, taken up before the first was answered (here:
    while the first's bot moves are held back, so that the twin's read finds them still to play), must not be
    seat 0's pass in the next hand: 409, and one pass of seat 0 in all."""
    created = (await client.post("/v1/sessions", json={"players": 4, "seed": 7, "first_dealer": 0,
                                                       "bots": {"1": "basic", "2": "basic", "3": "basic"}})).json()
    url = f"/v1/sessions/{created['session_id']}"
    seat0, host = bearer(created["seat_tokens"][0]), bearer(created["host_token"])
    before = (await client.get(url, headers=seat0)).json()
    assert before["view"]["to_act"] == 0 and before["view"]["hand_number"] == 0, before
    store = service.app.state.sessions.service.store
    commit, commits, held = store.commit, [], asyncio.Event()

    async def holding(*args: Any, **kwargs: Any) -> Any:
        commits.append(args[2])
        if len(commits) == 2:  # the first bot move after the tap's own: held until the twin is answered
            await held.wait()
        return await commit(*args, **kwargs)

    store.commit = holding
    try:
        first = asyncio.create_task(client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=seat0))
        async with asyncio.timeout(10):
            while len(commits) < 2:
                await asyncio.sleep(0.005)
        twin = await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=seat0)
        held.set()
        answered = await first
    finally:
        store.commit = commit
        held.set()
    assert answered.status_code == 200, answered.text
    assert_problem(twin, 409, "VERSION_CONFLICT")
    record = (await client.get(url + "/record", headers=host)).json()["record"]
    assert [m["type"] for m in record["moves"] if m["seat"] == 0] == ["pass"]
    after = (await client.get(url, headers=seat0)).json()["view"]
    assert after["hand_number"] == 1 and after["to_act"] == 0
