"""A table of strangers: a secretly dealt session whose players joined by invitation, played over HTTP, with
every credential probing every operation it could use, ``POST /v1/records/verify`` included with whatever it
learned.

Two invited players (seats 0 and 1) beside two bots, a spectator, the table host, and an anonymous caller.
At every step each of them reads what it may (the view, the seat's legal moves and hints, the seat's record,
the public stream) and tries what it may not (the snapshot, the host's record, another seat's view); each
invited seat makes its moves. Every card in everything any of them received must be one the rules let it know
at that moment (its own hand, the cards played, what was shown: :class:`tests.leaks.test_api_leaks.Knowledge`,
the engine's true state read from the store as the oracle). At the end each credential sends
``/v1/records/verify`` every record it received, and the game's settings and moves as it saw them with every
number it was ever answered as the seed (or none): a deal no client chose may not be recomputed from anything
a player holds, so every card of every answer must again be one it knows.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine import GameState, pack_for
from service.app import create_app
from service.config import Settings
from tests.leaks.test_api_leaks import Knowledge, Received, card_tokens
from tests.sessions.conftest import serve_in_process
from tests.sessions.play import read_stream

INVITED = (0, 1)
#: Moves made by the invited seats before the game's second hand is two tricks old (two whole hands, at most).
MAX_STEPS = 80
#: A game long enough that two hands never end it (no record is everyone's while it goes on).
LONG = {"target": 5000, "lose_at": -5000}
_INT = re.compile(r"-?\d+")


@pytest.fixture
async def served() -> AsyncIterator[tuple[str, Any]]:
    app = create_app(Settings(log_level="WARNING"))
    async with serve_in_process(app) as url:
        yield url, app


def _ints(value: Any, out: set[int]) -> None:
    """Every number in ``value`` (and every run of digits in its strings): the seeds a caller could try."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        out.add(value)
    elif isinstance(value, str):
        out.update(int(m) for m in _INT.findall(value)[:8] if len(m) < 20)
    elif isinstance(value, dict):
        for v in value.values():
            _ints(v, out)
    elif isinstance(value, list):
        for v in value:
            _ints(v, out)


class ByHand:
    """:class:`Knowledge` kept for every hand: what each viewer knew by the end of each hand so far."""

    def __init__(self, state: GameState) -> None:
        self.current = Knowledge(state)
        self.done: dict[int, dict[int | None, set[str]]] = {}

    def observe(self, state: GameState) -> None:
        if state.hand_number != self.current.hand_number:
            self.done[self.current.hand_number] = {v: self.current.of(v) for v in self.current.viewers}
        self.current.observe(state)

    def of(self, viewer: int | None, state: GameState) -> set[str]:
        return self.current.of(viewer) | self.current.named(state)

    def hands(self, viewer: int | None, state: GameState) -> dict[int, set[str]]:
        out = {h: known[viewer] for h, known in self.done.items()}
        out[self.current.hand_number] = self.of(viewer, state)
        return out


class Stranger:
    """One credential: what it received, checked as it came against what it may know then."""

    def __init__(self, name: str, seat: int | None, token: str | None, pack: frozenset[str]) -> None:
        self.name, self.seat, self.token, self.pack = name, seat, token, pack
        self.received = Received()
        self.ever: set[str] = set()  # every card it was ever allowed (a card once known stays known)
        self.records: list[dict[str, Any]] = []
        self.numbers: set[int] = set()
        #: The records received, with what was known per hand and ever when they came (see check_records).
        self.pending: list[tuple[str, dict[str, Any], dict[int, set[str]], set[str]]] = []

    @property
    def headers(self) -> dict[str, str]:
        return {} if self.token is None else {"authorization": "Bearer " + self.token}

    def got(self, what: str, value: Any, allowed: set[str], by_hand: dict[int, set[str]] | None = None) -> None:
        """``value`` received, which may show the cards ``allowed``; a record's (a seat's record) hands each the
        cards this credential knew in that hand (``by_hand``), and its moves the cards it ever knew."""
        self.ever |= allowed
        _ints(value, self.numbers)
        record = value.get("seat_record") or value.get("record") if isinstance(value, dict) else None
        if not isinstance(record, dict):
            self.received.add(f"{self.name}: {what}", value, allowed, self.pack)
            return
        self.records.append(record)
        rest = {k: v for k, v in value.items() if k not in ("record", "seat_record")}
        self.received.add(f"{self.name}: {what}", rest, allowed, self.pack)
        self.pending.append((what, record, dict(by_hand or {}), set(self.ever)))

    def check_records(self, played: dict[int, set[str]]) -> None:
        """The records received, checked once the game's true tricks are known (``played``: the cards played
        in each hand, public once played; a hand's last trick is played by the move that deals the next)."""
        for what, record, by_hand, ever in self.pending:
            ever = ever | {c for h, cards in played.items() if h in by_hand for c in cards}
            self.received.add(f"{self.name}: {what} moves", {k: v for k, v in record.items() if k != "hands"},
                              ever, self.pack)
            for hand in record.get("hands") or []:
                h = hand["hand_number"]
                known = by_hand.get(h, set()) | played.get(h, set()) if h in by_hand else set()
                self.received.add(f"{self.name}: {what} hand {h}", hand, known, self.pack)


async def _true_state(app: Any, session_id: str) -> GameState:
    loaded = await app.state.sessions.service.store.load(session_id)
    assert loaded is not None
    return loaded.record.state  # type: ignore[no-any-return]


async def _probe(client: httpx.AsyncClient, url: str, who: Stranger, knowledge: ByHand, state: GameState) -> None:
    """Everything ``who`` may try to read now."""
    allowed = knowledge.of(who.seat, state)
    paths = ["", "/record", "/snapshot", "/legal-moves?reasons=true", *(f"?seat={s}" for s in range(4))]
    for path in paths:
        r = await client.get(url + path, headers=who.headers)
        who.got(f"GET {path or '/'} {r.status_code}", r.json(), allowed, knowledge.hands(who.seat, state))
    if who.seat is not None:
        r = await client.post(url + "/suggest", json={"level": "expert", "seed": 3, "budget": 40},
                              headers=who.headers)
        who.got(f"hint {r.status_code}", r.json(), allowed)
        r = await client.post(url + "/validate", json={"move": {"type": "pass"}}, headers=who.headers)
        who.got(f"validate {r.status_code}", r.json(), allowed)


async def test_no_stranger_learns_a_hidden_card_from_any_operation_or_from_verify(
        served: tuple[str, Any]) -> None:
    url_base, app = served
    async with httpx.AsyncClient(base_url=url_base, timeout=30) as client:
        r = await client.post("/v1/sessions", json={"players": 4, "open_seats": list(INVITED),
                                                    "bots": {"2": "basic", "3": "basic"}, "first_dealer": 3,
                                                    "options": LONG})
        assert r.status_code == 201, r.text
        created = r.json()
        session_id = created["session_id"]
        url = f"/v1/sessions/{session_id}"
        state = await _true_state(app, session_id)
        pack = frozenset(pack_for(state.options))
        knowledge = ByHand(state)
        table_host = Stranger("table host", None, created["table_host_token"], pack)
        strangers = [table_host, Stranger("anonymous", None, None, pack)]
        table_host.got("created", {k: v for k, v in created.items() if not k.endswith("token") and
                                   k not in ("seat_tokens", "invitations")}, knowledge.of(None, state))
        for invitation in created["invitations"]:
            preview = await client.get(url + "/invitation", headers={"authorization": "Bearer " + invitation["code"]})
            joined = await client.post(url + "/join", json={"code": invitation["code"],
                                                            "name": f"P{invitation['seat']}"})
            assert joined.status_code == 200, joined.text
            seat = invitation["seat"]
            stranger = Stranger(f"seat {seat}", seat, joined.json()["seat_token"], pack)
            stranger.got("preview", preview.json(), set())
            stranger.got("joined", {k: v for k, v in joined.json().items() if k != "seat_token"}, set())
            strangers.append(stranger)
        minted = await client.post(url + "/spectators", json={}, headers=table_host.headers)
        assert minted.status_code == 201, minted.text
        strangers.append(Stranger("spectator", None, minted.json()["spectator_token"], pack))
        seats = {s.seat: s for s in strangers if s.seat is not None}

        steps = 0
        first_hand = state.hand_number
        while steps < MAX_STEPS:
            state = await _true_state(app, session_id)
            knowledge.observe(state)
            if state.phase == "game_over" or (state.hand_number > first_hand + 1):
                break
            for who in strangers:
                await _probe(client, url, who, knowledge, state)
            to_act = state.to_act
            if to_act not in seats:
                await asyncio.sleep(0.05)  # the bots' moves follow the seats' own
                continue
            who = seats[to_act]
            hint = (await client.post(url + "/suggest", json={"level": "basic", "seed": steps},
                                      headers=who.headers)).json()
            r = await client.post(url + "/moves", json={"move": hint["move"]}, headers=who.headers)
            assert r.status_code == 200, r.text
            after = await _true_state(app, session_id)
            knowledge.observe(after)
            if after.hand_number == state.hand_number:  # a new deal's events are checked by the stream below
                who.got("move answer", r.json(), knowledge.of(who.seat, after))
            steps += 1
        assert steps >= 20, steps  # a whole hand and more was played

        state = await _true_state(app, session_id)
        assert state.phase != "game_over"  # the game goes on: no record is everyone's yet
        for who in strangers:
            if who.token is None:
                continue
            events, _ = await read_stream(client, url + "/events", headers=who.headers, count=1, timeout=10)
            for e in events:  # the stream's first frame: the state as this reader may see it now
                who.got(f"frame {e.id}", {"event": e.event, "data": e.data}, knowledge.of(who.seat, state))

        # The oracle: the true deals, from the host's record (the host token is no stranger's).
        host = {"authorization": "Bearer " + created["host_token"]}
        true_hands = (await client.get(url + "/record", headers=host)).json()["record"]["hands"]
        played = {hand["hand_number"]: {c for t in hand["tricks"] for c in t["cards"]} for hand in true_hands}
        for who in strangers:
            who.check_records(played)
        verified, leaks = 0, [leak for who in strangers for leak in who.received.leaks]
        for who in strangers:
            attempts: list[dict[str, Any]] = [{"record": record} for record in who.records]
            moves = next((rec.get("moves") for rec in who.records if rec.get("moves")), [])
            for seed in [None, *sorted(who.numbers)[:40]]:
                attempts.append({"players": 4, "first_dealer": 3, "moves": moves, "options": LONG,
                                 **({} if seed is None else {"seed": seed})})
            for body in attempts:
                r = await client.post("/v1/records/verify", json=body)
                assert r.status_code < 500, r.text
                if r.status_code != 200:
                    continue
                verified += 1
                leaks += _recomputed(who, r.json()["record"]["hands"], true_hands)
        assert not leaks, "\n".join(leaks[:10])
        assert verified > 0  # some attempts were answered with a game: none of it was this one's
        assert sum(len(who.received.items) for who in strangers) > 500
        assert all(card_tokens([v for _, v in who.received.items], pack) for who in seats.values())  # their cards


def _recomputed(who: Stranger, hands: list[dict[str, Any]], true_hands: list[dict[str, Any]]) -> list[str]:
    """The places of this game's cards that a verified record shows and ``who`` could not know: a seat's hand
    or the kitty of one of this game's hands, as dealt (a game verified from a guessed seed deals other cards,
    of which some match by chance, never a whole hand)."""
    out: list[str] = []
    for hand, true in zip(hands, true_hands, strict=False):
        for place, cards, real in [*((f"seat {s}", d, t) for s, (d, t) in enumerate(zip(hand["dealt"],
                                                                                        true["dealt"],
                                                                                        strict=False))),
                                   ("kitty", hand.get("kitty") or [], true.get("kitty") or [])]:
            if real and set(cards) == set(real) and not set(real) <= who.ever:
                out.append(f"{who.name}: verify recomputed hand {true['hand_number']}'s {place}: {sorted(real)}")
    return out
