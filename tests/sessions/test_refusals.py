"""Refusals that say what the docs say (issue 46), over every store: one code for a malformed Last-Event-ID
wherever it is given, a body in another charset refused 415 rather than misread, a seat in a path written as
the game numbers seats."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.support import assert_problem, bearer

THREE_BOTS = {"1": "basic", "2": "basic", "3": "basic"}


async def _create(client: httpx.AsyncClient) -> dict[str, Any]:
    r = await client.post("/v1/sessions", json={"players": 4, "first_dealer": 3, "bots": THREE_BOTS})
    assert r.status_code == 201, r.text
    return dict(r.json())


async def test_a_malformed_last_event_id_has_one_code_in_the_query_and_in_the_header(
        client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url, host = f"/v1/sessions/{created['session_id']}/events", bearer(created["host_token"])
    for bad in ("zz", "1-", "-1", "1-2-3"):
        assert_problem(await client.get(url, params={"last_event_id": bad}, headers=host), 400,
                       "INVALID_LAST_EVENT_ID")
        assert_problem(await client.get(url, headers={**host, "Last-Event-ID": bad}), 400, "INVALID_LAST_EVENT_ID")


@pytest.mark.parametrize("charset", ["latin-1", "iso-8859-1", "utf-16", "UTF-32"])
async def test_a_body_in_another_charset_is_refused_not_misread(client: httpx.AsyncClient, charset: str) -> None:
    body = json.dumps({"players": 4, "bots": THREE_BOTS}).encode(charset.lower())
    r = await client.post("/v1/sessions", content=body,
                          headers={"content-type": f"application/json; charset={charset}"})
    assert_problem(r, 415, "UNSUPPORTED_MEDIA_TYPE")
    created = await _create(client)
    r = await client.post(f"/v1/sessions/{created['session_id']}/moves", content=b'{"move": {"type": "pass"}}',
                          headers={**bearer(created["seat_tokens"][0]),
                                   "content-type": f"application/json; charset={charset}"})
    assert_problem(r, 415, "UNSUPPORTED_MEDIA_TYPE")
    for fine in ("utf-8", "UTF-8", '"utf-8"'):
        r = await client.post("/v1/sessions", content=json.dumps({"players": 4, "bots": THREE_BOTS}).encode(),
                              headers={"content-type": f"application/json; charset={fine}"})
        assert r.status_code == 201, (fine, r.text)


async def test_a_seat_in_a_path_is_one_plain_digit(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json={"players": 4, "first_dealer": 3, "bots": {"2": "basic", "3": "basic"},
                                                "open_seats": [1]})
    created = r.json()
    url, host = f"/v1/sessions/{created['session_id']}", bearer(created["host_token"])
    for written in ("+1", "01", "\u0661", "\uff11", " 1"):
        for tool in ("token", "bot", "invitation"):
            r = await client.post(f"{url}/seats/{written}/{tool}", json={}, headers=host)
            assert_problem(r, 400, "MALFORMED_REQUEST")
    assert (await client.post(f"{url}/seats/1/invitation", json={}, headers=host)).status_code == 200


async def test_a_session_validate_of_a_refused_discard_answers_the_compact_form(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url, seat = f"/v1/sessions/{created['session_id']}", bearer(created["seat_tokens"][0])
    r = await client.post(url + "/moves", json={"move": {"type": "bid", "bid": "10NT"}}, headers=seat)
    assert r.status_code == 200, r.text
    view = (await client.get(url, headers=seat)).json()["view"]
    assert view["phase"] == "exchange" and view["to_act"] == 0, view
    hand = view["hand"]
    r = await client.post(url + "/validate", json={"move": {"type": "discard", "cards": hand[:2]}}, headers=seat)
    assert r.status_code == 200 and r.json()["legal"] is False, r.text
    assert r.json()["legal_moves"] == [] and r.json()["discard_choice"] == {"cards": hand, "count": 3}
    assert len(r.content) < 1_000  # the listing of all 286 discards was 15,565 bytes
