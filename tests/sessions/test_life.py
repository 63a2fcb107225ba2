"""A game's life at a hosted table (service/sessions/life.py), over HTTP on the in-process store and a real Redis:
nothing is played before the seats are taken (the defect: a session with open seats let its clock and its bots
play before anyone sat down), the host's start, pause and resume, a game called off or abandoned; each change an
event of the log and a field of the views."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from tests.support import assert_problem, bearer

from .life_support import create, fast_client, host_view, of_type, url_of, wait_for_event, whole_log
from .play import read_stream
from .test_clock import _ms

__all__ = ["fast_client"]

#: Seats 1 and 3 are bots, 0 and 2 open: before anyone sits down, the bots and the clock could play.
OPEN_TABLE = {"open_seats": [0, 2], "bots": {"1": "random", "3": "random"}, "clock": {"move_seconds": 0.2}}


async def _join(client: httpx.AsyncClient, created: dict[str, Any], seat: int, name: str) -> dict[str, str]:
    code = next(i["code"] for i in created["invitations"] if i["seat"] == seat)
    r = await client.post(url_of(created) + "/join", json={"code": code, "name": name})
    assert r.status_code == 200, r.text
    return bearer(r.json()["seat_token"])


async def test_nothing_is_played_before_the_seats_are_taken(fast_client: httpx.AsyncClient) -> None:
    """The original defect: created with open seats (and bots and a clock), the clock and the bots played before
    anyone sat down. Now the game waits: the clock is stopped, nobody moves, until the last seat is taken."""
    client = fast_client
    created = await create(client, **OPEN_TABLE, first_dealer=0)  # seat 1, a bot, bids first
    assert created["version"] == 1  # the bot to act did not bid
    assert created["clock"]["deadline"] is None and created["clock"]["seat"] is None  # nobody is on the clock
    await asyncio.sleep(0.8)  # four clocks' worth
    seen = await host_view(client, created)
    assert seen["version"] == 1 and not of_type(await whole_log(client, created), "move_timed_out"), seen
    assert created["status"] == "waiting" and seen["status"] == "waiting", seen
    assert seen["clock"]["deadline"] is None and [s["kind"] for s in seen["seats"]] == ["open", "bot", "open", "bot"]
    ana = await _join(client, created, 0, "Ana")
    await asyncio.sleep(0.5)
    seen = await host_view(client, created)
    assert seen["version"] == 2 and seen["status"] == "waiting" and seen["clock"]["deadline"] is None
    # Ana's token is a seat's, but the game has not started: 409, with the current version.
    r = await client.post(url_of(created) + "/moves", json={"move": {"type": "pass"}}, headers=ana)
    problem = assert_problem(r, 409, "VERSION_CONFLICT")
    assert problem["current_version"] == 2 and "not started" in problem["detail"]
    joined_at = int(time.time() * 1000)
    await _join(client, created, 2, "Bo")  # the last seat: the game starts with it, its clock from now
    log = await whole_log(client, created)
    assert [e["event"]["type"] for e in log if e["version"] == 3] == ["seat_joined", "game_started"]
    started = of_type(log, "game_started")[0]
    assert started["event"] == {"type": "game_started", "by": "seated", "to_act": 1}
    assert not of_type(log, "move_timed_out")
    # From the start on the bot plays, then the clock runs for seat 2.
    seen = await host_view(client, created)
    assert seen["status"] == "running" and seen["version"] >= 4
    assert _ms(seen["clock"]["deadline"]) >= joined_at + 200
    events, _ = await read_stream(client, url_of(created) + "/events", count=len(log),
                                  headers=bearer(created["host_token"]))
    assert [e.event for e in events] == [e["event"]["type"] for e in log]


async def test_the_clock_does_not_run_at_an_empty_table(fast_client: httpx.AsyncClient) -> None:
    """The issue's own case: every seat open, a clock: on today's main the clock played the whole table."""
    client = fast_client
    created = await create(client, open_seats=[0, 1, 2, 3], clock={"move_seconds": 0.2})
    await asyncio.sleep(1.0)
    seen = await host_view(client, created)
    assert seen["version"] == 1 and seen["clock"]["deadline"] is None, seen
    assert not of_type(await whole_log(client, created), "move_timed_out")
    assert seen["status"] == "waiting" and [s["kind"] for s in seen["seats"]] == ["open"] * 4


async def test_the_host_starts_before_every_seat_is_taken(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, **OPEN_TABLE)  # seat 0 bids first, open
    url = url_of(created)
    await _join(client, created, 2, "Bo")
    code = created["invitations"][0]["code"]  # an invitation is no token
    assert_problem(await client.post(url + "/start", json={}, headers=bearer(code)), 401, "UNAUTHORIZED")
    r = await client.post(url + "/start", json={}, headers=bearer(created["table_host_token"]))
    assert r.status_code == 200, r.text
    assert r.json() == {"session_id": created["session_id"], "version": 3, "status": "running"}
    assert r.headers["etag"] == '"3"'
    assert_problem(await client.post(url + "/start", json={}, headers=bearer(created["host_token"])), 409,
                   "VERSION_CONFLICT")
    # The open seat 0 is on the clock like any other: the clock moves for it.
    log = await wait_for_event(client, created, "move_timed_out")
    assert of_type(log, "game_started")[0]["event"]["by"] == "host"
    assert of_type(log, "move_timed_out")[0]["event"]["seat"] == 0


async def test_start_host_waits_for_the_host_even_at_a_full_table(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, start="host", clock={"move_seconds": 0.2})
    url = url_of(created)
    assert created["status"] == "waiting" and created["clock"]["deadline"] is None
    await asyncio.sleep(0.5)
    seat0 = bearer(created["seat_tokens"][0])
    problem = assert_problem(await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=seat0),
                             409, "VERSION_CONFLICT")
    assert problem["current_version"] == 1
    assert (await host_view(client, created))["version"] == 1
    assert_problem(await client.post(url + "/start", json={}, headers=seat0), 403, "FORBIDDEN")
    r = await client.post(url + "/start", json={}, headers=bearer(created["host_token"]))
    assert r.status_code == 200 and r.json()["status"] == "running", r.text
    r = await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=seat0)
    assert r.status_code == 200, r.text


async def test_a_table_without_open_seats_starts_at_once(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    # A deal of the test's own and a bot whose move does not depend on its seed: a random bot's seed is the
    # session's secret, and about 3 times in 100 it bids the top of the ladder, wins the auction at once, and goes
    # on to take the kitty, discard and lead.
    created = await create(client, bots={"1": "basic"}, clock={"move_seconds": 5}, first_dealer=0, seed=1,
                           known_deal=True)
    assert created["status"] == "running" and created["version"] == 2  # the bot bid at once, as always
    assert created["clock"]["deadline"] is not None
    assert not of_type(await whole_log(client, created), "game_started")


async def test_pause_and_resume(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, clock={"move_seconds": 0.3, "away_after": 0})
    url, table = url_of(created), bearer(created["table_host_token"])
    seat0 = bearer(created["seat_tokens"][0])
    assert (await client.post(url + "/moves", json={"move": {"type": "pass"}}, headers=seat0)).status_code == 200
    r = await client.post(url + "/pause", json={}, headers=table)
    assert r.status_code == 200 and r.json()["status"] == "paused" and r.json()["version"] == 3, r.text
    assert_problem(await client.post(url + "/pause", json={}, headers=table), 409, "VERSION_CONFLICT")
    await asyncio.sleep(0.9)  # three clocks: none moves while paused
    seen = await host_view(client, created)
    assert seen["version"] == 3 and seen["status"] == "paused" and seen["clock"]["deadline"] is None
    problem = assert_problem(await client.post(url + "/moves", json={"move": {"type": "pass"}},
                                               headers=bearer(created["seat_tokens"][1])), 409, "VERSION_CONFLICT")
    assert problem["current_version"] == 3 and "paused" in problem["detail"]
    for who in ("seat_tokens", "spectator"):
        token = created["seat_tokens"][1] if who == "seat_tokens" else (
            await client.post(url + "/spectators", json={}, headers=table)).json()["spectator_token"]
        assert_problem(await client.post(url + "/resume", json={}, headers=bearer(token)), 403, "FORBIDDEN")
    resumed_at = int(time.time() * 1000)
    r = await client.post(url + "/resume", json={}, headers=bearer(created["host_token"]))
    assert r.status_code == 200 and r.json()["status"] == "running", r.text
    assert_problem(await client.post(url + "/resume", json={}, headers=table), 409, "VERSION_CONFLICT")
    seen = await host_view(client, created)
    assert seen["status"] == "running" and _ms(seen["clock"]["deadline"]) >= resumed_at + 300  # a full turn
    log = await wait_for_event(client, created, "move_timed_out")
    kinds = [e["event"]["type"] for e in log]
    assert kinds.index("game_paused") < kinds.index("game_resumed") < kinds.index("move_timed_out")
    paused = of_type(log, "game_paused")[0]
    assert paused["event"] == {"type": "game_paused", "to_act": 1} and paused["to_act"] == 1
    assert "deadline" not in paused  # the clock stood
    # Pausing a session without a clock stops its moves just the same.
    plain = await create(client)
    r = await client.post(url_of(plain) + "/pause", json={}, headers=bearer(plain["host_token"]))
    assert r.status_code == 200, r.text
    assert_problem(await client.post(url_of(plain) + "/moves", json={"move": {"type": "pass"}},
                                     headers=bearer(plain["seat_tokens"][0])), 409, "VERSION_CONFLICT")


async def test_a_game_that_never_got_its_first_card_is_called_off(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, open_seats=[2])
    url, host = url_of(created), bearer(created["host_token"])
    problem = assert_problem(await client.post(url + "/abandon", json={}, headers=host), 409, "VERSION_CONFLICT")
    assert "not started" in problem["detail"]  # a game that waits is called off, not abandoned
    assert_problem(await client.post(url + "/call-off", json={}, headers=bearer(created["seat_tokens"][0])), 403,
                   "FORBIDDEN")
    r = await client.post(url + "/call-off", json={}, headers=bearer(created["table_host_token"]))
    assert r.status_code == 200, r.text
    assert r.json() == {"session_id": created["session_id"], "version": 2, "status": "ended",
                        "ended": {"how": "called_off", "version": 2}}
    seen = await host_view(client, created)
    assert seen["status"] == "ended" and seen["ended"] == {"how": "called_off", "version": 2}
    assert seen["view"]["result"] is None  # no result
    for path in ("/call-off", "/abandon", "/pause", "/start"):
        assert_problem(await client.post(url + path, json={}, headers=host), 409, "VERSION_CONFLICT")
    problem = assert_problem(await client.post(url + "/moves", json={"move": {"type": "pass"}},
                                               headers=bearer(created["seat_tokens"][0])), 409, "VERSION_CONFLICT")
    assert "ended" in problem["detail"]
    # The stream ends after it, as at game over; a reconnect at its end is told to stop (204).
    events, ended = await read_stream(client, url + "/events", headers=host)
    assert ended and events[-1].event == "game_called_off" and events[-1].to_act is None
    r = await client.get(url + "/events", headers={**host, "Last-Event-ID": events[-1].id})
    assert r.status_code == 204


async def test_a_game_once_a_card_was_played_is_not_called_off(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, seed=7, known_deal=True, bots={"1": "random", "2": "random", "3": "random"},
                           first_dealer=3)
    url, seat0 = url_of(created), bearer(created["seat_tokens"][0])
    # Seat 0 bids until the auction is won and a card is played (the bots answer at once).
    for _ in range(40):
        if of_type(await whole_log(client, created), "card_played"):
            break
        legal = (await client.get(url + "/legal-moves", headers=seat0)).json()["legal_moves"]
        if not legal:
            break
        move = next((m for m in legal if m["type"] == "pass"), legal[0])
        assert (await client.post(url + "/moves", json={"move": move}, headers=seat0)).status_code == 200
    log = await whole_log(client, created)
    assert of_type(log, "card_played")
    problem = assert_problem(await client.post(url + "/call-off", json={}, headers=bearer(created["host_token"])),
                             409, "VERSION_CONFLICT")
    assert "card was played" in problem["detail"]


async def test_a_game_whose_player_left_ends_as_abandoned(fast_client: httpx.AsyncClient) -> None:
    client = fast_client
    created = await create(client, seed=3, known_deal=True, first_dealer=3)
    url, host = url_of(created), bearer(created["host_token"])
    problem = assert_problem(await client.post(url + "/abandon", json={}, headers=host), 409, "VERSION_CONFLICT")
    assert "every seat" in problem["detail"].lower()
    r = await client.post(url + "/leave", json={}, headers=bearer(created["seat_tokens"][2]))
    assert r.status_code == 200 and r.json()["now"] == "open", r.text
    r = await client.post(url + "/abandon", json={}, headers=bearer(created["table_host_token"]))
    assert r.status_code == 200, r.text
    assert r.json()["ended"] == {"how": "abandoned", "by": [2], "version": 3} and r.json()["status"] == "ended"
    seen = await host_view(client, created)
    assert seen["ended"] == {"how": "abandoned", "by": [2], "version": 3}
    events, ended = await read_stream(client, url + "/events", headers=bearer(created["seat_tokens"][0]))
    assert ended and events[-1].data == {"type": "game_abandoned", "by": [2], "to_act": None}
    assert events[-1].to_act is None
    # A player who leaves for a bot abandoned the game too.
    other = await create(client, on_leave="bot")
    assert (await client.post(url_of(other) + "/leave", json={},
                              headers=bearer(other["seat_tokens"][1]))).json()["now"] == "bot"
    r = await client.post(url_of(other) + "/abandon", json={}, headers=bearer(other["host_token"]))
    assert r.status_code == 200 and r.json()["ended"]["by"] == [1], r.text
