"""Examples for the sessions' operations in the OpenAPI document: the game of :mod:`service.games.examples` (seed 42,
dealer 3) as a hosted session, created at version 1 and seen during play. Session ids and tokens are
placeholders of the real length and alphabet.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import msgspec
from litestar.openapi.spec import Example

from engine import GameState, Move, redact_events, view
from service.games.examples import GAME, snapshot_placeholder
from service.referee.schemas import resolved
from service.sessions.schemas import MoveApplied, SessionCreated, SessionLegalMoves, SessionSnapshot, SessionState
from service.sessions.store import LoggedEvent
from service.sessions.streams import event_frame

_START: GameState = GAME["start"]
_STATE: GameState = GAME["state"]
_SEAT: int = GAME["seat"]
_LEGAL: list[Move] = GAME["legal"]


def _json(obj: Any) -> Any:
    return msgspec.to_builtins(obj)


_VERSION: int = GAME["version"]
SESSION_ID = "q0Jd3rXyFh2mJZ9KkQ7aLw"


def _token(name: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(name.encode()).digest()).rstrip(b"=").decode()


CREATE_SESSION_REQUESTS = [
    Example(summary="New seeded game", description="Australian rules, dealer seat 3.",
            value={"players": 4, "preset": "australian", "seed": 42, "first_dealer": 3}),
    Example(summary="From a kept snapshot",
            description="Recreate a session (e.g. one that expired) from the snapshot its host exported.",
            value={"snapshot": snapshot_placeholder(_STATE)}),
]
SESSION_CREATED = ("New seeded game", _json(SessionCreated(
    session_id=SESSION_ID, version=1, host_token=_token("host"), seat_tokens=[_token(f"seat {i}") for i in range(4)],
    options=resolved(_START.options), rules_version=_START.rules_version, phase=_START.phase,
    to_act=_START.to_act, expires_in=86_400)))
SESSION_STATE = (f"Seat {_SEAT} during play", _json(SessionState(
    session_id=SESSION_ID, version=_VERSION, seat=_SEAT, view=view(_STATE, _SEAT))))
SESSION_LEGAL_MOVES = ("During play", _json(SessionLegalMoves(
    session_id=SESSION_ID, version=_VERSION, seat=_SEAT, legal_moves=_LEGAL)))
SESSION_MOVE_REQUESTS = [Example(summary="Play a card", value={"move": _json(_LEGAL[0])})]
MOVE_APPLIED = ("Card played", _json(MoveApplied(
    version=_VERSION + 1, phase=GAME["after"].phase, to_act=GAME["after"].to_act,
    events=redact_events(GAME["after_events"], _SEAT), view=view(GAME["after"], _SEAT))))
SESSION_SNAPSHOT = ("Exported", _json(SessionSnapshot(session_id=SESSION_ID, version=_VERSION,
                                                      snapshot=snapshot_placeholder(_STATE))))


def _event_stream() -> str:
    """Seat 0's stream of a new session: the retry hint, then the creation's events (redacted for seat 0)."""
    events = [LoggedEvent(1, i, e) for i, e in enumerate(GAME["start_events"])]
    first = GAME["start"].to_act
    return (b"retry: 1000\n\n" + b"".join(event_frame(e, 0, first) for e in events[:2])).decode()


EVENT_STREAM = ("Seat 0, from the start", _event_stream())
