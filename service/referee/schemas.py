"""The wire vocabulary both APIs share: seats, player counts, presets, snapshots, seeds, deck orders, and the two
option shapes, derived from :class:`engine.Options` instead of being written out again, so that they can never
drift from the engine: :data:`OptionOverrides` (every option optional, for requests) and :data:`ResolvedOptions`
(every option present, for responses; ``Options`` itself omits defaults when encoded).

The stateless API's bodies are in :mod:`service.games.schemas`, the sessions' in :mod:`service.sessions.schemas`.
"""

from __future__ import annotations

import inspect
import itertools
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta

from engine import PRESETS, DiscardChoices, Move, Options
from engine.cards import build_pack
from service.web.problems import DiscardChoice

# Litestar drops a ``minimum`` of 0 from the document (it tests bounds for truthiness); ``extra`` restores it.
_MINIMUM_ZERO = {"extra": {"minimum": 0}}

#: A seat number; the schema allows the six seats of the largest game, the game decides which exist.
Seat = Annotated[int, Meta(ge=0, le=5, description="A seat, 0 to players-1, clockwise.",
                           extra_json_schema=_MINIMUM_ZERO)]
PlayerCount = Annotated[int, Meta(ge=2, le=6, description="Number of players, 2 to 6.")]
PresetName = Literal["australian", "american", "beagle"]
if set(typing.get_args(PresetName)) != set(PRESETS):  # pragma: no cover - guards an engine change
    raise RuntimeError(f"service.referee.schemas.PresetName is out of date: the engine has {sorted(PRESETS)}")

Snapshot = Annotated[str, Meta(
    description="An opaque, versioned, sealed game state, as returned by the last create or apply call.",
    examples=["v2.8c1e52ab.Wm9vX2V4YW1wbGVfb25seV9ub3RfYV9yZWFsX3NuYXBzaG90X2J1dF9iYXNlNjR1cmw"],
)]
#: The largest seed: 2**53 - 1, the largest integer a JSON number keeps exactly in every client (JavaScript's
#: ``JSON.parse``, jq and other IEEE-754 double readers round anything larger, to a *different* seed).
SEED_MAX = 2**53 - 1
#: Bits of a seed the service draws and answers (a hint's: ``secrets.randbits(SEED_BITS)`` is at most
#: :data:`SEED_MAX`). A deal the service chooses comes from no seed but a 256-bit secret (:mod:`.deals`).
SEED_BITS = 53


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


Seed = Annotated[int, Meta(ge=0, le=SEED_MAX, extra_json_schema=_MINIMUM_ZERO, description=(
    "Derives every deal not given in deck_orders, reproducibly; at most 2**53-1, so that every JSON parser reads it "
    "exactly. Omitted: the service draws a secret one."
))]
Card = Annotated[str, Meta(min_length=2, max_length=3, pattern=r"^(?:[2-9]|1[0-3]|[JQKA])[SCDH]$|^JKB?$",
                           description="A card token: rank then suit (4H, 10D, 13S, JK, JKB).")]


def _largest_pack() -> int:
    """The most cards any rule set's pack holds, over every value of the options that shape the pack (the
    six-player game with a six-card kitty: 66), so that a deck order's bound follows from the rules."""
    hints = typing.get_type_hints(Options, include_extras=True)
    names = [name for name in inspect.signature(build_pack).parameters if name != "players"]
    choices = [typing.get_args(typing.get_args(hints[name])[0]) for name in ["players", *names]]
    return max(len(build_pack(players, **dict(zip(names, rest, strict=True))))
               for players, *rest in itertools.product(*choices))


#: The most cards of any pack (a deck order's length bound).
LARGEST_PACK = _largest_pack()
#: The most deck orders a create request may give: the hands a snapshot carries ahead of play (a bound of
#: the service, keeping snapshots small; records verify any number of hands).
MAX_DECK_ORDERS = 64
DeckOrders = Annotated[list[Annotated[list[Card], Meta(max_length=LARGEST_PACK)]], Meta(
    max_length=MAX_DECK_ORDERS, description=(
        f"Explicit deck orders for the first hands (at most {MAX_DECK_ORDERS}; each a permutation of the game's "
        f"pack, the first card dealt first, so at most {LARGEST_PACK} cards, the largest pack: six players "
        "with a six-card kitty), for duplicate tournaments, puzzles and tests; later hands are dealt from "
        "the seed."))]


def discard_choice(moves: Sequence[Move]) -> DiscardChoice | None:
    """The compact form of ``moves`` when they are the exchange's discards (else ``None``)."""
    if isinstance(moves, DiscardChoices):
        return DiscardChoice(cards=list(moves.hand), count=moves.k)
    return None


__all__ = ["LARGEST_PACK", "MAX_DECK_ORDERS", "SEED_BITS", "SEED_MAX", "Card", "DeckOrders", "DiscardChoice",
           "OptionOverrides", "PlayerCount", "PresetName", "ResolvedOptions", "Seat", "Seed", "Snapshot",
           "discard_choice", "overrides_dict", "resolved"]
