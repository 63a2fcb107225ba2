"""Sealed snapshots over HTTP: any alteration is refused with a clear code; keys rotate; integrity is checked."""

from __future__ import annotations

import base64
import logging
import os

import msgspec
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from litestar import Litestar
from litestar.testing import TestClient

from engine import Options, apply_move, legal_moves, new_game
from service.app import GENERATED_KEY_WARNING, create_app
from service.config import Settings
from service.referee.snapshots import Sealer, SnapshotError, _compressor, key_id
from tests.support import assert_problem, records_of

from .conftest import KEY_A, KEY_B
from .helpers import Client

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
SNAPSHOT_400 = {"SNAPSHOT_MALFORMED", "SNAPSHOT_VERSION_UNSUPPORTED", "SNAPSHOT_UNKNOWN_KEY", "SNAPSHOT_TAMPERED"}


def _b64e(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def snapshot() -> str:
    state, _ = new_game(Options(), seed=11, first_dealer=0)
    return Sealer([KEY_A]).seal(state)  # a separate sealer: nothing of it is in the app's cache


def _refused(client: Client, snapshot: str) -> str:
    response = client.post("/v1/games/view", json={"snapshot": snapshot})
    assert response.status_code == 400, (snapshot, response.text)
    code: str = response.json()["code"]
    assert code in SNAPSHOT_400, response.text
    return code


def test_the_snapshot_opens(client: Client, snapshot: str) -> None:
    assert client.post("/v1/games/view", json={"snapshot": snapshot}).status_code == 200


def test_every_changed_character_is_refused(client: Client, snapshot: str) -> None:
    """Each position replaced by another alphabet character (through HTTP, a sample of replacements)."""
    codes = set()
    for i, ch in enumerate(snapshot):
        replacement = B64[(B64.index(ch) + 1 + i) % len(B64)] if ch in B64 else "x"
        if replacement == ch:
            continue
        codes.add(_refused(client, snapshot[:i] + replacement + snapshot[i + 1:]))
    assert "SNAPSHOT_TAMPERED" in codes and "SNAPSHOT_VERSION_UNSUPPORTED" in codes


def test_every_flipped_bit_is_refused(snapshot: str) -> None:
    """Every bit of the payload, flipped one at a time (straight at the sealer: thousands of cases)."""
    sealer = Sealer([KEY_A])
    head, payload = snapshot.rsplit(".", 1)
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    for bit in range(len(raw) * 8):
        flipped = bytearray(raw)
        flipped[bit // 8] ^= 1 << (bit % 8)
        with pytest.raises(SnapshotError) as info:
            sealer.open(f"{head}.{_b64e(bytes(flipped))}")
        assert info.value.code == "SNAPSHOT_TAMPERED"


def test_spare_bits_and_stray_characters_are_refused(client: Client, snapshot: str) -> None:
    """Base64 decoders ignore the spare low bits of the last character and skip stray characters; a snapshot
    altered there must still be refused, not opened as the original."""
    last = snapshot[-1]
    for other in B64:
        if other != last:
            _refused(client, snapshot[:-1] + other)
    for stray in ("=", "==", " ", "\n", "!", "+", "/"):
        for at in (20, len(snapshot) - 1, len(snapshot)):
            assert _refused(client, snapshot[:at] + stray + snapshot[at:]) == "SNAPSHOT_MALFORMED"


def test_truncated_and_extended_snapshots_are_refused(client: Client, snapshot: str) -> None:
    for cut in (0, 1, 2, 3, 5, 11, 12, 13, 20, 40, len(snapshot) // 2, len(snapshot) - 2, len(snapshot) - 1):
        _refused(client, snapshot[:cut])
    _refused(client, snapshot + "A")
    _refused(client, snapshot + "AAAA")
    _refused(client, snapshot + ".")
    response = client.post("/v1/games/view", json={"snapshot": "A" * 64_001})
    assert_problem(response, 400, "SNAPSHOT_MALFORMED")


def test_other_versions_are_unsupported(client: Client, snapshot: str) -> None:
    rest = snapshot.split(".", 1)[1]
    for version in ("v0", "v3", "V1", "V2", "v10", ""):
        response = client.post("/v1/games/view", json={"snapshot": f"{version}.{rest}"})
        assert_problem(response, 400, "SNAPSHOT_VERSION_UNSUPPORTED")


def test_another_key_is_unknown(client: Client) -> None:
    state, _ = new_game(Options(), seed=1)
    foreign = Sealer([KEY_B]).seal(state)
    assert_problem(client.post("/v1/games/view", json={"snapshot": foreign}), 400, "SNAPSHOT_UNKNOWN_KEY")
    # The right key id on a payload sealed under another key: authentication fails.
    kid_a = key_id(KEY_A)
    forged = "v1." + kid_a + "." + foreign.split(".")[2]
    assert_problem(client.post("/v1/games/view", json={"snapshot": forged}), 400, "SNAPSHOT_TAMPERED")


def test_a_sealed_inconsistent_state_is_corrupt(client: Client) -> None:
    state, _ = new_game(Options(), seed=2)
    hands = list(state.hands)
    hands[1] = (hands[0][0], *hands[1][1:])  # seat 0's first card twice; seat 1's first card gone
    broken = msgspec.structs.replace(state, hands=tuple(hands))
    snapshot = Sealer([KEY_A]).seal(broken)
    problem = assert_problem(client.post("/v1/games/legal-moves", json={"snapshot": snapshot}), 422,
                             "SNAPSHOT_CORRUPT")
    assert "twice" in problem["detail"] and hands[1][0] in problem["detail"]
    wrong_turn = msgspec.structs.replace(state, to_act=None)
    response = client.post("/v1/games/apply", json={"snapshot": Sealer([KEY_A]).seal(wrong_turn),
                                                    "move": {"type": "pass", "seat": 0}})
    assert_problem(response, 422, "SNAPSHOT_CORRUPT")


def test_the_apps_own_sealer_still_checks_what_it_did_not_remember(client: Client, app: Litestar) -> None:
    own: Sealer = app.state.sealer
    state, _ = new_game(Options(), seed=2)
    broken = msgspec.structs.replace(state, kitty=state.kitty[:-1])
    assert_problem(client.post("/v1/games/view", json={"snapshot": own.seal(broken)}), 422, "SNAPSHOT_CORRUPT")


def test_remembered_snapshots_open_from_the_cache(client: Client, app: Litestar) -> None:
    own: Sealer = app.state.sealer
    created = client.post("/v1/games", json={"seed": 5}).json()["snapshot"]
    state = own.open(created)
    assert own.open(created) is state  # the remembered state itself: no decryption, no re-check
    assert Sealer([KEY_A]).open(created) == state  # and the string holds exactly that state
    fresh = Sealer([KEY_A]).seal(state)
    assert own.open(fresh) is not state and own.open(fresh) == state


def test_authentic_but_undecodable_payload_is_corrupt(client: Client) -> None:
    kid = key_id(KEY_A)
    aad = f"v1.{kid}".encode()
    squeeze = _compressor().compress
    for plain in (b"not zstd", squeeze(b"\x93not a state"), squeeze(msgspec.msgpack.encode({"a": 1}))):
        nonce = os.urandom(12)
        payload = nonce + AESGCM(KEY_A).encrypt(nonce, plain, aad)
        snapshot = f"v1.{kid}.{_b64e(payload)}"
        assert_problem(client.post("/v1/games/view", json={"snapshot": snapshot}), 422, "SNAPSHOT_CORRUPT")


@pytest.mark.parametrize("junk", ["", ".", "..", "...", "a.b.c", "v1..", "v1.x.y", "v1.00000000.AAAA",
                                  f"v1.{key_id(KEY_A)}.!!!!", f"v1.{key_id(KEY_A)}.====", "é.é.é", "\x00"])
def test_junk_is_malformed_not_an_error(client: Client, junk: str) -> None:
    _refused(client, junk)


def test_key_rotation() -> None:
    state, _ = new_game(Options(), seed=21)
    old = Sealer([KEY_A]).seal(state)
    rotated = create_app(Settings(snapshot_keys=(KEY_B, KEY_A)))
    with TestClient(rotated) as client:
        response = client.post("/v1/games/legal-moves", json={"snapshot": old})
        assert response.status_code == 200, response.text
        move = msgspec.to_builtins(legal_moves(state)[0])
        applied = client.post("/v1/games/apply", json={"snapshot": old, "move": move}).json()
        assert applied["snapshot"].split(".")[1] == key_id(KEY_B)
        assert Sealer([KEY_B]).open(applied["snapshot"]) == apply_move(state, legal_moves(state)[0])[0]
        created = client.post("/v1/games", json={"seed": 1}).json()["snapshot"]
        assert created.startswith(f"v2.{key_id(KEY_B)}.")
    # After A is retired, A's snapshots are refused; B's still open.
    retired = create_app(Settings(snapshot_keys=(KEY_B,)))
    with TestClient(retired) as client:
        assert_problem(client.post("/v1/games/view", json={"snapshot": old}), 400, "SNAPSHOT_UNKNOWN_KEY")
        assert client.post("/v1/games/view", json={"snapshot": created}).status_code == 200


def test_without_keys_a_key_is_generated_with_a_warning() -> None:
    with records_of("fivehundred.snapshots") as records:
        first = create_app(Settings())
    assert [(r.levelno, r.getMessage()) for r in records] == [(logging.WARNING, GENERATED_KEY_WARNING)]
    assert "restart" in GENERATED_KEY_WARNING and "replicas" in GENERATED_KEY_WARNING
    second = create_app(Settings())
    with TestClient(first) as one, TestClient(second) as two:
        snapshot = one.post("/v1/games", json={"seed": 3}).json()["snapshot"]
        assert one.post("/v1/games/view", json={"snapshot": snapshot}).status_code == 200
        assert_problem(two.post("/v1/games/view", json={"snapshot": snapshot}), 400, "SNAPSHOT_UNKNOWN_KEY")
    with records_of("fivehundred.snapshots") as records:
        create_app(Settings(snapshot_keys=(KEY_A,)))
    assert not records


def test_snapshot_reveals_nothing_readable(snapshot: str) -> None:
    raw = base64.urlsafe_b64decode(snapshot.split(".")[2] + "==")
    for plain_marker in (b"rules_version", b"hands", b"kitty", b"seed", Options().deal_pattern.encode()):
        assert plain_marker not in raw
