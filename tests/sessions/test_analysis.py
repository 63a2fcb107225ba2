"""``GET /v1/sessions/{id}/analysis`` over the memory store and a real redis-server: refused before the game is
over and to spectators; the host and the table host get every seat, the luck and the fair-play statistic, exactly
the analysis of the session's record; a seat gets its own decisions, the same values the host's answer gives them,
and nothing that reads cards it never saw."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
import pytest

from bots.analysis import analyse_game
from engine import GameRecord
from tests.support import assert_problem, bearer

from .tables import SHORT_GAME, play_one, play_to_the_end

#: Small: the code path is the one of any budget.
BUDGET = 8

pytestmark = pytest.mark.parametrize("store_kind", ["memory", "redis"])


async def _analysis(client: httpx.AsyncClient, url: str, token: str, status: int = 200, **query: Any) -> Any:
    r = await client.get(url + "/analysis", params=query, headers=bearer(token))
    assert r.status_code == status, r.text
    return r.json()


async def test_a_finished_games_analysis_to_each_credential_what_it_may_see(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json={"players": 4, "options": SHORT_GAME})
    assert r.status_code == 201, r.text
    created = r.json()
    url = f"/v1/sessions/{created['session_id']}"
    host, table, seats = created["host_token"], created["table_host_token"], created["seat_tokens"]
    r = await client.post(url + "/spectators", json={}, headers=bearer(host))
    assert r.status_code == 201, r.text
    spectator = r.json()["spectator_token"]
    # Not before the game is over, for anyone.
    assert await play_one(client, url, seats) is not None
    for token in (host, table, seats[0]):
        problem = assert_problem(await client.get(url + "/analysis", headers=bearer(token)), 403, "FORBIDDEN")
        assert "over" in problem["detail"]
    await play_to_the_end(client, url, seats)

    whole = await _analysis(client, url, host, seed=3, budget=BUDGET)
    record = msgspec.convert((await client.get(url + "/record", headers=bearer(host))).json()["record"], GameRecord)
    expected = msgspec.json.decode(msgspec.json.encode(analyse_game(record, seed=3, budget=BUDGET)))
    assert whole["seat"] is None and whole["seed"] == 3 and whole["budget"] == BUDGET
    assert whole["game"] == expected and whole["playouts"] == expected["playouts"]
    assert whole["game"]["seats"] == [0, 1, 2, 3]
    assert all(s["fair_play"] is not None for s in whole["game"]["summaries"])
    assert any(h["luck"] is not None for h in whole["game"]["hands"])
    # The table host reads the whole record of a finished game: the same analysis.
    assert await _analysis(client, url, table, seed=3, budget=BUDGET) == whole

    # A seat: its own decisions, valued as in the host's answer (from its view alone), and no figure that reads
    # cards it never saw.
    mine = await _analysis(client, url, seats[1], seed=3, budget=BUDGET)
    assert mine["seat"] == 1 and mine["game"]["seats"] == [1]
    own = [{**d, "open_hand": None} for d in whole["game"]["decisions"] if d["seat"] == 1]
    assert own and mine["game"]["decisions"] == own
    (summary,) = mine["game"]["summaries"]
    host_summary = next(s for s in whole["game"]["summaries"] if s["seat"] == 1)
    assert summary == {**host_summary, "fair_play": None}
    assert [h["result"] for h in mine["game"]["hands"]] == [h["result"] for h in whole["game"]["hands"]]
    assert all(h["luck"] is None and h["adjusted"] is None for h in mine["game"]["hands"])
    assert mine["playouts"] < whole["playouts"]

    # Spectators never; a drawn seed is answered; out-of-range parameters are refused.
    assert_problem(await client.get(url + "/analysis", headers=bearer(spectator)), 403, "FORBIDDEN")
    assert_problem(await client.get(url + "/analysis"), 401, "UNAUTHORIZED")
    assert isinstance((await _analysis(client, url, seats[0], budget=1))["seed"], int)
    assert_problem(await client.get(url + "/analysis?budget=0", headers=bearer(host)), 400, "MALFORMED_REQUEST")
    assert_problem(await client.get(url + "/analysis?seed=-1", headers=bearer(host)), 400, "MALFORMED_REQUEST")
