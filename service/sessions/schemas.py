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


class SessionState(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    #: The seat whose view this is; ``null`` for the host's public view.
    seat: int | None
    view: SeatView


class SessionLegalMoves(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    seat: int
    legal_moves: list[Move]


class MoveApplied(msgspec.Struct, kw_only=True):
    version: int
    phase: Phase
    to_act: int | None
    #: The events the move caused, redacted for the mover's seat.
    events: list[Event]
    view: SeatView


class SessionSnapshot(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    snapshot: str


class StreamEvent(msgspec.Struct, kw_only=True):
    """The ``data`` of one event-stream message: the event as the reader's seat may see it, the session version
    it belongs to, and the seat to act once that version's move is complete (``null``: nobody, e.g. game over)."""

    version: int
    to_act: int | None
    event: Event


class StreamEnd(msgspec.Struct, kw_only=True):
    """The ``data`` of the final ``end`` event: the game is over and every event was sent."""

    version: int
    to_act: None = None
