"""The example game of the OpenAPI document, computed from a real seeded game so that every example, of the
stateless API (:mod:`service.games.examples`) and of the sessions (:mod:`service.sessions.examples`), matches the
engine.

The game is deterministic (seed 42, dealer 3; seat 0 bids 7H, the others pass, the contractor discards, five
cards are played), so the committed document is reproducible. Snapshots in examples have the real format
(``v2.<key id>.<payload>``) but a placeholder payload under a key id no service holds: sending one back is
answered ``SNAPSHOT_UNKNOWN_KEY``.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import msgspec

from engine import Bid, GameState, Move, Options, Pass, Play, apply_move, check_move, legal_moves, new_game

_DOC_KEY_ID = "d0c5e3a1"


def snapshot_placeholder(state: GameState) -> str:
    """A snapshot-shaped placeholder for ``state`` (deterministic, about as long as a real one)."""
    digest = hashlib.sha256(msgspec.msgpack.encode(state)).digest()
    payload = b"".join(hashlib.sha256(digest + bytes([i])).digest() for i in range(14))
    return f"v2.{_DOC_KEY_ID}." + base64.urlsafe_b64encode(payload).rstrip(b"=").decode()


def _game() -> dict[str, Any]:
    opts = Options()
    start, start_events = new_game(opts, seed=42, first_dealer=3)
    state = start
    script: list[Move] = [Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)]
    for move in script:
        state, _ = apply_move(state, move)
    applied = len(script)
    exchange = state
    while state.phase != "play":  # the contractor's exchange (and nomination, if any): the first legal choice
        state, _ = apply_move(state, legal_moves(state)[0])
        applied += 1
    for _ in range(5):
        state, _ = apply_move(state, legal_moves(state)[0])
        applied += 1
    seat = state.to_act
    assert seat is not None
    legal = legal_moves(state)
    illegal: Move = Play(seat=(seat + 1) % 4, card=state.hands[(seat + 1) % 4][0])
    for card in state.hands[seat]:
        candidate = Play(seat=seat, card=card)
        rejection = check_move(state, candidate)
        if rejection is not None and rejection.reason == "MUST_FOLLOW_SUIT":
            illegal = candidate
            break
    rejection = check_move(state, illegal)
    assert rejection is not None
    after, after_events = apply_move(state, legal[0])
    return {"opts": opts, "start": start, "exchange": exchange, "start_events": start_events, "state": state,
            "legal": legal, "illegal": illegal, "rejection": rejection, "after": after, "after_events": after_events,
            "seat": seat, "version": 1 + applied}


#: The example game (states, moves and events).
GAME: dict[str, Any] = _game()
