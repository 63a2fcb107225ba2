"""Request and response bodies of the hosted sessions (``/v1/sessions``): frozen msgspec Structs, so the OpenAPI
schema is exact. A new game's settings are the stateless API's (the shared vocabulary of
:mod:`service.referee.schemas`, one strict decoding for both APIs); the engine's moves, events and views travel
unchanged.
"""

from __future__ import annotations

import msgspec
from litestar.exceptions import ValidationException

from bots import Level
from engine import Event, Move, SeatView
from engine.reasons import Reason
from engine.model import Phase
from service.games.suggest import BotSeed, Budget
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
from service.web.struct_dto import decode_request

__all__ = ["CreateSessionRequest", "CreateSpectatorRequest", "MoveApplied", "MoveRequest", "OWN_SEAT", "RawMoveRequest", "SessionCreated",
           "SessionLegalMoves", "SessionSnapshot", "SessionState", "SessionSuggestRequest", "SessionValidation",
           "SpectatorCreated", "StreamEnd", "StreamEvent", "UnavailableMove", "decode_move_request"]

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
    #: Whether the seats may ask for hints (``POST /v1/sessions/{id}/suggest``); ``false``: 403 ``HINTS_OFF``.
    hints: bool = True


class CreateSpectatorRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Mint a spectator token (the body is an empty object: every POST of this API takes a JSON body)."""


class SessionSuggestRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask for a hint: a computer player's move for the token's seat, decided from that seat's view alone."""

    level: Level = "basic"
    seed: BotSeed | None = None
    budget: Budget | None = None


class MoveRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A move for the token's seat. ``move.seat`` may be left out (the token fixes the seat); if given, it must
    be the token's seat (403 ``WRONG_SEAT``)."""

    move: Move


class RawMoveRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A session move's body before its move is decoded (:func:`decode_move_request`)."""

    move: msgspec.Raw


#: The seat of a session move that named none: the token's (no JSON number decodes to it).
OWN_SEAT = 1 << 64


def _missing_seat(exc: ValidationException) -> bool:
    extra = exc.extra
    return (isinstance(extra, list) and len(extra) == 1 and extra[0].get("key") == "move"
            and extra[0].get("message") == "Object missing required field `seat`")


def decode_move_request(body: bytes) -> MoveRequest:
    """A session move's body, strictly decoded; a move without ``seat`` gets :data:`OWN_SEAT` (the service puts
    the token's seat there). Errors are those of any body (:func:`~service.web.struct_dto.decode_request`)."""
    try:
        return decode_request(MoveRequest, body)
    except ValidationException as exc:
        if not _missing_seat(exc):
            raise
    document = msgspec.json.decode(body)  # it is JSON: only the move's seat was missing
    document["move"]["seat"] = 0
    request = decode_request(MoveRequest, msgspec.json.encode(document))
    return MoveRequest(move=msgspec.structs.replace(request.move, seat=OWN_SEAT))


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
    #: Whether the seats may ask for hints.
    hints: bool = True


class SessionState(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    #: The seat whose view this is; ``null`` for the host's public view.
    seat: int | None
    view: SeatView


class UnavailableMove(msgspec.Struct, kw_only=True):
    """A move of the bid box the seat may not make now, and why (the engine's check of that very move)."""

    move: Move
    reason: Reason
    detail: str


class SessionLegalMoves(msgspec.Struct, kw_only=True, omit_defaults=True):
    session_id: str
    version: int
    seat: int
    legal_moves: list[Move]
    #: With ``?reasons=true`` during the auction: every other move of the bid box (each bid of the ladder, its
    #: sans-kitty form where the rules have one, the pass), each with why it is not legal now.
    unavailable: list[UnavailableMove] | None = None


class SessionValidation(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Whether the seat's move is legal now; if not, why not and the seat's own legal moves."""

    session_id: str
    version: int
    seat: int
    legal: bool
    reason: Reason | None = None
    detail: str | None = None
    legal_moves: list[Move] | None = None


class SpectatorCreated(msgspec.Struct, kw_only=True):
    """A new spectator token: it reads the public view and the public event stream, nothing else."""

    session_id: str
    spectator_token: str
    #: How many spectator tokens the session now holds (at most ``max_spectators``).
    spectators: int
    max_spectators: int


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
