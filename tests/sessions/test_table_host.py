"""The table host token (issue 46): a player's device runs the table with it (invitations, tokens, bots, open
seats, spectators) but opens nothing hidden while the game runs (no snapshot, no record of an unfinished game);
over every store."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support import assert_problem, bearer

from .play import read_stream

SHORT = {"target": 10, "lose_at": -10}


async def _create(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    body = {"players": 4, "first_dealer": 3, "bots": {"1": "basic", "3": "basic"}, "open_seats": [0, 2], **extra}
    r = await client.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def _join(client: httpx.AsyncClient, url: str, code: str, name: str) -> dict[str, str]:
    r = await client.post(url + "/join", json={"code": code, "name": name})
    assert r.status_code == 200, r.text
    return bearer(r.json()["seat_token"])


async def test_the_table_host_runs_the_table(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    table = bearer(created["table_host_token"])
    assert created["table_host_token"] not in (created["host_token"], *created["seat_tokens"])
    codes = {i["seat"]: i["code"] for i in created["invitations"]}
    ana = await _join(client, url, codes[0], "Ana")
    # A new invitation for seat 2, then a player, whose token it reissues; the seat to a bot and open again.
    r = await client.post(url + "/seats/2/invitation", json={}, headers=table)
    assert r.status_code == 200, r.text
    bo = await _join(client, url, r.json()["invitation"]["code"], "Bo")
    r = await client.post(url + "/seats/2/token", json={}, headers=table)
    assert r.status_code == 200, r.text
    assert_problem(await client.get(url, headers=bo), 401, "TOKEN_REVOKED")
    assert (await client.post(url + "/seats/2/bot", json={}, headers=table)).status_code == 200
    assert (await client.post(url + "/seats/2/invitation", json={}, headers=table)).status_code == 200
    # Spectators.
    r = await client.post(url + "/spectators", json={}, headers=table)
    assert r.status_code == 201, r.text
    # It reads the public view, as the host does, and no seat's.
    got = (await client.get(url, headers=table)).json()
    assert got["seat"] is None and got["view"]["hand"] is None
    assert_problem(await client.get(url + "?seat=0", headers=table), 403, "FORBIDDEN")
    assert (await client.get(url, headers=ana)).json()["seat"] == 0


async def test_the_table_host_opens_nothing_hidden(client: httpx.AsyncClient) -> None:
    created = await _create(client, options=SHORT)
    url = f"/v1/sessions/{created['session_id']}"
    table, host = bearer(created["table_host_token"]), bearer(created["host_token"])
    ana = await _join(client, url, created["invitations"][0]["code"], "Ana")
    bo = await _join(client, url, created["invitations"][1]["code"], "Bo")
    assert_problem(await client.get(url + "/snapshot", headers=table), 403, "FORBIDDEN")
    assert_problem(await client.get(url + "/record", headers=table), 403, "FORBIDDEN")
    assert_problem(await client.delete(url, headers=table), 403, "FORBIDDEN")
    for path, body in (("/moves", {"move": {"type": "pass"}}), ("/validate", {"move": {"type": "pass"}}),
                       ("/suggest", {}), ("/leave", {})):
        assert_problem(await client.post(url + path, json=body, headers=table), 403, "FORBIDDEN")
    assert_problem(await client.get(url + "/legal-moves", headers=table), 403, "FORBIDDEN")
    # The host token still opens all (a back end's).
    assert (await client.get(url + "/snapshot", headers=host)).status_code == 200
    assert (await client.get(url + "/record", headers=host)).status_code == 200
    # Its stream is the public one: no card of any hand.
    frames, _ = await read_stream(client, url + "/events", headers=table, count=5, timeout=10)
    received = [f.data for f in frames if f.data.get("type") == "cards_received"]
    assert len(received) == 4 and all(e["cards"] is None for e in received), frames
    # Once the game is over, the record shows nothing more than play did: the table host reads it too.
    seats = {0: ana, 2: bo}
    for _ in range(200):
        state = (await client.get(url, headers=table)).json()["view"]
        if state["phase"] == "game_over":
            break
        mover = seats[state["to_act"]]
        move = (await client.post(url + "/suggest", json={"level": "random", "seed": 1}, headers=mover)).json()
        assert (await client.post(url + "/moves", json={"move": move["move"]}, headers=mover)).status_code == 200
    assert state["phase"] == "game_over"
    r = await client.get(url + "/record", headers=table)
    assert r.status_code == 200 and r.json()["record"]["deck_orders"], r.text
