"""Request and response bodies of the hosted sessions (``/v1/sessions``): frozen msgspec Structs, so the OpenAPI
schema is exact. A new game's settings are the stateless API's (the shared vocabulary of
:mod:`service.referee.schemas`, one strict decoding for both APIs); the engine's moves, events and views travel
unchanged.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

import msgspec
from msgspec import Meta

from bots import Level
from engine import Event, Move, SeatView
from engine.model import Phase
from engine.reasons import Reason
from service.referee.schemas import (
    DeckOrders,
    DiscardChoice,
    OptionOverrides,
    PlayerCount,
    PresetName,
    ResolvedOptions,
    Seat,
    Seed,
    Snapshot,
)
from service.referee.suggestions import BotSeed, Budget
from service.sessions.clock import ClockOptions, ClockView
from service.sessions.log import LogEntry
from service.sessions.table import (
    DEFAULT_INVITATION_SECONDS,
    MAX_INVITATION_SECONDS,
    MAX_SERIES_GAMES,
    MIN_INVITATION_SECONDS,
    HowEnded,
    OnLeave,
    RematchBy,
    StartWhen,
)

InvitationSeconds = Annotated[int, Meta(ge=MIN_INVITATION_SECONDS, le=MAX_INVITATION_SECONDS)]
#: Where a hosted game is in its life (service/sessions/life.py).
GameStatus = Literal["waiting", "running", "paused", "ended"]

__all__ = ["CreateSessionRequest", "EmptyRequest", "GameResultView", "NextGame", "RematchRequest", "SeriesOptions",
           "SeriesView", "HandToBotRequest", "InvitationIssued", "InvitationPreview", "JoinRequest",
           "Joined", "MoveApplied", "MoveRequest", "NameRequest", "OWN_SEAT", "SeatChanged", "SeatInfo",
           "SeatNameSet", "SeatTokenIssued", "SessionCreated", "SessionEnded", "SessionLife",
           "SessionEvents", "SessionLegalMoves", "SessionMove",
           "SessionSnapshot", "SessionState", "SessionSuggestRequest", "SessionValidation",
           "SpectatorCreated", "StreamClosed", "StreamEnd", "StreamEvent", "UnavailableMove", "engine_move"]

# ------------------------------------------------------------------------------------------------ requests


class SeriesOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A table that plays game after game at the same seats: matches of ``games`` games each, with a running
    match score, the next game started by the host or by every seat a player holds (``start``)."""

    #: Games per match (1 to 25): the match is over once that many games were played.
    games: Annotated[int, Meta(ge=1, le=MAX_SERIES_GAMES)] = 1
    #: Who starts each next game (``POST /v1/sessions/{id}/rematch``): the host or table host (``"host"``), or
    #: the seats by agreement (``"seats"``: once every seat a player holds asked; the host may still start it).
    start: RematchBy = "host"


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
    #: Whether the seats may ask for hints (``POST /v1/sessions/{id}/suggest``); ``false``: 403 ``HINTS_OFF``.
    hints: bool = True
    #: Seats left open for players to join: each gets an invitation (a code) instead of a token.
    open_seats: list[Seat] | None = None
    #: How long the invitations live, in seconds (a minute to a week).
    invitation_seconds: InvitationSeconds = DEFAULT_INVITATION_SECONDS
    #: What a seat whose player leaves becomes: a bot's, at ``leave_level`` (``"bot"``), or an open seat that
    #: waits for the host to invite someone (``"wait"``).
    on_leave: OnLeave = "wait"
    leave_level: Level = "basic"
    #: The name of whoever hosts the table, shown to the invited players before they join (the invitation's
    #: preview, ``previewInvitation``); the rule of a player's name applies (400 ``INVALID_NAME``).
    host_name: Annotated[str, Meta(max_length=256)] | None = None
    #: Deal from the ``seed`` or ``deck_orders`` given although more than one player, or an invited one, takes
    #: a seat: whoever knows them knows every hand (without it: 400 ``INVALID_SEED`` or
    #: ``INVALID_DECK_ORDER``). Without a seed or deck orders every deal comes from a 256-bit secret that only
    #: the service holds.
    known_deal: bool = False
    #: When the game starts: ``"seated"`` once every seat is taken (at once when no seat is open), ``"host"`` when
    #: the host starts it (``POST .../start``, which also starts a ``"seated"`` game before its seats are taken).
    #: Until then nothing is played and the turn clock is stopped.
    start: StartWhen = "seated"
    #: Game after game at this table: matches of ``series.games`` games with a running score, and event streams
    #: that stay open across games (none: one game; the host may still start another, ``rematchSession``).
    series: SeriesOptions | None = None


class RematchRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask for the next game at the table. ``game``: the table's game (``series.game`` in the views) that is over
    and whose next game is asked for: once that next game has begun (this request's lost answer, another
    replica, another seat), the answer is that game, not a third one. Without it: the current game, which must
    be over."""

    game: Annotated[int, Meta(ge=1)] | None = None


class EmptyRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An operation that needs no settings (the body is an empty object: every POST takes a JSON body)."""


#: A player's display name, as the contract states the rule the service applies (400 ``INVALID_NAME`` for any
#: name against it, whatever its length).
PlayerName = Annotated[str, Meta(max_length=256, description=(
    "A player's display name: 1 to 32 characters once NFC-normalised and trimmed, each a Unicode letter, mark or "
    "digit, a space (never two in a row) or one of - ' . _, with at most 3 combining marks on a character; not "
    "equal to, or confusable with (Unicode's confusables, case folded), another player's name at the table. "
    "Anything else, whatever its length, is 400 INVALID_NAME."))]


class JoinRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Redeem an invitation: its code, and the name to play under."""

    code: Annotated[str, Meta(min_length=1, max_length=128)]
    name: PlayerName


class NameRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Name a seat's player."""

    name: PlayerName


class HandToBotRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Give a seat to the service's bots."""

    level: Level = "basic"


class SessionSuggestRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask for a hint: a computer player's move for the token's seat, decided from that seat's view alone."""

    level: Level = "basic"
    seed: BotSeed | None = None
    budget: Budget | None = None


def _session_move_type(move_type: type[Move]) -> type[msgspec.Struct]:
    """The session form of one of the engine's moves: the same tag and fields, but ``seat`` may be left out."""
    hints = typing.get_type_hints(move_type, include_extras=True)
    fields: list[tuple[str, Any, Any]] = []
    for field in msgspec.structs.fields(move_type):
        if field.name == "seat":
            fields.append(("seat", int | msgspec.UnsetType, msgspec.UNSET))
        else:
            default = msgspec.NODEFAULT if field.required else field.default
            fields.append((field.name, hints[field.name], default))
    session_type = msgspec.defstruct(
        f"Session{move_type.__name__}", fields, module=__name__, frozen=True, kw_only=True,
        forbid_unknown_fields=True, tag_field="type", tag=move_type.__struct_config__.tag)
    doc = (move_type.__doc__ or move_type.__name__).strip().split("\n\n")[0]
    session_type.__doc__ = (f"{doc} In a session, ``seat`` may be left out: the token fixes it (if given, it "
                            "must be a seat the token moves for).")
    return session_type


#: Each session move type, and the engine's move it stands for.
_ENGINE_MOVES: dict[type[Any], type[Any]] = {
    _session_move_type(move_type): move_type for move_type in typing.get_args(Move)}

# The union of the session move types (generated at import); for the type checker it is the engine's ``Move``
# (the same fields, ``seat`` an int), which keeps every use of it checked.
if TYPE_CHECKING:
    SessionMove = Move
else:
    SessionMove = Union[tuple(_ENGINE_MOVES)]  # noqa: UP007 - a Union built from a tuple of types

#: The seat of a session move that named none: the token's (no JSON number decodes to it).
OWN_SEAT = 1 << 64


def engine_move(move: SessionMove) -> Move:
    """The engine's move a session move stands for; a move that named no seat gets :data:`OWN_SEAT` (the
    service puts the token's seat there)."""
    fields = msgspec.structs.asdict(move)
    if fields["seat"] is msgspec.UNSET:
        fields["seat"] = OWN_SEAT
    engine_type: type[Move] = _ENGINE_MOVES[type(move)]
    return engine_type(**fields)


class MoveRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A move for the token's seat. ``move.seat`` may be left out: the move is then the token's own seat's; if
    given, it must be a seat the token moves for (its own, or in the ghost-partners game its ghost's, which a
    ghost's move names; else 403 ``WRONG_SEAT``)."""

    move: SessionMove


# ----------------------------------------------------------------------------------------------- responses


class SessionCreated(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    host_token: str
    #: The table host's token, for a player's device that runs the table: invite, reissue a seat's token, hand
    #: a seat to a bot, open a seat, mint and revoke spectators; it reads the public view and stream, and the
    #: record once the game is over, never the snapshot (the host token stays for a back end).
    table_host_token: str | None = None
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
    #: Whether the seats may ask for hints.
    hints: bool = True
    #: One invitation per open seat (their ``seat_tokens`` are ``null``).
    invitations: list[InvitationIssued] = msgspec.field(default_factory=list)
    #: The table's games: the first game of the first match.
    series: SeriesView | None = None
    #: Where the game is in its life: ``waiting`` (for its seats or its host: nothing is played yet), or
    #: ``running``.
    status: GameStatus = "running"


class InvitationIssued(msgspec.Struct, kw_only=True):
    """An invitation to one open seat: give ``code`` to the player (``POST .../join`` redeems it once)."""

    seat: int
    code: str
    expires_in: int


class InvitationPreview(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What an invitation opens, for its holder to read before joining: whose table, which seat, the rules and the
    table's settings, who sits where and how far the game is. No card of any hand and no token: nothing the
    invitation's code could not already see by joining, and nothing hidden from the seat it is for."""

    session_id: str
    #: The seat the invitation is for.
    seat: int
    #: Seconds the invitation has left (``joinSession`` redeems it until then).
    expires_in: int
    #: Who hosts the table (``createSession``'s ``host_name``); absent when the host gave none.
    host_name: str | None = None
    players: int
    #: The game's rules: every option, defaults included, and the rules' version.
    options: ResolvedOptions
    rules_version: str
    #: Who holds each seat (the seat the invitation is for is ``open``).
    seats: list[SeatInfo]
    #: Who plays with whom: the seats of each side.
    sides: list[list[int]]
    #: Where the game is: its phase, the hand being played (0: the first) and each side's score.
    phase: Phase
    hand_number: int
    scores: list[int]
    #: The table's settings: whether a seat may ask for hints, what a seat whose player leaves becomes (a bot at
    #: ``leave_level``, or open), and the turn clock (absent: none).
    hints: bool
    on_leave: OnLeave
    leave_level: Level
    clock: ClockView | None = None


class Joined(msgspec.Struct, kw_only=True):
    """A redeemed invitation: the seat's token (keep it: it is answered once) and the version that records it."""

    session_id: str
    version: int
    seat: int
    seat_token: str
    name: str


class SeatTokenIssued(msgspec.Struct, kw_only=True):
    """A seat's new token (the old one stopped working)."""

    session_id: str
    version: int
    seat: int
    seat_token: str


class SeatNameSet(msgspec.Struct, kw_only=True):
    """A seat's player's new name."""

    session_id: str
    version: int
    seat: int
    name: str


class SeatChanged(msgspec.Struct, kw_only=True):
    """A seat handed to a bot or opened (with its new invitation) or left."""

    session_id: str
    version: int
    seat: int
    now: Literal["bot", "open"]
    invitation: InvitationIssued | None = None


class GameResultView(msgspec.Struct, kw_only=True):
    """A finished game of the match: its number in the match, the sides that won it, its final scores."""

    match_game: int
    winners: list[int]
    scores: list[int]


class SeriesView(msgspec.Struct, kw_only=True):
    """The games of the table: which game this is, the match it belongs to and the match score."""

    #: The table's game number (1 is its first game, counted across matches): the ``game`` of a rematch request.
    game: int
    #: The match's number (1 is the first), this game's number in it, and the games a match has.
    match: int
    match_game: int
    games: int
    #: Games of this match won by each side (sides as the game's ``scores`` number them), this game counted once
    #: it is over.
    score: list[int]
    #: The match's finished games, this one included once it is over.
    results: list[GameResultView]
    #: Whether the match is over (its last game is over): a next game then begins a new match.
    match_over: bool
    #: Who starts the next game: ``"host"`` or ``"seats"`` (by agreement).
    start: RematchBy
    #: Whether the table was created with ``series``: its event streams stay open across games.
    continues: bool
    #: The seats that asked for the next game, and the seats a player holds whose agreement it still waits for
    #: (``start: "seats"``, the game over); both empty otherwise.
    asked: list[int]
    waiting: list[int]


class NextGame(msgspec.Struct, kw_only=True):
    """A rematch request's answer: whether the next game began (by this request, or already), the session's
    version, and the table's games as they are now."""

    session_id: str
    version: int
    #: ``true``: the game asked for began (now, or before: a retry, a race); ``false``: the request was
    #: counted as its seat's agreement and the table waits for ``series.waiting``.
    started: bool
    series: SeriesView


class SessionEnded(msgspec.Struct, kw_only=True, omit_defaults=True):
    """How a game ended before it was over: ``called_off`` (before any card was played: no result), or
    ``abandoned`` by the seats ``by`` (their players were gone: open, left, or away); at ``version``."""

    how: HowEnded
    by: list[int] | None = None
    version: int


class SessionLife(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A change of the game's life: where it is now, and how it ended, once it did."""

    session_id: str
    version: int
    status: GameStatus
    ended: SessionEnded | None = None


class SeatInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Who holds a seat: a player (``human``, with the name it joined under, if any), a ``bot`` (at
    ``level``), or nobody yet (``open``, waiting for its invitation to be redeemed)."""

    seat: int
    kind: Literal["human", "bot", "open"]
    name: str | None = None
    level: Level | None = None
    #: The seat is away: its turn clock ran out so many times in a row that the clock's bot moves for it at once,
    #: until its player comes back (any request with its token).
    away: bool = False


class SessionState(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    #: The seat whose view this is; ``null`` for the host's and a spectator's public view.
    seat: int | None
    view: SeatView
    #: Who holds each seat (public).
    seats: list[SeatInfo] = msgspec.field(default_factory=list)
    #: The turn clock (``null``: none): who is on it and their deadline.
    clock: ClockView | None = None
    #: The table's games: this game's number, its match and the match score (``rematchSession``).
    series: SeriesView | None = None
    #: Where the game is in its life: ``waiting`` to start, ``running``, ``paused`` by the host, or ``ended``
    #: before it was over (``ended`` says how).
    status: GameStatus = "running"
    ended: SessionEnded | None = None


class UnavailableMove(msgspec.Struct, kw_only=True):
    """A move of the bid box the seat may not make now, and why (the engine's check of that very move)."""

    move: Move
    reason: Reason
    detail: str


class SessionLegalMoves(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A seat's legal moves; its empty members (``unavailable`` without ``?reasons=true``, ``clock`` without a
    turn clock) are left out."""

    session_id: str
    version: int
    seat: int
    legal_moves: list[Move]
    #: At the exchange (the seat's own discards): the same discards in a compact form, choose ``count`` of
    #: ``cards`` (the seat's hand with the kitty), as ``legalMoves`` answers it.
    discard_choice: DiscardChoice | None = None
    #: With ``?reasons=true`` during the auction: every other move of the bid box (each bid of the ladder, its
    #: sans-kitty form where the rules have one, the pass), each with why it is not legal now.
    unavailable: list[UnavailableMove] | None = None
    #: The turn clock (``null``: none): who is on it and their deadline.
    clock: ClockView | None = None


class SessionValidation(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Whether the seat's move is legal now; if not, why not and the seat's own legal moves."""

    session_id: str
    version: int
    seat: int
    legal: bool
    reason: Reason | None = None
    detail: str | None = None
    legal_moves: list[Move] | None = None
    #: With ``legal_moves`` at the exchange: the seat's discards in a compact form, choose ``count`` of ``cards``.
    discard_choice: DiscardChoice | None = None


class SpectatorCreated(msgspec.Struct, kw_only=True):
    """A new spectator token: it reads the public view and the public event stream, nothing else."""

    session_id: str
    spectator_token: str
    #: The token's id, which revokes it (``DELETE .../spectators/{spectator_id}``) without naming the token.
    spectator_id: str | None = None
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
    event: LogEntry
    #: When ``to_act`` must have moved (RFC 3339, UTC, milliseconds): present in a session with a turn clock
    #: while the clock runs (absent otherwise).
    deadline: str | None = None


class LoggedSessionEvent(StreamEvent, kw_only=True, omit_defaults=True):
    """One event of a session's log as the reader's seat may see it, with its event id (the stream's ``id:``)."""

    id: str


class SessionEvents(msgspec.Struct, kw_only=True):
    """A seat's catch-up without a stream: the events after a point of the session's log, as the caller may see
    them, in order."""

    session_id: str
    #: The session's version when it was read: when ``complete``, every event up to it is here.
    version: int
    #: ``false``: there are more than one answer holds; ask again with ``after`` the last event's ``id``.
    complete: bool
    events: list[LoggedSessionEvent]


class StreamClosed(msgspec.Struct, kw_only=True):
    """The ``data`` of the event that closes a stream for good before the game is over: ``revoked`` (the token
    stopped working: reissued, its seat handed on or left, a spectator revoked), ``deleted`` (the host deleted
    the session) or ``expired`` (the session was idle too long). Reconnecting would be answered 401 or 404."""

    version: int


class StreamEnd(msgspec.Struct, kw_only=True):
    """The ``data`` of the final ``end`` event: the game is over and every event was sent."""

    version: int
    to_act: None = None


# ------------------------------------------------------------------------------------------------ webhooks


class WebhookRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Register a webhook: the URL the session's events are POSTed to (https, on a host the operator allows), and
    the event types to send (none given: every event)."""

    url: Annotated[str, Meta(min_length=1, max_length=2048)]
    events: Annotated[list[Annotated[str, Meta(min_length=1, max_length=40)]], Meta(max_length=64)] | None = None
    #: A seat's token only, at a table with a turn clock: the URL is an outside bot that plays the seat. At
    #: each of the seat's turns it is POSTed ``session.turn`` (the seat's view, its legal moves, the deadline)
    #: and the move in its answer (``{"move": …}``) is made for the seat; no event is sent to it.
    bot: bool | None = None
    #: The signing secret to use (``whsec_`` and the base64 of 24 to 64 random bytes), so that one receiver (a
    #: bot at many tables) verifies every table's messages with one key; none: the service draws one.
    secret: Annotated[str, Meta(min_length=38, max_length=100)] | None = None


class WebhookCreated(msgspec.Struct, kw_only=True):
    """A new webhook, and its signing secret: shown this once (the service signs with it; a receiver verifies
    with it, as Standard Webhooks verify)."""

    session_id: str
    version: int
    webhook_id: str
    url: str
    #: Whose events: ``null``, the public's; a seat, that seat's own.
    seat: int | None
    #: The event types sent (empty: every event).
    events: list[str]
    secret: str


class BotStats(msgspec.Struct, kw_only=True):
    """How an outside bot's seat is going: turns it was asked, moves of its answers made, answers refused (not
    a legal move, or not a move), turns it did not answer in time (the clock moved for it)."""

    asked: int
    moved: int
    refused: int
    unanswered: int
    #: The last refusal's code and detail (``null``: none).
    last_refusal: str | None = None


class WebhookInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A webhook and where its deliveries are (never its secret)."""

    webhook_id: str
    url: str
    seat: int | None
    events: list[str]
    #: The version it was registered at: the events logged after it are sent.
    since: int
    #: The last event delivered (or passed over, not of its ``events``): its id; ``null`` for none yet.
    delivered: str | None
    #: Failed attempts at the next event in a row, and since when (RFC 3339; ``null``: not failing).
    attempts: int
    failing_since: str | None
    #: An outside bot's webhook: how its seat is going.
    bot: BotStats | None = None


class WebhookList(msgspec.Struct, kw_only=True):
    session_id: str
    version: int
    webhooks: list[WebhookInfo]


class ClockLow(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="clock_low"):
    """Not an event of the log: the notice that ``seat``, to act, has little time left (its ``deadline``), sent
    once per turn by a webhook (``WEBHOOK_CLOCK_LOW_SECONDS`` before the deadline)."""

    seat: int
    deadline: str


class WebhookData(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One event as the webhook's credential may see it (as the event stream and the catch-up give it: its
    ``id``, ``version``, the seat to act after it and that seat's ``deadline``); or the clock's notice (``id``:
    ``<version>-low``)."""

    session_id: str
    webhook_id: str
    id: str
    version: int
    to_act: int | None
    event: LogEntry | ClockLow
    deadline: str | None = None


class BotTurn(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What an outside bot is asked at its seat's turn: the seat's view (as ``getSession`` answers its token),
    its legal moves (at the exchange, ``discard_choice`` alone), and when the turn clock moves for it. Answer
    ``{"move": {…}}`` (the ``seat`` may be left out), or 202 and post the move with the seat's token."""

    session_id: str
    webhook_id: str
    #: ``<version>-turn``: the same on every retry of the ask.
    id: str
    version: int
    seat: int
    deadline: str | None
    state: SessionState
    legal_moves: list[Move]
    discard_choice: DiscardChoice | None = None


class BotTurnMessage(msgspec.Struct, kw_only=True):
    """The body of an outside bot's ``session.turn`` POST (signed as every webhook's)."""

    type: str
    timestamp: str
    data: BotTurn


class BotAnswer(msgspec.Struct, kw_only=True):
    """An outside bot's answer to ``session.turn``: the move to make (other members are not read)."""

    move: SessionMove


class WebhookMessage(msgspec.Struct, kw_only=True):
    """The body of a webhook's POST: ``type`` is ``session.`` and the event's type (``session.clock_low`` for the
    notice that the seat to act has little time left). Headers: ``webhook-id`` (``<webhook id>_<event id>``,
    the same on every retry), ``webhook-timestamp``, ``webhook-signature`` (Standard Webhooks, HMAC-SHA256)."""

    type: str
    #: When this delivery was signed (RFC 3339, UTC).
    timestamp: str
    data: WebhookData
