"""Shared helpers for the API tests: requests, engine states at every phase, and JSON shapes."""

from __future__ import annotations

import random
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from engine import (
    Bid,
    GameState,
    Move,
    Options,
    Pass,
    Play,
    ProposeRedeal,
    apply_move,
    check_move,
    legal_moves,
    new_game,
    resolve_options,
)

Client = TestClient[Litestar]


def by_viewer(body: dict[str, Any]) -> dict[int | None, dict[str, Any]]:
    """The ``views`` of a create or apply answer by viewer: its seat, or ``None`` for the public view."""
    return {v["seat"]: v for v in body["views"]}


def create(client: Client, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


def play_until(state: GameState, phase: str, rng: random.Random, limit: int = 2000) -> GameState:
    """Random legal moves until ``state`` reaches ``phase`` (or the game ends)."""
    for _ in range(limit):
        if state.phase == phase or state.phase == "game_over":
            return state
        state, _ = apply_move(state, rng.choice(legal_moves(state)))
    raise AssertionError(f"phase {phase} not reached in {limit} moves")


def states_by_phase() -> dict[str, GameState]:
    """One engine state in each phase, from seeded games (the setups make every phase reachable)."""
    found: dict[str, GameState] = {}
    # A redeal proposal needs a hand without A, K, Q, J or joker (about one deal in 300): search the seeds.
    opts = resolve_options(4, None, {"no_ace_no_face": True})
    for seed in range(20_000):
        state, _ = new_game(opts, seed=seed)
        proposals = [m for m in legal_moves(state) if isinstance(m, ProposeRedeal)]
        if proposals:
            found["redeal_answer"], _ = apply_move(state, proposals[0])
            break
    setups: list[tuple[Options, int]] = [
        (resolve_options(4, None, {}), 1),
        (resolve_options(5, None, {}), 3),
        (resolve_options(4, None, {"target": 100, "lose_at": -100}), 4),
    ]
    for opts, seed in setups:
        rng = random.Random(seed)
        for game in range(40):
            state, _ = new_game(opts, seed=seed * 1000 + game)
            for _ in range(3000):
                found.setdefault(state.phase, state)
                if state.phase == "game_over":
                    break
                state, _ = apply_move(state, rng.choice(legal_moves(state)))
            found.setdefault(state.phase, state)
            if len(found) == 7:
                return found
    return found


def an_illegal_move(state: GameState) -> Move | None:
    """A well-formed move the engine rejects for a rule (the seat to act playing out of turn's neighbour's
    card, a too-low bid, …), or None."""
    actor = state.to_act
    if actor is None:
        return Pass(seat=0)
    other = (actor + 1) % state.options.players
    candidates: list[Move] = [Pass(seat=other)]
    if state.phase == "play":
        candidates = [Play(seat=actor, card=c) for c in state.hands[actor]] + candidates
    if state.phase == "auction":
        candidates = [Bid(seat=actor, bid="MISERE"), Bid(seat=actor, bid="6S")] + candidates
    for move in candidates:
        if (rejection := check_move(state, move)) is not None and rejection.reason not in (
                "UNKNOWN_CARD", "UNKNOWN_BID", "UNKNOWN_SUIT", "NO_SUCH_SEAT"):
            return move
    return None
