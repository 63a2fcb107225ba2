"""A game's life shows nothing hidden: a seat away and back, a pause, the start and the end are the same for every
reader and name seats only.

Games of every player count (in-process store, fast clocks): one human seat that never moves (away after the
clock's moves), one that plays, bots at the others; the absent seat comes back with a read of its token and goes
away again; the host pauses, resumes, and ends the game as abandoned. Then, for the public (the host, the table
host, a spectator) and each human seat:

* every life event (``game_started``, ``game_paused``, ``game_resumed``, ``game_abandoned``, ``seat_away``,
  ``seat_back``) of its event stream and of its catch-up is exactly the same for every reader, holds only the
  event's seats and the seat to act, and no card;
* the life fields of every view (``status``, ``ended``, each seat's ``away``, the clock) are the same for every
  reader and hold no card.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine import pack_for, resolve_options
from service.app import create_app
from service.sessions.log import LIFE_EVENTS
from tests.leaks.test_api_leaks import card_tokens
from tests.sessions.conftest import serve_in_process
from tests.sessions.play import read_stream
from tests.sessions.test_clock import fast
from tests.support import bearer

LIFE = {cls.__struct_config__.tag for cls in LIFE_EVENTS}
#: What a life event may hold: its type, seats, and the seat to act.
LIFE_KEYS = {"type", "seat", "to_act", "by", "level"}


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(fast(None), event_heartbeat_seconds=1)
    async with serve_in_process(app) as url, httpx.AsyncClient(base_url=url, timeout=20) as c:
        yield c


async def _catch_up(client: httpx.AsyncClient, url: str, token: str) -> list[dict[str, Any]]:
    r = await client.get(url + "/events/catch-up", headers=bearer(token))
    assert r.status_code == 200, r.text
    return list(r.json()["events"])


async def _play(client: httpx.AsyncClient, url: str, token: str, moves: int) -> None:
    me = bearer(token)
    made = 0
    async with asyncio.timeout(20):
        while made < moves:
            r = await client.get(url + "/legal-moves", headers=me)
            legal = r.json()["legal_moves"]
            if not legal:
                await asyncio.sleep(0.02)
                continue
            move = random.Random(made).choice(legal)
            r = await client.post(url + "/moves", json={"move": move}, headers={**me, "If-Match": r.headers["etag"]})
            made += r.status_code == 200


def _life_of_view(body: dict[str, Any]) -> dict[str, Any]:
    return {"status": body["status"], "ended": body["ended"], "seats": body["seats"], "clock": body["clock"]}


@pytest.mark.parametrize("players", [3, 4, 5, 6])
async def test_away_back_pause_and_end_show_nothing_hidden(client: httpx.AsyncClient, players: int) -> None:
    bots = {str(s): "random" for s in range(2, players)}
    r = await client.post("/v1/sessions", json={"players": players, "first_dealer": players - 1, "bots": bots,
                                                "clock": {"move_seconds": 0.15, "bot": "random", "away_after": 1},
                                                "options": {"target": 100_000, "lose_at": -100_000}})
    assert r.status_code == 201, r.text
    created = r.json()
    url = f"/v1/sessions/{created['session_id']}"
    host, table_host = created["host_token"], created["table_host_token"]
    absent, present = created["seat_tokens"][0], created["seat_tokens"][1]
    spectator = (await client.post(url + "/spectators", json={}, headers=bearer(table_host))).json()["spectator_token"]

    async def away() -> bool:
        return bool((await client.get(url, headers=bearer(host))).json()["seats"][0].get("away"))

    async with asyncio.timeout(30):
        while not await away():
            await _play(client, url, present, 1)
    await _play(client, url, present, 3)
    views = {"away": {who: _life_of_view((await client.get(url, headers=bearer(token))).json())
                      for who, token in (("host", host), ("table host", table_host), ("spectator", spectator),
                                         ("seat 1", present))}}
    assert (await client.get(url, headers=bearer(absent))).status_code == 200  # back
    async with asyncio.timeout(30):
        while not await away():
            await _play(client, url, present, 1)
    assert (await client.post(url + "/pause", json={}, headers=bearer(table_host))).status_code == 200
    views["paused"] = {who: _life_of_view((await client.get(url, headers=bearer(token))).json())
                       for who, token in (("host", host), ("spectator", spectator), ("seat 1", present))}
    assert (await client.post(url + "/resume", json={}, headers=bearer(host))).status_code == 200
    r = await client.post(url + "/abandon", json={}, headers=bearer(host))
    assert r.status_code == 200 and r.json()["ended"]["by"] == [0], r.text
    views["ended"] = {who: _life_of_view((await client.get(url, headers=bearer(token))).json())
                      for who, token in (("host", host), ("spectator", spectator), ("seat 1", present),
                                         ("seat 0", absent))}
    pack = frozenset(pack_for(resolve_options(players, None, {})))
    for moment, seen in views.items():
        first = next(iter(seen.values()))
        assert first["seats"][0].get("away") is True, (moment, first)  # away again before the pause
        for who, life in seen.items():
            assert life == first, (moment, who, life, first)  # the ended game's absent seat is not back by reading
            assert not card_tokens(life, pack), (moment, who, life)
    # Every reader's log holds the same life events, each naming seats only.
    readers = {"host": host, "table host": table_host, "spectator": spectator, "seat 1": present, "seat 0": absent}
    lives: dict[str, list[Any]] = {}
    for who, token in readers.items():
        log = await _catch_up(client, url, token)
        frames, ended = await read_stream(client, url + "/events", headers=bearer(token), timeout=20)
        assert ended and len(frames) == len(log)
        from_stream = [(f.id, f.data) for f in frames if f.event in LIFE]
        from_log = [(e["id"], e["event"]) for e in log if e["event"]["type"] in LIFE]
        assert from_stream == from_log, who
        lives[who] = from_log
    kinds = [data["type"] for _, data in lives["host"]]
    assert {"seat_away", "seat_back", "game_paused", "game_resumed", "game_abandoned"} <= set(kinds), kinds
    for who, life_events in lives.items():
        assert life_events == lives["host"], who
        for _, data in life_events:
            assert set(data) <= LIFE_KEYS and not card_tokens(data, pack), data
