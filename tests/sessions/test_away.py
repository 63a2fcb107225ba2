"""A seat away and back (service/sessions/clock.py, access.py), over HTTP on the in-process store and a real Redis:
after ``away_after`` of the clock's moves in a row the seat is away and the clock's bot moves for it at once (no
more full clocks), until a request of its token says it is back; from its next turn it plays again. Each once:
``seat_away`` and ``seat_back`` events, and ``away`` in the views."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import msgspec

from engine import apply_move, new_game, player_to_act, resolve_options
from service.sessions.bots import bot_chain
from service.sessions.clock import (
    AWAY,
    BACK_NEXT_TURN,
    ClockOptions,
    ClockSettings,
    after_move,
    autoplayed_seats,
    came_back,
    clock_move,
    new_clock,
    newly_away,
)
from tests.support import assert_problem, bearer

from .life_support import create, fast_client, host_view, of_type, url_of, wait_for_event, whole_log

__all__ = ["fast_client"]

MOVE_SECONDS = 0.3
#: Seat 0 never moves (its client sleeps), seat 2 is played by the test, seats 1 and 3 are bots. No misère: seat 0
#: plays every trick of every hand.
ABSENT = {"bots": {"1": "random", "3": "random"}, "first_dealer": 3,
          "options": {"target": 500, "misere_enabled": False}}


async def _play_seat_2(client: httpx.AsyncClient, created: dict[str, Any], moves: int, seat: int = 2) -> None:
    """Seat 2 (or ``seat``) makes ``moves`` moves, each as soon as it is to act (its first legal move, a pass if it
    may)."""
    url, me = url_of(created), bearer(created["seat_tokens"][seat])
    made = 0
    async with asyncio.timeout(30):
        while made < moves:
            legal = (await client.get(url + "/legal-moves", headers=me)).json()["legal_moves"]
            seen = await host_view(client, created)
            if not legal or seen["view"]["to_act"] != seat:
                await asyncio.sleep(0.02)
                continue
            move = next((m for m in legal if m["type"] == "pass"), legal[0])
            r = await client.post(url + "/moves", json={"move": move},
                                  headers={**me, "If-Match": f'"{seen["version"]}"'})
            if r.status_code == 409:
                continue
            assert r.status_code == 200, r.text
            made += 1


def _seat0_turns(log: list[dict[str, Any]]) -> list[tuple[int, bool]]:
    """Each move of seat 0 (its version: a bid, a pass, its discards, a joker named, a card), and whether the clock
    made it after its deadline (a mark before it)."""
    marks = {e["version"] for e in of_type(log, "move_timed_out")}
    out = []
    for e in log:
        seat = e["event"].get("seat")
        first = next(x for x in log if x["version"] == e["version"])
        moved = e["event"]["type"] in ("bid_made", "passed", "discarded", "joker_nominated", "card_played")
        if seat == 0 and moved and (first is e or first["event"]["type"] == "move_timed_out"):
            out.append((e["version"], e["version"] in marks))
    return out


async def test_a_seat_is_away_after_the_clocks_moves_in_a_row_and_back_with_a_request(
        fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, **ABSENT, clock={"move_seconds": MOVE_SECONDS, "bot": "random"})
    assert created["clock"]["away_after"] == 2
    url = url_of(created)
    # Seat 0 bids first and never moves: the clock moves for it twice (seat 2 plays its own turns in between).
    async with asyncio.timeout(30):
        while not of_type(await whole_log(client, created), "seat_away"):
            await _play_seat_2(client, created, 1)
    log = await whole_log(client, created)
    (away,) = of_type(log, "seat_away")
    assert away["event"] == {"type": "seat_away", "seat": 0, "to_act": away["to_act"]}
    marks = of_type(log, "move_timed_out")
    assert len(marks) == 2 and {m["event"]["seat"] for m in marks} == {0}
    assert away["version"] == marks[-1]["version"]  # logged with the clock's second move, after its events
    assert [e["event"]["type"] for e in log if e["version"] == away["version"]][-1] == "seat_away"
    seen = await host_view(client, created)
    assert seen["seats"][0] == {"seat": 0, "kind": "human", "away": True}
    # From now on seat 0's turns are the bot's at once: seat 2's move is answered with seat 0's after it.
    await _play_seat_2(client, created, 4)
    log = await whole_log(client, created)
    later = [t for t in _seat0_turns(log) if t[0] > away["version"]]
    assert later and not any(clocked for _, clocked in later), later
    assert len(of_type(log, "move_timed_out")) == 2
    # Seat 0 reads its view: it is back, once, however many requests say so at once.
    seat0 = bearer(created["seat_tokens"][0])
    answers = await asyncio.gather(*(client.get(url, headers=seat0) for _ in range(8)))
    assert all(r.status_code == 200 for r in answers)
    assert all(r.json()["seats"][0] == {"seat": 0, "kind": "human"} for r in answers)
    log = await whole_log(client, created)
    (back,) = of_type(log, "seat_back")
    assert back["event"]["seat"] == 0 and back["version"] > away["version"]
    # Its next turn is its own again: a full clock, then the clock moves for it (one in a row: not away yet).
    log = await wait_for_event(client, created, "move_timed_out", 3)
    assert of_type(log, "move_timed_out")[2]["version"] > back["version"]
    assert len(of_type(log, "seat_away")) == 1


async def test_a_move_of_the_seat_away_brings_it_back(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, **ABSENT, clock={"move_seconds": MOVE_SECONDS, "bot": "random",
                                                     "away_after": 1})
    url, seat0 = url_of(created), bearer(created["seat_tokens"][0])
    await wait_for_event(client, created, "seat_away")
    # A move meant for a turn the bot made: the seat is back, and the move is refused as a late one.
    r = await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=seat0)
    assert_problem(r, 409, "MOVE_TIMED_OUT")
    log = await whole_log(client, created)
    assert len(of_type(log, "seat_back")) == 1
    assert (await host_view(client, created))["seats"][0].get("away") is None
    # A stream of its token says it is back too, after it is away again (seat 2 is away too, by then).
    async with asyncio.timeout(20):
        while not (await host_view(client, created))["seats"][0].get("away"):
            await asyncio.sleep(0.05)
    async with client.stream("GET", url + "/events", headers=seat0) as stream:
        assert stream.status_code == 200
    assert len(of_type(await whole_log(client, created), "seat_back")) == 2


async def test_away_off(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, **ABSENT, clock={"move_seconds": 0.2, "bot": "random", "away_after": 0})
    assert created["clock"]["away_after"] == 0
    async with asyncio.timeout(30):
        while len(of_type(await whole_log(client, created), "move_timed_out")) < 4:
            await _play_seat_2(client, created, 1)
    log = await whole_log(client, created)
    assert not of_type(log, "seat_away") and all(clocked for _, clocked in _seat0_turns(log))


async def test_away_bounds(fast_client: httpx.AsyncClient) -> None:
    for bad in (-1, 101, 1.5, "2"):
        r = await fast_client.post("/v1/sessions", json={"players": 4, "clock": {"move_seconds": 5,
                                                                                 "away_after": bad}})
        assert_problem(r, 400, "INVALID_CLOCK")


def test_the_seat_to_act_away_and_back_keeps_the_bots_move() -> None:
    """Back while the clock's bot is making its move (the seat is to act, away): that move stays the bot's, played
    once more in the chain; the seat plays from its next turn, present again (the move is marked as the clock's)."""
    state, _ = new_game(resolve_options(4, None, {"misere_enabled": False}), seed=5, first_dealer=3)
    assert player_to_act(state) == 0
    settings = ClockSettings()
    clock = new_clock(ClockOptions(move_seconds=1, away_after=1), state, settings, 1_000)
    assert clock is not None and clock.away == (0, 0, 0, 0)
    # The clock's move for seat 0 makes it away at once (away_after 1).
    moved, _ = apply_move(state, clock_move(state, 1, b"\x00" * 160, clock))
    away = after_move(clock, moved, 2, 2_100, timed_out=True)
    assert away is not None and away.away == (AWAY, 0, 0, 0) and newly_away(clock, away) == [0]
    assert autoplayed_seats(away) == ([0], [])
    # Later, seat 0 is to act (a ghost of the same clock on the first state), and comes back now.
    on_turn = msgspec.structs.replace(away, seat=0)
    back = came_back(on_turn, 0, to_act=True)
    assert back.away == (BACK_NEXT_TURN, 0, 0, 0) and autoplayed_seats(back) == ([], [0])
    bots = {s: ("random", bytes([s]) * 27) for s in (0, 1, 2, 3)}
    chain = bot_chain(state, 1, bots, once=frozenset({0}))
    movers = [player_to_act(s) for s in [state, *(c[0] for c in chain)]]
    assert movers[0] == 0 and 0 not in movers[1:-1] and len(chain) >= 4  # once, then the bots
    assert movers[-1] == 0 or chain[-1][0].phase != "auction"  # stopped at seat 0's next turn (or the auction ended)
    after = after_move(back, chain[0][0], 9, 3_000)
    assert after is not None and after.away == (0, 0, 0, 0) and after.timed_out[0] == 9  # the clock's move


async def test_a_table_nobody_sits_at_plays_on_at_the_clocks_pace(fast_client: httpx.AsyncClient) -> None:
    """One player and three bots: the player away, nobody waits for it, so its turns wait out the full clock (the
    table does not play itself out at once)."""
    client = fast_client
    created = await create(client, bots={"1": "random", "2": "random", "3": "random"}, first_dealer=3,
                           options={"target": 100_000, "lose_at": -100_000, "misere_enabled": False},
                           clock={"move_seconds": 0.2, "bot": "random", "away_after": 1})
    log = await wait_for_event(client, created, "move_timed_out", 3)
    assert len(of_type(log, "seat_away")) == 1
    assert of_type(log, "seat_away")[0]["version"] == of_type(log, "move_timed_out")[0]["version"]
    assert all(clocked for _, clocked in _seat0_turns(log))  # every turn of it the clock's, after its deadline


async def test_an_open_seat_away_is_no_longer_away_once_taken(fast_client: httpx.AsyncClient) -> None:
    """A player leaves; its open seat is on the clock, away after its moves, played at once; the player who takes
    it is there."""
    client = fast_client
    created = await create(client, bots={"0": "random", "3": "random"}, first_dealer=3, on_leave="wait",
                           options={"target": 100_000, "lose_at": -100_000, "misere_enabled": False},
                           clock={"move_seconds": MOVE_SECONDS, "bot": "random", "away_after": 1})
    url, host = url_of(created), bearer(created["host_token"])
    assert (await client.post(url + "/leave", json={}, headers=bearer(created["seat_tokens"][2]))).status_code == 200
    async with asyncio.timeout(30):
        while not (await host_view(client, created))["seats"][2].get("away"):
            await _play_seat_2(client, created, 1, seat=1)
    assert (await host_view(client, created))["seats"][2] == {"seat": 2, "kind": "open", "away": True}
    r = await client.post(url + "/seats/2/invitation", json={}, headers=host)
    assert r.status_code == 200, r.text
    r = await client.post(url + "/join", json={"code": r.json()["invitation"]["code"], "name": "Cy"})
    assert r.status_code == 200, r.text
    assert (await host_view(client, created))["seats"][2] == {"seat": 2, "kind": "human", "name": "Cy"}
    assert not of_type(await whole_log(client, created), "seat_back")  # a new player, not the same one back


async def test_a_seat_away_past_the_limit_is_forfeited(fast_client: httpx.AsyncClient) -> None:
    """``forfeit_after``: the bot's moves for a seat away after which it keeps the seat for good; the player's
    token stops (401 ``TOKEN_REVOKED``), and the game goes on with the very moves the bot was making."""
    client = fast_client
    created = await create(client, **ABSENT, clock={"move_seconds": MOVE_SECONDS, "bot": "random",
                                                     "away_after": 1, "forfeit_after": 2})
    assert created["clock"]["forfeit_after"] == 2
    url = url_of(created)
    async with asyncio.timeout(40):
        while not of_type(await whole_log(client, created), "seat_forfeited"):
            await _play_seat_2(client, created, 1)
    log = await whole_log(client, created)
    (away,), (forfeit,) = of_type(log, "seat_away"), of_type(log, "seat_forfeited")
    assert forfeit["event"] == {"type": "seat_forfeited", "seat": 0, "level": "random", "to_act": forfeit["to_act"]}
    botted = [v for v, clocked in _seat0_turns(log) if away["version"] < v <= forfeit["version"]]
    assert len(botted) == 2 and botted[-1] == forfeit["version"]  # logged with the second of them, after it
    assert [e["event"]["type"] for e in log if e["version"] == forfeit["version"]][-1] == "seat_forfeited"
    assert_problem(await client.get(url, headers=bearer(created["seat_tokens"][0])), 401, "TOKEN_REVOKED")
    seen = await host_view(client, created)
    assert seen["seats"][0] == {"seat": 0, "kind": "bot", "level": "random"}
    await _play_seat_2(client, created, 2)  # the bot plays seat 0 on, at once
    assert len(of_type(await whole_log(client, created), "seat_forfeited")) == 1
    r = await client.post(url + "/abandon", json={}, headers=bearer(created["host_token"]))
    assert r.status_code == 200 and r.json()["ended"]["by"] == [0], r.text  # its player left the game
