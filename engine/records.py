"""The game record's schema: a whole game as a versioned document (``fivehundred-record/1``), and its bounds.

A record (:class:`GameRecord`) holds what a game *is*: the rules version, the full resolved options, the
player count, the deal source (a ``seed``, and/or explicit ``deck_orders`` consumed first), the first dealer
and the moves in order, each as the API's move object. Everything else in it is *derived* from those and
checked: each hand's deal, contract, tricks and score (:class:`HandRecord`), the scores and the result.
OpenSpiel serializes a game the same way (its parameters plus the action history); PGN and PBN keep the
derived annotations beside the moves as this does.

Building, replaying and verifying a record is :mod:`engine.replay`; its plain-text form is
:mod:`engine.record_text` (docs/RECORDS.md has both formats).

Limits: a record holds at most :data:`MAX_RECORD_MOVES` moves and :data:`MAX_RECORD_HANDS` hands; replay is
linear in the moves (each move is one engine check and apply), so the work per record is bounded by them.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from engine.model import GameState, Move
from engine.options import Options
from engine.setup import validate_options

RECORD_FORMAT: Literal["fivehundred-record/1"] = "fivehundred-record/1"

#: The most moves a record may hold, far more than a real game takes (random four-player games to 500 take a few
#: hundred moves, a six-player hand about 90: docs/BENCHMARKS.md). Replay is linear in the moves (one engine
#: check and apply each), so this bounds the work of one record.
MAX_RECORD_MOVES = 5_000
#: The most hands (deals, redeals included) a record may hold: every hand but the last takes two moves or more
#: (a two-player hand thrown in after two passes), so this follows from the move bound.
MAX_RECORD_HANDS = MAX_RECORD_MOVES // 2 + 1
#: The most explicit deck orders a record may hold.
MAX_DECK_ORDERS = MAX_RECORD_HANDS

def _option_fields() -> list[tuple[str, Any]]:
    hints = typing.get_type_hints(Options, include_extras=True)
    return [(name, hints[name]) for name in Options.__struct_fields__]


# Options itself leaves defaults out when encoded; a record spells out every option (and a record missing one
# does not decode), so it stays exact if a default ever changes. Derived from Options, so it never drifts.
if TYPE_CHECKING:
    RecordOptions = Options
else:
    RecordOptions = msgspec.defstruct("RecordOptions", _option_fields(), module=__name__, frozen=True,
                                      kw_only=True, forbid_unknown_fields=True)
    RecordOptions.__doc__ = "Every rule option, spelled out (the full resolved rule set of the game)."


def record_options(opts: Options) -> RecordOptions:
    """``opts`` with every field present (as a record holds them)."""
    return RecordOptions(**msgspec.structs.asdict(opts))


def engine_options(opts: RecordOptions) -> Options:
    """The engine's :class:`Options` for a record's options (raises :class:`OptionsError` if unplayable)."""
    options = Options(**msgspec.structs.asdict(opts))
    validate_options(options)
    return options


class RecordContract(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A hand's contract as the auction and the partner call settled it."""

    bid: str
    contractor: int
    sans_kitty: bool
    #: Misère partners who sit the hand out.
    sitting_out: tuple[int, ...]
    #: Five players: the card called (its holder is the secret partner), the partners named, or alone.
    called_card: str | None
    chosen_partners: tuple[int, ...]
    alone: bool


class RecordTrick(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A trick: who led, the cards in play order, the suit a led joker named, and who won it (``null`` while
    the trick is in progress, at the end of a record of a game still being played)."""

    leader: int
    cards: tuple[str, ...]
    nominate: str | None
    winner: int | None


class HandScore(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a played-out hand scored: ``deltas`` and ``scores`` are per side (``sides(options)``)."""

    made: bool | None
    contracting_seats: tuple[int, ...]
    tricks_won: tuple[int, ...]
    deltas: tuple[int, ...]
    scores: tuple[int, ...]


HandOutcome = Literal["scored", "thrown_in", "in_progress"]
ThrowInReason = Literal["all_passed", "inkle", "no_ace_no_face"]


class HandRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One deal (a redeal is a hand of its own) and what became of it, all derived from the moves."""

    hand_number: int
    dealer: int
    #: How many of the record's moves belong to this hand (they follow the previous hands' moves).
    move_count: int
    #: The hands as dealt, by seat (each in the pack's order; a ghost's ten cards, face up and face down), the
    #: two-player dead hand, and the kitty.
    dealt: tuple[tuple[str, ...], ...]
    dead_hand: tuple[str, ...]
    kitty: tuple[str, ...]
    #: ``null``: no contract (thrown in, every seat passed and the hand was played out at no trumps, or the
    #: auction is still going on).
    contract: RecordContract | None
    tricks: tuple[RecordTrick, ...]
    outcome: HandOutcome
    thrown_in: ThrowInReason | None
    score: HandScore | None


class RecordResult(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How the game ended: winning and losing sides (indices into ``sides(options)``) and why."""

    winners: tuple[int, ...]
    losers: tuple[int, ...]
    reason: Literal["contract", "points", "out_backwards"]


class GameRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole game (or the game so far): its inputs, its moves, and what they derive. See the module doc."""

    format: Literal["fivehundred-record/1"]
    rules_version: str
    players: int
    options: RecordOptions
    #: Derives every deal not given in ``deck_orders``; ``null`` when every hand dealt is in ``deck_orders``.
    seed: int | None
    #: Explicit deck orders for the first hands, each a permutation of the pack (``deck[0]`` dealt first).
    deck_orders: tuple[tuple[str, ...], ...]
    first_dealer: int
    moves: tuple[Move, ...]
    # ------------------------------------------------------------------ derived from the above, and checked
    hands: tuple[HandRecord, ...]
    status: Literal["in_progress", "game_over"]
    #: Per side, after the last scored hand.
    scores: tuple[int, ...]
    result: RecordResult | None


class Verified(msgspec.Struct, frozen=True, kw_only=True):
    """A record that replays cleanly and agrees with itself: the final state and the record as derived."""

    state: GameState
    record: GameRecord


class RecordRefused(ValueError):
    """Why a record (or a list of moves) is refused.

    ``code`` is one of: ``INVALID_OPTIONS``, ``INVALID_SEED``, ``INVALID_DECK_ORDER``, ``INVALID_FIRST_DEALER``,
    ``RECORD_TOO_LONG`` (the record itself cannot start); ``MALFORMED_MOVE`` (a card,
    bid, suit or seat the game does not have) and ``ILLEGAL_MOVE`` at ``index`` with the engine's ``reason``
    and ``state`` the state before it; ``RECORD_MISMATCH``: a derived ``field`` differs (or ``rules_version``
    is not this engine's).
    """

    def __init__(self, code: str, detail: str, *, index: int | None = None, reason: str | None = None,
                 field: str | None = None, state: GameState | None = None) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
        self.index = index
        self.reason = reason
        self.field = field
        self.state = state


__all__ = [
    "MAX_DECK_ORDERS", "MAX_RECORD_HANDS", "MAX_RECORD_MOVES", "RECORD_FORMAT", "GameRecord", "HandOutcome",
    "HandRecord", "HandScore", "RecordContract", "RecordOptions", "RecordRefused", "RecordResult", "RecordTrick",
    "ThrowInReason", "Verified", "engine_options", "record_options",
]
