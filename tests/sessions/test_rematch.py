"""A table's next game and its matches, over every store: the same seats, tokens, names and bots, a new secret deal,
a running match score; the event stream open across the rematch carries it, ``Last-Event-ID`` resumes across it,
the record is the current game's; a table whose seats start it by agreement; and fifty concurrent rematch requests
on three replicas sharing one redis-server give exactly one next game."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from tests.support import assert_problem, bearer

from .conftest import ServiceProcess
from .play import SseEvent, read_stream, sse_events
from .tables import SHORT_GAME, play_to_the_end, public


async def _create(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    body = {"players": 4, "options": SHORT_GAME, **extra}
    r = await client.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def _catch_up(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    r = await client.get(url + "/events/catch-up", headers=headers)
    assert r.status_code == 200 and r.json()["complete"], r.text
    return list(r.json()["events"])


async def _stream_until(client: httpx.AsyncClient, url: str, headers: dict[str, str],
                        until: str, times: int) -> list[SseEvent]:
    """One stream's events, until its ``times``-th event of type ``until`` (it must not end before)."""
    got: list[SseEvent] = []
    async with asyncio.timeout(90), client.stream("GET", url + "/events", headers=headers) as r:
        assert r.status_code == 200
        async for item in sse_events(r):
            if item is None:
                continue
            assert item.event not in ("end", "revoked", "deleted", "expired"), item
            got.append(item)
            if sum(e.event == until for e in got) == times:
                return got
    raise AssertionError("the stream of a table that goes on ended")


async def test_the_next_game_at_the_same_table_and_a_match_score(client: httpx.AsyncClient) -> None:
    created = await _create(client, series={"games": 2})
    url = f"/v1/sessions/{created['session_id']}"
    host, tokens = bearer(created["host_token"]), created["seat_tokens"]
    assert created["series"] == {"game": 1, "match": 1, "match_game": 1, "games": 2, "score": [0, 0], "results": [],
                                 "match_over": False, "start": "host", "continues": True, "asked": [], "waiting": []}
    # A stream held open across the games (it reads one event at a time: each a new connection, never a gap).
    watching = asyncio.create_task(_stream_until(client, url, bearer(tokens[0]), "next_game", 2))
    try:
        await _two_games_and_a_new_match(client, url, host, tokens, watching)
    finally:
        watching.cancel()


async def _two_games_and_a_new_match(client: httpx.AsyncClient, url: str, host: dict[str, str],
                                     tokens: list[str], watching: asyncio.Task[list[SseEvent]]) -> None:
    assert_problem(await client.post(url + "/rematch", json={}, headers=host), 409, "VERSION_CONFLICT")
    await play_to_the_end(client, url, tokens)
    over = (await client.get(url, headers=host)).json()
    winners = over["view"]["result"]["winners"]
    assert over["series"]["score"] == [1 if side in winners else 0 for side in range(2)]
    assert over["series"]["results"] == [{"match_game": 1, "winners": winners, "scores": over["view"]["scores"]}]
    assert not over["series"]["match_over"]
    # A seat does not start the game at a table of the host's; a spectator never does.
    assert_problem(await client.post(url + "/rematch", json={"game": 1}, headers=bearer(tokens[2])), 403, "FORBIDDEN")
    spectator = (await client.post(url + "/spectators", json={}, headers=host)).json()["spectator_token"]
    assert_problem(await client.post(url + "/rematch", json={}, headers=bearer(spectator)), 403, "FORBIDDEN")
    assert_problem(await client.post(url + "/rematch", json={"game": 2}, headers=host), 409, "VERSION_CONFLICT")
    before = (await client.get(url, headers=host)).json()["version"]
    r = await client.post(url + "/rematch", json={"game": 1}, headers=host)
    assert r.status_code == 200, r.text
    started = r.json()
    assert started["started"] and started["version"] == before + 1 and r.headers["etag"] == f'"{before + 1}"'
    assert {k: started["series"][k] for k in ("game", "match", "match_game", "score")} == {
        "game": 2, "match": 1, "match_game": 2, "score": over["series"]["score"]}
    # Again (a lost answer, a second tap): that game, not a third.
    again = await client.post(url + "/rematch", json={"game": 1}, headers=host)
    assert again.status_code == 200 and again.json()["started"] and again.json()["series"]["game"] == 2
    # The same seats and tokens: each seat's view is of the new game's first hand.
    for seat, token in enumerate(tokens):
        mine = (await client.get(url, headers=bearer(token))).json()
        assert mine["seat"] == seat and mine["view"]["hand_number"] == 0 and len(mine["view"]["hand"]) == 10
        assert mine["view"]["scores"] == [0, 0] and mine["series"]["game"] == 2
    # The log goes on: one next_game event, then the new deal, at the rematch's version.
    log = await _catch_up(client, url, host)
    rematch = [e for e in log if e["version"] == before + 1]
    assert [e["event"]["type"] for e in rematch][:2] == ["next_game", "hand_dealt"]
    assert rematch[0]["event"] == {"type": "next_game", "game": 2, "match": 1, "match_game": 2, "games": 2,
                                   "score": over["series"]["score"], "to_act": None}
    # Last-Event-ID resumes across the rematch: after the game_over event, the next game's.
    game_over = next(e for e in log if e["event"]["type"] == "game_over")
    resumed, _ = await read_stream(client, url + "/events", headers={**host, "Last-Event-ID": game_over["id"]},
                                   count=2)
    assert [e.event for e in resumed] == ["next_game", "hand_dealt"] and resumed[0].id == rematch[0]["id"]
    # The record is the current game's.
    record = (await client.get(url + "/record", headers=host)).json()["record"]
    assert record["moves"] == [] and len(record["deck_orders"]) == 1 and record["hands"][0]["dealt"]
    await play_to_the_end(client, url, tokens)
    record = (await client.get(url + "/record", headers=host)).json()["record"]
    assert len(record["moves"]) > 40 and record["status"] == "game_over"
    seat_record = (await client.get(url + "/record", headers=bearer(tokens[1]))).json()["seat_record"]
    assert len(seat_record["moves"]) == len(record["moves"])
    ended = (await client.get(url, headers=host)).json()["series"]
    assert ended["match_over"] and len(ended["results"]) == 2 and sum(ended["score"]) >= 2
    # The match is over: the next game begins a new match.
    r = await client.post(url + "/rematch", json={"game": 2}, headers=host)
    assert r.status_code == 200, r.text
    assert {k: r.json()["series"][k] for k in ("game", "match", "match_game", "score", "results")} == {
        "game": 3, "match": 2, "match_game": 1, "score": [0, 0], "results": []}
    # The stream opened before the first game saw both rematches, each after its game's end, and no gap.
    seen = await asyncio.wait_for(watching, 30)
    assert [e.event for e in seen].count("game_over") == 2
    ids = [e.id for e in seen]
    assert ids == [e["id"] for e in await _catch_up(client, url, bearer(tokens[0]))][:len(ids)]
    # Every view's public part is the same.
    views = [(await client.get(url, headers=h)).json()["view"] for h in (host, *map(bearer, tokens))]
    assert all(public(v) == public(views[0]) for v in views)


async def test_a_table_without_series_ends_its_streams_with_the_game_and_may_still_rematch(
        client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    assert not created["series"]["continues"]
    await play_to_the_end(client, url, created["seat_tokens"])
    events, ended = await read_stream(client, url + "/events", headers=host)
    assert ended and events[-1].event == "game_over"
    r = await client.get(url + "/events", headers={**host, "Last-Event-ID": events[-1].id})
    assert r.status_code == 204
    r = await client.post(url + "/rematch", json={}, headers=host)
    assert r.status_code == 200 and r.json()["series"]["game"] == 2, r.text
    # After the rematch the same reconnect resumes with the next game.
    resumed, _ = await read_stream(client, url + "/events", headers={**host, "Last-Event-ID": events[-1].id}, count=1)
    assert resumed[0].event == "next_game"


async def test_the_seats_start_the_next_game_by_agreement(client: httpx.AsyncClient) -> None:
    created = await _create(client, bots={"1": "basic", "3": "basic"}, series={"games": 3, "start": "seats"})
    url = f"/v1/sessions/{created['session_id']}"
    host, tokens = bearer(created["host_token"]), created["seat_tokens"]
    assert tokens[1] is None and tokens[3] is None
    await play_to_the_end(client, url, tokens)
    version = (await client.get(url, headers=host)).json()["version"]
    r = await client.post(url + "/rematch", json={"game": 1}, headers=bearer(tokens[0]))
    assert r.status_code == 200, r.text
    assert not r.json()["started"] and r.json()["version"] == version + 1
    assert (r.json()["series"]["asked"], r.json()["series"]["waiting"]) == ([0], [2])
    # Asked twice: counted once.
    again = await client.post(url + "/rematch", json={"game": 1}, headers=bearer(tokens[0]))
    assert again.status_code == 200 and again.json()["version"] == version + 1 and not again.json()["started"]
    r = await client.post(url + "/rematch", json={"game": 1}, headers=bearer(tokens[2]))
    assert r.status_code == 200 and r.json()["started"], r.text
    assert r.json()["series"]["game"] == 2 and r.json()["series"]["asked"] == []
    log = await _catch_up(client, url, host)
    assert [e["event"] for e in log if e["event"]["type"] == "rematch_asked"] == [
        {"type": "rematch_asked", "seat": 0, "waiting": [2], "to_act": None}]
    # The bots play the new game too; the host may start a game at once at such a table.
    await play_to_the_end(client, url, tokens)
    r = await client.post(url + "/rematch", json={"game": 2}, headers=host)
    assert r.status_code == 200 and r.json()["started"] and r.json()["series"]["match_game"] == 3, r.text


async def test_a_clock_starts_afresh_with_the_next_game(client: httpx.AsyncClient) -> None:
    created = await _create(client, clock={"move_seconds": 600, "reserve_seconds": 30})
    url = f"/v1/sessions/{created['session_id']}"
    host = bearer(created["host_token"])
    await play_to_the_end(client, url, created["seat_tokens"])
    paused = (await client.get(url, headers=host)).json()["clock"]
    assert paused["seat"] is None and paused["deadline"] is None
    r = await client.post(url + "/rematch", json={}, headers=host)
    assert r.status_code == 200, r.text
    clock = (await client.get(url, headers=host)).json()
    assert clock["clock"]["seat"] == clock["view"]["to_act"] and clock["clock"]["deadline"]
    assert clock["clock"]["reserves"] == [30, 30, 30, 30]


# ---------------------------------------------------------------------------------------- on three replicas


@pytest.mark.slow
@pytest.mark.parametrize("start", ["host", "seats"])
async def test_fifty_concurrent_rematch_requests_on_three_replicas_give_one_next_game(
        three_replicas: list[ServiceProcess], start: str) -> None:
    clients = [httpx.AsyncClient(base_url=r.url, timeout=30) for r in three_replicas]
    try:
        created = await _create(clients[0], series={"games": 2, "start": start})
        url = f"/v1/sessions/{created['session_id']}"
        host, tokens = bearer(created["host_token"]), created["seat_tokens"]
        await play_to_the_end(clients[1], url, tokens)
        before = (await clients[2].get(url, headers=host)).json()["version"]
        rng = random.Random(50)
        # The host and every seat at once (at a table of the host's, the seats' are refused), over the replicas.
        askers = [host, *(bearer(t) for t in tokens)]
        requests = [(rng.choice(clients), askers[i % len(askers)]) for i in range(50)]
        answers = await asyncio.gather(*(c.post(url + "/rematch", json={"game": 1}, headers=h)
                                         for c, h in requests))
        for (_, headers), answer in zip(requests, answers, strict=True):
            if start == "host" and headers is not host:
                assert_problem(answer, 403, "FORBIDDEN")
                continue
            assert answer.status_code == 200, answer.text
            assert answer.json()["series"]["game"] in (1, 2)
        assert any(a.status_code == 200 and a.json()["started"] for a in answers)
        # Exactly one next game: one next_game event, game 2 on every replica, nothing after it but agreements.
        log = await _catch_up(clients[0], url, host)
        started = [e for e in log if e["event"]["type"] == "next_game"]
        assert len(started) == 1 and started[0]["event"]["game"] == 2
        assert all(e["event"]["type"] == "rematch_asked" for e in log if before < e["version"] < started[0]["version"])
        assert len([e for e in log if e["event"]["type"] == "hand_dealt" and e["version"] > before]) == 1
        for c in clients:
            seen = (await c.get(url, headers=host)).json()
            assert seen["series"]["game"] == 2 and seen["version"] == started[0]["version"]
        # A retry now, on any replica, is answered that game.
        for c in clients:
            r = await c.post(url + "/rematch", json={"game": 1}, headers=host)
            assert r.status_code == 200 and r.json()["started"] and r.json()["version"] == started[0]["version"]
    finally:
        for c in clients:
            await c.aclose()
