"""Schemathesis over the committed contract (``openapi/openapi.json``), driving the in-process ASGI app.

Every operation is fuzzed with bodies generated from the schema (and, negatively, bodies that violate it).
Generated snapshots would never open, so a hook replaces the ``snapshot`` of most bodies with real sealed
snapshots at every phase of 2- to 6-player games, and often the ``move`` with a legal move of that state, so
the fuzzing reaches the engine: legal moves apply, illegal ones are answered 422, bad tokens 400. A few pool
entries are broken on purpose (an inconsistent state, a snapshot under another key).

Checks: no 5xx, every status code documented, every response body conforms to its schema, and every content
type is the documented one.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis import DataGenerationMethod
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from engine import GameState, apply_move, legal_moves, new_game, resolve_options
from service.app import create_app
from service.config import Settings
from service.snapshots import Sealer

from .conftest import KEY_A, KEY_B
from .helpers import an_illegal_move, states_by_phase

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
CHECKS = (not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance)


def _pool() -> list[tuple[str, list[Any]]]:
    """(sealed snapshot, legal moves as JSON) at many phases and player counts, plus a few broken ones."""
    sealer = Sealer([KEY_A])
    states: list[GameState] = list(states_by_phase().values())
    rng = random.Random(7)
    for players in (2, 3, 4, 5, 6):
        state, _ = new_game(resolve_options(players, None, {"target": 200, "lose_at": -200}), seed=players)
        for step in range(400):
            if state.phase == "game_over":
                break
            if step % 17 == 0 or state.phase in ("exchange", "call", "nominate"):
                states.append(state)
            state, _ = apply_move(state, rng.choice(legal_moves(state)))
        states.append(state)
    pool = []
    for s in states:
        moves: list[Any] = legal_moves(s)[:40]
        illegal = an_illegal_move(s)
        if illegal is not None:
            moves += [illegal] * max(1, len(moves) // 3)  # about a quarter of the picks: answered 422
        pool.append((sealer.seal(s), msgspec.to_builtins(moves)))
    broken = msgspec.structs.replace(states[0], kitty=())
    pool.append((sealer.seal(broken), []))  # opens, fails the integrity check
    pool.append((Sealer([KEY_B]).seal(states[0]), []))  # unknown key
    return pool


POOL = _pool()
APP = create_app(Settings(snapshot_keys=(KEY_A,)))
schemathesis.experimental.OPEN_API_3_1.enable()  # Schemathesis 3.x: OpenAPI 3.1 support is opt-in
schema = schemathesis.from_path(
    str(CONTRACT), app=APP,
    data_generation_methods=[DataGenerationMethod.positive, DataGenerationMethod.negative],
)


def _with_real_snapshot(generated: Any, dice: int, entry: tuple[str, list[Any]], pick: int) -> Any:
    if not isinstance(generated, dict) or "snapshot" not in generated or dice >= 8:
        return generated  # keep what was generated: garbage snapshots must be refused cleanly too
    snapshot, moves = entry
    body = dict(generated, snapshot=snapshot)
    if "move" in body and moves and dice < 5:
        body["move"] = moves[pick % len(moves)]
    return body


@schema.hook
def before_generate_body(context: Any, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.builds(_with_real_snapshot, strategy, st.integers(0, 9), st.sampled_from(POOL),
                     st.integers(0, 1000))


@schema.parametrize()
@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_contract(case: schemathesis.Case) -> None:
    response = case.call()
    case.validate_response(response, checks=CHECKS)
