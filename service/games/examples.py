"""Examples of the stateless API for the OpenAPI document: the example game of :mod:`service.referee.examples`
(so they always match the engine), as each operation's request and answer."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.openapi.spec import Example

from engine import (
    Event,
    GameState,
    Move,
    legal_moves,
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
from service.referee.examples import GAME, snapshot_placeholder
from service.referee.schemas import discard_choice, resolved


def _json(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


def _views(state: GameState, events: list[Event], seat: int) -> list[ViewWithEvents]:
    return [ViewWithEvents(seat=seat, view=view(state, seat), events=redact_events(events, seat))]



_G = GAME
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
