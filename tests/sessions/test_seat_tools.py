"""A seat's own checks and hints, and spectator tokens, over both stores (memory and a real Redis).

Every answer must be exactly what the engine says for the caller's own seat (validate and apply agree; each bid
of the bid box carries the engine's reason for that very bid; a hint is the bot's choice from that seat's view).
"""

from __future__ import annotations

import httpx

from bots import decide
from engine import Bid, Pass, check_move, legal_moves, view
from engine.rules import ladder
from service.sessions.table import MAX_SPECTATORS
from tests.support import assert_problem, bearer, jsonable

from .play import Game, move_body, read_stream


async def test_validate_says_what_apply_does_for_the_tokens_own_seat(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    state = g.mirror.state
    actor = state.to_act
    assert actor is not None
    for seat, headers in enumerate(g.seats):
        for move in (Pass(seat=seat), Bid(seat=seat, bid="6S"), Bid(seat=seat, bid="10NT")):
            r = await client.post(g.url + "/validate", json=move_body(move), headers=headers)
            assert r.status_code == 200 and r.headers["etag"] == '"1"', r.text
            rejection = check_move(state, move)
            body = r.json()
            assert body["legal"] == (rejection is None) and body["seat"] == seat
            if rejection is not None:
                assert body["reason"] == rejection.reason
                assert body["legal_moves"] == jsonable(legal_moves(state, seat))
            # The seat may be left out; the answer is the same.
            seatless = {"move": {k: v for k, v in move_body(move)["move"].items() if k != "seat"}}
            assert (await client.post(g.url + "/validate", json=seatless, headers=headers)).json() == body
    other = (actor + 1) % 4
    assert_problem(await client.post(g.url + "/validate", json=move_body(Pass(seat=actor)),
                                     headers=g.seats[other]), 403, "WRONG_SEAT")
    assert_problem(await client.post(g.url + "/validate", json=move_body(Pass(seat=actor)), headers=g.host),
                   403, "FORBIDDEN")
    assert await g.version() == 1  # nothing was applied


async def test_legal_moves_with_the_bid_boxs_reasons(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    state = g.mirror.state
    for seat, headers in enumerate(g.seats):
        plain = (await client.get(g.url + "/legal-moves", headers=headers)).json()
        assert "unavailable" not in plain
        r = await client.get(g.url + "/legal-moves", headers=headers, params={"reasons": "true"})
        body = r.json()
        assert body["legal_moves"] == plain["legal_moves"]
        box = [Bid(seat=seat, bid=b) for b in ladder(state.options)] + [Pass(seat=seat)]
        expected = [(jsonable(m), check_move(state, m)) for m in box]
        assert [(u["move"], u["reason"]) for u in body["unavailable"]] == [
            (m, rej.reason) for m, rej in expected if rej is not None]
        assert all(u["detail"] for u in body["unavailable"])
        if seat == state.to_act:
            assert len(body["unavailable"]) < len(box)  # the seat to act may make some of them
        else:
            assert {u["reason"] for u in body["unavailable"]} == {"NOT_YOUR_TURN"}
    # Localised with the request's language.
    r = await client.get(g.url + "/legal-moves", headers={**g.seats[0], "Accept-Language": "hr"},
                         params={"reasons": "true"})
    english = await client.get(g.url + "/legal-moves", headers=g.seats[0], params={"reasons": "true"})
    assert r.json()["unavailable"][0]["detail"] != english.json()["unavailable"][0]["detail"]


async def test_a_hint_decides_from_the_seats_view_and_can_be_turned_off(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    state = g.mirror.state
    actor = state.to_act
    assert actor is not None
    r = await client.post(g.url + "/suggest", json={"level": "basic", "seed": 5}, headers=g.seats[actor])
    assert r.status_code == 200 and r.headers["etag"] == '"1"', r.text
    expected = decide(view(state, actor), state.options, level="basic", seed=5, legal=legal_moves(state, actor))
    assert r.json()["move"] == jsonable(expected.move) and r.json()["seat"] == actor and r.json()["seed"] == 5
    # An expert hint explains itself: each candidate's value and its share of playouts where the side got its way.
    r = await client.post(g.url + "/suggest", json={"level": "expert", "seed": 5, "budget": 16}, headers=g.seats[actor])
    expert = decide(view(state, actor), state.options, level="expert", seed=5, budget=16,
                    legal=legal_moves(state, actor))
    assert expert.candidates and [(c["value"], c["success"]) for c in r.json()["candidates"]] == [
        (c.value, c.success) for c in expert.candidates]
    other = (actor + 1) % 4
    assert_problem(await client.post(g.url + "/suggest", json={}, headers=g.seats[other]), 422, "NOT_TO_ACT")
    assert_problem(await client.post(g.url + "/suggest", json={}, headers=g.host), 403, "FORBIDDEN")
    assert_problem(await client.post(g.url + "/suggest", json={"level": "genius"}, headers=g.seats[actor]),
                   400, "MALFORMED_REQUEST")
    created = await client.post("/v1/sessions", json={"players": 4, "seed": 2024, "known_deal": True, "first_dealer": 3,
                                                      "hints": False})
    assert created.status_code == 201 and created.json()["hints"] is False
    off = created.json()
    url = f"/v1/sessions/{off['session_id']}"
    r = await client.post(url + "/suggest", json={}, headers=bearer(off["seat_tokens"][actor]))
    assert_problem(r, 403, "HINTS_OFF")
    # Hints off does not touch the other help.
    assert (await client.post(url + "/validate", json={"move": {"type": "pass"}},
                              headers=bearer(off["seat_tokens"][actor]))).json()["legal"] is True


async def test_a_spectator_sees_the_public_view_and_stream_and_nothing_else(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    assert_problem(await client.post(g.url + "/spectators", json={}, headers=g.seats[0]), 403, "FORBIDDEN")
    r = await client.post(g.url + "/spectators", json={}, headers=g.host)
    assert r.status_code == 201 and r.headers["etag"] == '"2"', r.text
    assert r.json()["spectators"] == 1 and r.json()["max_spectators"] == MAX_SPECTATORS
    spectator = bearer(r.json()["spectator_token"])
    await g.play(3)
    public = (await client.get(g.url, headers=g.host)).json()
    seen = await client.get(g.url, headers=spectator)
    assert seen.status_code == 200 and seen.json() == public and seen.json()["view"]["hand"] is None
    events, _ = await read_stream(client, g.url + "/events", headers=spectator, count=3)
    hosts, _ = await read_stream(client, g.url + "/events", headers=g.host, count=3)
    assert [e.data for e in events] == [e.data for e in hosts]
    actor = g.mirror.state.to_act
    for method, path, body, params in (
            ("GET", "", None, {"seat": "0"}), ("GET", "/legal-moves", None, None),
            ("POST", "/moves", {"move": {"type": "pass", "seat": actor}}, None),
            ("POST", "/moves", {"move": {"type": "pass"}}, None),
            ("POST", "/validate", {"move": {"type": "pass"}}, None), ("POST", "/suggest", {}, None),
            ("GET", "/snapshot", None, None), ("GET", "/record", None, None), ("POST", "/spectators", {}, None),
            ("DELETE", "", None, None)):
        r = await client.request(method, g.url + path, headers=spectator, json=body, params=params)
        assert_problem(r, 403, "FORBIDDEN")
    # Another session's spectator token is no token of this one.
    other = await Game.create(client)
    token = (await client.post(other.url + "/spectators", json={}, headers=other.host)).json()["spectator_token"]
    assert_problem(await client.get(g.url, headers=bearer(token)), 401, "UNAUTHORIZED")


async def test_spectator_tokens_are_bounded(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    for n in range(1, MAX_SPECTATORS + 1):
        r = await client.post(g.url + "/spectators", json={}, headers=g.host)
        assert r.status_code == 201 and r.json()["spectators"] == n
    assert_problem(await client.post(g.url + "/spectators", json={}, headers=g.host), 409, "SPECTATORS_FULL")
    # The players' moves go on after all those changes of the table (each a compare-and-set of its own).
    await g.play(2)
