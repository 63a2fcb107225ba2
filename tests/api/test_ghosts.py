"""The stateless API plays the two-player ghost-partners game; the rules catalogue offers it in every language."""

from __future__ import annotations

import pytest

from engine import GameState, Play, apply_move, legal_moves, player_to_act, view
from service.i18n.negotiation import SUPPORTED_LANGUAGES
from service.referee.snapshots import Sealer
from tests.support import as_json, assert_problem

from .helpers import Client, create

OPTIONS = {"two_player_method": "ghost_partners"}


def _to_a_ghost(client: Client, sealer: Sealer) -> tuple[str, GameState]:
    """A game played over the API until a ghost is to play: human 0 opens 6S, human 1 passes, 0 discards and
    leads, 1 follows."""
    body = create(client, players=2, options=OPTIONS, seed=5, first_dealer=1)
    snapshot = body["snapshot"]
    state = sealer.open(snapshot)
    while not (state.phase == "play" and state.to_act in (2, 3)):
        moves = legal_moves(state)
        if state.phase == "auction":
            want = "6S" if state.high is None else None
            move = next(m for m in moves if getattr(m, "bid", None) == want)
        else:
            move = moves[0]
        response = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": as_json(move)})
        assert response.status_code == 200, response.text
        snapshot = response.json()["snapshot"]
        state = apply_move(state, move)[0]
        assert sealer.open(snapshot) == state
    return snapshot, state


def test_a_human_asks_for_and_makes_its_ghosts_moves(client: Client, sealer: Sealer) -> None:
    snapshot, state = _to_a_ghost(client, sealer)
    ghost = state.to_act
    assert ghost is not None
    human = player_to_act(state)
    assert human == ghost - 2
    # The ghost's legal moves: for the seat to act, and for its human; none for the other human.
    moves = as_json(list(legal_moves(state)))
    body = client.post("/v1/games/legal-moves", json={"snapshot": snapshot}).json()
    assert body["seat"] == ghost and body["legal_moves"] == moves
    listed = client.post("/v1/games/legal-moves", json={"snapshot": snapshot, "seat": human}).json()
    assert listed["legal_moves"] == moves
    other = client.post("/v1/games/legal-moves", json={"snapshot": snapshot, "seat": 1 - human}).json()
    assert other["legal_moves"] == []
    # A ghost is no viewer.
    assert_problem(client.post("/v1/games/view", json={"snapshot": snapshot, "seat": ghost}), 400, "NO_SUCH_SEAT")
    # A suggestion for the human is a move of its ghost.
    response = client.post("/v1/games/suggest", json={"snapshot": snapshot, "seat": human, "level": "basic"})
    assert response.status_code == 200, response.text
    suggested = response.json()["move"]
    assert suggested["seat"] == ghost and suggested in moves
    assert_problem(client.post("/v1/games/suggest", json={"snapshot": snapshot, "seat": 1 - human}), 422,
                   "NOT_TO_ACT")
    # The ghost's move, named by its seat, applies; the views show the ghosts and no face-down card.
    move = legal_moves(state)[0]
    assert isinstance(move, Play)
    response = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": as_json(move),
                                                    "views": [0, 1, None]})
    assert response.status_code == 200, response.text
    after = apply_move(state, move)[0]
    body = response.json()
    down = {d for g, piles in enumerate(after.ghost_piles) for u, d in piles if u in after.hands[g]}
    for answered, viewer in zip(body["views"], (0, 1, None), strict=True):
        assert answered["seat"] == viewer and answered["view"] == as_json(view(after, viewer))
        assert [g["face_up"] for g in answered["view"]["ghosts"]] == [list(after.hands[2]), list(after.hands[3])]
    assert not [c for c in down if f'"{c}"' in response.text]


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_the_rules_catalogue_offers_ghost_partners_in_every_language(client: Client, language: str) -> None:
    body = client.get("/v1/rules?players=2", headers={"Accept-Language": language}).json()
    entry = next(o for o in body["options"] if o["name"] == "two_player_method")
    assert "ghost_partners" in entry["allowed"] and entry["default"] == "uspcc_dead_hand"
    assert "ghost_partners" in entry["description"]
    english = client.get("/v1/rules?players=2", headers={"Accept-Language": "en"}).json()
    english_entry = next(o for o in english["options"] if o["name"] == "two_player_method")
    assert (entry["description"] == english_entry["description"]) == (language == "en")
    topics = [d["topic"] for d in body["decisions"]]
    assert sum(t.startswith("ghost partners") for t in topics) == 3
