"""A session's moves and listings as the contract says, through HTTP: a move needs no ``seat`` (the token fixes
it), the exchange's discards come in their compact form as in the stateless API, and only to the seat whose
discards they are; every query parameter is given once, with a value the contract allows; every operation that
takes a JSON body says so with 413 and 415."""

from __future__ import annotations

import json
import random
import re
from math import comb
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from engine import Move, Options, canonical_move, controller, pack_for, resolve_options
from tests.support import assert_problem, bearer

from .helpers import Client

SESSION_MOVE_OPERATIONS = ("applySessionMove", "validateSessionMove")
STATELESS_MOVE_OPERATIONS = ("applyMove", "validateMove")


@pytest.fixture(scope="module")
def served(client: Client) -> dict[str, Any]:
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _operations(document: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    return {op["operationId"]: (path, method, op) for path, item in document["paths"].items()
            for method, op in item.items()}


def _body_schema(document: dict[str, Any], operation: str) -> dict[str, Any]:
    _, _, op = _operations(document)[operation]
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    name = (schema["allOf"][0] if "allOf" in schema else schema)["$ref"].rsplit("/", 1)[1]
    resolved: dict[str, Any] = document["components"]["schemas"][name]
    return resolved


def _validator(document: dict[str, Any], component: str) -> jsonschema.Draft202012Validator:
    registry: Registry[Any] = Registry().with_resource(
        "urn:openapi", Resource.from_contents(document, default_specification=DRAFT202012))
    return jsonschema.Draft202012Validator({"$ref": f"urn:openapi#/components/schemas/{component}"},
                                           registry=registry)


def _move_members(document: dict[str, Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    schemas = document["components"]["schemas"]
    return [schemas[m["$ref"].rsplit("/", 1)[1]] for m in body["properties"]["move"]["oneOf"]]


# ------------------------------------------------------------------------------------ seatless session moves


def test_the_contract_lets_a_session_move_leave_out_its_seat(served: dict[str, Any]) -> None:
    for operation in SESSION_MOVE_OPERATIONS:
        body = _body_schema(served, operation)
        members = _move_members(served, body)
        assert len(members) == 11, operation
        for member in members:  # seat may be given (an integer) or left out
            assert member["properties"]["seat"] == {"type": "integer"}, (operation, member["title"])
            assert "seat" not in member["required"] and "type" in member["required"], (operation, member["title"])
        assert body["properties"]["move"]["discriminator"]["propertyName"] == "type"
    for operation in STATELESS_MOVE_OPERATIONS:  # a stateless move must name its seat: no token fixes it
        for member in _move_members(served, _body_schema(served, operation)):
            assert "seat" in member["required"], (operation, member["title"])
    session = _validator(served, "MoveRequest")
    for move in ({"type": "pass"}, {"type": "play", "card": "AS"}, {"type": "discard", "cards": ["4H", "5H", "6H"]},
                 {"type": "pass", "seat": 2}):
        assert not list(session.iter_errors({"move": move})), move
    assert list(session.iter_errors({"move": {"type": "pass", "seat": "2"}}))
    assert list(session.iter_errors({"move": {"type": "pass", "color": "red"}}))
    stateless = _validator(served, "ApplyRequest")
    assert list(stateless.iter_errors({"snapshot": "x", "move": {"type": "pass"}}))


def _session(client: Client, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/sessions", json={"players": 4, "seed": 42, "known_deal": True,
                                                 "first_dealer": 3, **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _version(client: Client, session: dict[str, Any]) -> int:
    response = client.get(f"/v1/sessions/{session['session_id']}", headers=bearer(session["host_token"]))
    version: int = response.json()["version"]
    return version


def test_a_seatless_move_is_the_tokens_and_another_seats_is_refused_by_name(client: Client) -> None:
    session = _session(client)
    url, tokens = f"/v1/sessions/{session['session_id']}", session["seat_tokens"]
    actor = session["to_act"]
    other = (actor + 1) % 4
    # validate: the seatless move is checked as the token's seat's
    checked = client.post(url + "/validate", json={"move": {"type": "pass"}}, headers=bearer(tokens[actor]))
    assert checked.status_code == 200, checked.text
    assert checked.json() == {"session_id": session["session_id"], "version": 1, "seat": actor, "legal": True}
    checked = client.post(url + "/validate", json={"move": {"type": "pass"}}, headers=bearer(tokens[other]))
    assert checked.json()["seat"] == other and checked.json()["reason"] == "NOT_YOUR_TURN"
    # a move naming a seat the token does not move for: 403 WRONG_SEAT naming both seats, nothing applied
    for path in ("/moves", "/validate"):
        refused = assert_problem(client.post(url + path, json={"move": {"type": "pass", "seat": actor}},
                                             headers=bearer(tokens[other])), 403, "WRONG_SEAT")
        assert f"seat {other}" in refused["detail"] and f"seat {actor}" in refused["detail"], refused
    assert _version(client, session) == 1
    # the seatless move applies for the token's seat
    applied = client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=bearer(tokens[actor]))
    assert applied.status_code == 200, applied.text
    assert applied.json()["events"][0] == {"type": "passed", "seat": actor}
    assert applied.json()["version"] == 2 and applied.headers["etag"] == '"2"'


# --------------------------------------------------------------------------- the exchange's compact discards


def _to_exchange(client: Client, session: dict[str, Any]) -> int:
    """Moves through the API until the exchange: the first seat to call bids the lowest bid, the others pass.
    The contractor's seat."""
    url, tokens = f"/v1/sessions/{session['session_id']}", session["seat_tokens"]
    bid = False
    for _ in range(40):
        state = client.get(url, headers=bearer(session["host_token"])).json()["view"]
        if state["phase"] == "exchange":
            to_act: int = state["to_act"]
            return to_act
        seat = state["to_act"]
        legal = client.get(url + "/legal-moves", headers=bearer(tokens[seat])).json()["legal_moves"]
        move = next(m for m in legal if m["type"] == ("pass" if bid else "bid"))
        bid = True
        assert client.post(url + "/moves", json={"move": move}, headers=bearer(tokens[seat])).status_code == 200
    raise AssertionError("the exchange was not reached")


def test_the_contractor_alone_gets_its_discards_in_compact_form(client: Client) -> None:
    session = _session(client)
    url, tokens = f"/v1/sessions/{session['session_id']}", session["seat_tokens"]
    contractor = _to_exchange(client, session)
    hand = client.get(url, headers=bearer(tokens[contractor])).json()["view"]["hand"]
    assert len(hand) == 13
    listed = client.get(url + "/legal-moves", headers=bearer(tokens[contractor]))
    assert listed.status_code == 200, listed.text
    answer = listed.json()
    assert answer["discard_choice"] == {"cards": hand, "count": 3}
    assert len(answer["legal_moves"]) == comb(13, 3)
    # The compact form stands for exactly the listed discards (each in the hand's order).
    listed_discards = {tuple(m["cards"]) for m in answer["legal_moves"]}
    assert all(m == {"type": "discard", "seat": contractor, "cards": m["cards"]} for m in answer["legal_moves"])
    assert all(list(cards) == [c for c in hand if c in cards] for cards in listed_discards)
    # list_discards=false: the compact form alone.
    compact = client.get(url + "/legal-moves?list_discards=false", headers=bearer(tokens[contractor]))
    assert compact.status_code == 200, compact.text
    assert compact.json()["legal_moves"] == [] and compact.json()["discard_choice"] == answer["discard_choice"]
    # As the stateless API answers it for the same state.
    snapshot = client.get(url + "/snapshot", headers=bearer(session["host_token"])).json()["snapshot"]
    stateless = client.post("/v1/games/legal-moves", json={"snapshot": snapshot}).json()
    assert stateless["discard_choice"] == answer["discard_choice"]
    assert stateless["legal_moves"] == answer["legal_moves"]
    # A refused discard of the contractor's (two cards, not three) names the compact form too.
    checked = client.post(url + "/validate", json={"move": {"type": "discard", "cards": hand[:2]}},
                          headers=bearer(tokens[contractor]))
    assert checked.status_code == 200, checked.text
    refusal = checked.json()
    assert refusal["legal"] is False and refusal["discard_choice"] == {"cards": hand, "count": 3}
    assert refusal["legal_moves"] == []  # the compact form alone, as a refusal lists the exchange
    # The other seats: no moves, no compact form, and none of the contractor's cards anywhere in the answers.
    private = set(hand)
    for seat in range(4):
        if seat == contractor:
            continue
        other = client.get(url + "/legal-moves", headers=bearer(tokens[seat]))
        assert other.status_code == 200 and other.json()["legal_moves"] == []
        assert "discard_choice" not in other.json()
        checked = client.post(url + "/validate", json={"move": {"type": "discard", "cards": hand[:3]}},
                              headers=bearer(tokens[seat]))
        assert checked.status_code == 200 and checked.json()["reason"] == "NOT_YOUR_TURN"
        assert "discard_choice" not in checked.json() and checked.json()["legal_moves"] == []
        own = set(client.get(url, headers=bearer(tokens[seat])).json()["view"]["hand"])
        shown = set(re.findall(r'"((?:[2-9]|1[0-3]|[JQKA])[SCDH]|JKB?)"', other.text + checked.text))
        assert not (shown & private) - own - set(hand[:3]), (seat, shown & private)
    # The host and a spectator have no seat: refused, with nothing of the hand.
    spectator = client.post(url + "/spectators", json={}, headers=bearer(session["host_token"])).json()
    for token in (session["host_token"], spectator["spectator_token"]):
        refused = client.get(url + "/legal-moves", headers=bearer(token))
        assert refused.status_code == 403, refused.text
        assert not private & set(re.findall(r'"([^"]+)"', refused.text))


def test_list_discards_changes_nothing_outside_the_exchange(client: Client) -> None:
    session = _session(client)
    url, token = f"/v1/sessions/{session['session_id']}", session["seat_tokens"][session["to_act"]]
    listed = client.get(url + "/legal-moves", headers=bearer(token)).json()
    compact = client.get(url + "/legal-moves?list_discards=false", headers=bearer(token)).json()
    assert listed["legal_moves"] and compact == listed
    assert "discard_choice" not in compact


def test_a_ghost_partners_contractor_gets_its_own_cards_only(client: Client) -> None:
    session = _session(client, players=2, seed=77, first_dealer=1, options={"two_player_method": "ghost_partners"})
    url, tokens = f"/v1/sessions/{session['session_id']}", session["seat_tokens"]
    contractor = _to_exchange(client, session)
    view = client.get(url, headers=bearer(tokens[contractor])).json()["view"]
    answer = client.get(url + "/legal-moves", headers=bearer(tokens[contractor])).json()
    assert answer["discard_choice"] == {"cards": view["hand"], "count": 3}
    assert len(view["hand"]) == 13
    # The ghosts' cards are not the contractor's to discard: none in the choice.
    ghost_cards = {c for g in view["ghosts"] for c in g["face_up"]}
    assert ghost_cards and not ghost_cards & set(answer["discard_choice"]["cards"])
    other = client.get(url + "/legal-moves", headers=bearer(tokens[1 - contractor])).json()
    assert other["legal_moves"] == [] and "discard_choice" not in other


# ------------------------------------------------------------------------------------------ query parameters


def _query_parameters(document: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(method, path, parameter, a valid value) for every query parameter of every /v1 operation."""
    valid = {"players": "3", "preset": "american", "seat": "0", "reasons": "true", "list_discards": "false",
             "lang": "hr", "last_event_id": "1-0", "after": "1", "access_token": "x", "api_key": "x", "seed": "1",
             "budget": "8"}
    out = []
    for path, item in document["paths"].items():
        for method, op in item.items():
            names = [p["name"] for p in op.get("parameters", []) if p["in"] == "query"]
            if op["operationId"] == "streamSessionEvents":
                names += ["access_token", "api_key"]
            out += [(method, path, name, valid[name]) for name in names]
    return out


def test_a_repeated_query_parameter_is_refused_by_name(client: Client, served: dict[str, Any]) -> None:
    session = _session(client)
    cases = _query_parameters(served)
    assert {name for _, _, name, _ in cases} == {"players", "preset", "seat", "reasons", "list_discards", "lang",
                                                  "last_event_id", "after", "seed", "budget",
                                                  "access_token", "api_key"}
    for method, path, name, value in cases:
        url = path.replace("{session_id}", session["session_id"]).replace("{seat}", "1")
        response = client.request(method.upper(), f"{url}?{name}={value}&{name}={value}", json={},
                                  headers=bearer(session["seat_tokens"][0]))
        problem = assert_problem(response, 400, "MALFORMED_REQUEST")
        assert problem["errors"] == [{"message": "given 2 times; give it once", "field": name, "source": "query"}]
        assert f"`{name}`" in problem["detail"] or name in problem["detail"], problem
    assert _version(client, session) == 1  # nothing applied, nothing changed
    # Given once, the same parameters are answered.
    assert client.get("/v1/rules?preset=american&players=3").json()["sides"] == [[0], [1], [2]]
    assert client.get("/v1/rules?preset=null&x=1&x=2").status_code == 400
    assert client.get("/v1/rules?x=1&x=2").status_code == 200  # undeclared parameters are ignored


@pytest.mark.parametrize(("path", "query", "name"), [
    ("/v1/rules", "preset=null", "preset"),
    ("/v1/rules", "preset=NULL", "preset"),
    ("/v1/rules", "players=3.0", "players"),
    ("/legal-moves", "seat=null", "seat"),
    ("", "seat=null", "seat"),
])
def test_null_is_no_value_of_a_query_parameter(client: Client, path: str, query: str, name: str) -> None:
    session = _session(client)
    url = path if path.startswith("/v1") else f"/v1/sessions/{session['session_id']}{path}"
    problem = assert_problem(client.get(f"{url}?{query}", headers=bearer(session["seat_tokens"][0])),
                             400, "MALFORMED_REQUEST")
    assert problem["errors"][0]["field"] == name and problem["errors"][0]["source"] == "query", problem


def test_a_null_last_event_id_is_the_streams_own_refusal(client: Client) -> None:
    """``last_event_id=null`` is a malformed event id, answered as the header's: one code wherever it is given."""
    session = _session(client)
    url = f"/v1/sessions/{session['session_id']}/events?last_event_id=null"
    assert_problem(client.get(url, headers=bearer(session["seat_tokens"][0])), 400, "INVALID_LAST_EVENT_ID")


# --------------------------------------------------------------------------------------- 413 and 415, all


def test_every_operation_with_a_json_body_documents_and_answers_413_and_415(client: Client,
                                                                            served: dict[str, Any]) -> None:
    session = _session(client)
    checked = 0
    for operation, (path, method, op) in _operations(served).items():
        if "requestBody" not in op:
            continue
        codes = {example["value"]["code"]: status for status, response in op["responses"].items()
                 for example in response.get("content", {}).get("application/problem+json", {})
                 .get("examples", {}).values()}
        assert codes.get("UNSUPPORTED_MEDIA_TYPE") == "415", operation
        assert codes.get("BODY_TOO_LARGE") == "413", operation
        url = path.replace("{session_id}", session["session_id"]).replace("{seat}", "1")
        response = client.request(method.upper(), url, content=json.dumps({}),
                                  headers={"content-type": "text/plain", **bearer(session["host_token"])})
        assert_problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")
        checked += 1
    assert checked >= 17  # every POST of /v1


# ------------------------------------------------------------------------ canonical moves in the sessions


def _canonical(move: dict[str, Any], options: Options) -> bool:
    decoded: Move = msgspec.convert(move, Move)
    return canonical_move(decoded, options) == decoded


def _scrambled(move: dict[str, Any], rng: random.Random, own: int) -> dict[str, Any]:
    """The same move as a client may send it: a discard's cards or the partners in another order, and, half the
    time, without its seat when that is the token's own (``own``; a ghost's move names the ghost's seat)."""
    for field in ("cards", "partners"):
        if move["type"] in ("discard", "choose_partners") and len(move.get(field, ())) > 1:
            shuffled = list(move[field])
            while shuffled == move[field]:
                rng.shuffle(shuffled)
            move = {**move, field: shuffled}
    return {k: v for k, v in move.items() if k != "seat"} if move["seat"] == own and rng.random() < 0.5 else move


def _events_canonical(events: list[dict[str, Any]], options: Options) -> None:
    index = {c: i for i, c in enumerate(pack_for(options))}
    for event in events:
        if event["type"] == "discarded" and event["cards"] is not None:
            assert event["cards"] == sorted(event["cards"], key=index.__getitem__), event
        if event["type"] == "partners_chosen":
            assert event["partners"] == sorted(event["partners"]), event


SESSION_SHAPES = [(4, {}), (5, {"five_player_partner_method": "choose_player"}), (3, {}),
                  (2, {"two_player_method": "ghost_partners"})]


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**53 - 1), shape=st.sampled_from(SESSION_SHAPES))
def test_every_move_a_session_writes_is_canonical(client: Client, seed: int,
                                                  shape: tuple[int, dict[str, Any]]) -> None:
    """A session's legal moves, hints, validations, refusals, move answers, event stream and records write each
    move in the engine's canonical form, whatever order (and with or without its seat) a client sent it in."""
    players, overrides = shape
    options = resolve_options(players, None, overrides)  # type: ignore[arg-type]
    rng = random.Random(seed)
    session = _session(client, players=players, options={**overrides, "target": 10, "lose_at": -10}, seed=seed,
                       first_dealer=0)
    url, tokens = f"/v1/sessions/{session['session_id']}", session["seat_tokens"]
    for step in range(400):  # a game of one hand or two (its stream then ends by itself)
        view = client.get(url, headers=bearer(session["host_token"])).json()["view"]
        if view["to_act"] is None:
            break
        own = controller(options, view["to_act"])
        token = tokens[own]
        listed = client.get(url + "/legal-moves", headers=bearer(token)).json()
        assert all(_canonical(m, options) for m in listed["legal_moves"])
        if view["phase"] in ("exchange", "call") or step % 9 == 0:
            hint = client.post(url + "/suggest", json={"level": "basic", "seed": step}, headers=bearer(token)).json()
            assert _canonical(hint["move"], options) and hint["move"] in listed["legal_moves"], hint
        checked = client.post(url + "/validate", json={"move": {"type": "look_at_hand"}}, headers=bearer(token))
        if checked.status_code == 200 and not checked.json()["legal"]:
            assert all(_canonical(m, options) for m in checked.json().get("legal_moves", []))
        other = tokens[(controller(options, view["to_act"]) + 1) % players]
        refused = client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=bearer(other))
        if refused.status_code == 422:
            assert refused.json().get("legal_moves", []) == []  # none of the actor's moves to another seat
        move = rng.choice(listed["legal_moves"])
        answer = client.post(url + "/moves", json={"move": _scrambled(move, rng, own)}, headers=bearer(token))
        assert answer.status_code == 200, answer.text
        _events_canonical(answer.json()["events"], options)
    assert view["to_act"] is None, "the game did not end"
    host = client.get(url + "/record", headers=bearer(session["host_token"])).json()["record"]
    assert all(_canonical(m, options) for m in host["moves"])
    mine = client.get(url + "/record", headers=bearer(tokens[0])).json()["seat_record"]
    assert all(_canonical(m, options) for m in mine["moves"] if m["type"] != "redacted_discard")
    with client.stream("GET", url + "/events", headers=bearer(tokens[0])) as stream:
        frames = [json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: ")]
    _events_canonical([f["event"] for f in frames if "event" in f], options)


# ------------------------------------------------------------------------------------ one name for each


def test_one_name_for_each_thing_in_both_apis(client: Client) -> None:
    """Legal moves are ``legal_moves`` in both APIs; a scored hand's changes are ``deltas`` in the event and in
    the record; a view is ``{seat, view}`` from ``viewGame`` as in create's and apply's ``views``."""
    session = _session(client, options={"target": 10, "lose_at": -10})
    url, tokens = f"/v1/sessions/{session['session_id']}", session["seat_tokens"]
    scored: dict[str, Any] | None = None
    for _ in range(200):
        view = client.get(url, headers=bearer(session["host_token"])).json()["view"]
        if view["to_act"] is None:
            break
        listed = client.get(url + "/legal-moves", headers=bearer(tokens[view["to_act"]])).json()
        assert "legal_moves" in listed and "moves" not in listed
        wanted = "bid" if view["high_bid"] is None else "pass"  # one bid, then passes: a hand is played
        move = next((m for m in listed["legal_moves"] if m["type"] == wanted), listed["legal_moves"][0])
        answer = client.post(url + "/moves", json={"move": move}, headers=bearer(tokens[view["to_act"]])).json()
        scored = next((e for e in answer["events"] if e["type"] == "hand_scored"), scored)
    assert scored is not None and "deltas" in scored and "changes" not in scored
    record = client.get(url + "/record", headers=bearer(session["host_token"])).json()["record"]
    score = next(h["score"] for h in record["hands"] if h["score"] is not None)
    assert score["deltas"] == scored["deltas"] and "changes" not in score
    snapshot = client.get(url + "/snapshot", headers=bearer(session["host_token"])).json()["snapshot"]
    stateless = client.post("/v1/games/legal-moves", json={"snapshot": snapshot}).json()
    assert "legal_moves" in stateless and "moves" not in stateless
    created = client.post("/v1/games", json={"players": 4, "seed": 3, "views": [1, None]}).json()
    viewed = client.post("/v1/games/view", json={"snapshot": created["snapshot"], "seat": 1}).json()
    assert set(viewed) == {"seat", "view"} and {"seat", "view"} <= set(created["views"][0])
    assert viewed["view"] == created["views"][0]["view"] and created["views"][0]["seat"] == 1


def test_every_seed_a_session_returns_is_a_safe_integer(client: Client) -> None:
    """The seeds a session returns (a hint's, drawn or given; a game's in its record) are integers every JSON
    client reads exactly, and a hint's seed reproduces it."""
    session = client.post("/v1/sessions", json={"players": 4}).json()  # no seed: the service draws one
    url, seat = f"/v1/sessions/{session['session_id']}", session["to_act"]
    token = session["seat_tokens"][seat]
    seeds = []
    for _ in range(30):
        hint = client.post(url + "/suggest", json={"level": "random"}, headers=bearer(token))
        assert hint.status_code == 200, hint.text
        seeds.append(hint.json()["seed"])
    assert all(isinstance(s, int) and 0 <= s <= 2**53 - 1 for s in seeds) and len(set(seeds)) > 1
    again = client.post(url + "/suggest", json={"level": "random", "seed": seeds[0]}, headers=bearer(token)).json()
    first = client.post(url + "/suggest", json={"level": "random", "seed": seeds[0]}, headers=bearer(token)).json()
    assert again == first and again["seed"] == seeds[0]
    record = client.get(url + "/record", headers=bearer(session["host_token"])).json()["record"]
    assert record["seed"] is None and record["deck_orders"]  # a drawn seed is secret: the record lists the decks
    assert_problem(client.post(url + "/suggest", json={"seed": 2**53}, headers=bearer(token)), 400, "INVALID_SEED")
