"""The exact endgame search (bots/endgame.py) against a brute-force minimax over the engine's own moves."""

from __future__ import annotations

import itertools

import pytest

from bots.endgame import solvable, solve, tricks_left
from bots.expert import _scored, _teams
from engine import GameState, apply_move, legal_moves
from tests.bots.states import random_states


def brute_force(state: GameState, seat: int, team: frozenset[int]) -> float:
    """Minimax over every legal move by :func:`engine.apply_move` to the end of the hand, no pruning."""
    values = []
    for move in legal_moves(state):
        after, events = apply_move(state, move)
        value = _scored(events, state.options, seat)
        values.append(brute_force(after, seat, team) if value is None else value)
    return max(values) if state.to_act in team else min(values)


def endgames(players: int, tricks: int, count: int) -> list[GameState]:
    """Solvable positions of random games with at most ``tricks`` tricks left, mostly exactly that many."""
    out: list[GameState] = []
    for _opts, state in random_states(players, 400, seed=11, every=1):
        left = tricks_left(state)
        if solvable(state, 60) and (left == tricks or (left < tricks and len(out) % 3 == 0)):
            out.append(state)
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize(("players", "limit", "count"), [(2, 3, 12), (3, 3, 12), (4, 3, 16), (5, 2, 12), (6, 2, 10)])
def test_solve_equals_brute_force_minimax(players: int, limit: int, count: int) -> None:
    states = endgames(players, limit, count)
    assert len(states) == count
    kinds = set()
    for state in states:
        team = _teams(state)
        for seat in {state.to_act, *state.active}:
            assert seat is not None
            assert solve(state, seat, team[seat]) == pytest.approx(brute_force(state, seat, team[seat])), state
        c = state.contract
        kinds.add("misère" if c is not None and "MISERE" in c.bid else "suit" if c is not None else "none")
    assert "suit" in kinds


def test_solve_from_every_seat_of_other_games() -> None:
    for state in itertools.islice((s for _o, s in random_states(4, 400, seed=5) if solvable(s, 8)), 20):
        team = _teams(state)
        for seat in state.active:
            assert solve(state, seat, team[seat]) == pytest.approx(brute_force(state, seat, team[seat]))


def test_unsolvable_positions_are_refused() -> None:
    seen_refused = False
    for _opts, state in random_states(4, 60, seed=3):
        if state.phase == "play" and tricks_left(state) <= 3 and not solvable(state):
            table_free = any(c in ("JK", "JKB") for s in state.active for c in state.hands[s])
            assert table_free or state.ghost_piles
            seen_refused = True
    assert seen_refused
