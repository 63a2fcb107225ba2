"""Sealed snapshots over HTTP: any alteration is refused with a clear code; keys rotate; integrity is checked."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
from collections.abc import Callable

import msgspec
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from litestar import Litestar
from litestar.testing import TestClient

from engine import GameState, Options, apply_move, integrity_problems, legal_moves, new_game, structure_problems
from engine.model import Bid, Pass
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


# ------------------------------------------------------------------ the structural check and the full replay


def _seal_v1(state: GameState, key: bytes = KEY_A) -> str:
    """``state`` in the older ``v1`` format (no length, no padding), as a replica of an older release seals it."""
    kid = key_id(key)
    nonce = os.urandom(12)
    frame = _compressor().compress(msgspec.msgpack.encode(state))
    return f"v1.{kid}.{_b64e(nonce + AESGCM(key).encrypt(nonce, frame, f'v1.{kid}'.encode()))}"


def _unreplayed_mutations() -> list[tuple[str, GameState, GameState]]:
    """(what, original, mutated) for every mutation of tests/engine/test_integrity.py that the structural check
    lets through and only the replay refuses (a state only an insider holding the key could seal)."""
    from tests.engine.test_integrity import MUTATIONS, STATES

    out = []
    for state in STATES:
        for _, what, mutate in MUTATIONS:
            try:
                bad = mutate(state)
            except (StopIteration, IndexError, TypeError):
                continue
            if bad is not None and bad != state and not structure_problems(bad):
                assert integrity_problems(bad), what
                out.append((what, state, bad))
    return out


def test_a_current_snapshot_gets_the_structural_check_an_old_or_imported_one_the_replay() -> None:
    """Snapshots of the current format, sealed under the key, are not replayed on opening (the seal proves the
    service made them); ``v1`` snapshots and ``open(replay=True)`` (a session's first state) are."""
    sealer = Sealer([KEY_A], cache_size=16)
    what, _, bad = next(m for m in _unreplayed_mutations() if m[0] == "another bid")
    current = Sealer([KEY_A]).seal(bad)
    assert sealer.open(current) == bad
    with pytest.raises(SnapshotError) as info:
        sealer.open(current, replay=True)  # the cached, unreplayed state is replayed now
    assert info.value.code == "SNAPSHOT_CORRUPT" and "not what this hand's recorded moves lead to" in str(
        info.value.detail), what
    with pytest.raises(SnapshotError) as info:
        Sealer([KEY_A]).open(_seal_v1(bad))
    assert info.value.code == "SNAPSHOT_CORRUPT"
    good, _ = new_game(Options(), seed=4)
    assert Sealer([KEY_A]).open(_seal_v1(good)) == good  # an old replica's real state still opens
    remembered = sealer.seal(good, remember=True)
    assert sealer.open(remembered, replay=True) is good  # the engine made it here: nothing to replay


def test_opened_states_share_one_option_set_and_inconsistent_ones_are_still_refused() -> None:
    """Each opened state's options are the interned option set (equal rules: the same object, so the engine's
    memos keyed by the rules match by identity); a rule set seen and checked before spares no other check."""
    other = Sealer([KEY_A])
    sealer = Sealer([KEY_A])
    first, _ = new_game(Options(target=250), seed=1)
    second, _ = new_game(Options(target=250), seed=2)
    a, b = sealer.open(other.seal(first)), sealer.open(other.seal(second))
    assert a == first and b == second
    assert a.options is b.options and a.options == Options(target=250)
    # The same (interned) rules, a state that is not a deal: refused by the structural check all the same.
    broken = msgspec.structs.replace(second, kitty=second.kitty[1:], hands=(second.hands[0] + second.kitty[:1],
                                                                            *second.hands[1:]))
    with pytest.raises(SnapshotError) as info:
        sealer.open(other.seal(broken))
    assert info.value.code == "SNAPSHOT_CORRUPT"
    # An unplayable rule set equal to none seen is still validated, whatever was checked before it.
    unplayable = msgspec.structs.replace(second, options=msgspec.structs.replace(second.options, deal_pattern="9-9"))
    with pytest.raises(SnapshotError) as info:
        sealer.open(other.seal(unplayable))
    assert info.value.code == "SNAPSHOT_CORRUPT" and "options: deal_pattern" in str(info.value.detail)


def test_a_state_only_the_replay_refuses_never_answers_500() -> None:
    """Every such state, through every stateless operation's answer (the functions the handlers call): a
    normal answer or a 4xx problem, never another error. Where the engine cannot act on it, the guard runs the
    replay and the answer is SNAPSHOT_CORRUPT; the sample holds such states, so the guard is exercised."""
    from service.games.api import answer_apply, answer_legal_moves, answer_validate, answer_view
    from service.games.schemas import ApplyRequest, LegalMovesRequest, ValidateRequest, ViewRequest
    from service.games.suggest import SuggestRequest, answer_suggest
    from service.referee.search import SearchPool
    from service.web.problems import Problem

    def suggest(data: SuggestRequest, sealer: Sealer) -> object:  # searched in a thread, as without workers
        return asyncio.run(answer_suggest(data, sealer, SearchPool(), "test"))

    sealer = Sealer([KEY_A])
    guarded = 0
    cases = _unreplayed_mutations()
    assert len(cases) > 300
    for what, original, bad in cases:
        snap = sealer.seal(bad)
        move = legal_moves(original)[0] if original.to_act is not None else Pass(seat=0)
        seat = bad.to_act if bad.to_act is not None else 0
        operations: list[tuple[Callable[..., object], tuple[object, ...]]] = [
            (answer_view, (ViewRequest(snapshot=snap, seat=None), sealer)),
            (answer_legal_moves, (LegalMovesRequest(snapshot=snap), sealer)),
            (answer_validate, (ValidateRequest(snapshot=snap, move=move), sealer, "en")),
            (answer_apply, (ApplyRequest(snapshot=snap, move=move), sealer, None)),
            (suggest, (SuggestRequest(snapshot=snap, seat=seat), sealer))]
        for operation, args in operations:
            try:
                operation(*args)
            except Problem as problem:
                assert 400 <= problem.status < 500, (what, problem)
                guarded += problem.code == "SNAPSHOT_CORRUPT"
    assert guarded > 0


def test_the_guard_turns_an_engine_failure_on_a_sealed_state_into_422(client: Client) -> None:
    """The high bidder marked as passed (well-formed, unreachable): the view answers; the engine cannot apply
    the last pass from it (an auction with nobody left to call), and the answer is the replay's finding."""
    state, _ = new_game(Options(), seed=2, first_dealer=2)
    for move in (Pass(seat=3), Bid(seat=0, bid="8H"), Pass(seat=1)):
        state, _ = apply_move(state, move)
    bad = msgspec.structs.replace(state, passed=(True, *state.passed[1:]))
    assert not structure_problems(bad) and integrity_problems(bad)
    with pytest.raises(AssertionError):
        apply_move(bad, Pass(seat=2))  # what a 500 would have been made of
    snap = Sealer([KEY_A]).seal(bad)
    assert client.post("/v1/games/view", json={"snapshot": snap}).status_code == 200
    response = client.post("/v1/games/apply", json={"snapshot": snap, "move": {"type": "pass", "seat": 2}})
    problem = assert_problem(response, 422, "SNAPSHOT_CORRUPT")
    assert "passed" in problem["detail"]


def test_a_session_restored_from_a_snapshot_is_replayed(client: Client) -> None:
    """A session keeps its state: an unreplayed insider's state must not become one."""
    _, _, bad = next(m for m in _unreplayed_mutations() if m[0] == "another bid")
    snap = Sealer([KEY_A]).seal(bad)
    assert client.post("/v1/games/view", json={"snapshot": snap}).status_code == 200
    assert_problem(client.post("/v1/sessions", json={"snapshot": snap}), 422, "SNAPSHOT_CORRUPT")
