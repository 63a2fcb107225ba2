"""Request and response bodies of the stateless API: frozen msgspec Structs, so the OpenAPI schema is exact.

The engine's own Structs (moves, events, seat views) travel unchanged; this module only adds the envelopes
around them. Two option shapes are derived from :class:`engine.Options` instead of being written out again, so
they can never drift from the engine: :data:`OptionOverrides` (every option optional, for requests) and
:data:`ResolvedOptions` (every option present, for responses; ``Options`` itself omits defaults when encoded).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta

from engine import PRESETS, Event, Move, Options, SeatView
from engine.model import Phase

# Litestar drops a ``minimum`` of 0 from the document (it tests bounds for truthiness); ``extra`` restores it.
_MINIMUM_ZERO = {"extra": {"minimum": 0}}

#: A seat number; the schema allows the six seats of the largest game, the game decides which exist.
Seat = Annotated[int, Meta(ge=0, le=5, description="A seat, 0 to players-1, clockwise.",
                           extra_json_schema=_MINIMUM_ZERO)]
PlayerCount = Annotated[int, Meta(ge=2, le=6, description="Number of players, 2 to 6.")]
PresetName = Literal["australian", "american", "beagle"]
if set(typing.get_args(PresetName)) != set(PRESETS):  # pragma: no cover - guards an engine change
    raise RuntimeError(f"service.schemas.PresetName is out of date: the engine has {sorted(PRESETS)}")

#: The view names a request may ask for: a seat number, or ``"public"`` (what every spectator may know).
ViewName = Seat | Literal["public"]
# Litestar loses a union member's bounds inside a list; ``items`` on the field restores them in the document.
_VIEWS_SCHEMA = {"extra": {"items": {"oneOf": [{"type": "integer", "minimum": 0, "maximum": 5},
                                               {"type": "string", "const": "public"}]}}}
ViewNames = Annotated[list[ViewName], Meta(max_length=7, extra_json_schema=_VIEWS_SCHEMA, description=(
    "Views to return with the new state: seat numbers and/or \"public\"; each comes with the events of this "
    "call as that viewer may see them."
))]

Snapshot = Annotated[str, Meta(
    description="An opaque, versioned, sealed game state, as returned by the last create or apply call.",
    examples=["v1.8c1e52ab.Wm9vX2V4YW1wbGVfb25seV9ub3RfYV9yZWFsX3NuYXBzaG90X2J1dF9iYXNlNjR1cmw"],
)]
SEED_MAX = 2**63 - 1


def _option_field_types() -> list[tuple[str, Any]]:
    hints = typing.get_type_hints(Options, include_extras=True)
    return [(name, hints[name]) for name in Options.__struct_fields__]


# Both shapes are generated from ``Options`` at import; for the type checker they are ``Options`` itself
# (identical field names and types), which keeps every use of them checked.
if TYPE_CHECKING:
    OptionOverrides = Options
    ResolvedOptions = Options
else:
    OptionOverrides = msgspec.defstruct(
        "OptionOverrides",
        [(name, tp | msgspec.UnsetType, msgspec.UNSET) for name, tp in _option_field_types()],
        module=__name__, frozen=True, forbid_unknown_fields=True, kw_only=True,
    )
    OptionOverrides.__doc__ = ("Rule options to change, by their RULES.md section 3 names; unnamed options "
                               "keep the preset's (or the default) value. GET /v1/rules lists them all.")
    ResolvedOptions = msgspec.defstruct(
        "ResolvedOptions", _option_field_types(), module=__name__, frozen=True, kw_only=True,
    )
    ResolvedOptions.__doc__ = "The complete, resolved rule set the game is played under."


def overrides_dict(overrides: OptionOverrides | None) -> dict[str, Any]:
    """The options a request actually named (``UNSET`` fields left out)."""
    if overrides is None:
        return {}
    return {name: value for name in overrides.__struct_fields__
            if (value := getattr(overrides, name)) is not msgspec.UNSET}


def resolved(opts: Options) -> ResolvedOptions:
    """Every option of ``opts``, defaults included, for echoing in responses."""
    return ResolvedOptions(**msgspec.structs.asdict(opts))


# ------------------------------------------------------------------------------------------------ requests


class CreateGameRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Start a game: the players, the rules (a preset and/or options), and how the cards are dealt."""

    players: PlayerCount = 4
    preset: PresetName | None = None
    options: OptionOverrides | None = None
    seed: Annotated[int, Meta(ge=0, le=SEED_MAX, extra_json_schema=_MINIMUM_ZERO, description=(
        "Derives every deal not given in deck_orders, reproducibly. Omitted: the service draws a secret one."
    ))] | None = None
    deck_orders: Annotated[list[list[str]], Meta(max_length=64, description=(
        "Explicit deck orders for the first hands (each a permutation of the game's pack, the first card "
        "dealt first), for duplicate tournaments, puzzles and tests; later hands are dealt from the seed."
    ))] | None = None
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
    reason: str | None = None
    detail: str | None = None
    legal_moves: list[Move] | None = None


class ApplyResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The state after the move: its snapshot, whose turn it is, and the events the move caused."""

    snapshot: Snapshot
    phase: Phase
    to_act: int | None
    events: list[Event]
    views: Views


class OptionInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One rule option: its RULES.md name, JSON type, default, allowed values (null: free) and meaning."""

    name: str
    type: Literal["choice", "integer", "string"]
    default: Any
    allowed: list[Any] | None
    description: str


class PresetInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A named preset and the options it sets (every other option keeps its default)."""

    name: str
    description: str
    options: dict[str, Any]


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
    language: str
    languages: list[LanguageInfo]
    names: CatalogueNames


__all__ = [
    "ApplyRequest", "ApplyResponse", "CatalogueNames", "CreateGameRequest", "CreateGameResponse", "Decision",
    "LadderRung", "LanguageInfo", "LegalMovesRequest", "LegalMovesResponse", "MoveTypeInfo", "OptionInfo",
    "OptionOverrides",
    "PlayerCount", "PresetInfo", "PresetName", "ResolvedOptions", "RulesCatalogue", "ScoreTableRow", "Seat",
    "Snapshot", "ValidateRequest", "ValidateResponse", "ViewName", "ViewRequest", "ViewWithEvents",
    "overrides_dict", "resolved",
]
