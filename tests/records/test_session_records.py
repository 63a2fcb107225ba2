"""Session records over HTTP on both stores: the host's whole game, each seat's redacted record, and the
hidden-card swap property (a seat's record does not change when cards it cannot see are swapped)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine import (
    Discard,
    GameState,
    Move,
    Options,
    Pass,
    Play,
    apply_move,
    controller,
    legal_moves,
    new_game,
    pack_for,
    resolve_options,
)
from engine.deal import deal
from engine.replay import verify_record
from engine.seat_records import SEAT_CHECKS, RedactedDiscard, SeatRecord
from service.app import create_app
from service.config import Settings
from service.referee.snapshots import Sealer
from service.sessions.records import SessionRecordResponse
from tests.support import KEY, bearer

Client = TestClient[Litestar]
DECODER = msgspec.json.Decoder(SessionRecordResponse)


@pytest.fixture(scope="module", params=["memory", "redis"])
def client(request: pytest.FixtureRequest) -> Iterator[Client]:
    url = None
    if request.param == "redis":
        url = request.getfixturevalue("redis_server").url
    settings = Settings(snapshot_keys=(KEY,), log_level="WARNING", redis_url=url)
    with TestClient(create_app(settings, session_key_prefix=f"records-{random.randrange(10**9)}:")) as c:
        yield c


def _create(client: Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/sessions", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _record(client: Client, session: dict[str, Any], token: str) -> SessionRecordResponse:
    response = client.get(f"/v1/sessions/{session['session_id']}/record", headers=bearer(token))
    assert response.status_code == 200, response.text
    return DECODER.decode(response.content)


def _move(client: Client, session: dict[str, Any], move: Move) -> None:
    response = client.post(f"/v1/sessions/{session['session_id']}/moves", json={"move": msgspec.to_builtins(move)},
                           headers=bearer(session["seat_tokens"][move.seat]))
    assert response.status_code == 200, response.text


def _state(client: Client, session: dict[str, Any]) -> GameState:
    response = client.get(f"/v1/sessions/{session['session_id']}/snapshot", headers=bearer(session["host_token"]))
    return Sealer([KEY]).open(response.json()["snapshot"])


def _play(client: Client, session: dict[str, Any], state: GameState, rng: random.Random,
          count: int) -> tuple[GameState, list[Move]]:
    moves: list[Move] = []
    for _ in range(count):
        if state.to_act is None:
            break
        move = rng.choice(legal_moves(state))
        _move(client, session, move)
        state, _ = apply_move(state, move)
        moves.append(move)
    return state, moves


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_host_record_is_the_whole_game_and_verifies(client: Client, players: int) -> None:
    rng = random.Random(players)
    opts = resolve_options(players, None, {"target": 200, "lose_at": -200})
    session = _create(client, {"players": players, "options": {"target": 200, "lose_at": -200}, "seed": players,
                                                               "known_deal": True,
                               "first_dealer": 0})
    state, _ = new_game(opts, seed=players, first_dealer=0)
    seen = [_record(client, session, session["host_token"]).record]
    state, moves = _play(client, session, state, rng, 60)
    seen.append(_record(client, session, session["host_token"]).record)
    more_state, more = _play(client, session, state, rng, 5000)
    moves += more
    assert more_state.phase == "game_over"
    final = _record(client, session, session["host_token"])
    assert final.seat is None and final.record is not None
    for record in (*seen, final.record):
        assert record is not None
        assert record.seed is None  # never the seed: it would deal the hands to come
        verified = verify_record(record, replay_seed=123)
        assert verified.record == record
    assert final.record.moves == tuple(moves)
    # Replayed with the session's own seed for the deals after the decks, it is exactly the session's state
    # (but for the bookkeeping of deck orders: the replay dealt every hand from one, the session from its seed).
    replayed = verify_record(final.record, replay_seed=players).state
    assert replayed.dealt_decks == final.record.deck_orders[:len(replayed.dealt_decks)]
    assert _without_decks(replayed) == _without_decks(_state(client, session))
    assert final.record.status == "game_over" and final.record.result is not None
    # The game is over; the record stays readable (until the session expires).
    assert _record(client, session, session["host_token"]).record == final.record


def _without_decks(state: GameState) -> GameState:
    return msgspec.structs.replace(state, deck_orders=(), dealt_decks=())


@pytest.mark.parametrize("players", [2, 4, 5])
def test_a_session_dealt_from_explicit_deck_orders_has_its_host_record(client: Client, players: int) -> None:
    """The host record of a session created with deck orders lists them (the dead hand and a thrown-in hand's
    kitty included, which its log never shows), then the seed's decks for the hands after them."""
    rng = random.Random(100 + players)
    opts = resolve_options(players, None, {})
    pack = list(pack_for(opts))
    decks = [rng.sample(pack, len(pack)) for _ in range(2)]
    session = _create(client, {"players": players, "seed": 9, "known_deal": True,
                               "deck_orders": decks, "first_dealer": 0})
    state, _ = new_game(opts, seed=9, deck_orders=decks, first_dealer=0)
    moves: list[Move] = []
    while state.to_act is not None and state.hand_number < 3:
        legal = legal_moves(state)
        passes = [m for m in legal if isinstance(m, Pass)]  # mostly all pass: thrown-in hands and redeals
        move = passes[0] if passes and rng.random() < 0.9 else rng.choice(legal)
        _move(client, session, move)
        state, _ = apply_move(state, move)
        moves.append(move)
    record = _record(client, session, session["host_token"]).record
    assert record is not None and record.seed is None and record.moves == tuple(moves)
    assert [list(d) for d in record.deck_orders[:2]] == decks
    assert len(record.deck_orders) == state.hand_number + 1
    for hand, deck in zip(record.hands, record.deck_orders, strict=True):
        hands, dead, kitty = deal(opts, list(deck), hand.dealer)
        assert [sorted(h) for h in hand.dealt] == [sorted(h) for h in hands]
        assert sorted(hand.kitty) == sorted(kitty) and sorted(hand.dead_hand) == sorted(dead)
    assert verify_record(record, replay_seed=9).record == record
    assert _without_decks(verify_record(record, replay_seed=9).state) == _without_decks(_state(client, session))


def _cards_in(record: SeatRecord) -> set[str]:
    found: set[str] = set()
    for hand in record.hands:
        found |= set(hand.dealt or ()) | set(hand.kitty or ()) | set(hand.exposed or ())
        found |= {c for t in hand.tricks for c in t.cards}
    for m in record.moves:  # plays and the seat's own discards (a called card or a nomination holds nothing)
        if isinstance(m, Play):
            found.add(m.card)
        elif isinstance(m, Discard):
            found |= set(m.cards)
    return found


def test_a_seat_record_holds_only_what_the_seat_may_see(client: Client) -> None:
    rng = random.Random(9)
    for players in (2, 4, 5):
        session = _create(client, {"players": players, "seed": 40 + players, "known_deal": True, "first_dealer": 1,
                                   "options": {"show_kitty": players == 5}})
        opts = resolve_options(players, None, {"show_kitty": players == 5})
        state, _ = new_game(opts, seed=40 + players, first_dealer=1)
        start = state
        state, moves = _play(client, session, state, rng, 35)
        host = _record(client, session, session["host_token"]).record
        assert host is not None
        for seat in range(players):
            body = _record(client, session, session["seat_tokens"][seat])
            mine = body.seat_record
            assert body.seat == seat and mine is not None and body.record is None
            assert len(mine.moves) == len(host.moves) and len(mine.hands) == len(host.hands)
            assert mine.hands[0].dealt == start.hands[seat]
            # Every card it shows, this seat saw: its own hands, cards played, kitties it took or was shown.
            allowed: set[str] = set()
            for i, h in enumerate(host.hands):
                allowed |= set(h.dealt[seat]) | {c for t in h.tricks for c in t.cards}
                if mine.hands[i].kitty is not None:
                    assert mine.hands[i].kitty == h.kitty
                    allowed |= set(h.kitty)
            assert _cards_in(mine) <= allowed
            for theirs, shown in zip(host.moves, mine.moves, strict=True):
                if isinstance(theirs, Discard) and theirs.seat != seat:
                    assert shown == RedactedDiscard(seat=theirs.seat)
                else:
                    assert shown == theirs


def _swap_hidden(opts: Options, deck: list[str], dealer: int, seat: int, moves: list[Move],
                 rng: random.Random, exposed: int | None) -> list[str] | None:
    """The deck with two cards of one plain suit swapped between two other seats, neither card touched by any
    of ``moves`` (played, discarded or called): a deal that looks the same to ``seat``. ``None`` if none fits."""
    hands, _, _ = deal(opts, deck, dealer)
    touched = {c for m in moves for c in (getattr(m, "cards", None) or ()) if isinstance(c, str)}
    touched |= {getattr(m, "card", None) for m in moves}  # type: ignore[arg-type]
    others = [s for s in range(opts.players) if s not in (seat, exposed)]
    for _ in range(50):
        if len(others) < 2:
            return None
        x, y = rng.sample(others, 2)
        plain = [(a, b) for a in hands[x] for b in hands[y] if a[-1] == b[-1] and a[-1] in "SCDH"
                 and not a.startswith("J") and not b.startswith("J") and a not in touched and b not in touched]
        if plain:
            a, b = rng.choice(plain)
            swapped = list(deck)
            i, j = swapped.index(a), swapped.index(b)
            swapped[i], swapped[j] = b, a
            return swapped
    return None


def test_hidden_card_swap_leaves_a_seat_record_unchanged(client: Client) -> None:
    """Swap two cards between two other seats' hands (cards the seat never sees): the seat's record is the same
    byte for byte."""
    rng = random.Random(21)
    checked = 0
    for trial in range(12):
        players = (3, 4, 5, 6)[trial % 4]
        opts = resolve_options(players, None, {})
        deck = rng.sample(list(pack_for(opts)), len(pack_for(opts)))
        state, _ = new_game(opts, seed=1, deck_orders=[deck], first_dealer=0)
        moves: list[Move] = []
        for _ in range(rng.randrange(5, 45)):
            if state.to_act is None or state.hand_number > 0:
                break
            move = rng.choice(legal_moves(state))
            moves.append(move)
            state, _ = apply_move(state, move)
        seat = rng.randrange(players)
        c = state.contract
        exposed = c.contractor if c is not None and c.bid == "OPEN_MISERE" else None  # its hand is shown
        other = _swap_hidden(opts, deck, 0, seat, moves, rng, exposed)
        if other is None:
            continue
        try:  # the same moves must be legal on the swapped deal (they are, for a same-suit plain swap)
            swapped_state, _ = new_game(opts, seed=1, deck_orders=[other], first_dealer=0)
            for m in moves:
                swapped_state, _ = apply_move(swapped_state, m)
        except ValueError:
            continue
        records = []
        for d in (deck, other):
            session = _create(client, {"players": players, "seed": 1, "known_deal": True,
                                       "deck_orders": [d], "first_dealer": 0})
            for m in moves:
                _move(client, session, m)
            response = client.get(f"/v1/sessions/{session['session_id']}/record",
                                  headers=bearer(session["seat_tokens"][seat]))
            assert response.status_code == 200
            records.append(msgspec.json.decode(response.content)["seat_record"])
        assert records[0] == records[1]
        checked += 1
    assert checked >= 6


def test_records_need_a_token_and_a_session_of_the_beginning(client: Client) -> None:
    session = _create(client, {"players": 4, "seed": 5, "known_deal": True})
    path = f"/v1/sessions/{session['session_id']}/record"
    assert client.get(path).status_code == 401
    assert client.get(path, headers=bearer("nope")).status_code == 401
    assert client.get("/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/record", headers=bearer("x")).status_code == 404
    snapshot = client.get(f"/v1/sessions/{session['session_id']}/snapshot",
                          headers=bearer(session["host_token"])).json()["snapshot"]
    restored = _create(client, {"snapshot": snapshot, "known_deal": True})  # a game of the test's seed
    response = client.get(f"/v1/sessions/{restored['session_id']}/record", headers=bearer(restored["host_token"]))
    assert response.status_code == 409 and response.json()["code"] == "RECORD_UNAVAILABLE"


def _verify_seat(client: Client, seat_record: Any, **extra: Any) -> Any:
    return client.post("/v1/records/verify", json={"seat_record": seat_record, **extra})


@pytest.mark.parametrize("players", [2, 4, 5])
def test_a_seat_verifies_its_own_record(client: Client, players: int) -> None:
    """A seat's own record (as its token reads it) verifies: what was checked, and exactly the record sent back,
    nothing more (no snapshot, no other seat's card)."""
    rng = random.Random(70 + players)
    opts = resolve_options(players, None, {})
    session = _create(client, {"players": players, "seed": 70 + players, "known_deal": True, "first_dealer": 0})
    state, _ = new_game(opts, seed=70 + players, first_dealer=0)
    state, _ = _play(client, session, state, rng, 90)  # a hand or more played out, the next one under way
    for seat in range(players):
        response = client.get(f"/v1/sessions/{session['session_id']}/record",
                              headers=bearer(session["seat_tokens"][seat]))
        mine = response.json()["seat_record"]
        answer = _verify_seat(client, mine)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert set(body) == {"type", "valid", "seat", "checked", "seat_record"}
        assert body["type"] == "seat_record" and body["valid"] is True and body["seat"] == seat
        assert body["seat_record"] == mine
        assert tuple(body["checked"]) == SEAT_CHECKS


def test_a_seat_verifies_its_own_record_of_the_ghost_partners_game(client: Client) -> None:
    """Each human's record of a ghost-partners game (its ghost's and the other ghost's plays in it) verifies as
    far as that seat's knowledge goes; a ghost playing a card its human's opponent saw in its own hand is
    refused."""
    rng = random.Random(88)
    options = {"two_player_method": "ghost_partners", "target": 200, "lose_at": -200}
    opts = resolve_options(2, None, options)  # type: ignore[arg-type]
    session = _create(client, {"players": 2, "seed": 88, "known_deal": True, "first_dealer": 0, "options": options})
    state, _ = new_game(opts, seed=88, first_dealer=0)
    for _ in range(110):  # two hands and more, the third under way
        if state.to_act is None:
            break
        move = rng.choice(legal_moves(state))
        response = client.post(f"/v1/sessions/{session['session_id']}/moves", json={"move": msgspec.to_builtins(move)},
                               headers=bearer(session["seat_tokens"][controller(opts, move.seat)]))
        assert response.status_code == 200, response.text
        state, _ = apply_move(state, move)
    for seat in (0, 1):
        mine = client.get(f"/v1/sessions/{session['session_id']}/record",
                          headers=bearer(session["seat_tokens"][seat])).json()["seat_record"]
        assert any(m["type"] == "play" and m["seat"] in (2, 3) for m in mine["moves"])
        answer = _verify_seat(client, mine)
        assert answer.status_code == 200, answer.text
        assert answer.json()["valid"] is True and answer.json()["seat_record"] == mine
        assert tuple(answer.json()["checked"]) == SEAT_CHECKS
    played = {m["card"] for m in mine["moves"] if m["type"] == "play"}
    own = next(c for c in mine["hands"][0]["dealt"] if c not in played)
    at = next(i for i, m in enumerate(mine["moves"]) if m["type"] == "play" and m["seat"] in (2, 3))
    changed = msgspec.json.decode(msgspec.json.encode(mine))
    changed["moves"][at]["card"] = own
    refused = _verify_seat(client, changed)
    assert refused.status_code == 422 and refused.json()["code"] in ("RECORD_MISMATCH", "ILLEGAL_MOVE"), refused.text
    assert "snapshot" not in refused.json()


def test_a_tampered_seat_record_is_refused_without_a_state(client: Client) -> None:
    rng = random.Random(5)
    opts = resolve_options(4, None, {})
    session = _create(client, {"players": 4, "seed": 5, "known_deal": True, "first_dealer": 0})
    state, _ = new_game(opts, seed=5, first_dealer=0)
    _play(client, session, state, rng, 70)
    seat = 1
    problems: list[Any] = []
    mine = client.get(f"/v1/sessions/{session['session_id']}/record",
                      headers=bearer(session["seat_tokens"][seat])).json()["seat_record"]
    scored = next(i for i, h in enumerate(mine["hands"]) if h["score"] is not None)
    changed = msgspec.json.decode(msgspec.json.encode(mine))
    changed["hands"][scored]["score"]["deltas"][0] += 10
    refused = _verify_seat(client, changed)
    problems.append(refused.json())
    assert refused.status_code == 422 and refused.json()["code"] == "RECORD_MISMATCH"
    assert refused.json()["field"] == f"hands[{scored}].score.deltas[0]"
    # Another seat plays a card this seat holds: no deal of the pack fits it.
    own = set(mine["hands"][0]["dealt"])
    at = next(i for i, m in enumerate(mine["moves"]) if m["type"] == "play" and m["seat"] != seat)
    changed = msgspec.json.decode(msgspec.json.encode(mine))
    changed["moves"][at]["card"] = sorted(own - {m.get("card") for m in mine["moves"]})[0]
    refused = _verify_seat(client, changed)
    problems.append(refused.json())
    assert refused.status_code == 422 and refused.json()["code"] == "RECORD_MISMATCH", refused.text
    # The seat plays out of turn: an illegal move at its index, with no snapshot and no legal moves.
    changed = msgspec.json.decode(msgspec.json.encode(mine))
    changed["moves"][0]["seat"] = (changed["moves"][0]["seat"] + 1) % 4
    refused = _verify_seat(client, changed)
    problems.append(refused.json())
    problem = refused.json()
    assert refused.status_code == 422 and problem["code"] == "ILLEGAL_MOVE" and problem["move_index"] == 0
    assert "snapshot" not in problem and "legal_moves" not in problem
    # No refusal names a card the record does not hold (the game found to fit it is not the game played).
    shown = {c for c in re.findall(r"\b(?:10|[2-9AKQJ])[SCDH]\b|\bJK\b", json.dumps(mine))}
    for body in problems:
        assert set(re.findall(r"\b(?:10|[2-9AKQJ])[SCDH]\b|\bJK\b", json.dumps(body))) <= shown, body
    # A seat's record has no text form; one record at a time.
    assert _verify_seat(client, mine, as_text=True).status_code == 400
    host = client.get(f"/v1/sessions/{session['session_id']}/record",
                      headers=bearer(session["host_token"])).json()["record"]
    assert _verify_seat(client, mine, record=host).status_code == 400
