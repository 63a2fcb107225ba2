"""Differential: seeded random games played only through HTTP reach exactly what the engine reaches directly.

Each game is created with a seed, then each move is chosen by a seeded RNG from the legal-moves endpoint and
sent to apply; the same choices are made against the engine in-process. After every move the opened snapshot
(opened by a sealer without the app's cache, so it is really decrypted and decoded) must equal the engine's
state, the public events and any requested views must equal the engine's redactions, and on the way validate
and apply must agree about an illegal move. The games cover 2 to 6 players and several option sets.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import (
    GameState,
    Move,
    Pass,
    apply_move,
    check_move,
    legal_moves,
    new_game,
    redact_events,
    resolve_options,
    view,
)
from service.i18n import rejection_text
from service.referee.snapshots import Sealer
from tests.support import as_json, assert_problem

from .helpers import Client, an_illegal_move

OPTION_SETS: list[tuple[str | None, dict[str, Any]]] = [
    (None, {}),
    ("american", {}),
    ("beagle", {"target": 300, "lose_at": -300}),
    (None, {"final_bidder_may_raise": True, "sans_kitty_enabled": True, "show_kitty": True, "first_lead": "eldest",
            "target": 200, "lose_at": -200}),
    (None, {"blind_misere_enabled": True, "no_ace_no_face": True, "all_pass": "play_no_trumps",
            "three_player_all_pass": "play_no_trumps", "target": 200, "lose_at": -200}),
    (None, {"inkle_mode": "signal_only", "joker_lead_restriction": "not_shown_void",
            "five_player_partner_method": "choose_player", "six_player_teams": "three_teams_of_two",
            "six_player_kitty": 6, "deck_4p": "46", "six_player_misere": True, "target": 300, "lose_at": -300}),
    (None, {"bidding_style": "american_single_round", "pass_is_final": "reopen_on_suit_change",
            "five_player_call_timing": "after_kitty", "five_player_partner_share": "half", "score_table": "perfect",
            "slam_rule": "none", "defender_trick_points": "on_failure_only", "first_dealer": "cut_low",
            "two_player_method": "uspcc_24_card", "target": 200, "lose_at": -200}),
]
PLAYERS = [2, 3, 4, 5, 6]
GAMES = [(i, PLAYERS[i % len(PLAYERS)], *OPTION_SETS[i % len(OPTION_SETS)]) for i in range(35)]
MAX_MOVES = 250


def _choose(rng: random.Random, state: GameState, moves: list[Move]) -> int:
    """An index into ``moves``. In the auction mostly a pass or one of the lowest bids (the engine lists bids
    up the ladder), so that contracts are makeable and games last several hands; sometimes anything."""
    if state.phase == "auction" and rng.random() < 0.9:
        passes = [i for i, m in enumerate(moves) if isinstance(m, Pass)]
        if passes and rng.random() < 0.6:
            return passes[0]
        others = [i for i, m in enumerate(moves) if not isinstance(m, Pass)]
        if others:
            return others[min(len(others) - 1, int(rng.expovariate(0.7)))]
    return rng.randrange(len(moves))


@pytest.mark.parametrize(("game", "players", "preset", "overrides"), GAMES,
                         ids=[f"g{g}-{p}p-{pre or 'custom' if o else pre or 'default'}" for g, p, pre, o in GAMES])
def test_http_game_equals_engine_game(client: Client, sealer: Sealer, game: int, players: int,
                                      preset: str | None, overrides: dict[str, Any]) -> None:
    rng = random.Random(game)
    seed = 10_000 + game
    created = client.post("/v1/games", json={"players": players, "preset": preset, "options": overrides,
                                             "seed": seed, "views": [0, None]})
    assert created.status_code == 201, created.text
    body = created.json()
    opts = resolve_options(players, preset, overrides)
    state, events = new_game(opts, seed=seed)
    assert sealer.open(body["snapshot"]) == state
    assert body["events"] == as_json(redact_events(events, None))
    assert body["views"][0] == {"seat": 0, "view": as_json(view(state, 0)),
                                "events": as_json(redact_events(events, 0))}
    snapshot = body["snapshot"]

    for step in range(MAX_MOVES):
        if state.phase == "game_over":
            break
        listed = client.post("/v1/games/legal-moves", json={"snapshot": snapshot}).json()
        moves = legal_moves(state)
        assert listed["legal_moves"] == as_json(moves), f"legal moves differ at step {step}"
        assert listed["to_act"] == state.to_act == listed["seat"]
        choice = _choose(rng, state, moves)
        move_json = listed["legal_moves"][choice]

        if step % 6 == 0:
            verdict = client.post("/v1/games/validate", json={"snapshot": snapshot, "move": move_json}).json()
            assert verdict == {"legal": True}
            illegal = an_illegal_move(state)
            if illegal is not None:
                rejection = check_move(state, illegal)
                assert rejection is not None
                request = {"snapshot": snapshot, "move": as_json(illegal)}
                verdict = client.post("/v1/games/validate", json=request).json()
                assert verdict["legal"] is False and verdict["reason"] == rejection.reason
                problem = assert_problem(client.post("/v1/games/apply", json=request), 422, "ILLEGAL_MOVE",
                                         reason=rejection.reason)
                worded = rejection_text("en", rejection.reason, rejection.detail, rejection.params)
                assert problem["detail"] == verdict["detail"] == worded

        viewers: list[int | None] = [state.to_act, None] if step % 3 == 0 and state.to_act is not None else []
        applied = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": move_json,
                                                       "views": viewers})
        assert applied.status_code == 200, applied.text
        result = applied.json()
        state, events = apply_move(state, moves[choice])
        assert sealer.open(result["snapshot"]) == state, f"states differ after step {step}"
        assert result["phase"] == state.phase and result["to_act"] == state.to_act
        assert result["events"] == as_json(redact_events(events, None)), f"events differ at step {step}"
        for name, answered in zip(viewers, result["views"], strict=True):
            seat = name
            assert answered == {"seat": seat, "view": as_json(view(state, seat)),
                                "events": as_json(redact_events(events, seat))}
        snapshot = result["snapshot"]

    final = client.post("/v1/games/view", json={"snapshot": snapshot}).json()["view"]
    assert final["scores"] == list(state.scores) and final["result"] == as_json(state.result)
    assert final == as_json(view(state, None))


def test_the_games_cover_what_they_claim() -> None:
    assert len(GAMES) >= 30
    assert {p for _, p, _, _ in GAMES} == set(PLAYERS)
    assert len({(p, pre, tuple(sorted(o))) for _, p, pre, o in GAMES}) == len(GAMES)
