"""The fast routes (service/web/fastpath.py) of apply and session moves answer exactly as the regular handlers do."""

from __future__ import annotations

import random
from collections.abc import Iterator

import msgspec
import pytest
from litestar.testing import TestClient

from engine import GameState, Options, legal_moves, new_game
from service.app import create_app
from service.config import Settings
from service.referee.snapshots import Sealer
from tests.support import KEY


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(create_app(Settings(snapshot_keys=(KEY,)))) as c:
        yield c


def _chunked(body: bytes) -> Iterator[bytes]:
    """A body without Content-Length (chunked): the hot path hands it to the regular handler."""
    yield body


def _positions(count: int) -> list[GameState]:
    rng = random.Random(7)
    out = []
    for g in range(count):
        state, _ = new_game(Options(players=rng.choice([3, 4, 5])), seed=g)  # type: ignore[arg-type]
        for _ in range(rng.randrange(60)):
            if state.to_act is None:
                break
            moves = legal_moves(state)
            from engine import apply_move

            state, _ = apply_move(state, moves[rng.randrange(len(moves))])
        if state.to_act is not None:
            out.append(state)
    return out


def _comparable(response_json: dict) -> dict:  # type: ignore[type-arg]
    """The response with the snapshot replaced by the state it seals (nonces differ between two seals)."""
    out = dict(response_json)
    if "snapshot" in out:
        out["snapshot"] = msgspec.to_builtins(Sealer([KEY]).open(out["snapshot"]))
    return out


def test_hot_path_and_handler_give_the_same_answers(client: TestClient) -> None:  # type: ignore[type-arg]
    sealer = Sealer([KEY])
    rng = random.Random(3)
    compared = 0
    for state in _positions(25):
        snapshot = sealer.seal(state)
        moves = legal_moves(state)
        candidates = [msgspec.to_builtins(rng.choice(moves)),
                      {"type": "play", "seat": state.to_act, "card": "ZZ"},
                      {"type": "pass", "seat": (state.to_act + 1) % state.options.players}]
        for move in candidates:
            for views in (None, [None, 0], [9], ["public"], ["0"], [5]):
                body = {"snapshot": snapshot, "move": move}
                if views is not None:
                    body["views"] = views
                raw = msgspec.json.encode(body)
                fast = client.post("/v1/games/apply", content=raw, headers={"content-type": "application/json"})
                slow = client.post("/v1/games/apply", content=_chunked(raw),
                                   headers={"content-type": "application/json"})
                assert "content-length" in fast.request.headers
                assert "content-length" not in slow.request.headers
                assert fast.status_code == slow.status_code, (move, views)
                assert fast.headers["content-type"] == slow.headers["content-type"]
                assert _comparable(fast.json()) == _comparable(slow.json())
                compared += 1
    assert compared >= 150


def test_bodies_over_the_limit_and_malformed_bodies_still_get_their_problems(client: TestClient) -> None:  # type: ignore[type-arg]
    too_big = b'{"snapshot": "' + b"A" * 70_000 + b'"}'
    r = client.post("/v1/games/apply", content=too_big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "BODY_TOO_LARGE"
    r = client.post("/v1/games/apply", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.headers["content-type"] == "application/problem+json"


def test_session_moves_answer_the_same_through_the_hot_path_and_the_handler(client: TestClient) -> None:  # type: ignore[type-arg]
    """Two sessions dealt alike; the same requests to each, one with Content-Length (hot path), one chunked."""
    from engine import apply_move

    created = [client.post("/v1/sessions", json={"players": 4, "seed": 99, "known_deal": True,
                                                 "first_dealer": 3}).json()
               for _ in range(2)]
    state, _ = new_game(Options(), seed=99, first_dealer=3)
    rng = random.Random(5)
    compared = 0

    def send(i: int, body: dict, token: str | None, headers: dict[str, str]) -> tuple[int, dict, dict]:  # type: ignore[type-arg]
        raw = msgspec.json.encode(body)
        hdrs = {"content-type": "application/json", **headers}
        if token is not None:
            hdrs["authorization"] = f"Bearer {token}"
        path = f"/v1/sessions/{created[i]['session_id']}/moves"
        r = client.post(path, content=raw if i == 0 else _chunked(raw), headers=hdrs)
        out = r.json()
        if isinstance(out, dict) and "instance" in out:
            out["instance"] = "…"
        keep = {k: r.headers.get(k) for k in ("etag", "idempotent-replayed", "cache-control", "content-type",
                                              "retry-after", "www-authenticate")}
        return r.status_code, out, keep

    version = created[0]["version"]
    for step in range(40):
        seat = state.to_act
        assert seat is not None
        move = rng.choice(legal_moves(state))
        other = (seat + 1) % 4
        cases = [
            ({"move": {"type": "pass", "seat": other}}, created[0]["seat_tokens"][other], {}),  # 422 or legal
            ({"move": msgspec.to_builtins(move)}, "not-a-token", {}),  # 401
            ({"move": msgspec.to_builtins(move)}, created[0]["seat_tokens"][other], {}),  # 403
            ({"move": msgspec.to_builtins(move)}, created[0]["seat_tokens"][seat], {"if-match": f'"{version + 7}"'}),
        ]
        for body, token, headers in cases:
            if token != "not-a-token" and token in created[0]["seat_tokens"]:
                tokens = (token, created[1]["seat_tokens"][created[0]["seat_tokens"].index(token)])
            else:
                tokens = (token, token)
            a = send(0, body, tokens[0], headers)
            b = send(1, body, tokens[1], headers)
            assert a == b, (step, body, a, b)
            assert a[0] in (401, 403, 409, 422) or body["move"]["type"] == "pass"
            compared += 1
            if a[0] == 200:  # a legal pass by the next seat was applied to both sessions
                return
        key = {"idempotency-key": f"k{step}", "if-match": f'"{version}"'}
        legal = {"move": msgspec.to_builtins(move)}
        first = [send(i, legal, created[i]["seat_tokens"][seat], key) for i in (0, 1)]
        again = [send(i, legal, created[i]["seat_tokens"][seat], key) for i in (0, 1)]
        assert first[0] == first[1] and first[0][0] == 200
        assert again[0] == again[1] and again[0][2]["idempotent-replayed"] == "true"
        state, _ = apply_move(state, move)
        version += 1
        compared += 2
    assert compared >= 100
