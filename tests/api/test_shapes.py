"""The stateless API's shapes, through HTTP: seeds every client reads exactly, one canonical form for every
move the service writes, integer seats in ``views``, deck orders as long as the largest pack, and the
exchange's discards in a compact form."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Move, Options, canonical_move, pack_for, resolve_options
from service.referee.schemas import LARGEST_PACK, SEED_MAX
from tests.support import assert_problem

from .helpers import Client, create

SAFE_INTEGER = 2**53 - 1  # Number.MAX_SAFE_INTEGER: the largest integer a JavaScript client reads exactly
BOT_LEVELS = ("random", "basic", "expert")


# ------------------------------------------------------------------------------------------------ seeds


def test_the_largest_seed_is_the_largest_safe_integer() -> None:
    assert SEED_MAX == SAFE_INTEGER


def test_every_seed_the_service_draws_is_a_safe_integer(client: Client) -> None:
    game = create(client, seed=42, first_dealer=3)
    seeds = []
    for _ in range(40):
        answer = client.post("/v1/games/suggest", json={"snapshot": game["snapshot"], "seat": 0})
        assert answer.status_code == 200, answer.text
        seeds.append(answer.json()["seed"])
    assert all(isinstance(s, int) and 0 <= s <= SAFE_INTEGER for s in seeds)
    assert len(set(seeds)) > 1  # drawn, not fixed
    # A returned seed reproduces its suggestion exactly.
    again = client.post("/v1/games/suggest", json={"snapshot": game["snapshot"], "seat": 0, "seed": seeds[0],
                                                   "level": "random"}).json()
    assert again["seed"] == seeds[0]


@pytest.mark.parametrize("seed", [0, SAFE_INTEGER])
def test_a_safe_seed_is_accepted_everywhere(client: Client, seed: int) -> None:
    game = create(client, seed=seed)
    suggested = client.post("/v1/games/suggest", json={"snapshot": game["snapshot"], "seat": game["to_act"],
                                                       "seed": seed})
    assert suggested.status_code == 200 and suggested.json()["seed"] == seed
    verified = client.post("/v1/records/verify", json={"players": 4, "seed": seed, "moves": []})
    assert verified.status_code == 200, verified.text
    assert verified.json()["record"]["seed"] == seed


@pytest.mark.parametrize("seed", [SAFE_INTEGER + 1, 2**63 - 1])
def test_a_seed_a_browser_cannot_hold_is_refused_everywhere(client: Client, seed: int) -> None:
    """2**53 + 1 and 2**53 are one number to JavaScript: such a seed would silently become another one."""
    assert_problem(client.post("/v1/games", json={"seed": seed}), 400, "INVALID_SEED")
    game = create(client, seed=1)
    assert_problem(client.post("/v1/games/suggest", json={"snapshot": game["snapshot"], "seat": game["to_act"],
                                                          "seed": seed}), 400, "INVALID_SEED")
    assert_problem(client.post("/v1/records/verify", json={"players": 4, "seed": seed, "moves": []}), 400,
                   "INVALID_SEED")
    record = client.post("/v1/records/verify", json={"players": 4, "seed": 1, "moves": []}).json()["record"]
    assert_problem(client.post("/v1/records/verify", json={"record": {**record, "seed": seed}}), 400,
                   "INVALID_SEED")


# ------------------------------------------------------------------------------------------ deck orders


def test_the_largest_pack_bounds_a_deck_order() -> None:
    largest = resolve_options(6, None, {"six_player_kitty": 6})
    assert LARGEST_PACK == len(pack_for(largest)) == 66


def test_a_sixty_six_card_deck_order_deals(client: Client) -> None:
    """Six players with a six-card kitty play with 66 cards: their deck order is a valid create request."""
    options = {"six_player_kitty": 6}
    deck = list(reversed(pack_for(resolve_options(6, None, options))))
    created = client.post("/v1/games", json={"players": 6, "options": options, "deck_orders": [deck],
                                             "first_dealer": 0, "views": [0]})
    assert created.status_code == 201, created.text
    assert len(created.json()["views"][0]["view"]["hand"]) == 10
    too_long = client.post("/v1/games", json={"players": 6, "options": options, "deck_orders": [deck + ["AS"]]})
    assert_problem(too_long, 400, "INVALID_DECK_ORDER")


# ------------------------------------------------------------------------------------------------ views


def test_views_take_integer_seats_and_null_for_the_public_view(client: Client) -> None:
    body = create(client, seed=4, first_dealer=3, views=[2, None, 0, 2])
    assert [v["seat"] for v in body["views"]] == [2, None, 0]
    assert body["views"][0]["view"]["hand"] is not None and body["views"][1]["view"]["hand"] is None
    assert_problem(client.post("/v1/games", json={"views": ["0"]}), 400, "MALFORMED_REQUEST")
    view = client.post("/v1/games/view", json={"snapshot": body["snapshot"], "seat": 2}).json()
    assert view == {"seat": 2, "view": body["views"][0]["view"]}  # one shape: {seat, view}


# ------------------------------------------------------------------------------ the exchange, compactly


def _exchange(client: Client, players: int = 4) -> tuple[dict[str, Any], int]:
    """A game at its exchange: its last apply answer and the contractor."""
    body = create(client, players=players, seed=11, first_dealer=players - 1)
    rng = random.Random(3)
    while body["phase"] != "exchange":
        moves = client.post("/v1/games/legal-moves", json={"snapshot": body["snapshot"]}).json()["legal_moves"]
        bids = [m for m in moves if m["type"] == "bid"] if body["phase"] == "auction" else []
        move = bids[0] if bids and body["to_act"] == 0 else next((m for m in moves if m["type"] == "pass"),
                                                                 rng.choice(moves))
        body = client.post("/v1/games/apply", json={"snapshot": body["snapshot"], "move": move}).json()
    return body, body["to_act"]


def test_the_exchange_discards_come_compactly(client: Client) -> None:
    body, seat = _exchange(client)
    full = client.post("/v1/games/legal-moves", json={"snapshot": body["snapshot"]})
    compact = client.post("/v1/games/legal-moves", json={"snapshot": body["snapshot"], "list_discards": False})
    hand = client.post("/v1/games/view", json={"snapshot": body["snapshot"], "seat": seat}).json()["view"]["hand"]
    choice = {"cards": hand, "count": 3}
    assert full.json()["discard_choice"] == compact.json()["discard_choice"] == choice
    assert len(full.json()["legal_moves"]) == 286 and compact.json()["legal_moves"] == []
    assert len(compact.content) < 600 < 15_000 < len(full.content)
    # Every choice of `count` of `cards`, in pack order, is exactly one of the listed moves.
    listed = {tuple(m["cards"]) for m in full.json()["legal_moves"]}
    assert listed == {tuple(c) for c in _choices(hand, 3)}
    refused = client.post("/v1/games/apply", json={"snapshot": body["snapshot"],
                                                   "move": {"type": "discard", "seat": seat, "cards": hand[:2]}})
    problem = assert_problem(refused, 422, "ILLEGAL_MOVE", reason="WRONG_DISCARD_COUNT")
    assert problem["legal_moves"] == [] and problem["discard_choice"] == choice
    assert len(refused.content) < 1_000
    # Elsewhere there is no compact form.
    play = create(client, seed=2)
    assert "discard_choice" not in client.post("/v1/games/legal-moves", json={"snapshot": play["snapshot"],
                                                                              "list_discards": False}).json()


def _choices(cards: list[str], k: int) -> list[list[str]]:
    from itertools import combinations

    return [list(c) for c in combinations(cards, k)]


# ------------------------------------------------------------------------------------------ canonical moves


def _canonical(move: dict[str, Any], options: Options) -> bool:
    decoded: Move = msgspec.convert(move, Move)
    return canonical_move(decoded, options) == decoded


def _assert_canonical_events(events: list[dict[str, Any]], options: Options) -> None:
    index = {c: i for i, c in enumerate(pack_for(options))}
    for event in events:
        if event["type"] == "discarded" and event["cards"] is not None:
            assert event["cards"] == sorted(event["cards"], key=index.__getitem__), event
        if event["type"] == "partners_chosen":
            assert event["partners"] == sorted(event["partners"]), event


def _scrambled(move: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The same move in another order (a client may send a discard's cards or its partners in any order)."""
    for field in ("cards", "partners"):
        if move["type"] in ("discard", "choose_partners") and len(move.get(field, ())) > 1:
            shuffled = list(move[field])
            while shuffled == move[field]:
                rng.shuffle(shuffled)
            return {**move, field: shuffled}
    return move


GAME_SHAPES = [(4, {}), (5, {"five_player_partner_method": "choose_player"}), (6, {"six_player_kitty": 6}),
               (2, {})]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, SAFE_INTEGER), shape=st.sampled_from(GAME_SHAPES))
def test_every_move_the_service_writes_is_canonical(client: Client, seed: int,
                                                    shape: tuple[int, dict[str, Any]]) -> None:
    """Legal moves, suggestions (and an expert's candidates), events, records and refusals write each move in
    the engine's canonical form, whatever order a client sent it in: a suggestion is found in the legal-move
    list as it is."""
    players, overrides = shape
    options = resolve_options(players, None, overrides)
    rng = random.Random(seed)
    body = create(client, players=players, options=overrides, seed=seed, views=list(range(players)))
    snapshot, sent = body["snapshot"], []
    for step in range(60 + 10 * players):
        if body["to_act"] is None:
            break
        seat = body["to_act"]
        listed = client.post("/v1/games/legal-moves", json={"snapshot": snapshot}).json()["legal_moves"]
        assert all(_canonical(m, options) for m in listed)
        if body["phase"] in ("exchange", "call") or step % 7 == 0:
            level = BOT_LEVELS[step % 3]
            hint = client.post("/v1/games/suggest", json={"snapshot": snapshot, "seat": seat, "level": level,
                                                          "budget": 8}).json()
            for move in [hint["move"], *(c["move"] for c in hint["candidates"])]:
                assert _canonical(move, options), (level, move)
            assert hint["move"] in listed, (level, hint["move"])
        move = rng.choice(listed)
        wrong = {"type": "pass", "seat": (seat + 1) % players}
        refused = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": wrong})
        if refused.status_code == 422:
            assert all(_canonical(m, options) for m in refused.json()["legal_moves"])
        scrambled = _scrambled(move, rng)
        sent.append(scrambled)
        body = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": scrambled,
                                                    "views": [seat, None]}).json()
        snapshot = body["snapshot"]
        for answered in [body["events"], *(v["events"] for v in body["views"])]:
            _assert_canonical_events(answered, options)
    verified = client.post("/v1/records/verify", json={"players": players, "options": overrides, "seed": seed,
                                                       "moves": sent})
    assert verified.status_code == 200, verified.text
    record = verified.json()["record"]
    assert all(_canonical(m, options) for m in record["moves"])
    assert [canonical_move(msgspec.convert(m, Move), options) for m in sent] == \
        [msgspec.convert(m, Move) for m in record["moves"]]


def test_a_suggested_discard_is_listed_as_it_is(client: Client) -> None:
    """The integrator's case: at the exchange, the suggestion is one of the legal moves, in the same form."""
    body, seat = _exchange(client)
    listed = client.post("/v1/games/legal-moves", json={"snapshot": body["snapshot"]}).json()["legal_moves"]
    for level in BOT_LEVELS:
        for seed in range(4):
            hint = client.post("/v1/games/suggest", json={"snapshot": body["snapshot"], "seat": seat,
                                                          "level": level, "seed": seed, "budget": 8}).json()
            assert hint["move"] in listed, (level, hint["move"])
