"""Request and response bodies of the hosted sessions (``/v1/sessions``): frozen msgspec Structs, so the OpenAPI
schema is exact. A new game's settings are the stateless API's (the shared vocabulary of
:mod:`service.referee.schemas`, one strict decoding for both APIs); the engine's moves, events and views travel
unchanged.
"""

from __future__ import annotations

import msgspec

from bots import Level
from engine import Event, Move, SeatView
from engine.model import Phase
from service.referee.schemas import (
    DeckOrders,
    OptionOverrides,
    PlayerCount,
    PresetName,
    ResolvedOptions,
    Seat,
    Seed,
    Snapshot,
)
from service.sessions.clock import ClockOptions, ClockView, SessionEvent

__all__ = ["CreateSessionRequest", "MoveApplied", "MoveRequest", "SessionCreated", "SessionLegalMoves",
           "SessionSnapshot", "SessionState", "StreamEnd", "StreamEvent"]

# ------------------------------------------------------------------------------------------------ requests


class CreateSessionRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Either a new game (``players`` and the rest, exactly as for createGame) or a sealed ``snapshot``."""

    players: PlayerCount | None = None
    preset: PresetName | None = None
    options: OptionOverrides | None = None
    seed: Seed | None = None
    deck_orders: DeckOrders | None = None
    first_dealer: Seat | None = None
    snapshot: Snapshot | None = None
    #: Seats the service plays, by seat number: ``{"1": "expert", "2": "basic"}`` (at least one seat is human;
    #: a bot seat gets no token).
    bots: dict[str, Level] | None = None
    #: A turn clock: each move's time limit, a reserve per seat, and the bot level that moves for a seat whose
    #: time ran out (none: no clock).
    clock: ClockOptions | None = None


class MoveRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A move for the token's seat (``move.seat`` must be that seat)."""

    move: Move


# ----------------------------------------------------------------------------------------------- responses


class SessionCreated(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    host_token: str
    #: One bearer token per seat, indexed by seat (``null`` for a seat the service's bots play).
    seat_tokens: list[str | None]
    options: ResolvedOptions
    rules_version: str
    phase: Phase
    to_act: int | None
    #: Seconds of inactivity (no change) after which the session is gone.
    expires_in: int
    #: The seats the service plays, and at which level.
    bots: dict[str, str] = msgspec.field(default_factory=dict)
    #: The turn clock (``null``: none): who is on it and their deadline.
    clock: ClockView | None = None


class SessionState(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    #: The seat whose view this is; ``null`` for the host's public view.
    seat: int | None
    view: SeatView
    #: The turn clock (``null``: none): who is on it and their deadline.
    clock: ClockView | None = None


class SessionLegalMoves(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    seat: int
    legal_moves: list[Move]
    #: The turn clock (``null``: none): who is on it and their deadline.
    clock: ClockView | None = None


class MoveApplied(msgspec.Struct, kw_only=True):
    version: int
    phase: Phase
    to_act: int | None
    #: The events the move caused, redacted for the mover's seat.
    events: list[Event]
    view: SeatView
    #: The turn clock after this move (``null``: none): who is on it and their deadline.
    clock: ClockView | None = None


class SessionSnapshot(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    snapshot: str


class StreamEvent(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The ``data`` of one event-stream message: the event as the reader's seat may see it, the session version
    it belongs to, and the seat to act once that version's move is complete (``null``: nobody, e.g. game over)
    and, in a session with a turn clock, when that seat must have moved."""

    version: int
    to_act: int | None
    event: SessionEvent
    #: When ``to_act`` must have moved (RFC 3339, UTC, milliseconds): present in a session with a turn clock
    #: while the clock runs (absent otherwise).
    deadline: str | None = None


class StreamEnd(msgspec.Struct, kw_only=True):
    """The ``data`` of the final ``end`` event: the game is over and every event was sent."""

    version: int
    to_act: None = None
