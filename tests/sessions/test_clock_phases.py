"""Richer turn clocks (service/sessions/clock.py): a move's time limit by phase, and an increment added to a seat's
reserve for each move it makes in time, up to a cap; in the arithmetic, the contract's checks and every view."""

from __future__ import annotations

import datetime
from typing import Any

import httpx
import msgspec
import pytest

from engine import GameState, apply_move, legal_moves, new_game, resolve_options
from service.sessions.clock import (
    ClockOptions,
    ClockSettings,
    PhaseSeconds,
    after_move,
    decode_clock,
    encode_clock,
    new_clock,
)
from service.web.problems import Problem
from tests.support import assert_problem, bearer

from .play import SHORT_GAME

SETTINGS = ClockSettings(min_move_seconds=1)


def _state() -> GameState:
    state, _ = new_game(resolve_options(4, None, SHORT_GAME), seed=7, first_dealer=3)
    return state


def _to_phase(state: GameState, phase: str) -> GameState:
    """The game played on (the first legal move each time) until ``phase``."""
    while state.phase != phase:
        seat = state.to_act
        assert seat is not None
        moves = legal_moves(state, seat)
        bids = [m for m in moves if getattr(m, "bid", None) == "7H"]
        state, _ = apply_move(state, bids[0] if bids else moves[-1] if state.phase == "auction" else moves[0])
    return state


def test_each_phase_has_its_own_limit_and_move_seconds_the_others() -> None:
    state = _state()
    options = ClockOptions(move_seconds=30, phase_seconds=PhaseSeconds(auction=5, play=10))
    clock = new_clock(options, state, SETTINGS, 0)
    assert clock is not None and state.phase == "auction"
    assert clock.deadline == 5_000 and clock.turn_ms == 5_000
    exchange = _to_phase(state, "exchange")
    assert clock.limit("exchange") == 30_000 and clock.limit("nominate") == 30_000
    at_exchange = after_move(clock, exchange, 2, 4_000)
    assert at_exchange is not None and at_exchange.deadline == 34_000 and at_exchange.turn_ms == 0
    play = _to_phase(exchange, "play")
    in_play = after_move(at_exchange, play, 3, 40_000)
    assert in_play is not None and in_play.deadline == 50_000
    # the overrun is measured against the turn's own limit: 6 s into a 5 s auction turn is 1 s over
    reserved = new_clock(msgspec.structs.replace(options, reserve_seconds=20), state, SETTINGS, 0)
    assert reserved is not None
    seat = reserved.seat
    assert seat is not None
    moved = after_move(reserved, apply_move(state, legal_moves(state, seat)[-1])[0], 2, 6_000)
    assert moved is not None and moved.reserves[seat] == 19_000


def test_a_move_in_time_earns_the_increment_up_to_the_cap() -> None:
    state = _state()
    clock = new_clock(ClockOptions(move_seconds=10, reserve_seconds=20, increment_seconds=3,
                                   reserve_max_seconds=25), state, SETTINGS, 0)
    assert clock is not None and clock.seat is not None
    seat = clock.seat
    after = apply_move(state, legal_moves(state, seat)[-1])[0]
    quick = after_move(clock, after, 2, 1_000)
    assert quick is not None and quick.reserves[seat] == 23_000
    slow = after_move(clock, after, 2, 14_000)  # 4 s over the move time, then the increment: 20 - 4 + 3
    assert slow is not None and slow.reserves[seat] == 19_000
    capped = after_move(msgspec.structs.replace(clock, reserves=(24_000,) * 4), after, 2, 1_000)
    assert capped is not None and capped.reserves[seat] == 25_000
    late = after_move(clock, after, 2, 31_000)  # after the deadline (10 + 20 s): no increment
    assert late is not None and late.reserves[seat] == 0
    timed_out = after_move(clock, after, 2, 31_000, timed_out=True)
    assert timed_out is not None and timed_out.reserves[seat] == 0
    # without a cap the reserve never grows above where it started
    plain = new_clock(ClockOptions(move_seconds=10, reserve_seconds=20, increment_seconds=3), state, SETTINGS, 0)
    assert plain is not None
    assert (after_move(plain, after, 2, 1_000) or plain).reserves[seat] == 20_000


def test_a_clock_stored_before_phases_and_increments_decodes_with_none() -> None:
    state = _state()
    clock = new_clock(ClockOptions(move_seconds=10, reserve_seconds=5), state, SETTINGS, 0)
    assert clock is not None
    old = msgspec.msgpack.encode(list(msgspec.to_builtins(clock))[:8])  # the eight fields stored before
    decoded = decode_clock(old)
    assert decoded is not None and decoded.phase_ms == (0, 0, 0) and decoded.increment_ms == 0
    assert decoded.limit("play") == 10_000 and decode_clock(encode_clock(clock)) == clock


@pytest.mark.parametrize(("clock", "case"), [
    ({"move_seconds": 5, "phase_seconds": {"play": 0.5}}, "phase_seconds"),
    ({"move_seconds": 5, "reserve_seconds": 10, "reserve_max_seconds": 5}, "reserve_max_seconds"),
])
def test_the_new_limits_are_checked(clock: dict[str, Any], case: str) -> None:
    with pytest.raises(Problem) as refused:
        new_clock(msgspec.convert(clock, ClockOptions), _state(), SETTINGS, 0)
    assert refused.value.code == "INVALID_CLOCK" and refused.value.message is not None
    assert refused.value.message[0] == f"problem.INVALID_CLOCK.detail.{case}"


async def test_every_view_shows_the_phase_limits_and_the_increment(client: httpx.AsyncClient) -> None:
    clock = {"move_seconds": 60, "reserve_seconds": 30, "phase_seconds": {"auction": 20},
             "increment_seconds": 2, "reserve_max_seconds": 40}
    r = await client.post("/v1/sessions", json={"players": 4, "seed": 7, "known_deal": True, "first_dealer": 3,
                                                "clock": clock})
    assert r.status_code == 201, r.text
    created = r.json()
    shown = created["clock"]
    assert shown["phase_seconds"] == {"auction": 20} and shown["turn_seconds"] == 20
    assert shown["increment_seconds"] == 2 and shown["reserve_max_seconds"] == 40
    deadline = datetime.datetime.fromisoformat(shown["deadline"].replace("Z", "+00:00"))
    left = (deadline - datetime.datetime.now(datetime.UTC)).total_seconds()
    assert 40 < left <= 50  # the auction's 20 s and the 30 s reserve
    url = f"/v1/sessions/{created['session_id']}"
    seat0 = bearer(created["seat_tokens"][0])
    moved = await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=seat0)
    assert moved.status_code == 200, moved.text
    assert moved.json()["clock"]["reserves"][0] == 32  # a move in time: the increment, under the cap
    assert (await client.get(url, headers=seat0)).json()["clock"]["reserves"][0] == 32
    plain = await client.post("/v1/sessions", json={"players": 4, "seed": 7, "known_deal": True,
                                                    "first_dealer": 3, "clock": {"move_seconds": 60}})
    assert set(plain.json()["clock"]) == {"move_seconds", "reserve_seconds", "bot", "seat", "deadline", "reserves",
                                         "away_after"}
    refused = await client.post("/v1/sessions", json={"players": 4, "clock": {"move_seconds": 5,
                                                                            "phase_seconds": {"play": 0.1}}})
    assert_problem(refused, 400, "INVALID_CLOCK")
