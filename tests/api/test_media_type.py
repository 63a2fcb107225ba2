"""Every operation that takes a body requires ``Content-Type: application/json``: anything else is a 415 problem,
before the body is read (so a cross-site form, which needs no CORS preflight, cannot create games or sessions)."""

from __future__ import annotations

import pytest

from tests.support import assert_problem

from .helpers import Client

BODY = b'{"players": 4, "seed": 42}'
NOT_JSON = [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
            "application/xml", "text/json", "application/jsonp"]


@pytest.mark.parametrize("content_type", NOT_JSON)
@pytest.mark.parametrize("path", ["/v1/games", "/v1/sessions"])
def test_a_create_without_json_is_415(client: Client, path: str, content_type: str | None) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    body = assert_problem(client.post(path, content=BODY, headers=headers), 415, "UNSUPPORTED_MEDIA_TYPE")
    assert "application/json" in body["detail"]


@pytest.mark.parametrize("content_type", ["text/plain", None])
def test_the_apply_fast_path_and_the_session_move_refuse_non_json_too(client: Client,
                                                                      content_type: str | None) -> None:
    created = client.post("/v1/games", json={"players": 4, "seed": 42}).json()
    move = {"type": "pass", "seat": created["to_act"]}
    headers = {} if content_type is None else {"content-type": content_type}
    apply = b'{"snapshot": "%s", "move": {"type": "pass", "seat": %d}}' % (created["snapshot"].encode(),
                                                                           move["seat"])
    assert_problem(client.post("/v1/games/apply", content=apply, headers=headers), 415, "UNSUPPORTED_MEDIA_TYPE")
    session = client.post("/v1/sessions", json={"players": 4, "seed": 42, "known_deal": True}).json()
    seat = session["to_act"]
    response = client.post(f"/v1/sessions/{session['session_id']}/moves",
                           content=b'{"move": {"type": "pass", "seat": %d}}' % seat,
                           headers={**headers, "authorization": f"Bearer {session['seat_tokens'][seat]}"})
    assert_problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")
    # Nothing was applied: the session is still at version 1.
    state = client.get(f"/v1/sessions/{session['session_id']}",
                       headers={"authorization": f"Bearer {session['host_token']}"})
    assert state.json()["version"] == 1


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "Application/JSON"])
def test_json_with_parameters_or_any_case_is_accepted(client: Client, content_type: str) -> None:
    response = client.post("/v1/games", content=BODY, headers={"content-type": content_type})
    assert response.status_code == 201, response.text
    created = response.json()
    apply = b'{"snapshot": "%s", "move": {"type": "pass", "seat": %d}}' % (created["snapshot"].encode(),
                                                                           created["to_act"])
    assert client.post("/v1/games/apply", content=apply, headers={"content-type": content_type}).status_code == 200
