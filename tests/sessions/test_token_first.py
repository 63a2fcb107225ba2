"""A session's token is checked before its body: whoever may not make a request is told so (401, 403, 404)
whatever its body, and only a caller that may make it learns that its body does not decode (400).

For every operation of a session that takes a token and a body, every kind of caller (the host, the table host,
the seat the path names, another seat, a spectator, a revoked token, a token of no session, no token, a session
that does not exist) sends a body that does not decode and then, on the same session, a body that does: the
refusal of the first is the second's when the second is refused for who is asking, else 400. Both answers come
from the operation's own check of who may ask (``service/sessions/guards.py``), so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.support import assert_problem

#: Each operation with a token and a body: its path after the session's, a body that decodes, and one that
#: does not (an unknown field, a wrong type, or no JSON at all).
OPERATIONS: list[tuple[str, dict[str, Any], bytes]] = [
    ("validate", {"move": {"type": "pass"}}, b'{"move": {"type": "pass"}, "peek": true}'),
    ("suggest", {}, b'{"level": "oracle"}'),
    ("moves", {"move": {"type": "pass"}}, b'{"move": 7}'),
    ("spectators", {}, b'{"peek": true}'),
    ("rematch", {}, b'{"game": "next"}'),
    ("leave", {}, b"not json"),
    ("seats/1/token", {}, b"[]"),
    ("seats/1/bot", {"level": "basic"}, b'{"level": "peeking"}'),
    ("seats/1/invitation", {}, b'{"x": 1}'),
    ("seats/1/name", {"name": "Bo"}, b'{"name": 5}'),
    ("start", {}, b"{"),
    ("pause", {}, b'{"x": 1}'),
    ("resume", {}, b'{"x": 1}'),
    ("call-off", {}, b'{"x": 1}'),
    ("abandon", {}, b'{"x": 1}'),
]
#: The body's own code where it is not MALFORMED_REQUEST: a malformed move, a name against the rule.
BODY_CODES = {"moves": "MALFORMED_MOVE", "seats/1/name": "INVALID_NAME"}
CALLERS = ("host", "table host", "seat 1", "seat 0", "spectator", "revoked", "unknown", "none", "no session")


async def _table(client: httpx.AsyncClient) -> tuple[str, dict[str, str | None]]:
    """A new four-player session and a token of each kind of caller."""
    created = (await client.post("/v1/sessions", json={"players": 4})).json()
    url, host = f"/v1/sessions/{created['session_id']}", {"authorization": "Bearer " + created["host_token"]}
    spectator = (await client.post(url + "/spectators", json={}, headers=host)).json()["spectator_token"]
    revoked = created["seat_tokens"][2]
    assert (await client.post(url + "/seats/2/token", json={}, headers=host)).status_code == 200
    return url, {"host": created["host_token"], "table host": created["table_host_token"],
                 "seat 1": created["seat_tokens"][1], "seat 0": created["seat_tokens"][0], "spectator": spectator,
                 "revoked": revoked, "unknown": "x" * 43, "none": None, "no session": created["host_token"]}


async def test_who_may_not_ask_is_told_so_before_anything_about_its_body(client: httpx.AsyncClient) -> None:
    refused_for_who = 0
    for path, good, bad in OPERATIONS:
        for who in CALLERS:
            url, tokens = await _table(client)
            if who == "no session":
                url = "/v1/sessions/" + "n" * 22
            token = tokens[who]
            headers = {"content-type": "application/json"} | ({} if token is None else
                                                              {"authorization": "Bearer " + token})
            first = await client.post(f"{url}/{path}", content=bad, headers=headers)
            second = await client.post(f"{url}/{path}", json=good, headers=headers)
            if second.status_code in (401, 403, 404):
                refused_for_who += 1
                assert (first.status_code, first.json()["code"]) == (second.status_code, second.json()["code"]), \
                    (path, who, first.text, second.text)
            else:
                assert_problem(first, 400, BODY_CODES.get(path, "MALFORMED_REQUEST"))
    # every kind of refusal for who asks was met: each operation refuses at least the spectator and the
    # strangers (4 kinds), the seat tools and the game's life the seats too
    assert refused_for_who >= len(OPERATIONS) * 5
