"""Examples for the sessions' operations in the OpenAPI document: the game of :mod:`service.referee.examples` (seed 42,
dealer 3) as a hosted session, created at version 1 and seen during play. Session ids and tokens are
placeholders of the real length and alphabet.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import msgspec
from litestar.openapi.spec import Example

from bots import decide
from engine import GameState, Move, Pass, legal_moves, redact_events, view
from engine.reasons import Reason
from service.referee import operations
from service.referee.examples import GAME, snapshot_placeholder
from service.referee.schemas import resolved
from service.referee.suggestions import SuggestResponse
from service.sessions.schemas import (
    GameResultView,
    InvitationIssued,
    InvitationPreview,
    Joined,
    LoggedSessionEvent,
    MoveApplied,
    NextGame,
    SeatChanged,
    SeatInfo,
    SeatNameSet,
    SeatTokenIssued,
    SeriesView,
    SessionCreated,
    SessionEnded,
    SessionEvents,
    SessionLegalMoves,
    SessionLife,
    SessionSnapshot,
    SessionState,
    SessionValidation,
    SpectatorCreated,
    WebhookCreated,
    WebhookInfo,
    WebhookList,
)
from service.sessions.store import LoggedEvent
from service.sessions.streams import event_frame, shown
from service.sessions.table import MAX_SPECTATORS

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
    Example(summary="New seeded game", description="Australian rules, dealer seat 3, dealt from a seed that the "
                                                   "players may know (`known_deal`: whoever knows a seed knows "
                                                   "every hand; without one the service deals in secret).",
            value={"players": 4, "preset": "australian", "seed": 42, "first_dealer": 3, "known_deal": True}),
    Example(summary="A match of three games",
            description="Three games at the same seats, a running match score, the next game begun once every "
                        "player asked for it; two seats are the service's bots.",
            value={"players": 4, "bots": {"1": "basic", "3": "basic"}, "series": {"games": 3, "start": "seats"}}),
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
SESSION_MOVE_REQUESTS = [
    Example(summary="Play a card", description="The token fixes the seat: the move need not name it.",
            value={"move": {k: v for k, v in _json(_LEGAL[0]).items() if k != "seat"}}),
    Example(summary="Play a card, naming the seat", value={"move": _json(_LEGAL[0])}),
]
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


def _caught_up() -> Any:
    """Seat 0 catches up with the creation's first two events."""
    events = [LoggedEvent(1, i, e) for i, e in enumerate(GAME["start_events"])]
    first = GAME["start"].to_act
    return _json(SessionEvents(session_id=SESSION_ID, version=1, complete=True, events=[
        LoggedSessionEvent(id=f"{e.version}-{e.seq}", version=e.version, to_act=first, event=shown(e, 0))
        for e in events[:2]]))


CAUGHT_UP = ("Seat 0, from the start", _caught_up())


def _validation() -> Any:
    """A seat not to act asks about a pass at the start of the auction."""
    seat = (_START.to_act or 0) + 1
    rejection = operations.validate(_START, Pass(seat=seat))
    assert rejection is not None
    return _json(SessionValidation(session_id=SESSION_ID, version=1, seat=seat, legal=False,
                                   reason=Reason(rejection.reason), detail=rejection.detail,
                                   legal_moves=operations.movers_legal_moves(_START, seat)))


SESSION_VALIDATE_REQUESTS = [Example(summary="A pass", value={"move": {"type": "pass"}})]
SESSION_VALIDATION = ("Not this seat's turn", _validation())
SESSION_SUGGEST_REQUESTS = [Example(summary="Expert hint", value={"level": "expert", "seed": 7, "budget": 48}),
                            Example(summary="Basic hint", value={})]


def _suggestion() -> Any:
    seat = _STATE.to_act
    assert seat is not None
    decision = decide(view(_STATE, seat), _STATE.options, level="basic", seed=7, legal=legal_moves(_STATE, seat))
    return _json(SuggestResponse(seat=seat, level="basic", seed=7, move=decision.move))


SESSION_SUGGESTION = ("Basic hint", _suggestion())
SPECTATOR_CREATED = ("Minted", _json(SpectatorCreated(session_id=SESSION_ID, spectator_token=_token("spectator"),
                                                      spectators=1, max_spectators=MAX_SPECTATORS)))
WEBHOOK_CREATED = ("Registered for the public's events", _json(WebhookCreated(
    session_id=SESSION_ID, version=4, webhook_id="wh_Q2hvb3NlIGEgY2Fy", url="https://hooks.example.com/five-hundred",
    seat=None, events=[], secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7qMhY3yBOvU=")))
WEBHOOK_LIST = ("One webhook, delivered to", _json(WebhookList(session_id=SESSION_ID, version=12, webhooks=[
    WebhookInfo(webhook_id="wh_Q2hvb3NlIGEgY2Fy", url="https://hooks.example.com/five-hundred", seat=None,
                events=[], since=4, delivered="12-0", attempts=0, failing_since=None)])))
JOINED = ("Joined", _json(Joined(session_id=SESSION_ID, version=3, seat=2, seat_token=_token("seat 2"), name="Ana")))
NEXT_GAME = ("The second game of a match", _json(NextGame(
    session_id=SESSION_ID, version=58, started=True, series=SeriesView(
        game=2, match=1, match_game=2, games=3, score=[1, 0],
        results=[GameResultView(match_game=1, winners=[0], scores=[510, 160])], match_over=False, start="host",
        continues=True, asked=[], waiting=[]))))
SEAT_LEFT = ("Left, a bot plays on", _json(SeatChanged(session_id=SESSION_ID, version=9, seat=2, now="bot")))
SEAT_TOKEN_ISSUED = ("Reissued", _json(SeatTokenIssued(session_id=SESSION_ID, version=9, seat=2,
                                                       seat_token=_token("seat 2 again"))))
GAME_STARTED = ("Started", _json(SessionLife(session_id=SESSION_ID, version=4, status="running")))
GAME_PAUSED = ("Paused", _json(SessionLife(session_id=SESSION_ID, version=12, status="paused")))
GAME_RESUMED = ("Resumed", _json(SessionLife(session_id=SESSION_ID, version=13, status="running")))
GAME_CALLED_OFF = ("Called off", _json(SessionLife(session_id=SESSION_ID, version=3, status="ended",
                                                   ended=SessionEnded(how="called_off", version=3))))
GAME_ABANDONED = ("Abandoned", _json(SessionLife(session_id=SESSION_ID, version=40, status="ended",
                                                 ended=SessionEnded(how="abandoned", by=[2], version=40))))
SEAT_NAMED = ("Named", _json(SeatNameSet(session_id=SESSION_ID, version=4, seat=1, name="Bo")))
SEAT_TO_BOT = ("Handed to a bot", _json(SeatChanged(session_id=SESSION_ID, version=9, seat=2, now="bot")))
SEAT_OPENED = ("Opened", _json(SeatChanged(session_id=SESSION_ID, version=9, seat=2, now="open",
                                           invitation=InvitationIssued(seat=2, code="ZCvrg8Jp0nBfWQd3VhXy1a2b",
                                                                       expires_in=86_400))))
INVITATION_PREVIEW = ("An invitation to seat 2", _json(InvitationPreview(
    session_id=SESSION_ID, seat=2, expires_in=86_200, host_name="Ana", players=4, options=resolved(_START.options),
    rules_version=_START.rules_version,
    seats=[SeatInfo(seat=0, kind="human", name="Ana"), SeatInfo(seat=1, kind="bot", level="basic"),
           SeatInfo(seat=2, kind="open"), SeatInfo(seat=3, kind="bot", level="basic")],
    sides=[[0, 2], [1, 3]], phase=_START.phase, hand_number=0, scores=[0, 0], hints=True, on_leave="wait",
    leave_level="basic")))
