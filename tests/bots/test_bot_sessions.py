"""Hosted sessions with bot seats, over both stores (a real redis-server, never the shared one on 6379).

The oracle is the engine plus :func:`service.sessions.bots.bot_chain`: a bot seat's moves are a deterministic
function of the committed state and of the seat's secret (read back from the store), so the test can compute
the whole game itself and compare it with what the service committed, answered and streamed.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from bots import decide
from engine import Event, GameState, Move, apply_move, legal_moves, new_game, resolve_options, view
from service.sessions.bots import bot_chain, bot_seats
from service.sessions.service import SessionService
from tests.redis_server import RedisServer
from tests.sessions.conftest import SEALER, running_service
from tests.sessions.play import move_body, read_stream
from tests.support import bearer, jsonable

MOVE = msgspec.json.Decoder(Move)
#: Over after a hand or two: CI time stays small while every phase of a hand is played by the bots.
SHORT = {"target": 200, "lose_at": -200}


class Oracle:
    """The session as the engine and the bots' pure function compute it: state, version, and the event log."""

    def __init__(self, state: GameState, events: list[Event], auth: bytes) -> None:
        self.state, self.version, self.bots = state, 1, bot_seats(auth)
        self.log: list[tuple[str, Event]] = [(f"1-{i}", e) for i, e in enumerate(events)]
        self._bots_play()

    def _bots_play(self) -> int:
        chain = bot_chain(self.state, self.version, self.bots)
        for state, events in chain:
            self.version += 1
            self.state = state
            self.log += [(f"{self.version}-{i}", e) for i, e in enumerate(events)]
        return len(chain)

    def human(self, move: Move) -> list[Event]:
        before = len(self.log)
        self.state, events = apply_move(self.state, move)
        self.version += 1
        self.log += [(f"{self.version}-{i}", e) for i, e in enumerate(events)]
        self._bots_play()
        return [e for _, e in self.log[before:]]

    def seen_by(self, seat: int | None) -> list[tuple[str, str, Any]]:
        from engine import redact_events

        return [(i, jsonable(redact_events([e], seat)[0])["type"], jsonable(redact_events([e], seat)[0]))
                for i, e in self.log]


async def _record_auth(svc: Any, session_id: str) -> bytes:
    sessions: SessionService = svc.app.state.sessions.service
    loaded = await sessions.store.load(session_id)
    assert loaded is not None
    return loaded.record.auth


def _human_move(state: GameState, seat: int, step: int) -> Move:
    return decide(view(state, seat), state.options, level="basic", seed=step, legal=legal_moves(state, seat)).move


@pytest.fixture(params=["memory", "redis"])
async def svc(request: pytest.FixtureRequest, redis_server: RedisServer) -> AsyncIterator[Any]:
    async with running_service(request.param, redis_server) as service:
        yield service


BODY = {"players": 4, "seed": 99, "known_deal": True, "first_dealer": 0, "options": SHORT,
        "bots": {"1": "expert", "2": "basic", "3": "expert"}}


async def test_one_human_and_three_bots_play_to_the_end(svc: Any) -> None:
    async with httpx.AsyncClient(base_url=svc.url, timeout=60) as client:
        r = await client.post("/v1/sessions", json=BODY)
        assert r.status_code == 201, r.text
        created = r.json()
        assert created["seat_tokens"][1:] == [None, None, None] and created["seat_tokens"][0]
        assert created["bots"] == {"1": "expert", "2": "basic", "3": "expert"}
        url, me = f"/v1/sessions/{created['session_id']}", bearer(created["seat_tokens"][0])
        opts = resolve_options(4, None, SHORT)
        start, events = new_game(opts, seed=99, first_dealer=0)
        oracle = Oracle(start, events, await _record_auth(svc, created["session_id"]))
        # Dealer 0: seat 1 calls first, so the bots open the auction before the creation is answered.
        assert created["version"] == oracle.version == 4 and created["to_act"] == 0
        step = 0
        while oracle.state.to_act is not None:
            assert oracle.state.to_act == 0  # after every answer it is the human's turn again, or the game is over
            move = _human_move(oracle.state, 0, step)
            expected_events = oracle.human(move)
            r = await client.post(url + "/moves", json=move_body(move), headers=me)
            assert r.status_code == 200, r.text
            body = r.json()
            # The answer shows the bot moves that followed: the last version, all events (as seat 0 sees them).
            assert body["version"] == oracle.version and r.headers["etag"] == f'"{oracle.version}"'
            from engine import redact_events

            assert body["events"] == jsonable(redact_events(expected_events, 0))
            assert body["view"] == jsonable(view(oracle.state, 0))
            step += 1
        host = bearer(created["host_token"])
        snapshot = (await client.get(url + "/snapshot", headers=host)).json()["snapshot"]
        assert SEALER.open(snapshot) == oracle.state and oracle.state.phase == "game_over"
        streamed, ended = await read_stream(client, url + "/events", headers=me)
        assert ended and [e.triple() for e in streamed] == oracle.seen_by(0)
        assert step >= 8  # a real game, played to the end


async def test_a_bot_seat_has_no_token_and_nobody_moves_for_it(svc: Any) -> None:
    async with httpx.AsyncClient(base_url=svc.url, timeout=60) as client:
        created = (await client.post("/v1/sessions", json={**BODY, "first_dealer": 3})).json()
        url = f"/v1/sessions/{created['session_id']}"
        # Dealer 3: seat 0 bids first, so the human is to act at once and a move for seat 1 is not the host's.
        move = {"move": {"type": "pass", "seat": 1}}
        for token in (created["host_token"], created["seat_tokens"][0]):
            r = await client.post(url + "/moves", json=move, headers=bearer(token))
            assert r.status_code == 403, r.text
        bad = [({**BODY, "bots": {"4": "basic"}}, "is not a seat"),
               ({**BODY, "bots": {str(s): "basic" for s in range(4)}}, "at least one seat"),
               ({**BODY, "bots": {"1": "grandmaster"}}, None)]
        for body, words in bad:
            r = await client.post("/v1/sessions", json=body)
            assert r.status_code == 400, r.text
            if words:
                assert r.json()["code"] == "INVALID_BOTS" and words in r.json()["detail"]


async def test_two_replicas_racing_never_apply_a_bot_move_twice(redis_server: RedisServer) -> None:
    prefix = "botrace:"
    async with running_service("redis", redis_server, prefix=prefix) as a, \
            running_service("redis", redis_server, prefix=prefix) as b, \
            httpx.AsyncClient(timeout=60) as client:
        created = (await client.post(a.url + "/v1/sessions", json=BODY)).json()
        sid = created["session_id"]
        me, host = bearer(created["seat_tokens"][0]), bearer(created["host_token"])
        opts = resolve_options(4, None, SHORT)
        start, events = new_game(opts, seed=99, first_dealer=0)
        oracle = Oracle(start, events, await _record_auth(a, sid))
        rng = random.Random(3)
        for step in range(12):
            if oracle.state.to_act is None:
                break
            move = _human_move(oracle.state, 0, step)
            oracle.human(move)
            # The move goes to one replica while the other is read at once (a read plays pending bot moves):
            # both race to commit the same bot moves.
            mover, reader = (a, b) if rng.random() < 0.5 else (b, a)
            answers = await asyncio.gather(
                client.post(f"{mover.url}/v1/sessions/{sid}/moves", json=move_body(move), headers=me),
                *(client.get(f"{reader.url}/v1/sessions/{sid}", headers=host) for _ in range(3)))
            assert answers[0].status_code == 200, answers[0].text
            assert answers[0].json()["version"] == oracle.version
            for r in answers[1:]:
                assert r.status_code == 200 and r.json()["version"] <= oracle.version
        for replica in (a, b):
            r = await client.get(f"{replica.url}/v1/sessions/{sid}", headers=host)
            assert r.json()["version"] == oracle.version
        snapshot = (await client.get(f"{a.url}/v1/sessions/{sid}/snapshot", headers=host)).json()["snapshot"]
        assert SEALER.open(snapshot) == oracle.state
        # Each version's events once, in order: no bot move was committed twice.
        streamed, _ = await read_stream(client, f"{b.url}/v1/sessions/{sid}/events", headers=me,
                                        count=len(oracle.log))
        assert [e.triple() for e in streamed] == oracle.seen_by(0)


class KillAfterCommits:
    """The real store, with a real ``kill -9`` of its redis-server once ``commits`` commits have succeeded."""

    def __init__(self, store: Any, redis: RedisServer, commits: int) -> None:
        self._store, self._redis, self._left = store, redis, commits

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def commit(self, *args: Any, **kwargs: Any) -> Any:
        outcome = await self._store.commit(*args, **kwargs)
        self._left -= 1
        if self._left == 0:
            self._redis.stop()
        return outcome


async def test_redis_killed_between_a_human_move_and_the_bot_replies(tmp_path: Path) -> None:
    redis = RedisServer(persist_dir=tmp_path)
    redis.start()
    try:
        async with running_service("redis", redis) as svc, httpx.AsyncClient(base_url=svc.url, timeout=60) as client:
            created = (await client.post("/v1/sessions", json={**BODY, "first_dealer": 3})).json()
            sid, url = created["session_id"], f"/v1/sessions/{created['session_id']}"
            me, host = bearer(created["seat_tokens"][0]), bearer(created["host_token"])
            opts = resolve_options(4, None, SHORT)
            start, events = new_game(opts, seed=99, first_dealer=3)
            oracle = Oracle(start, events, await _record_auth(svc, sid))
            assert oracle.state.to_act == 0 and created["version"] == 1
            sessions: SessionService = svc.app.state.sessions.service
            real_store = sessions.store
            sessions.store = KillAfterCommits(real_store, redis, commits=1)  # type: ignore[assignment]
            move = _human_move(oracle.state, 0, 0)
            oracle.human(move)
            assert oracle.version > 2  # the bots had replies to make
            r = await client.post(url + "/moves", json=move_body(move), headers=me)
            # The human move was committed, so it is not answered as a failure; its answer already shows the bot
            # replies, which the committed state implies and the next access commits.
            assert r.status_code == 200, r.text
            assert r.json()["version"] == oracle.version
            sessions.store = real_store
            assert (await client.get(url, headers=host)).status_code == 503  # Redis is down: nothing else
            redis.start()
            for _ in range(100):
                r = await client.get(url, headers=host)
                if r.status_code != 503:
                    break
                await asyncio.sleep(0.05)
            assert r.status_code == 200 and r.json()["version"] == oracle.version
            snapshot = (await client.get(url + "/snapshot", headers=host)).json()["snapshot"]
            assert SEALER.open(snapshot) == oracle.state
            streamed, _ = await read_stream(client, url + "/events", headers=me, count=len(oracle.log))
            assert [e.triple() for e in streamed] == oracle.seen_by(0)
            # Play goes on from there.
            move = _human_move(oracle.state, 0, 1)
            oracle.human(move)
            r = await client.post(url + "/moves", json=move_body(move), headers={**me, "If-Match": r.headers["etag"]})
            assert r.status_code == 200 and r.json()["version"] == oracle.version
    finally:
        redis.stop()
