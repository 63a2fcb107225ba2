"""English gets the same care as the other five languages: refusals and problems are sentences from ``en.po``
(cards, suits and lists worded), and the rules catalogue's English texts carry no docstring markup."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.games.examples import GAME
from service.referee.snapshots import Sealer
from tests.support import KEY, app_with_key

SEALER = Sealer([KEY])


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient[Litestar]]:
    with TestClient(app_with_key()) as test_client:
        yield test_client


def test_an_english_refusal_is_a_sentence(client: TestClient[Litestar]) -> None:
    """Not ``seat 1 must follow C: play one of ['10C', '8C']``: the suit and the cards by name, in a list."""
    state, illegal = GAME["state"], GAME["illegal"]
    assert GAME["rejection"].reason == "MUST_FOLLOW_SUIT"
    body = {"snapshot": SEALER.seal(state), "move": msgspec.to_builtins(illegal)}
    for headers in ({}, {"Accept-Language": "en"}):
        problem = client.post("/v1/games/apply", json=body, headers=headers).json()
        verdict = client.post("/v1/games/validate", json=body, headers=headers).json()
        assert problem["title"] == "Illegal move" and problem["detail"] == verdict["detail"]
        detail = problem["detail"]
        assert re.fullmatch(rf"Seat {illegal.seat} must follow (Spades|Clubs|Diamonds|Hearts): play one of .+ of .+\.",
                            detail), detail
        assert "[" not in detail and "'" not in detail, detail


def test_english_problems_are_worded_from_the_catalogue(client: TestClient[Litestar]) -> None:
    problem = client.post("/v1/games/view", json={"snapshot": SEALER.seal(GAME["state"]), "seat": 5}).json()
    assert problem["code"] == "NO_SUCH_SEAT" and problem["title"] == "No such seat"
    assert problem["detail"] == "Seat 5 does not exist: the seats are 0 to 3.", problem["detail"]


def test_the_english_rules_catalogue_has_no_docstring_markup(client: TestClient[Litestar]) -> None:
    for players in (4, 5):
        catalogue = client.get("/v1/rules", params={"players": players}).json()
        texts = [m["description"] for m in catalogue["move_types"]] + \
            [o["description"] for o in catalogue["options"]] + [p["description"] for p in catalogue["presets"]]
        assert all(t and "``" not in t for t in texts), [t for t in texts if "``" in t]
        assert "``" not in json.dumps(catalogue, ensure_ascii=False)
