"""The frozen baseline of tests/bench/baseline (the expert at ``4628e07``): its copy decides as that commit did.

``data/expert_4628e07.json`` holds the decisions ``bots.decide(level="expert", budget=24)`` made at that commit,
in its own checkout, on the positions that seeded random play reaches at every player count (the script that
wrote them is the loop below, run against that checkout's ``bots``). The copy must make every one of them: a
change to the engine that moved the baseline's decisions would show here before it skewed a match.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine import Discard, GameState, Move, Options, apply_move, legal_moves, new_game, view
from engine.deal import kitty_size
from tests.bench.baseline import decide_baseline

RECORDED = json.loads((Path(__file__).parent / "data" / "expert_4628e07.json").read_text())


def _drive(state: GameState, step: int, opts: Options) -> Move:
    """The seeded random play that reaches the recorded positions (the exchange discards the hand's first cards)."""
    seat = state.to_act
    assert seat is not None
    if state.phase == "exchange":
        return Discard(seat=seat, cards=tuple(state.hands[seat][:kitty_size(opts)]))
    legal = legal_moves(state)
    return legal[random.Random(step).randrange(len(legal))]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_baseline_decides_as_the_expert_of_4628e07_did(players: int) -> None:
    recorded: dict[int, Any] = {r["step"]: r["move"] for r in RECORDED if r["players"] == players}
    assert len(recorded) >= 10
    opts = Options(players=players)  # type: ignore[arg-type]
    state, _ = new_game(opts, seed=players)
    decided: dict[int, Any] = {}
    for step in range(max(recorded) + 1):
        assert state.to_act is not None
        if step in recorded:
            move = decide_baseline(view(state, state.to_act), opts, seed=step, budget=24)
            decided[step] = json.loads(msgspec.json.encode(move))
        state, _ = apply_move(state, _drive(state, step, opts))
    assert decided == recorded
