"""Every endpoint's happy path, the views' secrecy, and validate/apply agreement."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from engine import (
    RULES_VERSION,
    Bid,
    DiscardChoices,
    GameState,
    Options,
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

from .helpers import Client, an_illegal_move, by_viewer, create, states_by_phase

STATES = states_by_phase()


def test_every_phase_is_covered() -> None:
    assert set(STATES) == {"auction", "redeal_answer", "call", "exchange", "nominate", "play", "game_over"}


# ------------------------------------------------------------------------------------------------ create


def test_create_with_seed_is_reproducible_and_matches_the_engine(client: Client, sealer: Sealer) -> None:
    body = create(client, players=4, preset="australian", seed=42, first_dealer=3, views=[0, None, 0])
    state, events = new_game(Options(), seed=42, first_dealer=3)
    assert sealer.open(body["snapshot"]) == state
    assert body["rules_version"] == RULES_VERSION
    assert body["phase"] == "auction" and body["to_act"] == 0
    assert body["events"] == as_json(redact_events(events, None))
    assert [v["seat"] for v in body["views"]] == [0, None]  # in the order asked, a repeat once
    assert by_viewer(body)[0] == {"seat": 0, "view": as_json(view(state, 0)),
                                  "events": as_json(redact_events(events, 0))}
    assert by_viewer(body)[None]["view"] == as_json(view(state, None))
    again = create(client, players=4, preset="australian", seed=42, first_dealer=3)
    assert again["snapshot"] != body["snapshot"]  # fresh nonce …
    assert sealer.open(again["snapshot"]) == state  # … same game


def test_create_echoes_every_resolved_option(client: Client) -> None:
    body = create(client, players=5, preset="beagle", options={"target": 300, "five_player_partner_method":
                                                                "choose_player"})
    opts = resolve_options(5, "beagle", {"target": 300, "five_player_partner_method": "choose_player"})
    assert body["options"] == as_json({name: getattr(opts, name) for name in Options.__struct_fields__})
    assert body["options"]["misere_values"] == "beagle" and body["options"]["target"] == 300
    assert len(body["options"]) == len(Options.__struct_fields__)


def test_create_without_seed_deals_from_a_256_bit_secret(client: Client, sealer: Sealer) -> None:
    from service.referee.deals import SECRET_SEED_FLOOR, secret_deck, secret_of

    first = sealer.open(create(client)["snapshot"])
    second = sealer.open(create(client)["snapshot"])
    assert len(secret_of(first)) == len(secret_of(second)) == 32 and secret_of(first) != secret_of(second)
    assert first.seed >= SECRET_SEED_FLOOR  # no client's seed: it marks a game dealt from the secret
    assert first.hands != second.hands
    deck = secret_deck(first.options, secret_of(first), 0)
    assert first.hands == new_game(Options(), seed=1, deck_orders=[deck], first_dealer=first.dealer)[0].hands
    assert "seed" not in str(create(client, views=[0, None])["views"])  # never revealed


def test_create_with_deck_orders(client: Client, sealer: Sealer) -> None:
    from engine import pack_for

    deck = list(reversed(pack_for(Options())))
    body = create(client, seed=7, deck_orders=[deck], first_dealer=0)
    state, _ = new_game(Options(), seed=7, deck_orders=[deck], first_dealer=0)
    # The snapshot is the game's state but for the deck orders already dealt from, which it leaves out.
    assert state.dealt_decks == (tuple(deck),)
    assert sealer.open(body["snapshot"]) == msgspec.structs.replace(state, dealt_decks=())


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_create_every_player_count(client: Client, sealer: Sealer, players: int) -> None:
    body = create(client, players=players, seed=players, views=list(range(players)))
    state = sealer.open(body["snapshot"])
    assert state.options.players == players and len(body["views"]) == players


# -------------------------------------------------------------------------------------- view, legal moves


def test_views_show_exactly_the_own_hand(client: Client, sealer: Sealer) -> None:
    body = create(client, players=4, seed=5, views=[0, 1, 2, 3, None])
    state = sealer.open(body["snapshot"])
    for seat in range(4):
        seen = by_viewer(body)[seat]
        assert seen["view"]["hand"] == list(state.hands[seat])
        received = {e["seat"]: e["cards"] for e in seen["events"] if e["type"] == "cards_received"}
        assert received[seat] == list(state.hands[seat])
        assert all(cards is None for s, cards in received.items() if s != seat)
        others = [c for s in range(4) if s != seat for c in state.hands[s]] + list(state.kitty)
        text = str(seen)
        assert not any(f"'{c}'" in text for c in others), f"seat {seat}'s view shows another seat's card"
    public = by_viewer(body)[None]
    assert public["view"]["hand"] is None and public["view"]["kitty"] is None
    assert all(e.get("cards") is None for e in public["events"] if e["type"] == "cards_received")
    assert body["events"] == public["events"]


@pytest.mark.parametrize("phase", sorted(STATES))
def test_view_endpoint_matches_engine(client: Client, sealer: Sealer, phase: str) -> None:
    state = STATES[phase]
    snapshot = sealer.seal(state)
    for seat in [None, *range(state.options.players)]:
        response = client.post("/v1/games/view", json={"snapshot": snapshot, "seat": seat})
        assert response.status_code == 200, response.text
        assert response.json() == {"seat": seat, "view": as_json(view(state, seat))}
    assert client.post("/v1/games/view", json={"snapshot": snapshot}).json() == {"seat": None,
                                                                                 "view": as_json(view(state, None))}


@pytest.mark.parametrize("phase", sorted(STATES))
def test_legal_moves_endpoint_matches_engine(client: Client, sealer: Sealer, phase: str) -> None:
    state = STATES[phase]
    snapshot = sealer.seal(state)
    body = client.post("/v1/games/legal-moves", json={"snapshot": snapshot}).json()
    expected = {"seat": state.to_act, "to_act": state.to_act, "legal_moves": as_json(legal_moves(state))}
    if state.phase == "exchange":
        assert state.to_act is not None
        expected["discard_choice"] = {"cards": list(state.hands[state.to_act]), "count": len(state.kitty)}
    assert body == expected
    for seat in range(state.options.players):
        body = client.post("/v1/games/legal-moves", json={"snapshot": snapshot, "seat": seat}).json()
        assert body["seat"] == seat and body["legal_moves"] == as_json(legal_moves(state, seat))


# -------------------------------------------------------------------------------------- validate, apply


def _legal(client: Client, snapshot: str, move: Any) -> dict[str, Any]:
    response = client.post("/v1/games/validate", json={"snapshot": snapshot, "move": move})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


@pytest.mark.parametrize("phase", sorted(set(STATES) - {"game_over"}))
def test_validate_and_apply_agree(client: Client, sealer: Sealer, phase: str) -> None:
    state = STATES[phase]
    snapshot = sealer.seal(state)
    rng = random.Random(phase)
    moves = legal_moves(state)
    for move in rng.sample(moves, min(5, len(moves))):
        assert _legal(client, snapshot, as_json(move)) == {"legal": True}
        response = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": as_json(move)})
        assert response.status_code == 200, response.text
        new, events = apply_move(state, move)
        body = response.json()
        assert sealer.open(body["snapshot"]) == new
        assert body["phase"] == new.phase and body["to_act"] == new.to_act
        assert body["events"] == as_json(redact_events(events, None)) and body["views"] == []
    illegal = an_illegal_move(state)
    assert illegal is not None
    rejection = check_move(state, illegal)
    assert rejection is not None
    verdict = _legal(client, snapshot, as_json(illegal))
    movers = legal_moves(state, illegal.seat)  # the mover's own moves only (none when not its turn)
    listed: dict[str, Any] = {"legal_moves": as_json(movers)}
    if isinstance(movers, DiscardChoices):  # the exchange: the compact form alone, however many discards
        listed = {"legal_moves": [], "discard_choice": {"cards": list(movers.hand), "count": movers.k}}
    detail = rejection_text("en", rejection.reason, rejection.detail, rejection.params)
    assert verdict == {"legal": False, "reason": rejection.reason, "detail": detail, **listed}
    response = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": as_json(illegal)})
    problem = assert_problem(response, 422, "ILLEGAL_MOVE", reason=rejection.reason)
    assert problem["detail"] == detail
    assert {k: problem.get(k) for k in listed} == listed


def test_game_over_refuses_every_move(client: Client, sealer: Sealer) -> None:
    state = STATES["game_over"]
    snapshot = sealer.seal(state)
    assert client.post("/v1/games/legal-moves", json={"snapshot": snapshot}).json() == {
        "seat": None, "to_act": None, "legal_moves": []}
    move = {"type": "pass", "seat": 0}
    assert _legal(client, snapshot, move)["reason"] == "GAME_OVER"
    response = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": move})
    assert assert_problem(response, 422, "ILLEGAL_MOVE", reason="GAME_OVER")["legal_moves"] == []


def test_the_reasons_api_md_promises(client: Client, sealer: Sealer) -> None:
    state, _ = new_game(Options(), seed=1, first_dealer=3)  # seat 0 to act
    snapshot = sealer.seal(state)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"type": "pass", "seat": 1}, "NOT_YOUR_TURN"),
        ({"type": "bid", "seat": 0, "bid": "MISERE"}, "MISERE_NEEDS_SEVEN_BID"),
        ({"type": "play", "seat": 0, "card": state.hands[0][0]}, "WRONG_PHASE"),
    ]
    after_bid, _ = apply_move(state, Bid(seat=0, bid="7H"))
    cases_after = [({"type": "bid", "seat": 1, "bid": "7S"}, "BID_TOO_LOW")]
    for move, reason in cases:
        assert _legal(client, snapshot, move)["reason"] == reason
    for move, reason in cases_after:
        assert _legal(client, sealer.seal(after_bid), move)["reason"] == reason
    play = STATES["play"]
    actor = play.to_act
    assert actor is not None
    not_held = next(c for s in range(play.options.players) if s != actor for c in play.hands[s])
    verdict = _legal(client, sealer.seal(play), {"type": "play", "seat": actor, "card": not_held})
    assert verdict["reason"] == "CARD_NOT_IN_HAND"


def test_apply_returns_views_with_redacted_events(client: Client, sealer: Sealer) -> None:
    state, _ = new_game(Options(), seed=9, first_dealer=3)
    for move in (Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2)):
        state, _ = apply_move(state, move)
    # Seat 3 passes: the auction ends and seat 0 takes the kitty (a private event).
    response = client.post("/v1/games/apply", json={"snapshot": sealer.seal(state), "move": {"type": "pass",
                                                                                          "seat": 3},
                                                    "views": [None, 0, 1]})
    assert response.status_code == 200, response.text
    body = response.json()
    new, events = apply_move(state, Pass(seat=3))
    kitty_public = [e for e in body["events"] if e["type"] == "kitty_taken"]
    assert kitty_public == [{"type": "kitty_taken", "seat": 0, "cards": None}]
    kitty_0 = [e for e in by_viewer(body)[0]["events"] if e["type"] == "kitty_taken"]
    assert kitty_0 == [{"type": "kitty_taken", "seat": 0, "cards": list(new.kitty)}]
    assert by_viewer(body)[0]["view"]["kitty"] == list(new.kitty)
    assert by_viewer(body)[1]["view"]["kitty"] is None and by_viewer(body)[1]["view"]["hand"] == list(new.hands[1])
    assert by_viewer(body)[1]["events"] == as_json(redact_events(events, 1))


def test_blind_misere_hides_an_unlooked_hand(client: Client, sealer: Sealer) -> None:
    body = create(client, seed=3, options={"blind_misere_enabled": True}, views=[0, 1])
    assert by_viewer(body)[0]["view"]["hand"] is None and by_viewer(body)[1]["view"]["hand"] is None
    state = sealer.open(body["snapshot"])
    actor = state.to_act
    assert actor is not None
    response = client.post("/v1/games/apply", json={"snapshot": body["snapshot"], "views": [actor],
                                                    "move": {"type": "look_at_hand", "seat": actor}})
    assert by_viewer(response.json())[actor]["view"]["hand"] == list(state.hands[actor])


def test_snapshot_state_round_trips_unchanged(sealer: Sealer) -> None:
    for state in STATES.values():
        assert isinstance(state, GameState) and sealer.open(sealer.seal(state)) == state
