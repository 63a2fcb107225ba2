"""The benchmark opponents of other styles (tests/bench/strangers.py): legal moves through whole games at every
player count, decisions from the seat's view alone, and the same decision for the same view and seed."""

from __future__ import annotations

import random

import pytest

from bots import decide
from engine import Options, apply_move, check_move, new_game, view
from engine.model import HandScored
from tests.bench.strangers import STRANGERS, decide_stranger, guide_misere_safe, guide_tricks
from tests.bots.states import PLAYER_COUNTS, mover, random_states
from tests.bots.test_bot_properties import _permute_hidden


def _options(players: int | str) -> Options:
    if players == "ghosts":
        return Options(players=2, two_player_method="ghost_partners")
    return Options(players=players)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", STRANGERS)
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_stranger_plays_legal_moves_through_whole_games(name: str, players: int | str) -> None:
    opts = _options(players)
    bids: set[str] = set()
    for g in range(3):
        state, _ = new_game(opts, seed=900 + g)
        for step in range(3000):
            if state.to_act is None:
                break
            seat = mover(state)
            move = decide_stranger(name, view(state, seat), opts, seed=step)
            assert check_move(state, move) is None, (name, state.phase, move)
            state, events = apply_move(state, move)
            bids.update(e.bid for e in events if isinstance(e, HandScored) and e.bid is not None)
        assert state.to_act is None, "the game did not end"
    assert bids  # contracts were bid and played out


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_strangers_play_legal_moves_in_random_states_and_options(players: int | str) -> None:
    checked = 0
    for i, (_opts, state) in enumerate(random_states(players, games=10, seed=21, every=2)):
        for name in STRANGERS:
            move = decide_stranger(name, view(state, mover(state)), state.options, seed=i)
            assert check_move(state, move) is None, (name, state.phase, move)
            checked += 1
    assert checked >= 200


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_strangers_ignore_the_cards_the_seat_cannot_see(players: int | str) -> None:
    rng = random.Random(31)
    compared = moved = 0
    for i, (_opts, state) in enumerate(random_states(players, games=10, seed=23, every=2)):
        seat = mover(state)
        other = _permute_hidden(state, seat, rng)
        moved += other != state
        assert view(other, seat) == view(state, seat)
        for name in STRANGERS:
            a = decide_stranger(name, view(state, seat), state.options, seed=i)
            b = decide_stranger(name, view(other, seat), other.options, seed=i)
            assert a == b, (name, state.phase)
            compared += 1
    assert moved >= 50 and compared >= 200


def test_the_guide_counts_sure_tricks() -> None:
    opts = Options()
    # Joker, both bowers, the ace and five small hearts beside a side ace: the top four trumps, two more by length,
    # the side ace, and a void and a singleton beside five trumps.
    hand = ("JK", "JH", "JD", "AH", "9H", "8H", "7H", "AS", "5C", "4D")
    assert guide_tricks(hand, "H", opts) >= 8
    # A king without a guard and a bare queen count nothing.
    assert guide_tricks(("KS", "QC", "5D", "6D", "7D", "8D", "8H", "9H", "5C", "6C"), "NT", opts) == 0


def test_the_guide_reads_misere_after_its_discard() -> None:
    opts = Options()
    low = ("4H", "5H", "6S", "5S", "7C", "5C", "4D", "6D", "8D", "7H")
    assert guide_misere_safe(low, opts, kitty=3)
    # The joker and two aces are what it would discard: the hand stays a misère hand ...
    assert guide_misere_safe(("JK", "AS", "AC", "4H", "5H", "6S", "5S", "5C", "4D", "6D"), opts, kitty=3)
    # ... but four high cards are one too many.
    assert not guide_misere_safe(("JK", "AS", "AC", "KD", "5H", "6S", "5S", "5C", "4D", "6D"), opts, kitty=3)


def test_the_guide_bids_misere_and_plays_it_through() -> None:
    """Over seeded four-player games against ``basic`` the guide bids misère and plays it to a result."""
    misere: list[bool] = []
    opts = Options()
    for seed in range(30):
        state, _ = new_game(opts, seed=seed)
        while state.to_act is not None:
            seat = state.to_act
            move = decide_stranger("guide", view(state, seat), opts) if seat % 2 == 0 else \
                decide(view(state, seat), opts, level="basic").move
            state, events = apply_move(state, move)
            misere += [bool(e.made) for e in events if isinstance(e, HandScored) and e.bid in ("MISERE", "OPEN_MISERE")
                       and e.contractor is not None and e.contractor % 2 == 0]
        if len(misere) >= 3:
            break
    assert len(misere) >= 3, misere
