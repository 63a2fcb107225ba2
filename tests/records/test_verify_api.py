"""``POST /v1/records/verify`` over HTTP: valid records, every refusal, and the bounds on a request's work."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine import DiscardChoices, GameState, Pass, Play, legal_moves
from engine.record_text import record_to_text
from engine.records import MAX_RECORD_MOVES, GameRecord
from service.games.records import MAX_RECORD_BODY_BYTES
from service.referee.snapshots import Sealer
from tests.records.games import PlayedGame, play_game
from tests.support import KEY, app_with_key

PATH = "/v1/records/verify"
replace = msgspec.structs.replace
Client = TestClient[Litestar]


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with TestClient(app_with_key()) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def sealer() -> Sealer:
    return Sealer([KEY])


@pytest.fixture(scope="module")
def games() -> list[PlayedGame]:
    rng = random.Random(13)
    return [play_game(rng, players) for players in (2, 3, 4, 5, 6, 4, 5)]


def _json(record: GameRecord) -> Any:
    return msgspec.to_builtins(record)


def _verify(client: Client, body: Any, status: int) -> Any:
    response = client.post(PATH, json=body)
    assert response.status_code == status, response.text
    return response.json()


def test_a_valid_record_answers_the_final_state_and_the_derived_record(client: Client, sealer: Sealer,
                                                                       games: list[PlayedGame]) -> None:
    for game in games:
        body = _verify(client, {"record": _json(game.record), "as_text": True}, 200)
        assert body["valid"] is True
        assert msgspec.convert(body["record"], GameRecord) == game.record
        assert body["text"] == record_to_text(game.record)
        assert sealer.open(body["snapshot"]) == game.states[-1]
        assert (body["phase"], body["to_act"]) == (game.states[-1].phase, game.states[-1].to_act)


def test_moves_and_inputs_alone_or_the_text_form_verify_the_same(client: Client, games: list[PlayedGame]) -> None:
    game = games[2]
    options = msgspec.to_builtins(game.record.options)
    del options["players"]
    body = _verify(client, {"players": game.options.players, "options": options, "seed": game.seed,
                            "first_dealer": game.first_dealer, "moves": msgspec.to_builtins(game.moves)}, 200)
    assert msgspec.convert(body["record"], GameRecord) == game.record
    body = _verify(client, {"text": record_to_text(game.record)}, 200)
    assert msgspec.convert(body["record"], GameRecord) == game.record


def test_play_continues_from_the_verified_snapshot(client: Client, sealer: Sealer) -> None:
    game = play_game(random.Random(3), 4, cut_at=30)
    body = _verify(client, {"record": _json(game.record)}, 200)
    move = legal_moves(game.states[-1])[0]
    applied = client.post("/v1/games/apply", json={"snapshot": body["snapshot"], "move": msgspec.to_builtins(move)})
    assert applied.status_code == 200, applied.text


def test_an_illegal_move_is_refused_at_its_index_with_the_state_before_it(client: Client, sealer: Sealer,
                                                                          games: list[PlayedGame]) -> None:
    rng = random.Random(5)
    for game in games:
        k = rng.randrange(len(game.moves))
        actor = game.states[k].to_act
        assert actor is not None
        moves = (*game.moves[:k], Pass(seat=(actor + 1) % game.options.players), *game.moves[k + 1:])
        response = client.post(PATH, json={"record": _json(replace(game.record, moves=moves))})
        assert response.status_code == 422 and response.headers["content-type"] == "application/problem+json"
        body = response.json()
        assert (body["code"], body["move_index"], body["reason"]) == ("ILLEGAL_MOVE", k, "NOT_YOUR_TURN")
        assert sealer.open(body["snapshot"]) == game.states[k]
        assert _listed(body) == _refusal_listing(game.states[k])


def test_a_malformed_move_is_refused_at_its_index(client: Client, sealer: Sealer, games: list[PlayedGame]) -> None:
    game = games[0]
    k = next(i for i, s in enumerate(game.states) if s.phase == "play")
    actor = game.states[k].to_act
    assert actor is not None
    moves = (*game.moves[:k], Play(seat=actor, card="1H"), *game.moves[k + 1:])
    body = _verify(client, {"record": _json(replace(game.record, moves=moves))}, 400)
    assert (body["code"], body["move_index"], body["reason"]) == ("MALFORMED_MOVE", k, "UNKNOWN_CARD")
    assert sealer.open(body["snapshot"]) == game.states[k]


def _listed(problem: dict[str, Any]) -> dict[str, Any]:
    return {"legal_moves": problem["legal_moves"], "discard_choice": problem.get("discard_choice")}


def _refusal_listing(state: GameState) -> dict[str, Any]:
    """What a refusal lists in ``state``: its legal moves, or at the exchange only their compact form."""
    moves = legal_moves(state)
    if isinstance(moves, DiscardChoices):
        return {"legal_moves": [], "discard_choice": {"cards": list(moves.hand), "count": moves.k}}
    return {"legal_moves": json.loads(msgspec.json.encode(list(moves))), "discard_choice": None}


@pytest.mark.parametrize("bad_move", [{"type": "bogus", "seat": 0}, {"type": "play", "seat": 0, "card": 5},
                                      {"type": "play", "card": "AS"}, "AS"])
def test_a_move_that_is_not_a_move_object_is_refused_at_its_index(client: Client, sealer: Sealer,
                                                                  games: list[PlayedGame], bad_move: Any) -> None:
    """A move the body cannot decode is MALFORMED_MOVE at its index with the state before it (as /v1/games/apply
    answers it: no reason), in a record and in a list of moves alike."""
    for game, k in ((games[1], 0), (games[2], len(games[2].moves) // 2), (games[4], 7)):
        moves: list[Any] = list(msgspec.to_builtins(game.moves))
        moves[k] = bad_move
        record = {**_json(game.record), "moves": moves}
        options = msgspec.to_builtins(game.record.options)
        del options["players"]
        inputs = {"players": game.options.players, "options": options, "seed": game.seed,
                  "first_dealer": game.first_dealer, "moves": moves}
        for body in ({"record": record}, inputs):
            refused = _verify(client, body, 400)
            assert (refused["code"], refused["move_index"]) == ("MALFORMED_MOVE", k), refused
            assert "reason" not in refused and f"moves[{k}]" in refused["detail"]
            assert refused["errors"][0]["field"].startswith(("record.moves", "moves"))
            assert sealer.open(refused["snapshot"]) == game.states[k]
            assert _listed(refused) == _refusal_listing(game.states[k])


def test_an_earlier_illegal_move_is_reported_before_a_later_undecodable_one(client: Client,
                                                                            games: list[PlayedGame]) -> None:
    game = games[3]
    actor = game.states[2].to_act
    assert actor is not None
    moves: list[Any] = list(msgspec.to_builtins(game.moves))
    moves[2] = {"type": "pass", "seat": (actor + 1) % game.options.players}
    moves[5] = {"type": "bogus"}
    refused = _verify(client, {"record": {**_json(game.record), "moves": moves}}, 422)
    assert (refused["code"], refused["move_index"], refused["reason"]) == ("ILLEGAL_MOVE", 2, "NOT_YOUR_TURN")


def test_an_undecodable_move_beside_another_error_is_a_malformed_request(client: Client,
                                                                         games: list[PlayedGame]) -> None:
    rec = _json(games[2].record)
    moves: list[Any] = list(rec["moves"])
    moves[3] = {"type": "bogus"}
    broken = {**rec, "moves": moves, "options": {k: v for k, v in rec["options"].items() if k != "deck_4p"}}
    assert _verify(client, {"record": broken}, 400)["code"] == "MALFORMED_REQUEST"
    assert _verify(client, {"moves": moves, "seed": -1, "players": 4}, 400)["code"] == "MALFORMED_REQUEST"


def test_a_derived_field_that_differs_is_refused_naming_it(client: Client, games: list[PlayedGame]) -> None:
    game = games[3]
    rec = game.record
    body = _verify(client, {"record": _json(replace(rec, scores=(rec.scores[0] + 10, *rec.scores[1:])))}, 422)
    assert (body["code"], body["field"]) == ("RECORD_MISMATCH", "scores[0]")
    assert "move_index" not in body and "snapshot" not in body
    hand = rec.hands[0]
    dealt = (hand.dealt[1], hand.dealt[0], *hand.dealt[2:])
    hands = (replace(hand, dealt=dealt), *rec.hands[1:])
    body = _verify(client, {"record": _json(replace(rec, hands=hands))}, 422)
    assert (body["code"], body["field"]) == ("RECORD_MISMATCH", "hands[0].dealt[0][0]")
    body = _verify(client, {"record": _json(replace(rec, rules_version="2020.1.1"))}, 422)
    assert (body["code"], body["field"]) == ("RECORD_MISMATCH", "rules_version")


def test_bad_requests_are_400s(client: Client, games: list[PlayedGame]) -> None:
    rec = _json(games[2].record)
    assert _verify(client, {}, 400)["code"] == "MALFORMED_REQUEST"
    assert _verify(client, {"record": rec, "text": "x"}, 400)["code"] == "MALFORMED_REQUEST"
    assert _verify(client, {"record": rec, "seed": 3}, 400)["code"] == "MALFORMED_REQUEST"
    body = _verify(client, {"text": record_to_text(games[2].record).replace("Kitty:", "Kity:", 1)}, 400)
    assert body["code"] == "MALFORMED_REQUEST" and "line " in body["detail"]
    assert _verify(client, {"moves": [], "players": 4}, 400)["code"] == "INVALID_SEED"
    assert _verify(client, {"moves": [], "players": 4, "seed": 1, "options": {"deal_pattern": "1-1"}},
                   400)["code"] == "INVALID_OPTIONS"
    assert _verify(client, {"moves": [], "players": 4, "seed": 1, "first_dealer": 5}, 400)["code"] in (
        "INVALID_FIRST_DEALER", "MALFORMED_REQUEST")
    bad_deck = {**rec, "deck_orders": [["AS"]]}
    assert _verify(client, {"record": bad_deck}, 400)["code"] == "INVALID_DECK_ORDER"
    missing = dict(rec)
    missing["options"] = {k: v for k, v in rec["options"].items() if k != "deck_4p"}
    assert _verify(client, {"record": missing}, 400)["code"] == "MALFORMED_REQUEST"


def test_more_moves_than_a_game_can_have_are_refused_before_any_replay(client: Client) -> None:
    moves = [{"type": "pass", "seat": 0}] * (MAX_RECORD_MOVES + 1)
    body = _verify(client, {"moves": moves, "players": 4, "seed": 1}, 400)
    assert body["code"] == "MALFORMED_REQUEST" and str(MAX_RECORD_MOVES) in body["detail"]


def test_an_over_large_body_is_413_and_a_million_moves_do_not_take_the_service_down(client: Client) -> None:
    move = b'{"type":"pass","seat":0},'
    body = b'{"players":4,"seed":1,"moves":[' + move * 1_000_000 + b'{"type":"pass","seat":0}]}'
    assert len(body) > MAX_RECORD_BODY_BYTES
    started = time.perf_counter()
    response = client.post(PATH, content=body, headers={"content-type": "application/json"})
    elapsed = time.perf_counter() - started
    assert response.status_code == 413 and response.json()["code"] == "BODY_TOO_LARGE"
    assert elapsed < 10  # refused while reading, not after replaying (a generous bound for a shared machine)
    assert client.get("/healthz").status_code == 200
    # The largest body accepted is still bounded work: 1 MiB of passes is more than the move bound.
    fits = b'{"players":4,"seed":1,"moves":[' + move * 30_000 + b'{"type":"pass","seat":0}]}'
    assert len(fits) < MAX_RECORD_BODY_BYTES
    response = client.post(PATH, content=fits, headers={"content-type": "application/json"})
    assert response.status_code == 400


def test_a_seedless_record_continues_with_secret_deals(client: Client, sealer: Sealer) -> None:
    game = play_game(random.Random(8), 4, deck_orders=1, seedless=True)
    snapshots = [_verify(client, {"record": _json(game.record)}, 200)["snapshot"] for _ in range(2)]
    seeds = {sealer.open(s).seed for s in snapshots}
    assert len(seeds) == 2  # drawn afresh each time, never 0 or the client's choice


def test_details_quoting_the_clients_tokens_are_ascii(client: Client) -> None:
    """A problem body has no charset: a detail quoting a client's non-ASCII token is escaped, not echoed."""
    response = client.post(PATH, json={"players": 2, "deck_orders": [["\u00c9\u0a4d\u0011z\u0093"]], "moves": []})
    assert response.status_code == 400 and response.json()["code"] == "INVALID_DECK_ORDER"
    assert response.content.isascii()
    play = {"type": "play", "seat": 0, "card": "\u00e9"}
    response = client.post(PATH, json={"players": 4, "seed": 1, "moves": [play]})
    assert response.status_code == 400 and response.json()["code"] == "MALFORMED_MOVE" and response.content.isascii()


def test_a_record_with_impossible_options_and_an_undecodable_move_is_invalid_options(client: Client,
                                                                                    games: list[PlayedGame]) -> None:
    """A record whose options cannot set up a game (here a deal pattern that does not alternate player and kitty
    packets) is refused 400 INVALID_OPTIONS, as it is without the undecodable move, never a 500."""
    game = games[0]
    record = _json(game.record)
    record["options"] = {**record["options"], "deal_pattern": "62-22-63-01-88-0-2"}
    assert _verify(client, {"record": record}, 400)["code"] == "INVALID_OPTIONS"
    record["moves"] = [{"type": "play", "seat": 0, "card": 5}, *record["moves"][1:]]
    assert _verify(client, {"record": record}, 400)["code"] == "INVALID_OPTIONS"
