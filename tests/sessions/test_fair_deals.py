"""Secret deals (issue 46): a deal no client chose comes from a 256-bit secret that only the state holds; a
client's seed deals as it always did, and a table of several players deals from one only when its host says so.

Over both stores (and the cluster), through HTTP; the secret is read back from the store itself.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from engine import Options, apply_move, legal_moves, new_game, resolve_options
from service.referee.deals import (
    SECRET_BYTES,
    SECRET_SEED_FLOOR,
    draw_secret,
    is_secretly_dealt,
    key_decks,
    secret_deck,
    secret_of,
    secret_setup,
    topped_up,
)
from tests.support import assert_problem

from .conftest import Service

#: The README's seeded hand: seat 0's cards of seed 42, dealer 3.
README_HAND = ["QS", "10S", "6C", "KD", "7D", "6D", "4D", "10H", "7H", "5H"]
THREE_BOTS = {"1": "basic", "2": "basic", "3": "basic"}
#: The problem type of every refusal of a table whose deals a client knows (within the field's own code).
DEAL_NOT_SECRET_TYPE = "https://fivehundred.dev/problems/deal-not-secret"


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def _state(service: Service, session_id: str) -> Any:
    loaded = await service.app.state.sessions.service.store.load(session_id)
    assert loaded is not None
    return loaded.record.state


# ------------------------------------------------------------------------------------------- the secret


def test_a_drawn_secret_is_256_bits_and_the_state_holds_exactly_it() -> None:
    secrets = {draw_secret() for _ in range(64)}
    assert len(secrets) == 64 and all(len(s) == SECRET_BYTES == 32 for s in secrets)
    for players in range(2, 7):
        opts = resolve_options(players, None, {})
        for secret in (bytes(32), b"\xff" * 32, draw_secret()):
            state, _ = new_game(opts, **secret_setup(opts, secret, ()))
            assert is_secretly_dealt(state) and state.seed >= SECRET_SEED_FLOOR
            assert secret_of(state) == secret
            assert state.dealt_decks == (secret_deck(opts, secret, 0),)


def test_every_hand_of_a_secretly_dealt_game_comes_from_its_secret_and_the_secret_is_never_dealt() -> None:
    rng = random.Random(46)
    for players in (2, 3, 4, 6):
        opts = resolve_options(players, None, {"target": 2000, "lose_at": -2000})
        secret = draw_secret()
        state, _ = new_game(opts, **secret_setup(opts, secret, ()))
        for _ in range(600):
            if state.phase == "game_over":
                break
            state, _ = apply_move(topped_up(state), rng.choice(legal_moves(topped_up(state))))
            assert secret_of(state) == secret
        assert state.hand_number >= 2
        assert state.dealt_decks == tuple(secret_deck(opts, secret, h) for h in range(state.hand_number + 1))
        assert len(state.deck_orders) - key_decks(len(state.dealt_decks[0])) in (0, 1)  # at most the next waits


def test_a_client_seed_deals_as_the_engine_always_did() -> None:
    state, _ = new_game(Options(), seed=42, first_dealer=3)
    assert list(state.hands[0]) == README_HAND and not is_secretly_dealt(state)
    assert topped_up(state) is state  # nothing is added to a client's deal


# ------------------------------------------------------------------------------------------- over HTTP


async def test_sessions_created_at_the_same_moment_deal_differently(client: httpx.AsyncClient,
                                                                   service: Service) -> None:
    body = {"players": 4, "first_dealer": 3, "bots": THREE_BOTS}
    made = await asyncio.gather(*(client.post("/v1/sessions", json=body) for _ in range(8)))
    assert all(r.status_code == 201 for r in made)
    states = [await _state(service, r.json()["session_id"]) for r in made]
    secrets = {secret_of(s) for s in states}
    assert len(secrets) == 8 and all(len(s) == 32 for s in secrets)
    assert len({s.hands[0] for s in states}) == 8
    for state, secret in zip(states, [secret_of(s) for s in states], strict=True):
        assert state.dealt_decks == (secret_deck(state.options, secret, 0),)


async def test_a_client_seed_still_deals_the_readme_hand(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json={"players": 4, "seed": 42, "first_dealer": 3, "bots": THREE_BOTS})
    assert r.status_code == 201, r.text
    view = (await client.get(f"/v1/sessions/{r.json()['session_id']}",
                             headers=bearer(r.json()["seat_tokens"][0]))).json()
    assert view["view"]["hand"] == README_HAND
    game = await client.post("/v1/games", json={"players": 4, "seed": 42, "first_dealer": 3, "views": [0]})
    assert game.json()["views"][0]["view"]["hand"] == README_HAND


@pytest.mark.parametrize("body", [
    {"players": 4, "seed": 7},
    {"players": 4, "seed": 7, "bots": {"1": "basic", "2": "basic"}},
    {"players": 4, "seed": 7, "bots": THREE_BOTS, "open_seats": [0]},
    {"players": 3, "deck_orders": [resolve_options(3, None, {}) and list(secret_deck(
        resolve_options(3, None, {}), bytes(32), 0))]},
])
async def test_a_table_of_several_players_deals_from_a_clients_seed_only_when_the_host_says_so(
        client: httpx.AsyncClient, body: dict[str, Any]) -> None:
    code = "INVALID_SEED" if "seed" in body else "INVALID_DECK_ORDER"  # the field's own code (v1 is frozen)
    refused = await client.post("/v1/sessions", json=body)
    assert_problem(refused, 400, code)
    assert refused.json()["type"] == DEAL_NOT_SECRET_TYPE and refused.json()["title"] == "Deal not secret"
    assert (await client.post("/v1/sessions", json={**body, "known_deal": True})).status_code == 201
    unseeded = {k: v for k, v in body.items() if k not in ("seed", "deck_orders")}
    assert (await client.post("/v1/sessions", json=unseeded)).status_code == 201


async def test_the_record_of_a_secretly_dealt_game_lists_its_deck_orders_and_verifies(
        client: httpx.AsyncClient, service: Service) -> None:
    r = await client.post("/v1/sessions", json={"players": 4, "first_dealer": 3, "bots": THREE_BOTS,
                                                "options": {"target": 5000, "lose_at": -5000}})
    created = r.json()
    url, seat = f"/v1/sessions/{created['session_id']}", bearer(created["seat_tokens"][0])
    secret = secret_of(await _state(service, created["session_id"]))
    for _ in range(80):  # seat 0 takes the hints until the second hand is dealt
        state = await _state(service, created["session_id"])
        if state.hand_number >= 1 or state.phase == "game_over":
            break
        move = (await client.post(url + "/suggest", json={"level": "basic", "seed": 1}, headers=seat)).json()["move"]
        assert (await client.post(url + "/moves", json={"move": move}, headers=seat)).status_code == 200
    state = await _state(service, created["session_id"])
    assert state.hand_number >= 1 and secret_of(state) == secret
    record = (await client.get(url + "/record", headers=bearer(created["host_token"]))).json()["record"]
    assert record.get("seed") is None
    assert record["deck_orders"] == [list(secret_deck(state.options, secret, h)) for h in range(state.hand_number + 1)]
    verified = await client.post("/v1/records/verify", json={"record": record})
    assert verified.status_code == 200, verified.text


async def test_a_seat_of_a_game_dealt_from_a_clients_seed_opens_to_a_stranger_only_when_the_host_said_so(
        client: httpx.AsyncClient) -> None:
    for extra, status in (({"seed": 7}, 403), ({"seed": 7, "known_deal": True}, 200), ({}, 200)):
        r = await client.post("/v1/sessions", json={"players": 4, "bots": THREE_BOTS, **extra})
        assert r.status_code == 201, r.text
        url, host = f"/v1/sessions/{r.json()['session_id']}", bearer(r.json()["host_token"])
        opened = await client.post(url + "/seats/1/invitation", json={}, headers=host)
        if status == 403:
            assert_problem(opened, 403, "FORBIDDEN")
            assert opened.json()["type"] == DEAL_NOT_SECRET_TYPE
        else:
            assert opened.status_code == 200, opened.text


async def test_a_snapshot_of_a_game_dealt_from_a_clients_seed_seats_several_players_only_when_the_host_says_so(
        client: httpx.AsyncClient) -> None:
    seeded = (await client.post("/v1/games", json={"players": 4, "seed": 7})).json()["snapshot"]
    secret = (await client.post("/v1/games", json={"players": 4})).json()["snapshot"]
    for snapshot, extra, status in ((seeded, {}, 403), (seeded, {"bots": {"1": "basic"}}, 403),
                                    (seeded, {"bots": THREE_BOTS, "open_seats": [0]}, 403),
                                    (seeded, {"known_deal": True}, 201), (seeded, {"bots": THREE_BOTS}, 201),
                                    (secret, {}, 201), (secret, {"bots": THREE_BOTS, "open_seats": [0]}, 201)):
        r = await client.post("/v1/sessions", json={"snapshot": snapshot, **extra})
        if status == 403:
            assert_problem(r, 403, "FORBIDDEN")
            assert "known_deal" in r.json()["detail"] and r.json()["type"] == DEAL_NOT_SECRET_TYPE
        else:
            assert r.status_code == 201, (extra, r.text)


@pytest.mark.parametrize(("language", "title"), [("en", "Deal not secret"), ("fil", "Hindi lihim ang bigay"),
                                                 ("su", "Bagian kartu teu rusiah"),
                                                 ("sq", "Ndarja nuk është e fshehtë"),
                                                 ("th", "การแจกไพ่ไม่เป็นความลับ"), ("hr", "Dijeljenje nije tajno")])
async def test_the_refusal_of_a_known_deal_has_its_own_problem_type_in_every_language(
        client: httpx.AsyncClient, language: str, title: str) -> None:
    r = await client.post("/v1/sessions", json={"players": 4, "seed": 7}, headers={"accept-language": language})
    assert_problem(r, 400, "INVALID_SEED")
    assert r.json()["type"] == DEAL_NOT_SECRET_TYPE and r.json()["title"] == title
    assert r.headers["content-language"] == language
