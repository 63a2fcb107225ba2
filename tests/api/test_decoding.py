"""One strict decoding of each request shape, shared by the stateless API and the hosted sessions: the same bad
input gets the same answer (status and code) everywhere, and no input, however deep, is a 500."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import assert_problem

from .helpers import Client

SEED_TOO_BIG = 18446744073709551615


def _session(client: Client) -> dict[str, Any]:
    response = client.post("/v1/sessions", json={"players": 4, "seed": 42, "known_deal": True, "first_dealer": 3})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


@pytest.mark.parametrize(("body", "code"), [
    ({"players": 4, "seed": SEED_TOO_BIG}, "INVALID_SEED"),
    ({"players": 4, "seed": -1}, "INVALID_SEED"),
    ({"players": 4, "seed": "42"}, "INVALID_SEED"),
    ({"players": "4"}, "MALFORMED_REQUEST"),
    ({"players": 7}, "MALFORMED_REQUEST"),
    ({"players": 4, "preset": "martian"}, "INVALID_OPTIONS"),
    ({"players": 4, "options": {"pass_is_final": True}}, "INVALID_OPTIONS"),
    ({"players": 4, "options": {"pass_is_final": "true"}}, "INVALID_OPTIONS"),
    ({"players": 4, "options": {"defender_trick_cap": 490}}, "INVALID_OPTIONS"),
    ({"players": 4, "options": {"no_such_option": 1}}, "INVALID_OPTIONS"),
    ({"players": 4, "options": {"target": 505}}, "INVALID_OPTIONS"),
    ({"players": 4, "first_dealer": "0"}, "INVALID_FIRST_DEALER"),
    ({"players": 4, "first_dealer": 4}, "INVALID_FIRST_DEALER"),
    ({"players": 4, "deck_orders": [["AS", 3]]}, "INVALID_DECK_ORDER"),
    ({"players": 4, "extra": 1}, "MALFORMED_REQUEST"),
])
def test_create_game_and_create_session_refuse_alike(client: Client, body: dict[str, Any], code: str) -> None:
    game = assert_problem(client.post("/v1/games", json=body), 400, code)
    session = assert_problem(client.post("/v1/sessions", json=body), 400, code)
    # The same place named (sessions' ``players`` is optional, so its type reads ``int | null``).
    assert game["detail"].rpartition(" - at ")[2] == session["detail"].rpartition(" - at ")[2]


def test_the_typed_options_are_accepted_and_echoed_alike(client: Client) -> None:
    body = {"players": 4, "seed": 42, "options": {"pass_is_final": "never", "defender_trick_cap": "490"}}
    game = client.post("/v1/games", json=body).json()
    session = client.post("/v1/sessions", json={**body, "known_deal": True}).json()
    assert game["options"] == session["options"]
    assert game["options"]["pass_is_final"] == "never" and game["options"]["defender_trick_cap"] == "490"
    default = client.post("/v1/games", json={"players": 4}).json()["options"]
    assert default["pass_is_final"] == "always" and default["defender_points_cutoff"] == "none"


@pytest.mark.parametrize("move", [
    {"type": "pass", "seat": "0"},
    {"type": "pass", "seat": 0.0},
    {"type": "pass", "seat": True},
    {"type": "fold", "seat": 0},
    {"type": "bid", "seat": 0, "bid": 7},
])
def test_a_malformed_move_is_the_same_400_in_both_apis(client: Client, move: dict[str, Any]) -> None:
    created = client.post("/v1/games", json={"players": 4, "seed": 42, "first_dealer": 3}).json()
    stateless = assert_problem(client.post("/v1/games/apply", json={"snapshot": created["snapshot"],
                                                                    "move": move}), 400, "MALFORMED_MOVE")
    session = _session(client)
    token = session["seat_tokens"][0]
    hosted = assert_problem(client.post(f"/v1/sessions/{session['session_id']}/moves", json={"move": move},
                                        headers={"authorization": f"Bearer {token}"}), 400, "MALFORMED_MOVE")
    assert stateless["detail"] == hosted["detail"]
    state = client.get(f"/v1/sessions/{session['session_id']}",
                       headers={"authorization": f"Bearer {session['host_token']}"}).json()
    assert state["version"] == 1  # nothing applied


def test_a_seatless_move_is_malformed_statelessly_and_the_tokens_in_a_session(client: Client) -> None:
    created = client.post("/v1/games", json={"players": 4, "seed": 42, "first_dealer": 3}).json()
    problem = assert_problem(client.post("/v1/games/apply", json={"snapshot": created["snapshot"],
                                                                  "move": {"type": "pass"}}), 400, "MALFORMED_MOVE")
    assert "seat" in problem["detail"]
    session = _session(client)
    token = session["seat_tokens"][0]
    answer = client.post(f"/v1/sessions/{session['session_id']}/moves", json={"move": {"type": "pass"}},
                         headers={"authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["events"][0] == {"type": "passed", "seat": 0}


@pytest.mark.parametrize("depth", [200, 1_000, 10_000])
def test_deeply_nested_json_is_a_400_everywhere(client: Client, depth: int) -> None:
    session = _session(client)
    nested = b"[" * depth + b"]" * depth
    bodies = {
        "/v1/games": b'{"players": 4, "options": ' + nested + b"}",
        "/v1/games/apply": b'{"snapshot": "x", "move": ' + nested + b"}",
        "/v1/games/validate": b'{"snapshot": "x", "move": ' + nested + b"}",
        "/v1/games/view": b'{"snapshot": ' + nested + b"}",
        "/v1/games/legal-moves": b'{"snapshot": ' + nested + b"}",
        "/v1/sessions": b'{"players": 4, "options": ' + nested + b"}",
        f"/v1/sessions/{session['session_id']}/moves": b'{"move": ' + nested + b"}",
    }
    headers = {"content-type": "application/json", "authorization": f"Bearer {session['seat_tokens'][0]}"}
    for path, body in bodies.items():
        response = client.post(path, content=body, headers=headers)
        assert response.status_code in (400, 413), (path, response.status_code, response.text)
        assert response.headers["content-type"].startswith("application/problem+json"), path


@pytest.mark.parametrize("name", ["01", "1 ", " 1", "+1", "1.0", "\u0661", "\uff11", "6"])
def test_a_seat_named_by_a_string_is_read_alike_by_both_apis(client: Client, name: str) -> None:
    """A seat named by a string (``bots`` of a session; ``views`` takes seats as integers) is exactly "0" …
    "5": no API reads "01", " 1" or another script's digit one as seat 1."""
    assert client.post("/v1/games", json={"players": 4, "views": [name]}).status_code == 400
    assert_problem(client.post("/v1/sessions", json={"players": 4, "bots": {name: "basic"}}), 400, "INVALID_BOTS")


def test_a_seat_named_exactly_is_read_alike_by_both_apis(client: Client) -> None:
    game = client.post("/v1/games", json={"players": 4, "seed": 42, "first_dealer": 3, "views": [1]})
    session = client.post("/v1/sessions", json={"players": 4, "seed": 42, "known_deal": True,
                                                "first_dealer": 3, "bots": {"1": "basic"}})
    assert game.status_code == 201 and [v["seat"] for v in game.json()["views"]] == [1]
    assert session.status_code == 201, session.text
    assert session.json()["bots"] == {"1": "basic"} and session.json()["seat_tokens"][1] is None


@pytest.mark.parametrize("body", [
    {"players": 4, "preset": "martian"},
    {"players": 4, "options": {"deal_pattern": "3-3-3"}},
    {"players": 4, "options": {"players": 5}},
    {"players": 4, "first_dealer": 4},
    {"players": 4, "deck_orders": [["AS"]]},
])
@pytest.mark.parametrize("language", ["en", "fil", "th"])
def test_create_game_and_create_session_word_their_refusals_alike(client: Client, body: dict[str, Any],
                                                                   language: str) -> None:
    """One creation path: the same problem, worded the same in every language, from both APIs."""
    headers = {"accept-language": language}
    game = client.post("/v1/games", json=body, headers=headers)
    session = client.post("/v1/sessions", json=body, headers=headers)
    assert game.status_code == session.status_code == 400, (game.text, session.text)
    assert {**game.json(), "instance": None} == {**session.json(), "instance": None}
    assert game.headers["content-language"] == session.headers["content-language"]


@pytest.mark.parametrize("language", ["en", "hr"])
def test_an_unknown_seat_is_the_same_problem_for_every_operation(client: Client, language: str) -> None:
    created = client.post("/v1/games", json={"players": 4, "seed": 42, "first_dealer": 3}).json()
    headers = {"accept-language": language}
    bodies = {path: client.post(path, json={"snapshot": created["snapshot"], "seat": 5}, headers=headers)
              for path in ("/v1/games/view", "/v1/games/legal-moves", "/v1/games/suggest")}
    details = {path: assert_problem(r, 400, "NO_SUCH_SEAT")["detail"] for path, r in bodies.items()}
    assert len(set(details.values())) == 1, details
