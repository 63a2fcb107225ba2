"""Players' names (issue 46): one rule and one code whatever the length, a bound on combining marks, no two
names alike at one table, and seats created with a token named by the host or by themselves; over every store."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support import assert_problem, bearer


async def _create(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    r = await client.post("/v1/sessions", json={"players": 4, "first_dealer": 3, "bots": {"3": "basic"},
                                                "open_seats": [2], **extra})
    assert r.status_code == 201, r.text
    return dict(r.json())


@pytest.mark.parametrize("name", ["x" * 33, "x" * 257, "x" * 10_000, "a" + "\u0301" * 31, "", "Ana  Lu"])
async def test_a_name_against_the_rule_is_invalid_name_whatever_its_length(client: httpx.AsyncClient,
                                                                           name: str) -> None:
    created = await _create(client)
    r = await client.post(f"/v1/sessions/{created['session_id']}/join",
                          json={"code": created["invitations"][0]["code"], "name": name})
    assert_problem(r, 400, "INVALID_NAME")


@pytest.mark.parametrize("taken, name", [("Alice", "\u0410lice"), ("Pat", "Pat"), ("Pat", "pat"), ("Ian", "lan")])
async def test_a_name_alike_another_at_the_table_is_refused(client: httpx.AsyncClient, taken: str, name: str) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    r = await client.post(url + "/seats/0/name", json={"name": taken}, headers=bearer(created["host_token"]))
    assert r.status_code == 200, r.text
    r = await client.post(url + "/join", json={"code": created["invitations"][0]["code"], "name": name})
    assert_problem(r, 400, "INVALID_NAME")
    r = await client.post(url + "/seats/1/name", json={"name": name}, headers=bearer(created["seat_tokens"][1]))
    assert_problem(r, 400, "INVALID_NAME")
    assert (await client.post(url + "/join", json={"code": created["invitations"][0]["code"],
                                                   "name": "Nguyễn"})).status_code == 200


async def test_seats_created_with_a_token_are_named_by_the_host_or_by_themselves(client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = f"/v1/sessions/{created['session_id']}"
    host, table = bearer(created["host_token"]), bearer(created["table_host_token"])
    seat0, seat1 = bearer(created["seat_tokens"][0]), bearer(created["seat_tokens"][1])
    r = await client.post(url + "/seats/0/name", json={"name": " Ana "}, headers=seat0)
    assert r.status_code == 200 and r.json()["name"] == "Ana", r.text
    assert (await client.post(url + "/seats/1/name", json={"name": "Bo"}, headers=table)).status_code == 200
    assert (await client.post(url + "/seats/1/name", json={"name": "Bob"}, headers=host)).status_code == 200
    assert_problem(await client.post(url + "/seats/1/name", json={"name": "Cy"}, headers=seat0), 403, "FORBIDDEN")
    assert_problem(await client.post(url + "/seats/3/name", json={"name": "Cy"}, headers=host), 409, "SEAT_NOT_HELD")
    assert_problem(await client.post(url + "/seats/2/name", json={"name": "Cy"}, headers=host), 409, "SEAT_NOT_HELD")
    seats = (await client.get(url, headers=seat1)).json()["seats"]
    assert [s.get("name") for s in seats][:2] == ["Ana", "Bob"]
