"""Phones on trains, against real processes: three uvicorn replicas on one redis-server, four players who join by
invitation and play a match of two games (several hands each, the second begun by the seats' agreement), each
phone going through a random replica per request and misbehaving as phones do:

* **lost answers**: a request is sent and its answer dropped (the connection cut at a random moment, so that the
  service may or may not have taken it up, or the answer read and thrown away), then sent again with the same
  ``Idempotency-Key``: joins, moves and rematch requests alike; some are sent twice at once (a double tap);
* **lost streams**: the event stream is cut at random and opened again with ``Last-Event-ID`` (on any replica);
* **sleep and wake**: a phone stops for a while (its stream closed), then catches up (``events/catch-up``) and
  opens its stream again after what it caught up.

At the end: every move a phone had answered is in the log exactly once at the version it was answered with, and the
log holds no other move of a phone's (none lost, none doubled); every retry of a key was answered the same version;
every seat was joined once and its token opens it (nobody locked out); each phone's events, from its streams and
catch-ups put together, are its seat's log exactly, with no gap and no repeat; one next game began; and every
phone's final view has the same public part as the others' and the host's.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.support import bearer

from .conftest import ServiceProcess
from .play import sse_events
from .tables import pick, public

pytestmark = pytest.mark.slow

#: A game of a few hands: a side wins only by making its own contract (the default), worth 40 at 6S.
GAME_OPTIONS = {"target": 50, "lose_at": -50}
GAMES = 2
#: Chances, per request or per event, of each misbehaviour.
LOSE_ANSWER, DOUBLE_TAP, CUT_STREAM, SLEEP = 0.3, 0.1, 0.04, 0.006
#: Bounds of the whole run: phones give up (and the test fails) after this many seconds.
RUN_SECONDS = 240


@dataclass
class Phone:
    """One player's phone: its seat, its clients (one per replica), what it was answered, what it saw."""

    seat: int
    clients: list[httpx.AsyncClient]
    rng: random.Random
    url: str
    token: str = ""
    #: Every answer to each Idempotency-Key of a move: the versions it was answered with.
    moves: dict[str, list[int]] = field(default_factory=dict)
    #: The moves themselves, by key.
    sent: dict[str, dict[str, Any]] = field(default_factory=dict)
    joins: list[dict[str, Any]] = field(default_factory=list)
    #: The events seen (from streams and catch-ups), in order, and how many came by stream.
    events: list[dict[str, Any]] = field(default_factory=list)
    streamed: int = 0
    asleep: bool = False
    done: bool = False
    lost: int = 0

    def client(self) -> httpx.AsyncClient:
        return self.rng.choice(self.clients)

    @property
    def auth(self) -> dict[str, str]:
        return bearer(self.token)

    async def send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """A request whose answer may be lost (then sent again, as a phone's retry, with the same headers: the same
        Idempotency-Key) until one is answered; a 503 is retried too."""
        while True:
            if self.rng.random() < DOUBLE_TAP:  # the same request twice at once: one more, its answer dropped
                twin = asyncio.create_task(self.client().request(method, self.url + path, **kw))
                twin.add_done_callback(lambda t: t.cancelled() or t.exception())
            if self.rng.random() < LOSE_ANSWER:
                self.lost += 1
                attempt = asyncio.create_task(self.client().request(method, self.url + path, **kw))
                if self.rng.random() < 0.5:  # the connection cut at a random moment: taken up, or not
                    await asyncio.sleep(self.rng.random() * 0.03)
                    attempt.cancel()
                await asyncio.wait([attempt])  # or read, and thrown away
                if not attempt.cancelled() and attempt.exception() is not None:
                    assert isinstance(attempt.exception(), httpx.TransportError), attempt.exception()
                continue
            r = await self.client().request(method, self.url + path, **kw)
            if r.status_code == 503:
                await asyncio.sleep(0.2)
                continue
            return r

    async def join(self, code: str) -> None:
        key = {"Idempotency-Key": f"join-{self.seat}-{uuid.uuid4().hex}"}
        for _ in range(2):  # answered, and once more as a retry would be: the same seat and token each time
            r = await self.send("POST", "/join", json={"code": code, "name": f"Player {self.seat}"}, headers=key)
            assert r.status_code == 200, r.text
            self.joins.append(r.json())
        self.token = self.joins[0]["seat_token"]

    async def move(self, view: dict[str, Any]) -> None:
        r = await self.send("GET", "/legal-moves", headers=self.auth)
        assert r.status_code == 200, r.text
        move = pick(view, r.json()["legal_moves"])
        key = uuid.uuid4().hex
        self.sent[key] = move
        r = await self.send("POST", "/moves", json={"move": move}, headers={**self.auth, "Idempotency-Key": key})
        assert r.status_code == 200, r.text
        self.moves.setdefault(key, []).append(r.json()["version"])
        if self.rng.random() < 0.2:  # a retry after all (the phone was not sure): the same answer
            r = await self.send("POST", "/moves", json={"move": move}, headers={**self.auth, "Idempotency-Key": key})
            assert r.status_code == 200 and r.headers["idempotent-replayed"] == "true", r.text
            self.moves[key].append(r.json()["version"])

    async def play(self) -> None:
        """Play until the match's last game is over: move when to act, ask for the next game when one is over."""
        asked = 0
        while True:
            if self.rng.random() < SLEEP:
                await self.sleep()
            r = await self.send("GET", "", headers=self.auth)
            assert r.status_code == 200, r.text
            seen = r.json()
            view, series = seen["view"], seen["series"]
            if view["phase"] == "game_over":
                if series["game"] == GAMES:
                    self.done = True
                    return
                if asked < series["game"]:  # its agreement to the next game, sent (and retried) once per game
                    r = await self.send("POST", "/rematch", json={"game": series["game"]}, headers=self.auth)
                    assert r.status_code == 200, r.text
                    asked = series["game"]
            elif view["to_act"] == self.seat:
                await self.move(view)
                continue
            await asyncio.sleep(0.02 + self.rng.random() * 0.03)

    async def sleep(self) -> None:
        self.asleep = True
        await asyncio.sleep(0.2 + self.rng.random() * 0.6)
        self.asleep = False

    async def catch_up(self) -> None:
        """What happened meanwhile, in one request after the last event seen (a phone that woke up)."""
        while True:
            after = {"after": self.events[-1]["id"]} if self.events else {}
            r = await self.send("GET", "/events/catch-up", params=after, headers=self.auth)
            assert r.status_code == 200, r.text
            self.events += [{k: e[k] for k in ("id", "version", "to_act", "event")} for e in r.json()["events"]]
            if r.json()["complete"]:
                return

    async def watch(self) -> None:
        """The event stream, cut now and then and resumed with Last-Event-ID; closed while the phone sleeps, and
        caught up on waking."""
        while not self.done:
            if self.asleep:
                while self.asleep:
                    await asyncio.sleep(0.05)
                await self.catch_up()
            headers = {**self.auth, **({"Last-Event-ID": self.events[-1]["id"]} if self.events else {})}
            try:
                async with self.client().stream("GET", self.url + "/events", headers=headers) as r:
                    if r.status_code == 429:  # streams cut but not yet noticed by the replica: wait a little
                        await asyncio.sleep(0.5)
                        continue
                    assert r.status_code == 200, await r.aread()
                    async for item in sse_events(r):
                        if item is not None:
                            assert item.event not in ("end", "revoked", "deleted", "expired"), item
                            self.events.append({"id": item.id, "version": item.version, "to_act": item.to_act,
                                                "event": item.data})
                            self.streamed += 1
                        if self.done or self.asleep or self.rng.random() < CUT_STREAM:
                            break  # the phone lost its connection (or went to sleep)
            except httpx.TransportError:
                pass
            await asyncio.sleep(self.rng.random() * 0.1)
        await self.catch_up()  # the last events, as a phone that stops reading catches up later


async def test_phones_that_lose_answers_streams_and_sleep_lose_and_double_nothing(
        three_replicas: list[ServiceProcess]) -> None:
    rng = random.Random(2026)
    clients = [httpx.AsyncClient(base_url=r.url, timeout=30) for r in three_replicas]
    try:
        body = {"players": 4, "options": GAME_OPTIONS, "open_seats": [0, 1, 2, 3],
                "series": {"games": GAMES, "start": "seats"}}
        r = await clients[0].post("/v1/sessions", json=body)
        assert r.status_code == 201, r.text
        created = r.json()
        url = f"/v1/sessions/{created['session_id']}"
        host = bearer(created["host_token"])
        phones = [Phone(seat, clients, random.Random(rng.random()), url) for seat in range(4)]
        codes = {i["seat"]: i["code"] for i in created["invitations"]}
        async with asyncio.timeout(RUN_SECONDS):
            await asyncio.gather(*(p.join(codes[p.seat]) for p in phones))
            watchers = [asyncio.create_task(p.watch()) for p in phones]
            try:
                await asyncio.gather(*(p.play() for p in phones))
                await asyncio.gather(*watchers)
            finally:
                for w in watchers:
                    w.cancel()
        await _check(clients[0], url, host, phones)
    finally:
        for c in clients:
            await c.aclose()


async def _check(client: httpx.AsyncClient, url: str, host: dict[str, str], phones: list[Phone]) -> None:
    log = (await client.get(url + "/events/catch-up", headers=host)).json()
    assert log["complete"]
    events = log["events"]
    table = ("seat_joined", "rematch_asked", "next_game")
    firsts: dict[int, dict[str, Any]] = {}
    for e in events:
        firsts.setdefault(e["version"], e["event"])
    # Nobody locked out: each seat joined once, every answer to its join (first or retried) the same seat and
    # token, and that token opens the seat.
    assert sorted(e["event"]["seat"] for e in events if e["event"]["type"] == "seat_joined") == [0, 1, 2, 3]
    for p in phones:
        assert {(j["seat"], j["seat_token"], j["version"]) for j in p.joins} == {
            (p.seat, p.token, p.joins[0]["version"])}
        r = await client.get(url, headers=p.auth)
        assert r.status_code == 200 and r.json()["seat"] == p.seat
    # Every move answered is in the log once, at the version answered, as that seat's move; and the log holds no
    # move of a phone that no phone was answered (none doubled, none lost).
    answered: dict[int, tuple[int, dict[str, Any]]] = {}
    for p in phones:
        for key, versions in p.moves.items():
            assert len(set(versions)) == 1, (p.seat, key, versions)  # a retry answered the first version
            assert versions[0] not in answered, "two keys answered one version"
            answered[versions[0]] = (p.seat, p.sent[key])
    moved = {v: e for v, e in firsts.items() if e["type"] not in table and e["type"] not in ("hand_dealt",
                                                                                             "dealer_cut")}
    assert sorted(moved) == sorted(answered)
    for version, (seat, move) in answered.items():
        first = moved[version]
        assert first.get("seat") == seat, (version, first, move)
        if move["type"] == "play":
            assert first["type"] == "card_played" and first["card"] == move["card"]
        elif move["type"] == "bid":
            assert first["type"] == "bid_made" and first["bid"] == move["bid"]
    # Several hands (a game to 50 takes two made contracts, but for a slam), two games, one next game begun by the
    # seats' agreement (three asked, the fourth began it).
    assert len([e for e in events if e["event"]["type"] == "hand_dealt"]) >= 3
    assert [e["event"]["game"] for e in events if e["event"]["type"] == "next_game"] == [2]
    assert len([e for e in events if e["event"]["type"] == "rematch_asked"]) == 3
    # Each phone saw its seat's log exactly: streams and catch-ups put together, no gap, no repeat.
    for p in phones:
        mine = (await client.get(url + "/events/catch-up", headers=p.auth)).json()["events"]
        assert [e["id"] for e in p.events] == [e["id"] for e in mine], p.seat
        assert [e["event"] for e in p.events] == [e["event"] for e in mine], p.seat
        assert [e["to_act"] for e in p.events] == [e["to_act"] for e in mine], p.seat
        assert p.streamed > len(mine) // 3, (p.seat, p.streamed, len(mine))  # mostly from streams
    # The same game for everyone: every phone's view has the public part of the others' and the host's.
    views = [(await client.get(url, headers=h)).json() for h in (host, *(p.auth for p in phones))]
    assert all(v["series"] == views[0]["series"] for v in views)
    assert all(public(v["view"]) == public(views[0]["view"]) for v in views)
    assert views[0]["view"]["phase"] == "game_over" and views[0]["series"]["game"] == GAMES
    assert sum(p.lost for p in phones) > 20  # the phones did lose answers
