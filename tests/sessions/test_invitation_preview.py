"""An invitation's preview (``GET /v1/sessions/{id}/invitation`` with the code as the bearer token), over every
store (memory, Redis, Redis Cluster): whose table, which seat, the rules, who sits where; never a card nor a
token; it redeems nothing, and it is refused as joining is (a code of another session, redeemed, expired).

The hidden-information property over whole games (tests/leaks/test_api_leaks.py) reads the preview too."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from engine import pack_for, resolve_options
from service.sessions import seating as seating_module
from tests.support import assert_problem, bearer

#: A card token as the API writes one (``10H``, ``QS``, ``JK``, ``JKB``): none may appear in a preview.
PACK = frozenset(pack_for(resolve_options(4, None, {})))


async def _create(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    body = {"players": 4, "bots": {"1": "expert", "3": "basic"}, "open_seats": [0, 2], "host_name": "Cleo",
            "options": {"target": 250}, "clock": {"move_seconds": 60, "reserve_seconds": 120}, "hints": False,
            "on_leave": "bot", "leave_level": "expert", "invitation_seconds": 3600, **extra}
    r = await client.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def _preview_url(created: dict[str, Any]) -> str:
    return f"/v1/sessions/{created['session_id']}/invitation"


def _code(created: dict[str, Any], seat: int) -> str:
    return str(next(i["code"] for i in created["invitations"] if i["seat"] == seat))


def _words(value: Any) -> set[str]:
    """Every word of every string in a JSON value (keys included)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found |= _words(key) | _words(item)
    elif isinstance(value, list):
        for item in value:
            found |= _words(item)
    elif isinstance(value, str):
        found |= set(re.split(r"[^A-Za-z0-9_-]+", value))
    return found


def assert_reveals_nothing(preview: dict[str, Any], secrets: list[str]) -> None:
    """No card token and none of ``secrets`` (tokens, codes) anywhere in ``preview``."""
    text = str(preview)
    assert not [s for s in secrets if s and s in text], "a token or code is in the preview"
    assert not _words(preview) & PACK, f"a card is in the preview: {_words(preview) & PACK}"


async def test_an_invitation_shows_whose_table_which_seat_the_rules_and_who_sits_where(
        client: httpx.AsyncClient) -> None:
    created = await _create(client)
    url = _preview_url(created)
    r = await client.get(url, headers=bearer(_code(created, 2)))
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    preview = r.json()
    assert preview["session_id"] == created["session_id"] and preview["seat"] == 2
    assert preview["host_name"] == "Cleo"
    assert 3590 <= preview["expires_in"] <= 3600
    assert preview["players"] == 4 and preview["options"] == created["options"]
    assert preview["options"]["target"] == 250 and preview["rules_version"] == created["rules_version"]
    assert preview["seats"] == [{"seat": 0, "kind": "open"}, {"seat": 1, "kind": "bot", "level": "expert"},
                                {"seat": 2, "kind": "open"}, {"seat": 3, "kind": "bot", "level": "basic"}]
    assert preview["sides"] == [[0, 2], [1, 3]] and preview["scores"] == [0, 0]
    assert (preview["phase"], preview["hand_number"]) == ("auction", 0)
    assert (preview["hints"], preview["on_leave"], preview["leave_level"]) == (False, "bot", "expert")
    assert preview["clock"]["move_seconds"] == 60 and preview["clock"]["reserve_seconds"] == 120
    secrets = [created["host_token"], created["table_host_token"], *[i["code"] for i in created["invitations"]]]
    assert_reveals_nothing(preview, secrets)

    # The preview redeems nothing: the same code joins afterwards, and the other seat's preview then names the
    # player who joined.
    joined = await client.post(f"/v1/sessions/{created['session_id']}/join",
                               json={"code": _code(created, 2), "name": "Bo"})
    assert joined.status_code == 200, joined.text
    later = (await client.get(url, headers=bearer(_code(created, 0)))).json()
    assert later["seat"] == 0 and later["seats"][2] == {"seat": 2, "kind": "human", "name": "Bo"}
    assert_reveals_nothing(later, [*secrets, joined.json()["seat_token"]])


async def test_a_preview_is_refused_as_joining_is(client: httpx.AsyncClient,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    created = await _create(client, host_name=None, invitation_seconds=60)
    other = await _create(client)
    url = _preview_url(created)
    assert "host_name" not in (await client.get(url, headers=bearer(_code(created, 0)))).json()
    # No code, another session's code, a session token: not an invitation of this session.
    assert_problem(await client.get(url), 401, "UNAUTHORIZED")
    assert_problem(await client.get(url, headers=bearer(_code(other, 0))), 401, "UNAUTHORIZED")
    assert_problem(await client.get(url, headers=bearer(created["host_token"])), 401, "UNAUTHORIZED")
    assert_problem(await client.get("/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/invitation",
                                    headers=bearer(_code(created, 0))), 404, "SESSION_NOT_FOUND")
    # Redeemed: 409, as a second join is.
    code = _code(created, 0)
    r = await client.post(f"/v1/sessions/{created['session_id']}/join", json={"code": code, "name": "Ana"})
    assert r.status_code == 200, r.text
    assert_problem(await client.get(url, headers=bearer(code)), 409, "INVITATION_REDEEMED")
    # Voided: the host opened the seat again with a new invitation; the old code is no invitation any more.
    host = bearer(created["host_token"])
    reopened = await client.post(f"/v1/sessions/{created['session_id']}/seats/2/invitation", json={}, headers=host)
    assert reopened.status_code == 200, reopened.text
    assert_problem(await client.get(url, headers=bearer(_code(created, 2))), 401, "UNAUTHORIZED")
    fresh = reopened.json()["invitation"]["code"]
    assert (await client.get(url, headers=bearer(fresh))).json()["seats"][0] == {
        "seat": 0, "kind": "human", "name": "Ana"}
    # Expired: 410, as joining is.
    now = time.time()
    monkeypatch.setattr(seating_module.time, "time", lambda: now + 3600)
    assert_problem(await client.get(url, headers=bearer(fresh)), 410, "INVITATION_EXPIRED")


async def test_a_host_name_follows_the_rule_of_a_players_name(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/sessions", json={"players": 4, "open_seats": [1], "host_name": "Ana  Lu"})
    assert_problem(r, 400, "INVALID_NAME")
    created = await _create(client, host_name="  Zoë ")
    preview = (await client.get(_preview_url(created), headers=bearer(_code(created, 0)))).json()
    assert preview["host_name"] == "Zoë"
