"""The session event stream works for a browser's EventSource.

- every game event is an unnamed message (``onmessage`` receives it), its data ``{version, to_act, event}``;
- a finished game's stream ends with a named ``end`` event, and a reader reconnecting with the last event id is
  answered 204 (the SSE standard's "stop reconnecting");
- the session token and the API key can travel in the query (``access_token``, ``api_key``: EventSource cannot
  send headers), and neither ever reaches a log line.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from engine import redact_events
from service.app import create_app
from service.config import Settings
from tests.sessions.play import SHORT_GAME, Mirror
from tests.support import jsonable, records_of

from .conftest import KEY_A
from .helpers import Client


def parse(text: str) -> list[dict[str, Any]]:
    """The frames of an event stream, each as its fields (``data`` decoded); comments left out."""
    frames = []
    for block in text.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            if line.startswith(":") or not line:
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        if "data" in fields:
            fields["data"] = json.loads(fields["data"])
            frames.append(fields)
    return frames


def play_to_the_end(client: Client, headers: dict[str, str] | None = None) -> tuple[dict[str, Any], Mirror,
                                                                                     dict[int, int | None]]:
    """A short session played to game over through the API; the engine mirror; the seat to act per version."""
    body = Mirror.create_body(seed=7, options=SHORT_GAME)
    created = client.post("/v1/sessions", json=body, headers=headers).json()
    mirror = Mirror.from_body(body)
    turns: dict[int, int | None] = {1: mirror.state.to_act}
    rng = random.Random(5)
    while mirror.state.phase != "game_over":
        move = mirror.choose(rng)
        seat = move.seat
        response = client.post(f"/v1/sessions/{created['session_id']}/moves", json={"move": jsonable(move)},
                               headers={**(headers or {}), "authorization": f"Bearer {created['seat_tokens'][seat]}"})
        assert response.status_code == 200, response.text
        mirror.apply(move)
        turns[mirror.version] = mirror.state.to_act
    return created, mirror, turns


@pytest.fixture(scope="module")
def finished(client: Client) -> tuple[dict[str, Any], Mirror, dict[int, int | None]]:
    return play_to_the_end(client)


def test_game_events_are_unnamed_messages_with_version_and_to_act(
        client: Client, finished: tuple[dict[str, Any], Mirror, dict[int, int | None]]) -> None:
    created, mirror, turns = finished
    response = client.get(f"/v1/sessions/{created['session_id']}/events",
                          headers={"authorization": f"Bearer {created['seat_tokens'][1]}"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    assert response.text.startswith("retry: 1000\n\n")
    frames = parse(response.text)
    *events, end = frames
    assert all("event" not in f for f in events)  # onmessage sees every game event
    assert [(f["id"], f["data"]["event"]) for f in events] == [
        (event_id, jsonable(redact_events([e], 1)[0])) for event_id, e in mirror.log]
    for frame in events:
        version = int(frame["id"].split("-")[0])
        assert frame["data"]["version"] == version
        assert frame["data"]["to_act"] == turns[version], frame
    assert end == {"event": "end", "data": {"version": mirror.version, "to_act": None}}
    assert "id" not in end  # Last-Event-ID stays the last game event's


def test_a_reconnect_after_the_end_is_204_and_an_earlier_one_resumes(
        client: Client, finished: tuple[dict[str, Any], Mirror, dict[int, int | None]]) -> None:
    created, mirror, _ = finished
    url = f"/v1/sessions/{created['session_id']}/events"
    host = {"authorization": f"Bearer {created['host_token']}"}
    last_id = mirror.log[-1][0]
    again = client.get(url, headers={**host, "Last-Event-ID": last_id})
    assert again.status_code == 204 and again.text == ""
    assert client.get(url + f"?last_event_id={last_id}", headers=host).status_code == 204
    resume_at = mirror.log[-4][0]
    resumed = parse(client.get(url, headers={**host, "Last-Event-ID": resume_at}).text)
    assert [f.get("id") for f in resumed] == [event_id for event_id, _ in mirror.log[-3:]] + [None]
    assert resumed[-1]["event"] == "end"


@pytest.fixture(scope="module")
def keyed_client() -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(Settings(snapshot_keys=(KEY_A,), api_keys=("integrator-key-1",)))) as client:
        yield client


def test_an_event_source_authenticates_with_query_parameters_never_logged(keyed_client: Client) -> None:
    key = {"x-api-key": "integrator-key-1"}
    created, mirror, _ = play_to_the_end(keyed_client, key)
    token = created["seat_tokens"][0]
    url = f"/v1/sessions/{created['session_id']}/events"
    assert keyed_client.get(url + f"?access_token={token}").json()["code"] == "API_KEY_REQUIRED"
    assert keyed_client.get(url + f"?access_token={token}&api_key=wrong").json()["code"] == "API_KEY_INVALID"
    assert keyed_client.get(url + "?api_key=integrator-key-1").json()["code"] == "UNAUTHORIZED"
    with records_of("fivehundred.access", logging.DEBUG) as access, records_of("", logging.DEBUG) as root:
        response = keyed_client.get(url + f"?access_token={token}&api_key=integrator-key-1")
    assert response.status_code == 200
    assert len(parse(response.text)) == len(mirror.log) + 1
    logged = " ".join(f"{r.getMessage()} {r.__dict__}" for r in [*access, *root])
    assert access and token not in logged and "integrator-key-1" not in logged
    # Only the event stream takes the key in the query.
    rules = keyed_client.get("/v1/rules?api_key=integrator-key-1")
    assert rules.status_code == 401 and rules.json()["code"] == "API_KEY_REQUIRED"
