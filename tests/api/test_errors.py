"""Every error code of the stateless API, each as RFC 9457 problem+json with a stable ``code``."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import get
from litestar.testing import TestClient

from engine import Options, new_game, pack_for
from service.app import create_app
from service.config import Settings
from service.referee.snapshots import Sealer
from tests.support import assert_problem

from .conftest import KEY_A
from .helpers import Client


@pytest.fixture(scope="module")
def snapshot(sealer: Sealer) -> str:
    state, _ = new_game(Options(), seed=1, first_dealer=3)  # seat 0 to act, auction
    return sealer.seal(state)


# ------------------------------------------------------------------------------------ malformed requests


@pytest.mark.parametrize(("body", "needle"), [
    (b"{", "not valid JSON"),
    (b'{"players": 4', "not valid JSON"),
    (b"", "empty"),
    (b"[]", "Expected `object`, got `array`"),
    (b'"hello"', "Expected `object`, got `str`"),
    (b'{"players": "four"}', "Expected `int`, got `str` - at `$.players`"),
    (b'{"players": 7}', "Expected `int` <= 6 - at `$.players`"),
    (b'{"players": 4, "colour": "red"}', "unknown field `colour`"),
    (b'{"views": [0, "everyone"]}', "at `$.views[1]`"),
    (b'{"views": ["public"]}', "at `$.views[0]`"),
    (b'{"views": ["0"]}', "at `$.views[0]`"),
])
def test_malformed_create_body(client: Client, body: bytes, needle: str) -> None:
    response = client.post("/v1/games", content=body, headers={"content-type": "application/json"})
    problem = assert_problem(response, 400, "MALFORMED_REQUEST")
    assert needle in problem["detail"], problem


def test_missing_and_wrong_fields_are_named(client: Client, snapshot: str) -> None:
    problem = assert_problem(client.post("/v1/games/apply", json={"snapshot": snapshot}), 400,
                             "MALFORMED_REQUEST")
    assert "missing required field `move`" in problem["detail"]
    problem = assert_problem(client.post("/v1/games/view", json={"snapshot": 42}), 400, "MALFORMED_REQUEST")
    assert "Expected `str`, got `int` - at `$.snapshot`" in problem["detail"]
    assert problem["errors"] == [{"message": "Expected `str`, got `int`", "field": "snapshot", "source": "body"}]


@pytest.mark.parametrize(("move", "code", "needle"), [
    ({"type": "teleport", "seat": 0}, "MALFORMED_MOVE", "at `$.move.type`"),
    ({"type": "bid", "seat": 0}, "MALFORMED_MOVE", "missing required field `bid`"),
    ({"type": "bid", "seat": 0, "bid": 7}, "MALFORMED_MOVE", "at `$.move.bid`"),
    ({"type": "pass", "seat": 0, "extra": 1}, "MALFORMED_MOVE", "unknown field `extra`"),
    ({"seat": 0}, "MALFORMED_MOVE", "missing required field `type`"),
])
def test_malformed_move_shapes(client: Client, snapshot: str, move: Any, code: str, needle: str) -> None:
    for path in ("/v1/games/validate", "/v1/games/apply"):
        problem = assert_problem(client.post(path, json={"snapshot": snapshot, "move": move}), 400, code)
        assert needle in problem["detail"], problem


@pytest.mark.parametrize(("move", "reason", "token"), [
    ({"type": "play", "seat": 0, "card": "1H"}, "UNKNOWN_CARD", "1H"),
    ({"type": "play", "seat": 2, "card": "2H"}, "UNKNOWN_CARD", "2 of hearts"),  # a real card, not in this pack: named
    ({"type": "play", "seat": 0, "card": "AH", "nominate": "X"}, "UNKNOWN_SUIT", "X"),
    ({"type": "discard", "seat": 0, "cards": ["AH", "ZZ", "KH"]}, "UNKNOWN_CARD", "ZZ"),
    ({"type": "bid", "seat": 0, "bid": "11S"}, "UNKNOWN_BID", "11S"),
    ({"type": "bid", "seat": 1, "bid": "7Z"}, "UNKNOWN_BID", "7Z"),  # not the seat to act: still malformed
    ({"type": "nominate_joker", "seat": 0, "suit": "Q"}, "UNKNOWN_SUIT", "Q"),
    ({"type": "call_card", "seat": 0, "card": "Joker"}, "UNKNOWN_CARD", "Joker"),
    ({"type": "pass", "seat": 4}, "NO_SUCH_SEAT", "4"),
    ({"type": "pass", "seat": -1}, "NO_SUCH_SEAT", "-1"),
    ({"type": "choose_partners", "seat": 0, "partners": [9]}, "NO_SUCH_SEAT", "9"),
])
def test_bad_tokens_are_malformed_moves(client: Client, snapshot: str, move: Any, reason: str,
                                        token: str) -> None:
    for path in ("/v1/games/validate", "/v1/games/apply"):
        response = client.post(path, json={"snapshot": snapshot, "move": move})
        problem = assert_problem(response, 400, "MALFORMED_MOVE", reason=reason)
        assert token in problem["detail"], problem


# ---------------------------------------------------------------------------------------- create errors


@pytest.mark.parametrize(("body", "needle"), [
    ({"options": {"deck_4p": "44"}}, "$.options.deck_4p"),
    ({"options": {"misere_rank": "nowhere"}}, "$.options.misere_rank"),
    ({"options": {"jokers_wild": True}}, "jokers_wild"),
    ({"options": {"target": 15}}, "target"),
    ({"options": {"lose_at": 100}}, "lose_at"),
    ({"options": {"deal_pattern": "3-1-4"}}, "deal_pattern"),
    ({"players": 3, "options": {"players": 4}}, "players"),
    ({"preset": "canasta"}, "$.preset"),
])
def test_invalid_options_name_the_option(client: Client, body: dict[str, Any], needle: str) -> None:
    problem = assert_problem(client.post("/v1/games", json=body), 400, "INVALID_OPTIONS")
    assert needle in problem["detail"], problem


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, "42", "forty-two", 1.5, True, [1]])
def test_invalid_seed(client: Client, seed: Any) -> None:
    assert_problem(client.post("/v1/games", json={"seed": seed}), 400, "INVALID_SEED")


def test_invalid_deck_orders(client: Client) -> None:
    pack = list(pack_for(Options()))
    for decks in ([pack[:-1]], [pack[:-1] + pack[:1]], [[*pack[:-1], "2H"]], [pack, ["JK"]], "pack", [["AS", 3]]):
        problem = assert_problem(client.post("/v1/games", json={"deck_orders": decks}), 400,
                                 "INVALID_DECK_ORDER")
        assert "deck_orders" in problem["detail"], problem
    response = client.post("/v1/games", json={"players": 3, "deck_orders": [pack]})
    assert_problem(response, 400, "INVALID_DECK_ORDER")


@pytest.mark.parametrize(("players", "dealer"), [(4, 4), (2, 2), (4, -1), (6, 6)])
def test_invalid_first_dealer(client: Client, players: int, dealer: int) -> None:
    response = client.post("/v1/games", json={"players": players, "first_dealer": dealer})
    assert_problem(response, 400, "INVALID_FIRST_DEALER")


def test_views_of_seats_that_do_not_exist(client: Client, snapshot: str) -> None:
    assert_problem(client.post("/v1/games", json={"players": 3, "views": [3]}), 400, "NO_SUCH_SEAT")
    response = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": {"type": "pass", "seat": 0},
                                                    "views": [None, 4]})
    assert_problem(response, 400, "NO_SUCH_SEAT")
    assert_problem(client.post("/v1/games/view", json={"snapshot": snapshot, "seat": 4}), 400, "NO_SUCH_SEAT")
    response = client.post("/v1/games/legal-moves", json={"snapshot": snapshot, "seat": 5})
    assert_problem(response, 400, "NO_SUCH_SEAT")
    assert_problem(client.post("/v1/games/view", json={"snapshot": snapshot, "seat": 6}), 400,
                   "MALFORMED_REQUEST")  # beyond every game: the schema says so


# ------------------------------------------------------------------------------------------ query, route


@pytest.mark.parametrize("query", ["players=7", "players=1", "players=four", "preset=canasta"])
def test_bad_rules_query(client: Client, query: str) -> None:
    problem = assert_problem(client.get(f"/v1/rules?{query}"), 400, "MALFORMED_REQUEST")
    assert "query parameter" in problem["detail"], problem


def test_not_found(client: Client) -> None:
    for path in ("/v1/nothing", "/v2/rules", "/", "/v1/games/apply/extra"):
        assert_problem(client.get(path), 404, "NOT_FOUND")


def test_method_not_allowed(client: Client) -> None:
    response = client.get("/v1/games/apply")
    assert_problem(response, 405, "METHOD_NOT_ALLOWED")
    assert "POST" in response.headers["allow"]
    assert_problem(client.delete("/v1/rules"), 405, "METHOD_NOT_ALLOWED")
    assert_problem(client.put("/v1/games", json={}), 405, "METHOD_NOT_ALLOWED")


def test_body_too_large() -> None:
    app = create_app(Settings(snapshot_keys=(KEY_A,), max_body_bytes=1024))
    with TestClient(app) as small:
        body = {"players": 4, "options": {"deal_pattern": "3-1-4-1-3-1" + " " * 2000}}
        problem = assert_problem(small.post("/v1/games", json=body), 413, "BODY_TOO_LARGE")
        assert "1,024 bytes" in problem["detail"]
        assert small.post("/v1/games", json={"seed": 1}).status_code == 201

        def chunks() -> Any:
            for _ in range(10):
                yield b" " * 200  # no content-length: the limit holds for streamed bodies too

        response = small.post("/v1/games", content=chunks(), headers={"content-type": "application/json"})
        assert_problem(response, 413, "BODY_TOO_LARGE")


def test_default_body_limit(client: Client) -> None:
    response = client.post("/v1/games/validate", content=b" " * 70_000, headers={"content-type":
                                                                                  "application/json"})
    assert_problem(response, 413, "BODY_TOO_LARGE")


# ------------------------------------------------------------------------------------------- illegal move


def test_illegal_move_has_reason_detail_and_legal_moves(client: Client, snapshot: str) -> None:
    response = client.post("/v1/games/apply", json={"snapshot": snapshot,
                                                    "move": {"type": "bid", "seat": 0, "bid": "MISERE"}})
    problem = assert_problem(response, 422, "ILLEGAL_MOVE", reason="MISERE_NEEDS_SEVEN_BID")
    assert problem["instance"] == "/v1/games/apply"
    assert {"type": "pass", "seat": 0} in problem["legal_moves"]
    assert {"type": "bid", "seat": 0, "bid": "7NT", "sans_kitty": False} in problem["legal_moves"]


# ------------------------------------------------------------------------------------------- last resort


@pytest.mark.expects_internal_error
def test_last_resort_handler_answers_a_problem() -> None:
    @get("/v1/boom", sync_to_thread=False)
    def boom() -> None:
        raise RuntimeError("a bug")

    app = create_app(Settings(snapshot_keys=(KEY_A,)))
    app.register(boom)
    with TestClient(app) as broken:
        problem = assert_problem(broken.get("/v1/boom"), 500, "INTERNAL")
        assert "a bug" not in problem["detail"]  # internals are logged, not shown
