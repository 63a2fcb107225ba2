"""``POST /v1/games/suggest``: a bot's move for the seat to act of a snapshot, over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from bots import decide
from engine import GameState, Move, check_move, legal_moves, view
from service.referee.snapshots import Sealer
from tests.api.helpers import states_by_phase
from tests.support import KEY, app_with_key

SEALER = Sealer([KEY])
STATES = states_by_phase()
MOVE = msgspec.json.Decoder(Move)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient[Litestar]]:
    with TestClient(app_with_key()) as test_client:
        yield test_client


def _suggest(client: TestClient[Litestar], state: GameState, **body: Any) -> Any:
    return client.post("/v1/games/suggest", json={"snapshot": SEALER.seal(state), **body})


@pytest.mark.parametrize("phase", sorted(set(STATES) - {"game_over"}))
@pytest.mark.parametrize("level", ["random", "basic", "expert"])
def test_every_level_suggests_a_legal_move_in_every_phase(client: TestClient[Litestar], phase: str,
                                                          level: str) -> None:
    state = STATES[phase]
    response = _suggest(client, state, seat=state.to_act, level=level, seed=5, budget=12)
    assert response.status_code == 200, response.text
    body = response.json()
    move = MOVE.decode(msgspec.json.encode(body["move"]))
    assert check_move(state, move) is None
    assert body["seat"] == state.to_act and body["level"] == level and body["seed"] == 5
    # The service answers exactly what the bot decides from the seat's view.
    expected = decide(view(state, state.to_act), state.options, level=level, seed=5,  # type: ignore[arg-type]
                      budget=12 if level == "expert" else None, legal=legal_moves(state))
    assert move == expected.move
    if level == "expert":
        assert body["budget"] == 12 and body["playouts"] == expected.playouts
        assert [c["value"] for c in body["candidates"]] == [c.value for c in expected.candidates]
    else:
        assert body["candidates"] == [] and body["playouts"] == 0


def test_expert_hint_lists_candidates_with_values_and_spending(client: TestClient[Litestar]) -> None:
    state = STATES["play"]
    body = _suggest(client, state, seat=state.to_act, level="expert", seed=1, budget=40).json()
    legal = [msgspec.to_builtins(m) for m in legal_moves(state)]
    assert body["move"] in [c["move"] for c in body["candidates"]]
    assert all(c["move"] in legal for c in body["candidates"])
    assert body["playouts"] == sum(c["playouts"] for c in body["candidates"]) and 0 < body["playouts"] <= 40
    values = [c["value"] for c in body["candidates"]]
    assert values == sorted(values, reverse=True)


def test_the_same_seed_gives_the_same_answer_and_a_drawn_seed_is_returned(client: TestClient[Litestar]) -> None:
    state = STATES["auction"]
    first = _suggest(client, state, seat=state.to_act, level="expert", seed=9, budget=20).json()
    assert _suggest(client, state, seat=state.to_act, level="expert", seed=9, budget=20).json() == first
    drawn = _suggest(client, state, seat=state.to_act, level="random").json()
    again = _suggest(client, state, seat=state.to_act, level="random", seed=drawn["seed"]).json()
    assert again["move"] == drawn["move"]


def test_a_seat_not_to_act_is_refused_naming_the_seat_that_is(client: TestClient[Litestar]) -> None:
    state = STATES["play"]
    assert state.to_act is not None
    other = (state.to_act + 1) % state.options.players
    response = _suggest(client, state, seat=other, level="basic")
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "NOT_TO_ACT"
    assert body["detail"] == f"seat {other} is not to act; seat {state.to_act} is"
    over = _suggest(client, STATES["game_over"], seat=0)
    assert over.status_code == 422 and over.json()["detail"] == "seat 0 is not to act; the game is over"


def test_bad_requests_are_answered_400(client: TestClient[Litestar]) -> None:
    state = STATES["play"]
    players = state.options.players
    cases: list[tuple[dict[str, Any], str]] = [
        ({"seat": players if players < 6 else 6}, "NO_SUCH_SEAT" if players < 6 else "MALFORMED_REQUEST"),
        ({"seat": state.to_act, "level": "grandmaster"}, "MALFORMED_REQUEST"),
        ({"seat": state.to_act, "level": "expert", "budget": 0}, "MALFORMED_REQUEST"),
        ({"seat": state.to_act, "seed": -1}, "INVALID_SEED"),
    ]
    for body, code in cases:
        response = _suggest(client, state, **body)
        assert response.status_code == 400 and response.json()["code"] == code, (body, response.text)
    tampered = client.post("/v1/games/suggest", json={"snapshot": SEALER.seal(state)[:-4] + "AAAA", "seat": 0})
    assert tampered.status_code == 400 and tampered.json()["code"].startswith("SNAPSHOT_")


def test_expert_candidates_say_how_often_the_side_gets_its_way(client: TestClient[Litestar]) -> None:
    """Each candidate's ``success``: the share of its playouts in which the seat's side made the contract (or
    defeated another side's), as the bot computed it; a share of the candidate's playouts."""
    state = STATES["play"]
    seat = state.to_act
    assert seat is not None
    body = _suggest(client, state, seat=seat, level="expert", seed=4, budget=40).json()
    expected = decide(view(state, seat), state.options, level="expert", seed=4, budget=40, legal=legal_moves(state))
    assert [c["success"] for c in body["candidates"]] == [c.success for c in expected.candidates]
    for c in body["candidates"]:
        assert c["success"] is not None and 0.0 <= c["success"] <= 1.0
        assert round(c["success"] * c["playouts"]) == pytest.approx(c["success"] * c["playouts"], abs=0.01)
    basic = _suggest(client, state, seat=seat, level="basic").json()
    assert basic["candidates"] == []
