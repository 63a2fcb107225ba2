"""Request and response bodies of the stateless API (``/v1/games``, ``/v1/rules``): frozen msgspec Structs, so the
OpenAPI schema is exact. The engine's own Structs (moves, events, seat views) travel unchanged; these are the
envelopes around them, in the shared vocabulary of :mod:`service.referee.schemas`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from engine import Event, Move, SeatView
from engine.model import Phase
from engine.reasons import Reason, ReasonKind
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
from service.web.codes import ProblemCode

#: The view names a request may ask for: ``"public"`` (what every spectator may know) or a seat number as a
#: string, exactly the keys of the ``views`` answered (one JSON type, so every client generator maps it).
ViewName = Literal["public", "0", "1", "2", "3", "4", "5"]
ViewNames = Annotated[list[ViewName], Meta(max_length=7, description=(
    "Views to return with the new state: \"public\" and/or seat numbers as strings (\"0\" … \"5\"), the keys "
    "of `views` in the answer; each comes with the events of this call as that viewer may see them."
))]


# ------------------------------------------------------------------------------------------------ requests


class CreateGameRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Start a game: the players, the rules (a preset and/or options), and how the cards are dealt."""

    players: PlayerCount = 4
    preset: PresetName | None = None
    options: OptionOverrides | None = None
    seed: Seed | None = None
    deck_orders: DeckOrders | None = None
    first_dealer: Seat | None = None
    views: ViewNames | None = None


class ViewRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask for one seat's view of a snapshot (``seat: null`` or omitted: the public view)."""

    snapshot: Snapshot
    seat: Seat | None = None


class LegalMovesRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask for the legal moves of a seat (omitted: of the seat to act)."""

    snapshot: Snapshot
    seat: Seat | None = None


class ValidateRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask whether a move is legal now, without applying it."""

    snapshot: Snapshot
    move: Move


class ApplyRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Apply a move to a snapshot; optionally return views of the new state."""

    snapshot: Snapshot
    move: Move
    views: ViewNames | None = None


# ----------------------------------------------------------------------------------------------- responses


class ViewWithEvents(msgspec.Struct, frozen=True, kw_only=True):
    """One viewer's picture of the state, and the events of this call as that viewer may see them."""

    view: SeatView
    events: list[Event]


Views = Annotated[dict[str, ViewWithEvents], Meta(description=(
    "The views asked for, keyed by \"public\" or the seat number as a string."
))]


class CreateGameResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A new game: its snapshot, resolved rules, whose turn it is, and the public events of the deal."""

    snapshot: Snapshot
    rules_version: str
    options: ResolvedOptions
    phase: Phase
    to_act: int | None
    events: list[Event]
    views: Views


class LegalMovesResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The legal moves of ``seat`` (empty when that seat may not act now)."""

    seat: int | None
    to_act: int | None
    moves: list[Move]


class ValidateResponse(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Whether the move is legal now; if not, why not (a stable reason code) and what is legal instead."""

    legal: bool
    reason: Reason | None = None
    detail: str | None = None
    legal_moves: list[Move] | None = None


class ApplyResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The state after the move: its snapshot, whose turn it is, and the events the move caused."""

    snapshot: Snapshot
    phase: Phase
    to_act: int | None
    events: list[Event]
    views: Views


class BooleanOption(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="boolean"):
    """A rule option that is on or off (``allowed`` is always ``[true, false]``)."""

    name: str
    default: bool
    allowed: list[bool]
    description: str


class ChoiceOption(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="choice"):
    """A rule option whose value is one of the strings in ``allowed``."""

    name: str
    default: str
    allowed: list[str]
    description: str


class IntegerChoiceOption(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="integer_choice"):
    """A rule option whose value is one of the integers in ``allowed``."""

    name: str
    default: int
    allowed: list[int]
    description: str


class IntegerOption(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="integer"):
    """A rule option whose value is an integer from ``minimum`` to ``maximum``, a multiple of ``multiple_of``."""

    name: str
    default: int
    minimum: int
    maximum: int
    multiple_of: int
    description: str


class StringOption(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="string"):
    """A rule option whose value is a string matching ``pattern``."""

    name: str
    default: str
    pattern: str
    description: str


#: One rule option of the catalogue, by its RULES.md name; ``type`` says which JSON type its value has.
OptionInfo = BooleanOption | ChoiceOption | IntegerChoiceOption | IntegerOption | StringOption


class PresetInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A named preset and the options it sets (every other option keeps its default)."""

    name: PresetName
    description: str
    options: OptionOverrides


class LadderRung(msgspec.Struct, frozen=True, kw_only=True):
    """A bid, its rung (higher outranks; equal rungs do not overcall each other) and its value in points."""

    bid: str
    rung: float
    value: int


class ScoreTableRow(msgspec.Struct, frozen=True, kw_only=True):
    """A row of the score table, in ladder order (``level`` is null for the misère bids)."""

    bid: str
    rung: float
    value: int
    level: int | None
    strain: str


class MoveTypeInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A kind of move: its ``type`` tag, its fields and when it is used."""

    type: str
    fields: list[str]
    description: str


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """Where RULES.md is silent: what the engine decided."""

    topic: str
    decision: str


class ReasonInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A stable reason a move is refused: ``malformed`` (answered 400 MALFORMED_MOVE) or ``illegal`` (422
    ILLEGAL_MOVE, or ``legal: false`` from validateMove), and what it means."""

    reason: Reason
    kind: ReasonKind
    meaning: str


class ProblemCodeInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A stable problem ``code`` of an error response, its HTTP status and what it means."""

    code: ProblemCode
    status: int
    meaning: str


class LanguageInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A language the service's texts come in: its tag (for ``lang`` and ``Accept-Language``) and names."""

    tag: str
    name: str
    english_name: str


class CatalogueNames(msgspec.Struct, frozen=True, kw_only=True):
    """The catalogue's names in its language, by machine token (the tokens themselves never change)."""

    suits: dict[str, str]
    cards: dict[str, str]
    bids: dict[str, str]
    phases: dict[str, str]
    moves: dict[str, str]
    #: The game's vocabulary (trump, no_trumps, joker, right_bower, left_bower, kitty, trick, misere …).
    terms: dict[str, str]


class RulesCatalogue(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a front end needs to build its rules screen and bid box for one rule set.

    Its texts (option meanings, preset and move descriptions, ``names``) are in ``language``; ``languages``
    lists every language the service speaks. ``decisions`` are in English."""

    rules_version: str
    players: int
    preset: str | None
    resolved_options: ResolvedOptions
    options: list[OptionInfo]
    presets: list[PresetInfo]
    ladder: list[LadderRung]
    score_table: list[ScoreTableRow]
    cards: list[str]
    kitty_size: int
    sides: list[list[int]]
    move_types: list[MoveTypeInfo]
    decisions: list[Decision]
    #: Every reason a move may be refused for, from engine/reasons.py.
    reasons: list[ReasonInfo]
    #: Every problem code an error response may carry, from service/web/codes.py.
    problem_codes: list[ProblemCodeInfo]
    language: str
    languages: list[LanguageInfo]
    names: CatalogueNames
