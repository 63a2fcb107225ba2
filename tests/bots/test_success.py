"""The expert's ``success`` share per candidate: how often the seat's side gets its way with the contract."""

from __future__ import annotations

from collections.abc import Iterator

from bots import decide
from engine import GameState, Options, apply_move, legal_moves, new_game, partners, view
from engine.rules import MISERE_BIDS, bid_level, side_of
from tests.bots.states import random_states


def basic_game_states(players: int, games: int, seed: int) -> Iterator[GameState]:
    """The states of games the ``basic`` bot plays at every seat (realistic contracts, made or not)."""
    for g in range(games):
        state, _ = new_game(Options(players=players), seed=seed * 1000 + g)  # type: ignore[arg-type]
        while state.to_act is not None and state.hand_number <= 3:
            yield state
            move = decide(view(state, state.to_act), state.options, level="basic", legal=legal_moves(state)
                          if state.phase != "exchange" else None).move
            state, _ = apply_move(state, move)


def test_a_contract_already_made_is_certain_for_its_side_and_lost_for_the_defenders() -> None:
    seen = {True: 0, False: 0}
    for state in basic_game_states(4, games=6, seed=21):
        c = state.contract
        if state.phase != "play" or c is None or c.bid in MISERE_BIDS or len(legal_moves(state)) < 2:
            continue
        contracting = (c.contractor, *partners(state))
        if sum(state.tricks_won[s] for s in contracting) < bid_level(c.bid):
            continue
        seat = state.to_act
        assert seat is not None
        side = side_of(state.options)
        ours = side[seat] in {side[s] for s in contracting}
        decision = decide(view(state, seat), state.options, level="expert", seed=1, budget=24,
                          legal=legal_moves(state))
        if not decision.candidates:
            continue  # one distinct card to play: nothing was searched
        assert all(cand.success == (1.0 if ours else 0.0) for cand in decision.candidates), decision
        seen[ours] += 1
        if min(seen.values()) >= 3:
            break
    assert seen[True] >= 3 and seen[False] >= 3, seen


def test_success_shares_lie_between_zero_and_one_in_every_phase() -> None:
    phases: set[str] = set()
    for i, (_opts, state) in enumerate(random_states(4, games=8, seed=22, every=5)):
        seat = state.to_act
        assert seat is not None
        decision = decide(view(state, seat), state.options, level="expert", seed=i, budget=16,
                          legal=legal_moves(state))
        for cand in decision.candidates:
            assert cand.success is None or 0.0 <= cand.success <= 1.0
            if cand.success is not None:
                phases.add(state.phase)
    assert {"auction", "play"} <= phases, phases
