"""The vocabulary of a session's log: every entry a session's event stream and record read.

Beside the engine's own events (:data:`engine.Event`), a session logs what only a hosted table has: the turn
clock's mark before a move it made for a seat (:class:`MoveTimedOut`, :mod:`.clock`), and the changes of who
holds a seat (:data:`TableEvent`, :mod:`.seating`). Each entry is logged under the version of the change that
made it (:class:`~service.sessions.store.LoggedEvent`). The changes of a game's life (:mod:`.life`: started,
paused, resumed, called off, abandoned; a seat away and back) are table events too: they name seats only, never
a card, and every reader sees them as they are.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from bots import Level
from engine import Event


class MoveTimedOut(msgspec.Struct, frozen=True, tag_field="type", tag="move_timed_out", kw_only=True):
    """The first event of a move the clock made: ``seat`` did not move by ``deadline``, so the ``bot`` level
    moved for it (the events that follow are that move's)."""

    seat: int
    bot: Level
    deadline: str


#: The engine's events and the clock's.
SessionEvent = Event | MoveTimedOut


class SeatJoined(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_joined"):
    """A player redeemed the invitation to ``seat`` under ``name``. ``to_act``: the seat to act (unchanged)."""

    seat: int
    name: str
    to_act: int | None


class SeatLeft(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_left"):
    """``seat`` changed hands: its player left or the host gave it away; it is now a bot's (``now: "bot"``, at
    ``level``) or open, waiting for a player (``"open"``)."""

    seat: int
    now: Literal["bot", "open"]
    level: Level | None = None
    to_act: int | None


class SeatTokenReissued(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_token_reissued"):
    """The host gave ``seat`` a new token: the old one stopped working."""

    seat: int
    to_act: int | None


class SeatNamed(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_named"):
    """``seat``'s player is called ``name`` from now on (named by the host, or by the seat itself)."""

    seat: int
    name: str
    to_act: int | None


class SpectatorRevoked(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="spectator_revoked"):
    """The host revoked the spectator token ``spectator_id``: it stopped working, and its streams end."""

    spectator_id: str
    to_act: int | None


class RematchAsked(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="rematch_asked"):
    """``seat``'s player asked for the next game at the table (a table whose seats start it by agreement); the
    seats still ``waiting`` to agree (each a seat a player holds). ``to_act``: nobody, the game is over."""

    seat: int
    waiting: tuple[int, ...]
    to_act: int | None


class NextGameStarted(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="next_game"):
    """The table's next game began, at the same seats: the first event of its version, followed by the new game's
    deal (``hand_dealt`` …). ``game``: the table's game number (1 was the first); ``match``: the match it belongs
    to, and ``match_game`` its number in that match of ``games``; ``score``: the match score as the game begins
    (games won by each side, as the game's ``scores`` number the sides; all 0 at a new match). ``to_act``: nobody
    was (the game before it was over)."""

    game: int
    match: int
    match_game: int
    games: int
    score: tuple[int, ...]
    to_act: int | None = None


class GameStarted(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="game_started"):
    """The game started: every seat was taken (``by: "seated"``) or the host started it (``"host"``). Nothing
    is played before it, and a turn clock runs from it on (:mod:`.life`)."""

    by: Literal["seated", "host"]
    to_act: int | None


class GamePaused(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="game_paused"):
    """The host paused the game: no move is made (by a seat, a bot or the clock) until it is resumed."""

    to_act: int | None


class GameResumed(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="game_resumed"):
    """The host resumed the game: the seat to act has a new turn, its clock starting now."""

    to_act: int | None


class GameCalledOff(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="game_called_off"):
    """The host called the game off before any card was played: it ended with no result."""

    #: Always ``null``: nobody acts once the game ended (typed as every event's ``to_act``, so that generated clients
    #: need no type of their own for it).
    to_act: int | None = None


class GameAbandoned(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="game_abandoned"):
    """The host ended the game as abandoned: ``by`` are the seats whose players were gone (they left, never came,
    or were away)."""

    by: list[int]
    #: Always ``null``, as :class:`GameCalledOff`'s.
    to_act: int | None = None


class SeatAway(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_away"):
    """The turn clock moved for ``seat`` so many times in a row (the clock's ``away_after``) that it is away: the
    clock's bot moves for it at once until its player comes back."""

    seat: int
    to_act: int | None


class SeatBack(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_back"):
    """``seat``'s player came back (a request with its token): it plays from its next turn on (a turn the bot was
    already making for it when it came back is the bot's)."""

    seat: int
    to_act: int | None


class SeatForfeited(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_forfeited"):
    """``seat`` stayed away past the clock's ``forfeit_after``: the clock's bot keeps it for good (a bot seat at
    ``level``), and its player's token stopped working."""

    seat: int
    level: Level
    to_act: int | None


class WebhookDisabled(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="webhook_disabled"):
    """The webhook ``webhook_id`` stopped: its receiver failed every delivery for longer than the service retries
    (``undelivered``: the events it never got), or the seat that registered it changed hands (``reason``)."""

    webhook_id: str
    reason: Literal["failing", "seat_changed_hands"]
    undelivered: int = 0
    to_act: int | None


#: The changes of a game's life (:mod:`.life`): its start, pauses and end, and its seats away, back and forfeited.
LifeEvent = GameStarted | GamePaused | GameResumed | GameCalledOff | GameAbandoned | SeatAway | SeatBack \
    | SeatForfeited
LIFE_EVENTS = (GameStarted, GamePaused, GameResumed, GameCalledOff, GameAbandoned, SeatAway, SeatBack,
               SeatForfeited)
#: The events that end a game before it is over: the streams end after them, as after ``game_over``.
ENDING_EVENTS = (GameCalledOff, GameAbandoned)

TableEvent = SeatJoined | SeatLeft | SeatTokenReissued | SeatNamed | SpectatorRevoked | RematchAsked \
    | NextGameStarted | LifeEvent | WebhookDisabled
TABLE_EVENTS = (SeatJoined, SeatLeft, SeatTokenReissued, SeatNamed, SpectatorRevoked, RematchAsked, NextGameStarted,
                *LIFE_EVENTS, WebhookDisabled)
#: The table's events after which a token may have stopped working (its streams check, and end if it did).
REVOKING_EVENTS = (SeatLeft, SeatTokenReissued, SpectatorRevoked, SeatForfeited)
#: An entry of a session's event log: the engine's events, the clock's and the table's.
LogEntry = SessionEvent | TableEvent
