"""A hand's value for the expert (bots/value.py): points, and the game's result when the hand ends the game."""

from __future__ import annotations

from bots.value import GAME_BONUS, hand_value, points_value
from tests.engine.helpers import E, N, opts


def test_a_hand_that_does_not_end_the_game_is_worth_its_points() -> None:
    options = opts()
    assert hand_value((100, 100), (140, 20), (N, N + 2), True, options, N) == points_value((140, 20), options, N)
    assert points_value((140, 20), options, N) == 120.0 and points_value((140, 20), options, E) == -120.0


def test_a_hand_that_ends_the_game_counts_its_result() -> None:
    options = opts()
    won = hand_value((400, 100), (140, 20), (N, N + 2), True, options, N)
    assert won == 120.0 + GAME_BONUS
    assert hand_value((400, 100), (140, 20), (N, N + 2), True, options, E) == -120.0 - GAME_BONUS
    # Defeated at 400: the contractor's side does not win, and the defenders do not win on tricks.
    assert hand_value((400, 100), (-140, 40), (N, N + 2), False, options, E) == 180.0
