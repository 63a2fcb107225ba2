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


def test_the_memoised_value_is_the_value_computed_afresh() -> None:
    """``hand_value`` keeps its answers (a search's playouts end in few distinct results): on random hands of every
    player count, given as tuples or lists, in any order of asking, it answers as the value computed afresh."""
    import random

    from bots.value import _hand_value
    from engine import Options, sides

    rng = random.Random("hand-values")
    for _ in range(3000):
        options = Options(players=rng.choice((2, 3, 4, 5, 6)), target=rng.choice((500, 300)))  # type: ignore[arg-type]
        n = len(sides(options))
        scores = [rng.randrange(-600, 600, 10) for _ in range(n)]
        deltas = [rng.randrange(-500, 520, 10) for _ in range(n)]
        seats = rng.sample(range(options.players), rng.randint(0, 2))
        made = rng.choice((True, False, None))
        seat = rng.randrange(options.players)
        as_lists = rng.random() < 0.5
        args = (scores, deltas, seats) if as_lists else (tuple(scores), tuple(deltas), tuple(seats))
        expected = _hand_value(*args, made, options, seat)
        assert hand_value(*args, made, options, seat) == expected
        assert hand_value(*args, made, options, seat) == expected  # (the kept answer)
