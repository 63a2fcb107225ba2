"""Fixtures of the client-compatibility suite: the live service, the reference run, the generator tools.

The reference is the same scenario played with plain HTTP (httpx) against the same live service, so each
generated client is held to exactly what the API answers, not to figures written into the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .tooling import GeneratorTools, LiveService, generator_tools, node_modules

# Seat 3 deals, so seat 0 bids first; misère before any seven bid is illegal. The session's game is one hand
# long: everyone passes (every client plays each seat's first legal move), the hand is played out at no
# trumps for 10 points a trick, and a target of 10 ends the game.
SCENARIO: dict[str, Any] = {
    "game": {"players": 4, "seed": 42, "first_dealer": 3},
    "legal_move": {"type": "bid", "seat": 0, "bid": "7H"},
    "illegal_move": {"type": "bid", "seat": 0, "bid": "MISERE"},
    "session": {"players": 4, "seed": 42, "first_dealer": 3, "known_deal": True,
                "options": {"target": 10, "lose_at": -10, "all_pass": "play_no_trumps",
                            "win_requires_contract": False}},
}


@pytest.fixture(scope="session")
def live_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    service = LiveService.start(tmp_path_factory.mktemp("live") / "service.log")
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="session")
def reference(live_service: LiveService) -> dict[str, Any]:
    """The scenario through plain HTTP: what every generated client must observe."""
    ref: dict[str, Any] = {}
    with httpx.Client(base_url=live_service.url, timeout=10, http1=True) as http:
        created = http.post("/v1/games", json=SCENARIO["game"])
        assert created.status_code == 201, created.text
        game = created.json()
        ref["game"] = {"phase": game["phase"], "to_act": game["to_act"], "options": game["options"]}
        listed = http.post("/v1/games/legal-moves", json={"snapshot": game["snapshot"]}).json()
        ref["legal"] = {"count": len(listed["legal_moves"]), "first": listed["legal_moves"][0]}
        applied = http.post("/v1/games/apply", json={"snapshot": game["snapshot"], "move": SCENARIO["legal_move"]})
        assert applied.status_code == 200, applied.text
        ref["applied"] = {"to_act": applied.json()["to_act"], "events": [e["type"] for e in applied.json()["events"]]}
        refused = http.post("/v1/games/apply", json={"snapshot": game["snapshot"], "move": SCENARIO["illegal_move"]})
        assert refused.status_code == 422, refused.text
        ref["illegal"] = {"status": 422, "code": refused.json()["code"], "reason": refused.json()["reason"]}

        # The session's game, played statelessly with the same policy (each seat's first legal move).
        spec = {k: v for k, v in SCENARIO["session"].items() if k != "known_deal"}  # a session's opt-in only
        state = http.post("/v1/games", json=spec).json()
        events = [e["type"] for e in state["events"]]
        moves = 0
        while state["to_act"] is not None:
            legal = http.post("/v1/games/legal-moves", json={"snapshot": state["snapshot"]}).json()["legal_moves"]
            state = http.post("/v1/games/apply", json={"snapshot": state["snapshot"], "move": legal[0]}).json()
            events += [e["type"] for e in state["events"]]
            moves += 1
            assert moves < 500, "the one-hand game did not end"
        ref["session_game"] = {"moves": moves, "events": events, "final_phase": state["phase"]}
    return ref


@pytest.fixture(scope="session")
def tools() -> GeneratorTools:
    return generator_tools()


@pytest.fixture(scope="session")
def typescript_node_modules() -> Path:
    return node_modules()
