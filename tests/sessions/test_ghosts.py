"""Hosted sessions of the two-player ghost-partners game (``two_player_method=ghost_partners``), over every store.

A human's seat token moves for its ghost (the move names the ghost's seat, or no seat while the ghost is to act),
lists the ghost's legal moves while
the ghost is to act, and its stream shows the ghosts' face-up cards and nothing face down; a bot seat plays its
ghost's cards too.
"""

from __future__ import annotations

import httpx

from engine import (
    GameState,
    Move,
    Play,
    apply_move,
    controlled_seats,
    legal_moves,
    new_game,
    player_to_act,
    resolve_options,
)
from tests.support import assert_problem, bearer, jsonable

from .play import move_body, read_stream

GHOSTS = {"two_player_method": "ghost_partners"}
BODY = {"players": 2, "seed": 77, "known_deal": True,
        "first_dealer": 1, "options": {**GHOSTS, "target": 200, "lose_at": -200}}


def _mirror() -> GameState:
    opts = resolve_options(2, None, BODY["options"])  # type: ignore[arg-type]
    return new_game(opts, seed=77, first_dealer=1)[0]


def _quick(state: GameState) -> Move:
    """A move that reaches the play quickly: the first human opens 6S, the other passes; else the first listed."""
    moves = legal_moves(state)
    if state.phase == "auction":
        want = "6S" if state.high is None else None
        return next(m for m in moves if getattr(m, "bid", None) == want)
    return moves[0]


async def test_a_seat_token_moves_for_its_ghost_and_sees_only_face_up_cards(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json=BODY)
    assert r.status_code == 201, r.text
    created = r.json()
    sid, tokens = created["session_id"], created["seat_tokens"]
    assert len(tokens) == 2  # one token per human; the ghosts have none
    state = _mirror()
    version = 1
    ghost_moves = 0
    while state.phase != "play" or state.to_act not in (2, 3):
        mv = _quick(state)
        who = player_to_act(state)
        assert who is not None
        r = await client.post(f"/v1/sessions/{sid}/moves", json=move_body(mv), headers=bearer(tokens[who]))
        assert r.status_code == 200, r.text
        state, _ = apply_move(state, mv)
        version += 1
    ghost = state.to_act
    human = player_to_act(state)
    assert ghost in (2, 3) and human == ghost - 2 and controlled_seats(state.options, human) == (human, ghost)
    # The human's token lists the ghost's legal moves; the other human's lists none.
    r = await client.get(f"/v1/sessions/{sid}/legal-moves", headers=bearer(tokens[human]))
    assert r.status_code == 200, r.text
    assert r.json()["legal_moves"] == [jsonable(m) for m in legal_moves(state)]
    r = await client.get(f"/v1/sessions/{sid}/legal-moves", headers=bearer(tokens[1 - human]))
    assert r.json()["legal_moves"] == []
    # The other human may not move for this ghost; its own human may.
    mv = legal_moves(state)[0]
    assert isinstance(mv, Play) and mv.seat == ghost
    assert_problem(await client.post(f"/v1/sessions/{sid}/moves", json=move_body(mv),
                                     headers=bearer(tokens[1 - human])), 403, "WRONG_SEAT")
    r = await client.post(f"/v1/sessions/{sid}/moves", json=move_body(mv), headers=bearer(tokens[human]))
    assert r.status_code == 200, r.text
    ghost_moves += 1
    state, _ = apply_move(state, mv)
    version += 1
    assert r.json()["version"] == version
    # Each human's view shows both ghosts' face-up cards and who controls them, never a face-down card.
    down = {d for g, piles in enumerate(state.ghost_piles) for u, d in piles if u in state.hands[g]}
    for seat in (0, 1):
        r = await client.get(f"/v1/sessions/{sid}", headers=bearer(tokens[seat]))
        ghosts = r.json()["view"]["ghosts"]
        assert [(g["seat"], g["controlled_by"], tuple(g["face_up"])) for g in ghosts] == \
            [(g, g - 2, state.hands[g]) for g in (2, 3)]
        assert not [c for c in down if f'"{c}"' in r.text]
        # The stream shows the face-up cards dealt to the ghosts (ghost_cards_up), and no face-down card.
        events, _ = await read_stream(client, f"/v1/sessions/{sid}/events", headers=bearer(tokens[seat]),
                                      count=6)
        shown = [e for e in events if e.event == "ghost_cards_up"]
        assert [e.data["seat"] for e in shown] == [2, 3]
        assert all(c not in down for e in events for c in e.data.get("cards") or ())
    assert ghost_moves == 1


def _seatless(move: Move) -> dict[str, object]:
    body = move_body(move)
    del body["move"]["seat"]
    return body


async def test_a_seatless_move_is_for_the_seat_to_act_among_the_tokens_own(client: httpx.AsyncClient) -> None:
    created = (await client.post("/v1/sessions", json=BODY)).json()
    url, tokens = f"/v1/sessions/{created['session_id']}", created["seat_tokens"]
    state = _mirror()
    while state.phase != "play" or state.to_act not in (2, 3):  # every move seatless, the humans' own
        mv = _quick(state)
        who = player_to_act(state)
        assert who is not None
        r = await client.post(url + "/moves", json=_seatless(mv), headers=bearer(tokens[who]))
        assert r.status_code == 200, r.text
        state, _ = apply_move(state, mv)
    ghost, human = state.to_act, player_to_act(state)
    assert ghost in (2, 3) and human == ghost - 2
    mv = legal_moves(state)[0]
    assert isinstance(mv, Play) and mv.seat == ghost
    # Checked and applied as the ghost's: the human's token moves for it; the other human's is refused.
    checked = await client.post(url + "/validate", json=_seatless(mv), headers=bearer(tokens[human]))
    assert checked.status_code == 200 and checked.json()["legal"] is True, checked.text
    refused = await client.post(url + "/validate", json=_seatless(mv), headers=bearer(tokens[1 - human]))
    assert refused.json()["legal"] is False and refused.json()["reason"] == "NOT_YOUR_TURN", refused.text
    r = await client.post(url + "/moves", json=_seatless(mv), headers=bearer(tokens[human]))
    assert r.status_code == 200, r.text
    state, _ = apply_move(state, mv)
    shown = (await client.get(url, headers=bearer(tokens[human]))).json()["view"]
    assert shown["to_act"] == state.to_act
    face_up = next(g["face_up"] for g in shown["ghosts"] if g["seat"] == ghost)
    assert face_up == list(state.hands[ghost]) and mv.card not in face_up  # the ghost's card was played


async def test_a_bot_seat_plays_for_its_ghost(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json={**BODY, "bots": {"1": "basic"}})
    assert r.status_code == 201, r.text
    created = r.json()
    sid, token = created["session_id"], created["seat_tokens"][0]
    # Human 0 plays its own and its ghost's moves until a hand is over; the bot answers for seat 1 and ghost 3.
    by_seat: set[int] = set()
    ghost_answers = 0
    for _ in range(200):
        r = await client.get(f"/v1/sessions/{sid}", headers=bearer(token))
        body = r.json()
        if body["view"]["hand_number"] > 0 or body["view"]["phase"] == "game_over":
            break
        to_act = body["view"]["to_act"]
        assert to_act in (0, 2), to_act  # the bot has moved for seats 1 and 3 before answering
        moves = (await client.get(f"/v1/sessions/{sid}/legal-moves", headers=bearer(token))).json()["legal_moves"]
        assert moves and all(m["seat"] == to_act for m in moves)
        pick = next((m for m in moves if m.get("bid") == "6S"), None) or \
            next((m for m in moves if m["type"] == "pass"), moves[0])
        if body["view"]["phase"] == "exchange":
            hand = body["view"]["hand"]
            pick = {"type": "discard", "seat": 0, "cards": hand[:3]}
        r = await client.post(f"/v1/sessions/{sid}/moves", json={"move": pick}, headers=bearer(token))
        assert r.status_code == 200, r.text
        # The answer's view is the mover's, the human's, after a move for its ghost too (not the ghost's cards).
        now = (await client.get(f"/v1/sessions/{sid}", headers=bearer(token))).json()
        assert r.json()["version"] == now["version"] and r.json()["view"] == now["view"], pick
        ghost_answers += pick["seat"] == 2
        # The answer carries the move's events and the bot moves that followed it.
        by_seat |= {e["seat"] for e in r.json()["events"] if e["type"] == "card_played"}
    else:
        raise AssertionError("the hand did not end")
    assert by_seat == {0, 1, 2, 3}  # the bot played its own cards and its ghost's
    assert ghost_answers >= 5


async def test_a_ghosts_turn_runs_on_its_humans_clock(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json={**BODY, "clock": {"move_seconds": 60, "reserve_seconds": 30}})
    assert r.status_code == 201, r.text
    created = r.json()
    sid, tokens = created["session_id"], created["seat_tokens"]
    state = _mirror()
    while state.phase != "play" or state.to_act not in (2, 3):
        mv = _quick(state)
        who = player_to_act(state)
        assert who is not None
        r = await client.post(f"/v1/sessions/{sid}/moves", json=move_body(mv), headers=bearer(tokens[who]))
        assert r.status_code == 200, r.text
        state, _ = apply_move(state, mv)
    human = player_to_act(state)
    assert human is not None and state.to_act == human + 2
    body = (await client.get(f"/v1/sessions/{sid}", headers=bearer(tokens[human]))).json()
    assert body["view"]["to_act"] == human + 2 and body["clock"]["seat"] == human
    assert len(body["clock"]["reserves"]) == 2  # one reserve per player; a ghost draws on its human's
    r = await client.post(f"/v1/sessions/{sid}/moves", json=move_body(legal_moves(state)[0]),
                          headers=bearer(tokens[human]))
    assert r.status_code == 200, r.text
