"""What a hand's result is worth to a seat, in the expert's playouts and exact endgames.

A hand's value for a seat is its side's score change minus the average change of the other sides. When the hand
ends the game (:func:`engine.scoring.judge_game` on the scores it leaves), the game's result counts too: the
winning side gains :data:`GAME_BONUS` more (shared among sides that win together), and every other side loses
it. A seat whose side is about to win then prefers the contract it makes for sure to a dearer one, and a defender
facing a contract that would end the game against it will bid on or defend to stop it rather than count the
points alone: the matches are won by games, not points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine import Options
from engine.memo import remember
from engine.rules import side_of
from engine.scoring import judge_game

#: What winning (losing) the game adds to (takes from) a hand's value, in points.
GAME_BONUS = 300.0


def points_value(deltas: Sequence[int], opts: Options, seat: int) -> float:
    """A hand's value for ``seat``'s side from its score changes alone (see the module docstring)."""
    mine = side_of(opts)[seat]
    others = [d for i, d in enumerate(deltas) if i != mine]
    return float(deltas[mine] - (sum(others) / len(others) if others else 0.0))


def result_value(winners: Sequence[int], opts: Options, seat: int) -> float:
    """What the game's end with these ``winners`` (sides; none: the game goes on) adds to a hand's value for
    ``seat``."""
    if not winners:
        return 0.0
    return GAME_BONUS / len(winners) if side_of(opts)[seat] in winners else -GAME_BONUS


def hand_value(scores: Sequence[int], deltas: Sequence[int], seats: Sequence[int], made: bool | None,
               opts: Options, seat: int) -> float:
    """A hand's value for ``seat`` (see the module docstring): ``scores`` before the hand, its ``deltas``, the
    contracting ``seats`` and whether the contract was ``made``, as :func:`engine.scoring.score_hand` gives them.
    (Memoised: a search's playouts end in few distinct results.)"""
    key = (opts, tuple(scores), tuple(deltas), tuple(seats), made, seat)
    found = _HAND_VALUES.get(key)
    if found is None:
        found = remember(_HAND_VALUES, key, _hand_value(scores, deltas, seats, made, opts, seat), 4096)
    return found


#: :func:`hand_value` by its arguments (a pure memo: see :mod:`engine.memo`).
_HAND_VALUES: Final[dict[tuple[Options, tuple[int, ...], tuple[int, ...], tuple[int, ...], bool | None, int],
                         float]] = {}


def _hand_value(scores: Sequence[int], deltas: Sequence[int], seats: Sequence[int], made: bool | None,
                opts: Options, seat: int) -> float:
    side = side_of(opts)
    after = tuple(a + b for a, b in zip(scores, deltas, strict=True))
    contracting = list(dict.fromkeys(side[s] for s in seats))
    result = judge_game(opts, after, contracting, made)
    return points_value(deltas, opts, seat) + result_value(result.winners if result else (), opts, seat)


__all__ = ["GAME_BONUS", "hand_value", "points_value", "result_value"]
