"""Examples for the OpenAPI document, computed from a real seeded game so they always match the engine.

The game is deterministic (seed 42, dealer 3; seat 0 bids 7H, the others pass, the contractor discards, five
cards are played), so the committed document is reproducible. Snapshots in examples have the real format
(``v2.<key id>.<payload>``) but a placeholder payload under a key id no service holds: sending one back is
answered ``SNAPSHOT_UNKNOWN_KEY``.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import msgspec
from litestar.openapi.spec import Example

from engine import (
    Bid,
    Event,
    GameState,
    Move,
    Options,
    Pass,
    Play,
    apply_move,
    check_move,
    legal_moves,
    new_game,
    redact_events,
    view,
)
from service.games.schemas import (
    ApplyResponse,
    CreateGameResponse,
    GameView,
    LegalMovesResponse,
    ValidateResponse,
    ViewWithEvents,
)
from service.referee.schemas import discard_choice, resolved

_DOC_KEY_ID = "d0c5e3a1"


def snapshot_placeholder(state: GameState) -> str:
    """A snapshot-shaped placeholder for ``state`` (deterministic, about as long as a real one)."""
    digest = hashlib.sha256(msgspec.msgpack.encode(state)).digest()
    payload = b"".join(hashlib.sha256(digest + bytes([i])).digest() for i in range(14))
    return f"v2.{_DOC_KEY_ID}." + base64.urlsafe_b64encode(payload).rstrip(b"=").decode()


def _json(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


def _views(state: GameState, events: list[Event], seat: int) -> list[ViewWithEvents]:
    return [ViewWithEvents(seat=seat, view=view(state, seat), events=redact_events(events, seat))]


def _game() -> dict[str, Any]:
    opts = Options()
    start, start_events = new_game(opts, seed=42, first_dealer=3)
    state = start
    script: list[Move] = [Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)]
    for move in script:
        state, _ = apply_move(state, move)
    applied = len(script)
    exchange = state
    while state.phase != "play":  # the contractor's exchange (and nomination, if any): the first legal choice
        state, _ = apply_move(state, legal_moves(state)[0])
        applied += 1
    for _ in range(5):
        state, _ = apply_move(state, legal_moves(state)[0])
        applied += 1
    seat = state.to_act
    assert seat is not None
    legal = legal_moves(state)
    illegal: Move = Play(seat=(seat + 1) % 4, card=state.hands[(seat + 1) % 4][0])
    for card in state.hands[seat]:
        candidate = Play(seat=seat, card=card)
        rejection = check_move(state, candidate)
        if rejection is not None and rejection.reason == "MUST_FOLLOW_SUIT":
            illegal = candidate
            break
    rejection = check_move(state, illegal)
    assert rejection is not None
    after, after_events = apply_move(state, legal[0])
    return {"opts": opts, "start": start, "exchange": exchange, "start_events": start_events, "state": state,
            "legal": legal, "illegal": illegal, "rejection": rejection, "after": after, "after_events": after_events,
            "seat": seat, "version": 1 + applied}


_G = _game()
#: The example game (states, moves and events), for the hosted sessions' examples too.
GAME: dict[str, Any] = _G
_START: GameState = _G["start"]
_STATE: GameState = _G["state"]
_SEAT: int = _G["seat"]
_LEGAL: list[Move] = _G["legal"]

CREATE_REQUESTS = [
    Example(summary="Seeded four-player game",
            description="Standard Australian rules, dealer seat 3; also return seat 0's view.",
            value={"players": 4, "preset": "australian", "seed": 42, "first_dealer": 3, "views": [0]}),
    Example(summary="House rules",
            description="Five players, a preset plus option overrides; the service draws the seed.",
            value={"players": 5, "preset": "beagle", "views": [None],
                   "options": {"five_player_partner_method": "choose_player", "target": 300}}),
]
CREATE_RESPONSE = ("Seeded four-player game", _json(CreateGameResponse(
    snapshot=snapshot_placeholder(_START), rules_version=_START.rules_version, options=resolved(_G["opts"]),
    phase=_START.phase, to_act=_START.to_act, events=redact_events(_G["start_events"], None),
    views=_views(_START, _G["start_events"], 0))))

VIEW_REQUESTS = [
    Example(summary="Seat view", value={"snapshot": snapshot_placeholder(_STATE), "seat": _SEAT}),
    Example(summary="Public view", value={"snapshot": snapshot_placeholder(_STATE), "seat": None}),
]
VIEW_RESPONSE = (f"Seat {_SEAT} during play", _json(GameView(seat=_SEAT, view=view(_STATE, _SEAT))))

_EXCHANGE: GameState = _G["exchange"]
LEGAL_MOVES_REQUESTS = [
    Example(summary="Moves of the seat to act", value={"snapshot": snapshot_placeholder(_STATE)}),
    Example(summary="The exchange, compactly",
            description="The contractor's discards as the cards and how many to choose, not every choice.",
            value={"snapshot": snapshot_placeholder(_EXCHANGE), "list_discards": False}),
]
LEGAL_MOVES_RESPONSES = (
    ("During play", _json(LegalMovesResponse(seat=_SEAT, to_act=_STATE.to_act, legal_moves=list(_LEGAL)))),
    ("The exchange, compactly", _json(LegalMovesResponse(
        seat=_EXCHANGE.to_act, to_act=_EXCHANGE.to_act, legal_moves=[],
        discard_choice=discard_choice(legal_moves(_EXCHANGE))))),
)

VALIDATE_REQUESTS = [
    Example(summary="A legal move", value={"snapshot": snapshot_placeholder(_STATE), "move": _json(_LEGAL[0])}),
    Example(summary="An illegal move", value={"snapshot": snapshot_placeholder(_STATE), "move": _json(_G["illegal"])}),
]
VALIDATE_RESPONSES = (
    ("Legal", _json(ValidateResponse(legal=True))),
    ("Illegal", _json(ValidateResponse(legal=False, reason=_G["rejection"].reason,
                                       detail=_G["rejection"].detail,
                                       legal_moves=list(legal_moves(_STATE, _G["illegal"].seat))))),
)

APPLY_REQUESTS = [
    Example(summary="Play a card", value={"snapshot": snapshot_placeholder(_STATE), "move": _json(_LEGAL[0]),
                                          "views": [_SEAT]}),
]
APPLY_RESPONSE = ("Card played", _json(ApplyResponse(
    snapshot=snapshot_placeholder(_G["after"]), phase=_G["after"].phase, to_act=_G["after"].to_act,
    events=redact_events(_G["after_events"], None), views=_views(_G["after"], _G["after_events"], _SEAT))))
