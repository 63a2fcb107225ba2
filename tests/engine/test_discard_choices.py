"""The exchange's legal discards as a lazy sequence: exactly the list of every choice, in itertools' order."""

from __future__ import annotations

import random
from itertools import combinations

import msgspec
import pytest

from engine import Discard, Options, apply_move, legal_moves, new_game
from engine.model import DiscardChoices

HAND = ("JK", "AS", "KS", "QS", "JS", "10S", "9S", "AH", "KH", "QH", "JH", "10H", "9H", "AC", "KC", "QC")


@pytest.mark.parametrize(("n", "k"), [(4, 2), (13, 3), (12, 2), (14, 4), (16, 6), (13, 1), (3, 3)])
def test_every_index_and_the_iteration_give_itertools_combinations(n: int, k: int) -> None:
    hand = HAND[:n]
    expected = [Discard(seat=2, cards=c) for c in combinations(hand, k)]
    choices = DiscardChoices(2, hand, k)
    assert len(choices) == len(expected)
    assert list(choices) == expected
    assert [choices[i] for i in range(len(choices))] == expected
    assert [choices[-i] for i in range(1, len(choices) + 1)] == expected[::-1]
    assert choices[1:7] == expected[1:7] and choices[::5] == expected[::5]
    assert choices == expected and expected == choices and choices == tuple(expected)
    assert all(m in choices for m in expected)
    assert all(choices.index(m) == i for i, m in enumerate(expected))
    with pytest.raises(IndexError):
        choices[len(expected)]
    with pytest.raises(IndexError):
        choices[-len(expected) - 1]


def test_what_is_not_a_legal_discard_is_not_in_it() -> None:
    choices = DiscardChoices(1, HAND[:13], 3)
    assert Discard(seat=1, cards=("AS", "KS", "QS")) in choices
    outside = [
        Discard(seat=1, cards=("KS", "AS", "QS")),  # not in the hand's order: not one of the listed moves
        Discard(seat=0, cards=("AS", "KS", "QS")),  # another seat
        Discard(seat=1, cards=("AS", "KS")),  # too few
        Discard(seat=1, cards=("AS", "KS", "QS", "JS")),  # too many
        Discard(seat=1, cards=("AS", "KS", "KC")),  # KC is not in these 13 cards
        Discard(seat=1, cards=("AS", "AS", "KS")),  # twice
        "AS",
    ]
    for move in outside:
        assert move not in choices
        assert choices.count(move) == 0
        with pytest.raises(ValueError):
            choices.index(move)
    assert choices != [*choices][:-1] and choices != DiscardChoices(1, HAND[:13], 2)
    with pytest.raises(TypeError):
        hash(choices)


def test_legal_moves_at_the_exchange_are_the_choices_and_each_applies() -> None:
    rng = random.Random(3)
    seen = 0
    for seed in range(40):
        state, _ = new_game(Options(), seed=seed)
        while state.to_act is not None and seen < 12:
            moves = legal_moves(state)
            if state.phase == "exchange":
                seat = state.to_act
                assert isinstance(moves, DiscardChoices)
                assert moves == [Discard(seat=seat, cards=c) for c in combinations(state.hands[seat], 3)]
                assert msgspec.json.encode(list(moves))  # the plain list encodes as the API sends it
                for i in (0, len(moves) - 1, rng.randrange(len(moves))):
                    after, _ = apply_move(state, moves[i])
                    assert len(after.hands[seat]) == 10
                seen += 1
            state, _ = apply_move(state, moves[rng.randrange(len(moves))])
    assert seen == 12
