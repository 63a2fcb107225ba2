"""Test-side helpers: a local engine mirror of a session (the oracle), and a Server-Sent Events reader."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from engine import (
    Bid,
    Event,
    GameState,
    Move,
    Pass,
    apply_move,
    legal_moves,
    new_game,
    redact_events,
    resolve_options,
)
from tests.support import bearer, jsonable

#: A game that ends after its first played hand (a made contract reaches 10; a failed one reaches -10).
SHORT_GAME = {"target": 10, "lose_at": -10}


@dataclass
class Mirror:
    """The session as the engine alone computes it: the state, and the events logged at each version."""

    state: GameState
    version: int = 1
    log: list[tuple[str, Event]] = field(default_factory=list)

    @classmethod
    def create_body(cls, seed: int = 2024, first_dealer: int = 3, players: int = 4,
                    options: dict[str, Any] | None = None) -> dict[str, Any]:
        # A seed the test knows, at a table of several players: the host says so (``known_deal``).
        body: dict[str, Any] = {"players": players, "seed": seed, "first_dealer": first_dealer, "known_deal": True}
        if options:
            body["options"] = options
        return body

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> Mirror:
        opts = resolve_options(body["players"], body.get("preset"), body.get("options"))
        state, events = new_game(opts, seed=body["seed"], first_dealer=body.get("first_dealer"))
        m = cls(state)
        m._log(1, events)
        return m

    def _log(self, version: int, events: list[Event]) -> None:
        self.log.extend((f"{version}-{i}", e) for i, e in enumerate(events))

    def apply(self, move: Move) -> list[Event]:
        self.state, events = apply_move(self.state, move)
        self.version += 1
        self._log(self.version, events)
        return events

    def choose(self, rng: random.Random) -> Move:
        """A move for the seat to act that leads to a contract quickly: open 6S, then everyone passes."""
        moves = legal_moves(self.state)
        if self.state.phase == "auction":
            if self.state.high is None:
                return next(m for m in moves if isinstance(m, Bid) and m.bid == "6S")
            return next(m for m in moves if isinstance(m, Pass))
        return rng.choice(moves)

    def seen_by(self, seat: int | None) -> list[tuple[str, str, dict[str, Any]]]:
        """The log as ``seat`` receives it over SSE: (id, event type, data)."""
        out = []
        for event_id, e in self.log:
            shown = redact_events([e], seat)[0]
            data = jsonable(shown)
            out.append((event_id, data["type"], data))
        return out


def move_body(move: Move) -> dict[str, Any]:
    return {"move": jsonable(move)}


@dataclass
class SseEvent:
    id: str
    event: str
    data: dict[str, Any]
    #: The session version the event belongs to, and the seat to act once that version's move is complete.
    version: int | None = None
    to_act: int | None = None

    def triple(self) -> tuple[str, str, dict[str, Any]]:
        return self.id, self.event, self.data


async def sse_events(response: httpx.Response) -> AsyncIterator[SseEvent | None]:
    """Parse an event stream: each event, and ``None`` for each comment (heartbeat).

    Game events come as unnamed messages whose data is ``{"version", "to_act", "event"}``; they are returned
    as the event's ``type`` and JSON (with the envelope's version and to_act). The final ``end`` event is
    returned as ``SseEvent(id="", event="end", …)``.
    """
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line == "":
            if "data" in fields:
                data = json.loads(fields["data"])
                name = fields.get("event", "message")
                if name == "message":
                    assert set(data) - {"deadline"} == {"version", "to_act", "event"}, data  # deadline: clocks
                    assert fields["id"].startswith(f"{data['version']}-"), (fields["id"], data)
                    yield SseEvent(fields["id"], data["event"]["type"], data["event"], data["version"],
                                   data["to_act"])
                else:
                    yield SseEvent(fields.get("id", ""), name, data)
            fields = {}
        elif line.startswith(":"):
            yield None
        else:
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value


async def read_stream(client: httpx.AsyncClient, url: str, *, count: int | None = None,
                      headers: dict[str, str] | None = None, params: dict[str, str] | None = None,
                      timeout: float = 10.0) -> tuple[list[SseEvent], bool]:
    """Read events until ``count`` were received (then disconnect) or the server ends the stream.

    Returns the events and whether the server ended the stream by itself.
    """
    got: list[SseEvent] = []
    async with asyncio.timeout(timeout), client.stream("GET", url, headers=headers, params=params) as r:
        assert r.status_code == 200, (r.status_code, await r.aread())
        assert r.headers["content-type"].startswith("text/event-stream")
        async for item in sse_events(r):
            if item is not None and item.event == "end":
                continue  # the stream's own end marker, not a game event (tests/api/test_event_stream.py)
            if item is not None:
                got.append(item)
                if count is not None and len(got) >= count:
                    return got, False
    return got, True




class Game:
    """A session created over HTTP, with its tokens and the local engine mirror."""

    def __init__(self, client: httpx.AsyncClient, created: dict[str, Any], mirror: Mirror) -> None:
        self.client = client
        self.created = created
        self.id: str = created["session_id"]
        self.host: dict[str, str] = bearer(created["host_token"])
        self.seats: list[dict[str, str]] = [bearer(t) for t in created["seat_tokens"]]
        self.mirror = mirror
        self.url = f"/v1/sessions/{self.id}"

    @classmethod
    async def create(cls, client: httpx.AsyncClient, *, retry_unavailable_for: float = 0, **kw: Any) -> Game:
        """Create the session; with ``retry_unavailable_for`` (seconds), create it again meanwhile while the answer
        is 503 ``STORE_UNAVAILABLE`` (a Redis Cluster just started may miss the bound of its first ``WAIT`` for a
        replica: the service then asks for the creation again)."""
        body = Mirror.create_body(**kw)
        deadline = time.monotonic() + retry_unavailable_for
        while True:
            r = await client.post("/v1/sessions", json=body)
            if r.status_code != 503 or time.monotonic() >= deadline or r.json()["code"] != "STORE_UNAVAILABLE":
                break
            await asyncio.sleep(0.2)
        assert r.status_code == 201, r.text
        return cls(client, r.json(), Mirror.from_body(body))

    def actor(self) -> dict[str, str]:
        seat = self.mirror.state.to_act
        assert seat is not None
        return self.seats[seat]

    async def play(self, n: int = 1, rng: random.Random | None = None) -> list[httpx.Response]:
        rng = rng or random.Random(1)
        out = []
        for _ in range(n):
            move = self.mirror.choose(rng)
            r = await self.client.post(self.url + "/moves", json=move_body(move), headers=self.seats[move.seat])
            assert r.status_code == 200, r.text
            self.mirror.apply(move)
            out.append(r)
        return out

    async def version(self) -> int:
        r = await self.client.get(self.url, headers=self.host)
        assert r.status_code == 200, r.text
        return int(r.json()["version"])


async def move_until_acknowledged(client: httpx.AsyncClient, game: Game, rng: random.Random,
                                   deadline: float) -> tuple[int, int]:
    """One move, retried with its Idempotency-Key through 503s (nothing applied, or not known) until answered
    200 or ``deadline`` (``time.monotonic()``) passes; (attempts, 503s)."""
    move = game.mirror.choose(rng)
    key = uuid.uuid4().hex
    attempts = unavailable = 0
    while time.monotonic() < deadline:
        attempts += 1
        try:
            r = await client.post(game.url + "/moves", json=move_body(move),
                                  headers={**game.seats[move.seat], "Idempotency-Key": key})
        except httpx.TransportError:
            await asyncio.sleep(0.1)
            continue
        if r.status_code == 200:
            game.mirror.apply(move)
            assert r.json()["version"] == game.mirror.version
            return attempts, unavailable
        assert r.status_code == 503, r.text
        assert r.json()["code"] in ("STORE_UNAVAILABLE", "COMMIT_OUTCOME_UNKNOWN"), r.text
        unavailable += 1
        await asyncio.sleep(0.1)
    pytest.fail("the cluster did not take moves again within the deadline")
