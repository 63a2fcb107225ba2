"""What a seat (or the public) receives through the HTTP APIs, checked against what the rules let it know.

Two checks, on everything a viewer receives through the stateless API (views, the events of each move, legal
moves, the problem bodies and validate answers of its own illegal moves, snapshot lengths) and through the
sessions (views, legal moves, the answers to its own moves, its problem bodies, and every frame of its event
stream):

* **What it may know**, derived here from the rules and the engine's state, independently of the view code
  (RULES.md): its own hand once it has looked at it; every card played; the open-misère contractor's hand
  once exposed (§1.10.7, ``open_misere_expose``); the kitty to the contractor while exchanging, and to
  everyone once shown (``show_kitty``); the contractor's own discards; the called card (named aloud); a joker
  nominated with a suit. Every card token a viewer receives must be one of these (cumulative over the hand).
  With five players and a called card, whether the partner is known (``partners_known``) must be exactly the
  rules' answer: the card was played, or the viewer holds it, or it is the contractor and the card is in its
  own hand or discards (then it plays alone).
* **Twins**: two games whose deals differ only by two cards swapped between places the viewer cannot see,
  played with the same moves (while the same moves are legal in both). Everything the viewer receives must be
  identical in both, phases, turns, sizes and snapshot lengths included.

Games of every player count under varied options, with deals, swaps and auctions steered towards the
situations where hidden information is most at risk (no-trump-family contracts with the joker swapped into or
out of the contractor's hand, a five-player sans-kitty contract calling a card from the face-down kitty, blind
misère in a two-player game). Stateless games and hosted sessions (in-process store) are served by one
in-process app; the engine is the oracle.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import msgspec
import pytest

from engine import (
    Bid,
    CallCard,
    Discard,
    GameState,
    IllegalMove,
    Move,
    Options,
    Pass,
    Play,
    apply_move,
    check_move,
    legal_moves,
    new_game,
    pack_for,
    resolve_options,
)
from engine.model import HandDealt
from engine.rules import ALL_BIDS, OPEN_MISERE
from service.app import create_app
from service.config import Settings
from tests.sessions.conftest import serve_in_process
from tests.sessions.play import read_stream
from tests.support import jsonable

#: Steps (moves) compared per twin game; later hands are dealt from the same seed in both twins anyway.
MAX_STEPS = 16
PUBLIC = None
_BIDS = frozenset(ALL_BIDS)


# ------------------------------------------------------------------------------------ what a viewer may know


def card_tokens(obj: Any, pack: frozenset[str], key: str | None = None) -> set[str]:
    """Every card token in a received JSON value (bids, which look like cards, are skipped by their keys; a
    problem's ``detail`` text is searched word by word)."""
    found: set[str] = set()
    if isinstance(obj, dict):
        if obj.get("type") == "call_card" and "card" in obj and "seat" in obj and len(obj) == 3:
            return found  # a card the contractor may call: naming a card tells nothing of where it is
        if obj.get("type") in ("nominate_joker", "joker_nominated") and obj.get("suit") is None:
            # Declining to nominate names the joker without placing it (whether such a step or event exists at
            # all only for a contractor holding the joker is what the twins compare).
            return found
        for k, v in obj.items():
            if k in pack:
                found.add(k)  # joker_nominations is keyed by card
            if k in ("bid", "auction", "high_bid"):
                continue
            found |= card_tokens(v, pack, k)
    elif isinstance(obj, list):
        for v in obj:
            found |= card_tokens(v, pack, key)
    elif isinstance(obj, str):
        if key == "detail":
            found |= {w for w in re.findall(r"[0-9A-Z]{2,3}", obj) if w in pack and w not in _BIDS}
        elif obj in pack:
            found.add(obj)
    return found


def _played(state: GameState) -> set[str]:
    cards = {c for t in state.tricks for c in t.cards}
    if state.trick is not None:
        cards.update(state.trick.cards)
    return cards


def instant_knowledge(state: GameState, seat: int | None) -> set[str]:
    """The cards whose place ``seat`` may know in ``state`` by the rules (not cumulative)."""
    opts = state.options
    c = state.contract
    known = _played(state)
    if c is not None and c.bid == OPEN_MISERE and state.phase == "play" and (
            state.tricks or opts.open_misere_expose == "before_opening_lead"):
        known.update(state.hands[c.contractor])  # spread face up (RULES.md 1.10.7)
    if state.kitty_shown:
        known.update(state.kitty)  # show_kitty: shown to all before the contractor takes it
    known.update(card for card, suit in state.nominations if suit)  # a nomination is announced
    if seat is not None:
        if state.viewed[seat]:
            known.update(state.hands[seat])
        if c is not None and seat == c.contractor:
            if state.phase == "exchange":
                known.update(state.kitty)
            known.update(state.discards)
    return known


class Knowledge:
    """What each viewer may know, cumulative over the hand (reset by each new deal)."""

    def __init__(self, state: GameState) -> None:
        self.viewers: list[int | None] = [PUBLIC, *range(state.options.players)]
        self.hand_number = -1
        self.known: dict[int | None, set[str]] = {}
        self.observe(state)

    def observe(self, state: GameState) -> None:
        if state.hand_number != self.hand_number:
            self.hand_number = state.hand_number
            self.known = {v: set() for v in self.viewers}
        for v in self.viewers:
            self.known[v] |= instant_knowledge(state, v)

    def of(self, viewer: int | None) -> set[str]:
        """The cards ``viewer`` may know the place of."""
        return set(self.known[viewer])

    @staticmethod
    def named(state: GameState) -> set[str]:
        """Cards named aloud without their place being known: the called card."""
        c = state.contract
        return {c.called_card} if c is not None and c.called_card else set()


def partner_expectation(state: GameState, seat: int | None) -> tuple[bool, list[int]] | None:
    """Five players, called card: (whether ``seat`` knows the partner, the partners it knows), by the rules."""
    c = state.contract
    if c is None or not c.called_card or state.options.players != 5:
        return None
    card = c.called_card
    holder = next((s for s, hand in enumerate(state.hands) if card in hand), None)
    played = False
    for t in (*state.tricks, *((state.trick,) if state.trick is not None else ())):
        if card in t.cards:
            played = True
            holder = _player_of(state, t.leader, t.cards.index(card))
    known = played or (seat is not None and seat == holder) or (
        seat == c.contractor and (holder == c.contractor or card in state.discards))
    partners = [] if holder in (None, c.contractor) else [holder]
    return known, (partners if known else [])


def _player_of(state: GameState, leader: int, index: int) -> int:
    order = [s for s in (*range(leader, state.options.players), *range(leader)) if s in state.active] \
        if state.active else [(leader + i) % state.options.players for i in range(state.options.players)]
    return order[index]


@dataclass
class Received:
    """What one viewer received in one game, in order, each with the card tokens it was allowed."""

    items: list[tuple[str, Any]] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)

    def add(self, what: str, value: Any, allowed: set[str], pack: frozenset[str]) -> None:
        self.items.append((what, value))
        extra = card_tokens(value, pack) - allowed
        if extra:
            self.leaks.append(f"{what}: {sorted(extra)} in {value}")


def _normalized(value: Any) -> Any:
    """A received value without what differs between any two games (ids, tokens, snapshots, paths)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k in ("session_id", "instance"):
                continue
            if k == "snapshot":
                out["snapshot_length"] = len(v)
                continue
            out[k] = _normalized(v)
        return out
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


# ------------------------------------------------------------------------------------------------- games


@dataclass
class Case:
    name: str
    players: int
    options: dict[str, Any]
    seed: int
    #: The contract the first bidder tries for (the others pass); ``None``: a random bid.
    bid: str | None = None
    sans_kitty: bool = False
    #: Swap the joker into or out of the first bidder's hand.
    joker: bool = False
    #: Swap a kitty card with a card of another hand, and call it (five players).
    kitty_call: bool = False
    #: Everyone passes: the hand is thrown in (or, with no_ace_no_face, a redeal is proposed when it can be).
    all_pass: bool = False


CASES = [
    Case("4p-default-random", 4, {}, 1),
    Case("4p-nt-joker", 4, {}, 2, bid="7NT", joker=True),
    Case("4p-misere-joker", 4, {"open_misere_expose": "before_opening_lead"}, 3, bid="OPEN_MISERE", joker=True),
    Case("3p-show-kitty", 3, {"show_kitty": True}, 4, bid="7NT", joker=True),
    Case("2p-dead-hand", 2, {}, 5),
    Case("2p-blind-misere", 2, {"blind_misere_enabled": True, "misere_values": "beagle", "no_ace_no_face": True},
         6, bid="BLIND_MISERE"),
    Case("2p-blind-thrown-in", 2, {"blind_misere_enabled": True, "misere_values": "beagle",
                                   "no_ace_no_face": True}, 10, all_pass=True),
    Case("5p-called-card", 5, {}, 7, bid="8H", kitty_call=True),
    Case("5p-sans-kitty-called-in-kitty", 5, {"sans_kitty_enabled": True}, 8, bid="7NT", sans_kitty=True,
         kitty_call=True),
    Case("6p-three-teams", 6, {"six_player_teams": "three_teams_of_two", "joker_prenomination": False}, 9,
         bid="8NT", joker=True),
]


def _deal_places(opts: Options, deck: list[str], dealer: int) -> dict[str, str]:
    """Where each card of ``deck`` lands: ``"hand <seat>"``, ``"kitty"`` or ``"dead"``."""
    state, _ = new_game(opts, seed=0, deck_orders=[deck], first_dealer=dealer)
    places = {c: f"hand {s}" for s, hand in enumerate(state.hands) for c in hand}
    places.update({c: "kitty" for c in state.kitty})
    places.update({c: "dead" for c in state.dead_hand})
    return places


def twin_decks(case: Case, rng: random.Random, viewer: int | None,
               dealer: int) -> tuple[list[str], list[str], tuple[str, str]]:
    """A deck, and the same deck with two cards swapped between two places ``viewer`` cannot see."""
    opts = resolve_options(case.players, None, case.options)
    deck = list(pack_for(opts))
    rng.shuffle(deck)
    places = _deal_places(opts, deck, dealer)
    own = f"hand {viewer}" if viewer is not None else None
    hidden = [c for c, p in places.items() if p != own]
    bidder = f"hand {(dealer + 1) % case.players}"
    x: str | None = None
    y: str | None = None
    if case.joker and "JK" in hidden:
        x = "JK"
        others = [c for c in hidden if (places[c] == bidder) != (places["JK"] == bidder)]
        y = rng.choice(others) if others else None
    if case.kitty_call:
        kitty = [c for c in hidden if places[c] == "kitty" and c != "JK"]
        hands = [c for c in hidden if places[c].startswith("hand") and places[c] != bidder and c != "JK"]
        if kitty and hands:
            x, y = rng.choice(kitty), rng.choice(hands)
    if x is None or y is None:
        x = rng.choice(hidden)
        y = rng.choice([c for c in hidden if places[c] != places[x]])
    twin = [y if c == x else x if c == y else c for c in deck]
    return deck, twin, (x, y)


def choose(case: Case, a: GameState, b: GameState, rng: random.Random,
           swapped: tuple[str, str]) -> Move | None:
    """A move legal in both twins (``None``: the twins must part, a hidden card decides)."""
    if a.to_act is None or a.to_act != b.to_act:
        return None
    in_b = set(legal_moves(b))
    common = [m for m in legal_moves(a) if m in in_b]
    if not common:
        return None
    if case.all_pass:
        redeal = [m for m in common if type(m).__name__ in ("ProposeRedeal", "AnswerRedeal")]
        passes = [m for m in common if isinstance(m, Pass)]
        if a.phase in ("auction", "redeal_answer") and (redeal or passes):
            return (redeal or passes)[0]
    if a.phase == "auction":
        if a.high is None and not a.calls:
            wanted = [m for m in common if isinstance(m, Bid) and m.bid == case.bid and m.sans_kitty == case.sans_kitty]
            if wanted:
                return wanted[0]
            bids = [m for m in common if isinstance(m, Bid)]
            return rng.choice(bids) if bids else common[0]
        passes = [m for m in common if isinstance(m, Pass)]
        return passes[0] if passes else rng.choice(common)
    calls = [m for m in common if isinstance(m, CallCard) and m.card in swapped]
    if calls:
        return calls[0]
    return rng.choice(common)


def probe_for(state: GameState, seat: int) -> Move | None:
    """An illegal (well-formed) move of ``seat`` now: the viewer's own refusal, to check its problem body."""
    if state.to_act != seat:
        return Pass(seat=seat)
    candidates: list[Move] = [Pass(seat=seat), *(Play(seat=seat, card=c) for c in state.hands[seat]),
                              Bid(seat=seat, bid="6S"), Discard(seat=seat, cards=state.hands[seat][:1])]
    for m in candidates:
        r = check_move(state, m)
        if r is not None and r.reason not in ("UNKNOWN_CARD", "UNKNOWN_BID", "UNKNOWN_SUIT", "NO_SUCH_SEAT"):
            return m
    return None


# ------------------------------------------------------------------------------------------- the two APIs


class Stateless:
    """One game through the stateless API, seen by ``viewer``."""

    def __init__(self, client: httpx.AsyncClient, viewer: int | None) -> None:
        self.client = client
        self.viewer = viewer
        self.snapshot = ""

    async def start(self, body: dict[str, Any]) -> Any:
        r = await self.client.post("/v1/games", json={**body, "views": [self.viewer]})
        assert r.status_code == 201, r.text
        created = r.json()
        self.snapshot = created["snapshot"]
        (view,) = created["views"]
        assert view["seat"] == self.viewer
        return {"view": view, "snapshot": created["snapshot"],
                "events": created["events"] if self.viewer is None else None}

    async def look(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        r = await self.client.post("/v1/games/view", json={"snapshot": self.snapshot, "seat": self.viewer})
        out.append(("view", r.json()))
        if self.viewer is not None:
            r = await self.client.post("/v1/games/legal-moves", json={"snapshot": self.snapshot, "seat": self.viewer})
            out.append(("legal-moves", r.json()))
        return out

    async def move(self, move: Move) -> list[tuple[str, Any]]:
        r = await self.client.post("/v1/games/apply", json={"snapshot": self.snapshot, "move": jsonable(move),
                                                            "views": [self.viewer]})
        assert r.status_code == 200, r.text
        body = r.json()
        self.snapshot = body["snapshot"]
        (mine,) = body["views"]
        # The host holds the snapshot and the public events; the viewer gets its view and events (and, if the
        # host forwards it, the snapshot: its length must say nothing either).
        return [("events", mine["events"]), ("view after", mine["view"]), ("snapshot", len(body["snapshot"]))]

    async def probe(self, move: Move) -> list[tuple[str, Any]]:
        r = await self.client.post("/v1/games/apply", json={"snapshot": self.snapshot, "move": jsonable(move)})
        assert r.status_code == 422, r.text
        v = await self.client.post("/v1/games/validate", json={"snapshot": self.snapshot, "move": jsonable(move)})
        assert v.status_code == 200 and v.json()["legal"] is False, v.text
        return [("problem", r.json()), ("validate", v.json())]


class Session:
    """One game through a hosted session, seen by ``viewer`` with every credential it may hold.

    A seat joins by invitation under a name (so the invitation code is probed as a bearer token too; its preview,
    read before joining, may show no card at all and no token, and once redeemed it previews nothing), reads its
    view, its legal moves with the bid box's reasons, validates a probe, asks for a hint whenever it is to act,
    makes its own moves without naming its seat, and reads its stream. The public is the host's token, the table
    host's token and a spectator token minted by the table host: each reads the view and the stream, and the
    spectator and the table host are refused every other operation that could show a card (the snapshot, the
    record of the unfinished game, legal moves, validation, hints)."""

    def __init__(self, client: httpx.AsyncClient, viewer: int | None) -> None:
        self.client = client
        self.viewer = viewer
        self.url = ""
        self.tokens: list[str] = []
        self.host = ""
        self.spectator = ""
        self.table_host = ""
        #: Versions the table's own changes added before the first move (the viewer's joining, which starts the
        #: game, or the spectator; the table host's pause and resume), and the events they logged.
        self.table_versions = 0
        #: The viewer's invitation and what its preview showed before the viewer joined.
        self.code = ""
        self.preview: dict[str, Any] | None = None
        self.table_events = 0

    def _auth(self, seat: int | None) -> dict[str, str]:
        return {"Authorization": "Bearer " + (self.host if seat is None else self.tokens[seat])}

    async def start(self, body: dict[str, Any]) -> Any:
        if self.viewer is not None:
            body = {**body, "open_seats": [self.viewer]}
        r = await self.client.post("/v1/sessions", json=body)
        assert r.status_code == 201, r.text
        created = r.json()
        self.url = f"/v1/sessions/{created['session_id']}"
        self.tokens, self.host = created["seat_tokens"], created["host_token"]
        self.table_host = created["table_host_token"]
        shown = {k: v for k, v in created.items()
                 if k not in ("host_token", "table_host_token", "seat_tokens", "session_id", "invitations")}
        if self.viewer is not None:
            code = created["invitations"][0]["code"]
            self.code = code
            refused = await self.client.get(self.url, headers={"Authorization": "Bearer " + code})
            assert refused.status_code == 401, refused.text
            # The invitation's preview, before joining: no card at all (checked by play_twins) and no token.
            r = await self.client.get(self.url + "/invitation", headers={"Authorization": "Bearer " + code})
            assert r.status_code == 200, r.text
            self.preview = {k: v for k, v in r.json().items() if k != "expires_in"}  # a second may pass
            tokens = [created["host_token"], created["table_host_token"], code, *filter(None, self.tokens)]
            assert not [t for t in tokens if t in r.text], "a token is in the invitation's preview"
            r = await self.client.post(self.url + "/join", json={"code": code, "name": "Ana"})
            assert r.status_code == 200, r.text
            self.tokens[self.viewer] = r.json()["seat_token"]
            shown["refused invitation"] = refused.json()
            shown["joined"] = {k: v for k, v in r.json().items() if k != "seat_token"}
        else:
            r = await self.client.post(self.url + "/spectators", json={},
                                       headers={"Authorization": "Bearer " + self.table_host})
            assert r.status_code == 201, r.text
            self.spectator = r.json()["spectator_token"]
        # The game's life: a seat's join that takes the last open seat starts the game (seat_joined, game_started);
        # the table host pauses it and resumes it. What is answered and logged names no card, whoever reads it.
        self.table_versions, self.table_events = 1, 2 if self.viewer is not None else 0
        table_host = {"Authorization": "Bearer " + self.table_host}
        r = await self.client.post(self.url + "/pause", json={}, headers=table_host)
        assert r.status_code == 200 and r.json()["status"] == "paused", r.text
        shown["paused"] = {k: v for k, v in r.json().items() if k != "session_id"}
        shown["paused view"] = (await self.client.get(self.url, headers=self._auth(self.viewer))).json()
        r = await self.client.post(self.url + "/resume", json={}, headers=table_host)
        assert r.status_code == 200 and r.json()["status"] == "running", r.text
        shown["resumed"] = {k: v for k, v in r.json().items() if k != "session_id"}
        self.table_versions += 2
        self.table_events += 2
        return shown

    async def look(self) -> list[tuple[str, Any]]:
        if self.viewer is None:
            out: list[tuple[str, Any]] = []
            spectator = {"Authorization": "Bearer " + self.spectator}
            table_host = {"Authorization": "Bearer " + self.table_host}
            for who, headers in (("host", self._auth(None)), ("spectator", spectator), ("table host", table_host)):
                out.append((f"{who} view", (await self.client.get(self.url, headers=headers)).json()))
            over = (await self.client.get(self.url, headers=table_host)).json()["view"]["phase"] == "game_over"
            for who, headers in (("spectator", spectator), ("table host", table_host)):
                for path, body in (("/legal-moves", None), ("/snapshot", None), ("/record", None),
                                   ("/validate", {"move": {"type": "pass"}}), ("/suggest", {}),
                                   ("?seat=0", None), ("/moves", {"move": {"type": "pass"}})):
                    r = await self.client.request("POST" if body is not None else "GET", self.url + path,
                                                  json=body, headers=headers)
                    if who == "table host" and path == "/record" and over:
                        assert r.status_code == 200, r.text  # the game is over: its record is everyone's
                    else:
                        assert r.status_code == 403, (who, path, r.text)
                    out.append((f"{who} {path}", r.json()))
            return out
        mine = self._auth(self.viewer)
        out = [("view", (await self.client.get(self.url, headers=mine)).json())]
        r = await self.client.get(self.url + "/legal-moves", headers=mine, params={"reasons": "true"})
        out.append(("legal-moves", r.json()))
        r = await self.client.post(self.url + "/validate", json={"move": {"type": "pass"}}, headers=mine)
        out.append(("validate", r.json()))
        r = await self.client.post(self.url + "/suggest", json={"level": "basic", "seed": 1}, headers=mine)
        out.append(("hint", r.json()))
        # The redeemed invitation previews nothing any more.
        r = await self.client.get(self.url + "/invitation", headers={"Authorization": "Bearer " + self.code})
        assert r.status_code == 409, r.text
        out.append(("redeemed invitation's preview", r.json()))
        return out

    async def move(self, move: Move) -> list[tuple[str, Any]]:
        body = jsonable(move)
        if move.seat == self.viewer:
            body = {k: v for k, v in body.items() if k != "seat"}  # the token fixes the seat
        r = await self.client.post(self.url + "/moves", json={"move": body}, headers=self._auth(move.seat))
        assert r.status_code == 200, r.text
        return [("move answer", r.json())] if move.seat == self.viewer else []

    async def probe(self, move: Move) -> list[tuple[str, Any]]:
        r = await self.client.post(self.url + "/moves", json={"move": jsonable(move)}, headers=self._auth(move.seat))
        assert r.status_code == 422, r.text
        v = await self.client.post(self.url + "/validate", json={"move": jsonable(move)},
                                   headers=self._auth(move.seat))
        assert v.status_code == 200 and v.json()["legal"] is False, v.text
        return [("problem", r.json()), ("validate probe", v.json())]

    async def stream(self, count: int) -> list[Any]:
        readers = [self._auth(self.viewer)]
        if self.viewer is None:
            readers.append({"Authorization": "Bearer " + self.spectator})
            readers.append({"Authorization": "Bearer " + self.table_host})
        out: list[Any] = []
        for headers in readers:
            events, _ = await read_stream(self.client, self.url + "/events", headers=headers, count=count,
                                          timeout=10)
            out += [(e.id, e.event, e.data) for e in events]
        return out


@dataclass
class Twin:
    api: Stateless | Session
    state: GameState
    received: Received = field(default_factory=Received)
    #: Per session version: the allowed tokens for its events (before and from a new deal, and the split).
    allowed_by_version: dict[int, tuple[set[str], set[str]]] = field(default_factory=dict)
    log_length: int = 0
    #: How many of the received items the twins share a meaning for: once a swapped card becomes known to the
    #: viewer (played, exposed, shown, taken into its hand), what follows may rightly differ.
    comparable: int | None = None


async def play_twins(client: httpx.AsyncClient, case: Case, viewer: int | None, kind: str,
                     rng: random.Random) -> tuple[Twin, Twin, tuple[str, str], int]:
    """Play the twin games of ``case`` for ``viewer`` through ``kind``; everything each viewer received."""
    dealer = rng.randrange(case.players)
    deck, other, swapped = twin_decks(case, rng, viewer, dealer)
    opts = resolve_options(case.players, None, case.options)
    pack = frozenset(pack_for(opts))
    twins: list[Twin] = []
    for d in (deck, other):
        body = {"players": case.players, "options": case.options, "seed": case.seed, "deck_orders": [d],
                "first_dealer": dealer, **({} if kind == "stateless" else {"known_deal": True})}
        state, events = new_game(opts, seed=case.seed, deck_orders=[d], first_dealer=dealer)
        api: Stateless | Session = Stateless(client, viewer) if kind == "stateless" else Session(client, viewer)
        t = Twin(api, state)
        knowledge = Knowledge(state)
        t.allowed_by_version[1] = (knowledge.of(viewer), knowledge.of(viewer))
        t.log_length = len(events)
        t.received.add("created", await api.start(body), knowledge.of(viewer), pack)
        if isinstance(api, Session) and api.preview is not None:
            t.received.add("invitation preview", api.preview, set(), pack)  # no card at all, not even the seat's
        t.knowledge = knowledge  # type: ignore[attr-defined]
        added = api.table_versions if isinstance(api, Session) else 0
        for v in range(2, 2 + added):  # the table's changes (joining, a spectator): no card moves
            t.allowed_by_version[v] = t.allowed_by_version[1]
        t.log_length += api.table_events if isinstance(api, Session) else 0  # a spectator logs nothing
        twins.append(t)
    a, b = twins
    first_hand = a.state.hand_number
    steps = 0
    version = 1 + (a.api.table_versions if isinstance(a.api, Session) else 0)
    while steps < MAX_STEPS:
        for t in twins:
            k: Knowledge = t.knowledge  # type: ignore[attr-defined]
            for what, value in await t.api.look():
                t.received.add(what, value, k.of(viewer) | k.named(t.state), pack)
                expected = partner_expectation(t.state, viewer)
                shown = value.get("view", value) if what == "view" else None
                if shown is not None and expected is not None and shown["contract"] is not None:
                    got = (shown["contract"]["partners_known"], shown["contract"]["partners"])
                    if got != expected:
                        t.received.leaks.append(f"partners {got} where the rules say {expected}")
            if viewer is not None and (probe := probe_for(t.state, viewer)) is not None:
                for what, value in await t.api.probe(probe):
                    t.received.add(what, value, k.of(viewer) | k.named(t.state) | card_tokens(jsonable(probe), pack),
                                   pack)
        move = choose(case, a.state, b.state, rng, swapped)
        if move is None:
            break
        version += 1
        for t in twins:
            t.comparable = len(t.received.items)
        for t in twins:
            k = t.knowledge  # type: ignore[attr-defined]
            before = k.of(viewer) | k.named(t.state) | ({move.card} if isinstance(move, Play) else set())
            try:
                t.state, events = apply_move(t.state, move)
            except IllegalMove as exc:  # choose() only picks moves legal in both
                raise AssertionError(exc) from None
            k.observe(t.state)
            after = k.of(viewer) | k.named(t.state)
            t.allowed_by_version[version] = (before, after)
            t.log_length += len(events)
            split = next((i for i, e in enumerate(events) if isinstance(e, HandDealt)), len(events))
            for what, value in await t.api.move(move):
                allowed = after if split == len(events) else before | after
                if split < len(events) and what in ("events", "move answer"):
                    evs = value["events"] if what == "move answer" else value
                    for i, e in enumerate(evs):
                        t.received.add(f"{what}[{i}]", e, before if i < split else after, pack)
                    rest = {k2: v for k2, v in value.items() if k2 != "events"} if isinstance(value, dict) else None
                    if rest is not None:
                        t.received.add(what, rest, after, pack)
                    continue
                t.received.add(what, value, allowed, pack)
        steps += 1
        known = [t.knowledge.of(viewer) for t in twins]  # type: ignore[attr-defined]
        if any(c in k for c in swapped for k in known):
            break  # a swapped card is now known to the viewer: the twins may rightly differ from here on
        for t in twins:
            t.comparable = None
        if a.state.hand_number != first_hand or a.state.to_act is None:
            break  # the next hands are dealt from the same seed in both twins
    if kind == "session":
        for t in twins:
            assert isinstance(t.api, Session)
            for frame_id, name, data in await t.api.stream(t.log_length):
                v = int(frame_id.split("-")[0])
                before, after = t.allowed_by_version[v]
                t.received.add(f"frame {frame_id}", {"event": name, "data": data}, before | after, pack)
    return a, b, swapped, steps


def _viewers(players: int, rng: random.Random) -> list[int | None]:
    """The public and two seats (each case draws its dealer per viewer, so over the cases every seat is the
    first bidder, its neighbour and the rest)."""
    return [PUBLIC, *rng.sample(range(players), 2)]


@pytest.fixture
async def api_url() -> AsyncIterator[str]:
    """The service's own app (in-process session store), served by uvicorn in this process; access lines
    off (hundreds of requests per game)."""
    app = create_app(Settings(log_level="WARNING"))
    async with serve_in_process(app) as url:
        yield url


async def _check(case: Case, kind: str, url: str) -> None:
    rng = random.Random(f"{case.name}/{kind}")
    problems: list[str] = []
    compared = 0
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        for viewer in _viewers(case.players, rng):
            a, b, swapped, steps = await play_twins(client, case, viewer, kind, rng)
            compared += steps
            who = "public" if viewer is None else f"seat {viewer}"
            for twin in (a, b):
                problems += [f"{who}: {leak}" for leak in twin.received.leaks]
            items_a, items_b = a.received.items[:a.comparable], b.received.items[:b.comparable]
            for (what_a, value_a), (what_b, value_b) in zip(items_a, items_b, strict=False):
                if what_a != what_b or _normalized(value_a) != _normalized(value_b):
                    problems.append(f"{who}, {swapped[0]} and {swapped[1]} swapped: {what_a} differs:\n"
                                    f"  {_normalized(value_a)}\n  {_normalized(value_b)}")
                    break
            if len(items_a) != len(items_b):
                problems.append(f"{who}: the twins received {len(items_a)} and {len(items_b)} things")
    assert compared > 0
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_stateless_api_shows_each_viewer_only_what_it_may_know(case: Case, api_url: str) -> None:
    await _check(case, "stateless", api_url)


SESSION_CASES = [c for c in CASES if c.name in ("4p-nt-joker", "2p-blind-misere", "2p-blind-thrown-in",
                                                 "5p-sans-kitty-called-in-kitty", "6p-three-teams")]


@pytest.mark.parametrize("case", SESSION_CASES, ids=[c.name for c in SESSION_CASES])
async def test_sessions_and_streams_show_each_viewer_only_what_it_may_know(case: Case, api_url: str) -> None:
    await _check(case, "session", api_url)


# ------------------------------------------------------------------------------ refusals and snapshots


async def test_a_refusal_lists_only_the_movers_own_legal_moves(api_url: str) -> None:
    """An illegal move's problem (apply, validate, session move) lists the mover's legal moves: none when it is
    not its turn, never the seat to act's (they would show that seat's cards)."""
    opts = resolve_options(4, None, {})
    state, _ = new_game(opts, seed=3, first_dealer=3)
    for move in (Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)):
        state, _ = apply_move(state, move)
    while state.phase != "play":
        state, _ = apply_move(state, legal_moves(state)[0])
    actor = state.to_act
    assert actor is not None
    other = (actor + 1) % 4
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as client:
        body = {"players": 4, "seed": 3, "first_dealer": 3}
        created = (await client.post("/v1/games", json=body)).json()
        session = (await client.post("/v1/sessions", json={**body, "known_deal": True})).json()
        snapshot = created["snapshot"]
        replay, _ = new_game(opts, seed=3, first_dealer=3)
        moves: list[Move] = []
        while replay != state:
            m = ([Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)][len(moves)]
                 if len(moves) < 4 else legal_moves(replay)[0])
            moves.append(m)
            replay, _ = apply_move(replay, m)
        for m in moves:
            r = await client.post("/v1/games/apply", json={"snapshot": snapshot, "move": jsonable(m)})
            snapshot = r.json()["snapshot"]
            s = await client.post(f"/v1/sessions/{session['session_id']}/moves", json={"move": jsonable(m)},
                                  headers={"Authorization": "Bearer " + session["seat_tokens"][m.seat]})
            assert s.status_code == 200, s.text
        out_of_turn = Play(seat=other, card=state.hands[other][0])
        wrong_card = next((Play(seat=actor, card=c) for c in state.hands[actor]
                           if Play(seat=actor, card=c) not in legal_moves(state)), None)
        for move, expected in ((out_of_turn, []), *(((wrong_card, legal_moves(state, actor)),) if wrong_card else ())):
            want = jsonable(expected)
            r = await client.post("/v1/games/apply", json={"snapshot": snapshot, "move": jsonable(move)})
            assert r.status_code == 422 and r.json()["legal_moves"] == want, r.text
            v = await client.post("/v1/games/validate", json={"snapshot": snapshot, "move": jsonable(move)})
            assert v.json()["legal"] is False and v.json()["legal_moves"] == want, v.text
            s = await client.post(f"/v1/sessions/{session['session_id']}/moves", json={"move": jsonable(move)},
                                  headers={"Authorization": "Bearer " + session["seat_tokens"][move.seat]})
            assert s.status_code == 422 and s.json()["legal_moves"] == want, s.text
        assert wrong_card is None or legal_moves(state, actor)  # the to-act case was exercised when possible
        assert state.hands[actor][0] not in card_tokens(
            (await client.post("/v1/games/validate", json={"snapshot": snapshot,
                                                           "move": jsonable(out_of_turn)})).json(),
            frozenset(pack_for(opts)))


def test_a_state_nested_beyond_any_real_one_is_corrupt_not_an_error() -> None:
    """A state nested 100,000 deep, sealed under the service's own key (only an insider could), is a 422."""
    import os

    from litestar.testing import TestClient

    from service.app import create_app
    from service.config import Settings
    from service.referee.snapshots import Sealer, _b64e, _compressor, key_id

    key = Sealer.generate_key()
    state, _ = new_game(Options(), seed=1)
    fields = msgspec.to_builtins(state)
    items = [msgspec.msgpack.encode(k) + msgspec.msgpack.encode(v) for k, v in fields.items()]
    items.append(msgspec.msgpack.encode("extra") + b"\x91" * 100_000 + b"\xc0")
    raw = bytes([0xDE]) + len(items).to_bytes(2, "big") + b"".join(items)
    frame = _compressor().compress(raw)
    for version, plain in (("v1", frame), ("v2", len(frame).to_bytes(2, "big") + frame)):
        nonce = os.urandom(12)
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        sealed = AESGCM(key).encrypt(nonce, plain, f"{version}.{key_id(key)}".encode())
        snapshot = f"{version}.{key_id(key)}.{_b64e(nonce + sealed)}"
        with TestClient(create_app(Settings(snapshot_keys=(key,)))) as client:
            r = client.post("/v1/games/view", json={"snapshot": snapshot})
            assert r.status_code == 422 and r.json()["code"] == "SNAPSHOT_CORRUPT", r.text
