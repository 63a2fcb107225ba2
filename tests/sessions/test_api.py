"""Every endpoint and every error of ``/v1/sessions``, over both stores (memory and a real Redis)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from engine import Bid, Options, Pass, Play, legal_moves, view
from tests.support import assert_problem, bearer, jsonable

from .conftest import SEALER, Service, running_service
from .play import SHORT_GAME, Game, move_body, read_stream

# --------------------------------------------------------------------------------------------------- create


async def test_create_answers_tokens_options_and_etag(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json={"players": 4, "preset": "american", "seed": 5, "known_deal": True})
    assert r.status_code == 201, r.text
    body = r.json()
    assert r.headers["etag"] == '"1"' and body["version"] == 1
    assert r.headers["location"] == f"/v1/sessions/{body['session_id']}"
    assert len(body["session_id"]) >= 22
    assert len(body["seat_tokens"]) == 4
    assert len({body["host_token"], *body["seat_tokens"]}) == 5
    assert set(body["options"]) == set(Options.__struct_fields__)  # every option, defaults included
    assert body["options"]["bidding_style"] == "american_single_round"
    assert body["phase"] == "auction" and isinstance(body["to_act"], int)
    assert body["rules_version"] and body["expires_in"] == 3600
    assert "seed" not in body  # the seed would reveal every deal


async def test_create_draws_a_seed_when_none_is_given(client: httpx.AsyncClient) -> None:
    hands = set()
    for _ in range(2):
        created = (await client.post("/v1/sessions", json={"players": 4, "first_dealer": 0})).json()
        r = await client.get(f"/v1/sessions/{created['session_id']}", headers=bearer(created["seat_tokens"][1]))
        hands.add(tuple(r.json()["view"]["hand"]))
    assert len(hands) == 2


@pytest.mark.parametrize(("body", "code"), [
    ({"players": 4, "options": {"misere_rank": "nowhere"}}, "INVALID_OPTIONS"),
    ({"players": 4, "preset": "martian"}, "INVALID_OPTIONS"),
    ({"players": 9}, "MALFORMED_REQUEST"),  # as createGame answers it: one decoding for both APIs
    ({"players": 4, "first_dealer": 7}, "INVALID_FIRST_DEALER"),
    ({"players": 4, "deck_orders": [["4H", "5H"]]}, "INVALID_DECK_ORDER"),
    ({"preset": "australian"}, "MALFORMED_REQUEST"),
    ({"players": 4, "snapshot": "v1.x.y"}, "MALFORMED_REQUEST"),
    ({"players": 4, "colour": "red"}, "MALFORMED_REQUEST"),
    ({"players": "four"}, "MALFORMED_REQUEST"),
    ({"players": 4, "seed": -1}, "INVALID_SEED"),
    ({"snapshot": "not-a-snapshot"}, "SNAPSHOT_MALFORMED"),
])
async def test_create_refuses_bad_bodies(client: httpx.AsyncClient, body: dict[str, Any], code: str) -> None:
    assert_problem(await client.post("/v1/sessions", json=body), 400, code)


async def test_create_refuses_a_body_that_is_not_json(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", content=b"{players: 4", headers={"content-type": "application/json"})
    assert_problem(r, 400, "MALFORMED_REQUEST")


# ---------------------------------------------------------------------------------------------------- reads


#: The ``series`` of every view of a table at its first game, created without ``series``.
FIRST_GAME = {"game": 1, "match": 1, "match_game": 1, "games": 1, "score": [0, 0], "results": [], "match_over": False,
              "start": "host", "continues": False, "asked": [], "waiting": []}


async def test_seat_reads_its_own_view_and_host_the_public_view(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    for seat, headers in enumerate(g.seats):
        r = await client.get(g.url, headers=headers)
        assert r.status_code == 200 and r.headers["etag"] == '"1"'
        seats = [{"seat": s, "kind": "human"} for s in range(4)]
        assert r.json() == {"session_id": g.id, "version": 1, "seat": seat,
                            "view": jsonable(view(g.mirror.state, seat)), "seats": seats, "clock": None,
                            "series": FIRST_GAME, "status": "running", "ended": None}
        r = await client.get(g.url, headers=headers, params={"seat": seat})
        assert r.status_code == 200
    r = await client.get(g.url, headers=g.host)
    assert r.json()["seat"] is None and r.json()["view"] == jsonable(view(g.mirror.state, None))
    assert r.json()["view"]["hand"] is None


async def test_legal_moves_for_the_seat(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    state = g.mirror.state
    for seat, headers in enumerate(g.seats):
        r = await client.get(g.url + "/legal-moves", headers=headers)
        assert r.status_code == 200 and r.headers["etag"] == '"1"'
        assert r.json() == {"session_id": g.id, "version": 1, "seat": seat,
                            "legal_moves": jsonable(legal_moves(state, seat))}
        assert bool(r.json()["legal_moves"]) == (seat == state.to_act)


# ------------------------------------------------------------------------------------------------------ auth


async def test_missing_or_unknown_token_is_401(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    other = await Game.create(client)
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}, other.host,
                    other.seats[0], {"Authorization": "Bearer"}):
        for method, path, body in (("GET", "", None), ("GET", "/legal-moves", None),
                                   ("POST", "/moves", move_body(Pass(seat=0))), ("GET", "/snapshot", None),
                                   ("DELETE", "", None), ("GET", "/events", None)):
            r = await client.request(method, g.url + path, headers=headers, json=body)
            problem = assert_problem(r, 401, "UNAUTHORIZED")
            assert r.headers["www-authenticate"] == "Bearer", problem


async def test_wrong_role_or_seat_is_403(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    actor = g.mirror.state.to_act
    assert actor is not None
    other = (actor + 1) % 4
    move = move_body(Pass(seat=actor))
    assert_problem(await client.post(g.url + "/moves", json=move, headers=g.host), 403, "FORBIDDEN")
    assert_problem(await client.get(g.url + "/legal-moves", headers=g.host), 403, "FORBIDDEN")
    assert_problem(await client.post(g.url + "/moves", json=move, headers=g.seats[other]), 403, "WRONG_SEAT")
    assert_problem(await client.get(g.url, headers=g.seats[other], params={"seat": actor}), 403, "FORBIDDEN")
    assert_problem(await client.get(g.url, headers=g.host, params={"seat": actor}), 403, "FORBIDDEN")
    assert_problem(await client.get(g.url + "/legal-moves", headers=g.seats[other], params={"seat": actor}),
                   403, "FORBIDDEN")
    assert_problem(await client.get(g.url + "/snapshot", headers=g.seats[actor]), 403, "FORBIDDEN")
    assert_problem(await client.delete(g.url, headers=g.seats[actor]), 403, "FORBIDDEN")
    assert await g.version() == 1


async def test_a_move_without_seat_is_the_tokens_seat(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    actor = g.mirror.state.to_act
    assert actor is not None
    seatless = {"move": {"type": "pass"}}
    # Another seat's token: its own seat is not to act (the move is refused for that seat, not the actor's).
    other = (actor + 1) % 4
    r = await client.post(g.url + "/moves", json=seatless, headers=g.seats[other])
    assert_problem(r, 422, "ILLEGAL_MOVE")
    assert r.json()["reason"] == "NOT_YOUR_TURN"
    assert_problem(await client.post(g.url + "/moves", json=seatless, headers=g.host), 403, "FORBIDDEN")
    assert_problem(await client.post(g.url + "/moves", json={"move": {"type": "pass", "seat": -1}},
                                     headers=g.seats[actor]), 403, "WRONG_SEAT")
    assert_problem(await client.post(g.url + "/moves", json={"move": {"type": "bid"}}, headers=g.seats[actor]),
                   400, "MALFORMED_MOVE")
    r = await client.post(g.url + "/moves", json=seatless, headers=g.seats[actor])
    assert r.status_code == 200, r.text
    assert r.json()["events"][0]["seat"] == actor and r.json()["version"] == 2


async def test_unknown_session_is_404(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    for sid in ("AAAAAAAAAAAAAAAAAAAAAA", "x", "not a session id!"):
        for method, path in (("GET", ""), ("GET", "/events"), ("GET", "/snapshot"), ("DELETE", "")):
            r = await client.request(method, f"/v1/sessions/{sid}{path}", headers=g.host)
            assert_problem(r, 404, "SESSION_NOT_FOUND")
        r = await client.post(f"/v1/sessions/{sid}/moves", json=move_body(Pass(seat=0)), headers=g.seats[0])
        assert_problem(r, 404, "SESSION_NOT_FOUND")


# ----------------------------------------------------------------------------------------------------- moves


async def test_move_answers_version_events_and_view(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    move = g.mirror.choose(random.Random(0))
    r = await client.post(g.url + "/moves", json=move_body(move), headers={**g.actor(), "If-Match": '"1"'})
    assert r.status_code == 200, r.text
    events = g.mirror.apply(move)
    assert r.headers["etag"] == '"2"'
    assert r.json() == {"version": 2, "phase": g.mirror.state.phase, "to_act": g.mirror.state.to_act,
                        "events": jsonable(events),
                        "view": jsonable(view(g.mirror.state, move.seat)), "clock": None}
    assert await g.version() == 2


@pytest.mark.parametrize("tag", ['"{v}"', "{v}", 'W/"{v}"', '"99", "{v}"', "*"])
async def test_if_match_forms_accepted(client: httpx.AsyncClient, tag: str) -> None:
    g = await Game.create(client)
    move = g.mirror.choose(random.Random(0))
    r = await client.post(g.url + "/moves", json=move_body(move),
                          headers={**g.actor(), "If-Match": tag.format(v=1)})
    assert r.status_code == 200, r.text


async def test_stale_if_match_is_409_with_the_current_version(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    await g.play(2)
    move = g.mirror.choose(random.Random(0))
    r = await client.post(g.url + "/moves", json=move_body(move), headers={**g.actor(), "If-Match": '"2"'})
    body = assert_problem(r, 409, "VERSION_CONFLICT")
    assert body["current_version"] == 3 and r.headers["etag"] == '"3"'
    assert await g.version() == 3
    r = await client.post(g.url + "/moves", json=move_body(move), headers={**g.actor(), "If-Match": "junk"})
    assert_problem(r, 400, "INVALID_IF_MATCH")


async def test_idempotent_retry_returns_the_first_answer_and_applies_once(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    move = g.mirror.choose(random.Random(0))
    headers = {**g.actor(), "Idempotency-Key": "move-1", "If-Match": '"1"'}
    first = await client.post(g.url + "/moves", json=move_body(move), headers=headers)
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers
    again = await client.post(g.url + "/moves", json=move_body(move), headers=headers)
    assert again.status_code == 200
    assert again.content == first.content
    assert again.headers["idempotent-replayed"] == "true" and again.headers["etag"] == '"2"'
    assert await g.version() == 2
    g.mirror.apply(move)
    # Concurrent retries of the next move: applied once, every answer the same.
    nxt = g.mirror.choose(random.Random(0))
    retry = {**g.seats[nxt.seat], "Idempotency-Key": "move-2"}
    answers = await asyncio.gather(*(client.post(g.url + "/moves", json=move_body(nxt), headers=retry)
                                     for _ in range(8)))
    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1
    assert sum(a.headers.get("idempotent-replayed") == "true" for a in answers) == 7
    assert await g.version() == 3


async def test_idempotency_key_reused_for_another_move_is_422(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    move = g.mirror.choose(random.Random(0))
    headers = {**g.actor(), "Idempotency-Key": "k"}
    assert (await client.post(g.url + "/moves", json=move_body(move), headers=headers)).status_code == 200
    other = Bid(seat=move.seat, bid="7H")
    assert_problem(await client.post(g.url + "/moves", json=move_body(other), headers=headers), 422,
                   "IDEMPOTENCY_KEY_REUSED")
    long_key = {**g.actor(), "Idempotency-Key": "k" * 129}
    assert_problem(await client.post(g.url + "/moves", json=move_body(move), headers=long_key), 400,
                   "INVALID_IDEMPOTENCY_KEY")
    assert await g.version() == 2


async def test_illegal_move_is_422_and_changes_nothing(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    actor = g.mirror.state.to_act
    assert actor is not None
    not_turn = (actor + 1) % 4
    r = await client.post(g.url + "/moves", json=move_body(Pass(seat=not_turn)), headers=g.seats[not_turn])
    body = assert_problem(r, 422, "ILLEGAL_MOVE")
    assert body["reason"] == "NOT_YOUR_TURN" and body["legal_moves"] == []
    r = await client.post(g.url + "/moves", json=move_body(Bid(seat=actor, bid="MISERE")),
                          headers=g.seats[actor])
    body = assert_problem(r, 422, "ILLEGAL_MOVE")
    assert body["reason"] == "MISERE_NEEDS_SEVEN_BID"
    assert body["legal_moves"] == jsonable(legal_moves(g.mirror.state, actor))
    r = await client.post(g.url + "/moves", json=move_body(Play(seat=actor, card="4H")), headers=g.seats[actor])
    assert assert_problem(r, 422, "ILLEGAL_MOVE")["reason"] == "WRONG_PHASE"
    assert await g.version() == 1
    events, _ = await read_stream(client, g.url + "/events", headers=g.host, count=len(g.mirror.log))
    assert [e.id for e in events] == [i for i, _ in g.mirror.log]


@pytest.mark.parametrize(("body", "code"), [
    ({"move": {"type": "bogus", "seat": 0}}, "MALFORMED_MOVE"),
    ({"move": {"type": "bid", "seat": 0}}, "MALFORMED_MOVE"),
    ({"move": {"type": "bid", "seat": "zero", "bid": "6S"}}, "MALFORMED_MOVE"),
    ({"move": {"type": "pass", "seat": 0, "extra": 1}}, "MALFORMED_MOVE"),
    ({"mvoe": {"type": "pass", "seat": 0}}, "MALFORMED_REQUEST"),
    ([], "MALFORMED_REQUEST"),
])
async def test_malformed_move_is_400(client: httpx.AsyncClient, body: Any, code: str) -> None:
    g = await Game.create(client)
    r = await client.post(g.url + "/moves", json=body, headers=g.actor())
    assert_problem(r, 400, code)
    assert await g.version() == 1


async def test_move_naming_what_the_game_lacks_is_400_whoever_is_to_act(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    actor = g.mirror.state.to_act
    assert actor is not None
    for seat in (actor, (actor + 1) % 4):
        for move in (Bid(seat=seat, bid="11NT"), Play(seat=seat, card="ZZ")):
            r = await client.post(g.url + "/moves", json=move_body(move), headers=g.seats[seat])
            assert assert_problem(r, 400, "MALFORMED_MOVE")["reason"] in ("UNKNOWN_BID", "UNKNOWN_CARD")
    assert await g.version() == 1


# ------------------------------------------------------------------------------------ snapshot and delete


async def test_export_snapshot_and_create_from_it(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    await g.play(3)
    r = await client.get(g.url + "/snapshot", headers=g.host)
    assert r.status_code == 200 and r.headers["etag"] == '"4"'
    exported = r.json()
    assert exported["version"] == 4 and exported["session_id"] == g.id
    assert SEALER.open(exported["snapshot"]) == g.mirror.state
    # a game dealt from the test's seed: several players again only with known_deal, as when it was created
    r = await client.post("/v1/sessions", json={"snapshot": exported["snapshot"], "known_deal": True})
    assert r.status_code == 201, r.text
    restored = Game(client, r.json(), g.mirror)
    assert restored.id != g.id and restored.created["version"] == 1
    assert restored.created["phase"] == g.mirror.state.phase and restored.created["to_act"] == g.mirror.state.to_act
    for seat, headers in enumerate(restored.seats):
        r = await client.get(restored.url, headers=headers)
        assert r.json()["view"] == jsonable(view(g.mirror.state, seat))
    assert (await client.get(restored.url, headers=g.seats[0])).status_code == 401  # new tokens
    await restored.play(2)
    tampered = exported["snapshot"][:-2] + ("A" if exported["snapshot"][-2] != "A" else "B") + "A"
    assert_problem(await client.post("/v1/sessions", json={"snapshot": tampered}), 400, "SNAPSHOT_TAMPERED")


async def test_delete_then_404(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    r = await client.delete(g.url, headers=g.host)
    assert r.status_code == 204 and r.content == b""
    assert_problem(await client.get(g.url, headers=g.host), 404, "SESSION_NOT_FOUND")
    assert_problem(await client.delete(g.url, headers=g.host), 404, "SESSION_NOT_FOUND")
    r = await client.post(g.url + "/moves", json=move_body(Pass(seat=0)), headers=g.seats[0])
    assert_problem(r, 404, "SESSION_NOT_FOUND")


# ---------------------------------------------------------------------------------------------------- events


async def test_events_redacted_per_seat_and_resumable(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    await g.play(5)
    n = len(g.mirror.log)
    for seat in (0, 1, None):
        headers = g.host if seat is None else g.seats[seat]
        events, _ = await read_stream(client, g.url + "/events", headers=headers, count=n)
        assert [e.triple() for e in events] == g.mirror.seen_by(seat)
    hands = [e.data for e in events if e.event == "cards_received"]
    assert hands and all(h["cards"] is None for h in hands)  # the public stream shows no hand
    # Resume after the k-th event: by header, by query, with the token in the query (EventSource).
    k = 3
    resume = g.mirror.log[k - 1][0]
    tail = g.mirror.seen_by(0)[k:]
    for kw in ({"headers": {**g.seats[0], "Last-Event-ID": resume}},
               {"headers": g.seats[0], "params": {"last_event_id": resume}},
               {"params": {"access_token": g.created["seat_tokens"][0], "last_event_id": resume}}):
        events, _ = await read_stream(client, g.url + "/events", count=len(tail), **kw)
        assert [e.triple() for e in events] == tail
    bad = {**g.seats[0], "Last-Event-ID": "yesterday"}
    assert_problem(await client.get(g.url + "/events", headers=bad), 400, "INVALID_LAST_EVENT_ID")


async def test_live_events_and_end_of_game(client: httpx.AsyncClient) -> None:
    g = await Game.create(client, options=SHORT_GAME)
    seen: list[Any] = []

    async def watch() -> bool:
        events, ended = await read_stream(client, g.url + "/events", headers=g.seats[2], timeout=30)
        seen.extend(events)
        return ended

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.2)
    rng = random.Random(3)
    while g.mirror.state.phase != "game_over":
        await g.play(1, rng)
    assert await asyncio.wait_for(watcher, 20)  # the server ended the stream after game_over
    assert [e.triple() for e in seen] == g.mirror.seen_by(2)
    assert seen[-1].event == "game_over"
    # A stream opened after the end replays the log and ends.
    events, ended = await read_stream(client, g.url + "/events", headers=g.host)
    assert ended and [e.triple() for e in events] == g.mirror.seen_by(None)


async def test_heartbeat_and_stream_ends_when_session_deleted(client: httpx.AsyncClient) -> None:
    g = await Game.create(client)
    comments = 0
    async with asyncio.timeout(15), client.stream("GET", g.url + "/events", headers=g.seats[0]) as r:
        assert r.headers["cache-control"] == "no-cache"
        async for line in r.aiter_lines():
            if line.startswith(": heartbeat"):
                comments += 1
                if comments == 1:
                    assert (await client.delete(g.url, headers=g.host)).status_code == 204
    assert comments >= 1  # the stream ended by itself after the session was gone


# ---------------------------------------------------------------------------------------------------- expiry


async def test_idle_session_expires_and_host_recreates_it_from_its_snapshot(store_kind: str,
                                                                            store_redis: Any) -> None:
    async with running_service(store_kind, store_redis, idle_seconds=3) as svc:
        await _expire_and_recreate(svc)


async def _expire_and_recreate(svc: Service) -> None:
    # Idle time 3 s: the two waits around the renewing move add up to more than it, and each leaves 1.4 s for a
    # busy machine to be late before the session would expire by mistake.
    async with httpx.AsyncClient(base_url=svc.url, timeout=10) as client:
        g = await Game.create(client)
        await g.play(2)
        await asyncio.sleep(1.6)
        await g.play(1)  # a change renews the idle time
        await asyncio.sleep(1.6)
        kept = (await client.get(g.url + "/snapshot", headers=g.host)).json()
        assert kept["version"] == 4
        await asyncio.sleep(3.4)
        assert_problem(await client.get(g.url, headers=g.seats[0]), 404, "SESSION_NOT_FOUND")
        move = g.mirror.choose(random.Random(0))
        r = await client.post(g.url + "/moves", json=move_body(move), headers=g.seats[move.seat])
        assert_problem(r, 404, "SESSION_NOT_FOUND")
        if svc.redis is not None:  # nothing of the session is left behind in Redis
            assert svc.redis.sync_client().keys(f"{svc.prefix}*{g.id}*") == []
        r = await client.post("/v1/sessions", json={"snapshot": kept["snapshot"], "known_deal": True})
        assert r.status_code == 201
        again = Game(client, r.json(), g.mirror)
        await again.play(2)
        assert SEALER.open((await client.get(again.url + "/snapshot", headers=again.host)).json()["snapshot"]) \
            == g.mirror.state


async def test_shutdown_ends_open_streams(store_kind: str, store_redis: Any) -> None:
    async with running_service(store_kind, store_redis, heartbeat_seconds=30) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=10) as client:
        g = await Game.create(client)
        reader = asyncio.create_task(read_stream(client, g.url + "/events", headers=g.host, timeout=10))
        await asyncio.sleep(0.3)
        assert not reader.done()
        shutdown = svc.app.state.shutdown
        assert shutdown.open_streams == 1  # the stream registered with the shutdown coordinator
        shutdown.begin_shutdown()  # what SIGTERM does
        events, ended = await asyncio.wait_for(reader, 3)
        assert ended and [e.id for e in events] == [i for i, _ in g.mirror.log]
