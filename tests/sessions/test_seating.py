"""Joining by invitation, names, reissued tokens, seats handed on or left, over every store (memory, Redis,
Redis Cluster); and two players redeeming one invitation at once on two replicas (one seat, one winner)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from service.sessions import seating as seating_module
from tests.support import assert_problem, bearer

from .conftest import ServiceProcess
from .play import SseEvent, read_stream, sse_events


async def _logged(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> list[SseEvent]:
    """Every event the stream has so far: read until its first heartbeat (the service's is a second here)."""
    got: list[SseEvent] = []
    async with asyncio.timeout(10), client.stream("GET", url + "/events", headers=headers) as r:
        assert r.status_code == 200
        async for item in sse_events(r):
            if item is None:
                return got
            got.append(item)
    return got


async def _create(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    body = {"players": 4, "seed": 2024, "known_deal": True, "first_dealer": 3, "bots": {"1": "basic", "3": "basic"},
            "open_seats": [0, 2], **extra}
    r = await client.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def _join(client: httpx.AsyncClient, created: dict[str, Any], seat: int, name: str) -> dict[str, Any]:
    code = next(i["code"] for i in created["invitations"] if i["seat"] == seat)
    r = await client.post(f"/v1/sessions/{created['session_id']}/join", json={"code": code, "name": name})
    assert r.status_code == 200, r.text
    return dict(r.json())


async def test_open_seats_get_invitations_and_players_join_under_their_names(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    assert created["seat_tokens"] == [None, None, None, None]
    assert [(i["seat"], i["expires_in"]) for i in created["invitations"]] == [(0, 86_400), (2, 86_400)]
    seats = (await client.get(url, headers=host)).json()["seats"]
    assert [s["kind"] for s in seats] == ["open", "bot", "open", "bot"]
    # An invitation is not a token of the session.
    code = created["invitations"][0]["code"]
    assert_problem(await client.get(url, headers=bearer(code)), 401, "UNAUTHORIZED")
    version = (await client.get(url, headers=host)).json()["version"]
    said = {"length": "characters long", "spaces": "two spaces", "characters": "made of letters"}
    for name, case in (("", "length"), ("x" * 33, "length"), ("Ana  Lu", "spaces"), ("Ana\u0000", "characters"),
                       ("Ana\u202e", "characters"), ("<b>", "characters")):
        r = await client.post(url + "/join", json={"code": code, "name": name})
        assert said[case] in assert_problem(r, 400, "INVALID_NAME")["detail"]
    assert_problem(await client.post(url + "/join", json={"code": "nope", "name": "Ana"}), 401, "UNAUTHORIZED")
    joined = await _join(client, created, 0, "  Ána Lú  ")
    assert joined["seat"] == 0 and joined["name"] == "Ána Lú" and joined["version"] == version + 1
    assert_problem(await client.post(url + "/join", json={"code": code, "name": "Bo"}), 409, "INVITATION_REDEEMED")
    ana = bearer(joined["seat_token"])
    mine = (await client.get(url, headers=ana)).json()
    assert mine["seat"] == 0 and mine["view"]["hand"]
    assert [(s["kind"], s.get("name")) for s in mine["seats"]] == [
        ("human", "Ána Lú"), ("bot", None), ("open", None), ("bot", None)]
    thai = await _join(client, created, 2, "สมชาย")
    assert thai["seat"] == 2
    # Every reader's stream says who joined, in order.
    for headers in (host, ana):
        events = await _logged(client, url, headers)
        joins = [(e.data["seat"], e.data["name"]) for e in events if e.event == "seat_joined"]
        assert joins == [(0, "Ána Lú"), (2, "สมชาย")]


async def test_an_expired_invitation_has_its_own_code(client: httpx.AsyncClient,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    created = await _create(client, invitation_seconds=60)
    url = f"/v1/sessions/{created['session_id']}"
    now = time.time()
    monkeypatch.setattr(seating_module.time, "time", lambda: now + 61)
    r = await client.post(url + "/join", json={"code": created["invitations"][0]["code"], "name": "Ana"})
    assert_problem(r, 410, "INVITATION_EXPIRED")
    for bad in (59, 7 * 86_400 + 1):
        assert_problem(await client.post("/v1/sessions", json={"players": 4, "open_seats": [0],
                                                               "invitation_seconds": bad}), 400, "MALFORMED_REQUEST")
    for seats in ([4], [1, 1], [1]):
        r = await client.post("/v1/sessions", json={"players": 4, "open_seats": seats, "bots": {"1": "basic"}})
        assert_problem(r, 400, "MALFORMED_REQUEST")


async def test_a_reissued_token_stops_at_once_and_its_stream_ends(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    ana = bearer((await _join(client, created, 0, "Ana"))["seat_token"])
    assert_problem(await client.post(url + "/seats/2/token", json={}, headers=host), 409, "SEAT_NOT_HELD")
    assert_problem(await client.post(url + "/seats/1/token", json={}, headers=host), 409, "SEAT_NOT_HELD")
    assert_problem(await client.post(url + "/seats/0/token", json={}, headers=ana), 403, "FORBIDDEN")
    assert_problem(await client.post(url + "/seats/3/token", json={}, headers=host), 409, "SEAT_NOT_HELD")

    async def stream_then_end() -> bool:
        _, ended = await read_stream(client, url + "/events", headers=ana, timeout=8)
        return ended

    reader = asyncio.create_task(stream_then_end())
    await asyncio.sleep(0.5)
    r = await client.post(url + "/seats/0/token", json={}, headers=host)
    assert r.status_code == 200, r.text
    fresh = bearer(r.json()["seat_token"])
    assert await reader, "the stream opened with the old token did not end"
    assert_problem(await client.get(url, headers=ana), 401, "TOKEN_REVOKED")
    assert_problem(await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=ana),
                   401, "TOKEN_REVOKED")
    assert (await client.get(url, headers=fresh)).json()["seat"] == 0
    events = await _logged(client, url, host)
    assert [e.data["seat"] for e in events if e.event == "seat_token_reissued"] == [0]


async def test_the_host_hands_a_seat_to_a_bot_or_opens_it_again(client: httpx.AsyncClient) -> None:
    created = await _create(client, open_seats=[0, 2], bots={"1": "basic", "3": "basic"})
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    ana = bearer((await _join(client, created, 0, "Ana"))["seat_token"])
    bo = bearer((await _join(client, created, 2, "Bo"))["seat_token"])
    # Opening a held seat: its player is out, a new invitation is answered, the old code is void.
    r = await client.post(url + "/seats/2/invitation", json={}, headers=host)
    assert r.status_code == 200 and r.json()["now"] == "open", r.text
    code = r.json()["invitation"]["code"]
    assert_problem(await client.get(url, headers=bo), 401, "TOKEN_REVOKED")
    old = created["invitations"][1]["code"]
    assert_problem(await client.post(url + "/join", json={"code": old, "name": "Bo"}), 401, "UNAUTHORIZED")
    cy = await client.post(url + "/join", json={"code": code, "name": "Cy"})
    assert cy.status_code == 200 and cy.json()["seat"] == 2
    # Handing a seat to a bot: the bot plays it from then on (whenever it is to act).
    r = await client.post(url + "/seats/2/bot", json={"level": "basic"}, headers=host)
    assert r.status_code == 200 and r.json()["now"] == "bot"
    assert_problem(await client.get(url, headers=bearer(cy.json()["seat_token"])), 401, "TOKEN_REVOKED")
    state = (await client.get(url, headers=ana)).json()
    assert [s["kind"] for s in state["seats"]] == ["human", "bot", "bot", "bot"]
    assert state["view"]["to_act"] in (0, None)  # every other seat is a bot's: they played up to seat 0
    # The last player's seat cannot go to a bot (a game of bots alone is not hosted).
    assert_problem(await client.post(url + "/seats/0/bot", json={}, headers=host), 400, "INVALID_BOTS")
    assert_problem(await client.post(url + "/seats/9/bot", json={}, headers=host), 400, "MALFORMED_REQUEST")


@pytest.mark.parametrize("on_leave", ["bot", "wait"])
async def test_a_player_leaves(client: httpx.AsyncClient, on_leave: str) -> None:
    created = await _create(client, on_leave=on_leave)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    ana = bearer((await _join(client, created, 0, "Ana"))["seat_token"])
    bo = bearer((await _join(client, created, 2, "Bo"))["seat_token"])
    assert_problem(await client.post(url + "/leave", json={}, headers=host), 403, "FORBIDDEN")
    r = await client.post(url + "/leave", json={}, headers=bo)
    assert r.status_code == 200 and r.json()["now"] == ("bot" if on_leave == "bot" else "open"), r.text
    assert_problem(await client.get(url, headers=bo), 401, "TOKEN_REVOKED")
    seats = (await client.get(url, headers=ana)).json()["seats"]
    assert seats[2]["kind"] == ("bot" if on_leave == "bot" else "open") and "name" not in seats[2]
    # The last player leaving never leaves a table of bots: the seat waits, open.
    r = await client.post(url + "/leave", json={}, headers=ana)
    assert r.status_code == 200 and r.json()["now"] == "open"
    events = await _logged(client, url, host)
    assert [(e.data["seat"], e.data["now"]) for e in events if e.event == "seat_left"] == [
        (2, "bot" if on_leave == "bot" else "open"), (0, "open")]


@pytest.mark.slow
@pytest.mark.parametrize("rounds", [6])
async def test_two_players_redeem_one_invitation_at_once_on_two_replicas(
        replicas: tuple[ServiceProcess, ServiceProcess], rounds: int) -> None:
    """Two uvicorn processes on one redis-server: each round, two players send the same invitation at the same
    moment, one to each replica; exactly one gets the seat, the other ``INVITATION_REDEEMED``."""
    async with httpx.AsyncClient(base_url=replicas[0].url, timeout=20) as one, \
            httpx.AsyncClient(base_url=replicas[1].url, timeout=20) as two:
        for _ in range(rounds):
            created = await _create(one)
            url = f"/v1/sessions/{created['session_id']}/join"
            code = created["invitations"][0]["code"]
            answers = await asyncio.gather(one.post(url, json={"code": code, "name": "Ana"}),
                                           two.post(url, json={"code": code, "name": "Bo"}))
            assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
            winner = next(a for a in answers if a.status_code == 200).json()
            assert_problem(next(a for a in answers if a.status_code == 409), 409, "INVITATION_REDEEMED")
            # Both replicas agree on who holds the seat, and only the winner's token opens it.
            for c in (one, two):
                seats = (await c.get(url.removesuffix("/join"), headers=bearer(created["host_token"]))).json()
                assert seats["seats"][0] == {"seat": 0, "kind": "human", "name": winner["name"]}
                assert (await c.get(url.removesuffix("/join"),
                                    headers=bearer(winner["seat_token"]))).json()["seat"] == 0


async def test_the_record_of_a_table_with_joins_and_spectators(client: httpx.AsyncClient) -> None:
    """The table's changes (joining, spectators, reissues) are versions of the session but no moves of the game:
    the host's and the seats' records leave them out and still replay to the session's state."""
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    ana = bearer((await _join(client, created, 0, "Ana"))["seat_token"])
    assert (await client.post(url + "/spectators", json={}, headers=host)).status_code == 201
    bo = bearer((await _join(client, created, 2, "Bo"))["seat_token"])
    for _ in range(6):  # the players' moves (the bots answer each)
        view = (await client.get(url, headers=host)).json()["view"]
        if view["to_act"] not in (0, 2):
            break
        mover = ana if view["to_act"] == 0 else bo
        hint = (await client.post(url + "/suggest", json={"seed": 3}, headers=mover)).json()["move"]
        assert (await client.post(url + "/moves", json={"move": hint}, headers=mover)).status_code == 200
    r = await client.post(url + "/seats/2/token", json={}, headers=host)
    assert r.status_code == 200
    for headers in (host, ana):
        record = await client.get(url + "/record", headers=headers)
        assert record.status_code == 200, record.text
