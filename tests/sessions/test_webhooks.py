"""Webhooks (service/sessions/webhooks.py, service/sessions/deliverer.py) over both stores, against a real
receiver that verifies every signature with the Standard Webhooks library (tests/sessions/webhook_receiver.py).

Every event of a game reaches the public's webhook exactly as the public's catch-up shows it, and the seat's
webhook exactly as the seat's own catch-up shows it (so a webhook shows what its credential may see, no more),
in order, each message's ``webhook-id`` its webhook's and its event's; a receiver that fails gets the same
messages again, with the same ids, in order; one that fails for longer than the retries is disabled with an
event; refused URLs and callers; a seat's webhook stops when the seat changes hands; the clock's notice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.redis_server import RedisServer
from tests.support import assert_problem, bearer

from .conftest import Service, running_service
from .webhook_receiver import Receiver, receiver

#: A game the turn clock plays for seat 0 while three bots play the rest: one hand or so.
GAME = {"players": 4, "options": {"target": 10, "lose_at": -10, "misere_enabled": False},
        "bots": {"1": "random", "2": "random", "3": "random"}, "start": "host",
        "clock": {"move_seconds": 0.05, "bot": "random"}}
#: The service's webhook settings here: the receiver on 127.0.0.1 over http, passes every 20 ms.
HOOKS = {"webhook_hosts": ("127.0.0.1",), "webhook_allow_http": True, "webhook_allow_private": True,
         "webhook_poll_seconds": 0.02, "webhook_claim_seconds": 5.0, "clock_min_move_seconds": 0.05,
         "clock_poll_seconds": 0.02}


@pytest.fixture
async def hooked(store_kind: str, store_redis: RedisServer | None) -> AsyncIterator[Service]:
    async with running_service(store_kind, store_redis, **HOOKS) as svc:
        yield svc


@pytest.fixture
async def client(hooked: Service) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=hooked.url, timeout=10) as c:
        yield c


@pytest.fixture
async def hooks() -> AsyncIterator[Receiver]:
    async with receiver() as r:
        yield r


async def _register(client: httpx.AsyncClient, url: str, token: str, hooks: Receiver,
                    **body: Any) -> dict[str, Any]:
    r = await client.post(url + "/webhooks", json={"url": hooks.url, **body}, headers=bearer(token))
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["secret"].startswith("whsec_") and r.headers["etag"] == f'"{created["version"]}"'
    hooks.secrets[created["webhook_id"]] = created["secret"]
    return dict(created)


async def _game_over(client: httpx.AsyncClient, url: str, token: str, timeout: float = 60) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            body = (await client.get(url, headers=bearer(token))).json()
            if body["view"]["phase"] == "game_over":
                return dict(body)
            await asyncio.sleep(0.05)


async def _catch_up(client: httpx.AsyncClient, url: str, token: str, after: int) -> list[dict[str, Any]]:
    r = await client.get(url + "/events/catch-up", params={"after": str(after)}, headers=bearer(token))
    assert r.status_code == 200 and r.json()["complete"], r.text
    return list(r.json()["events"])


def _as_logged(message: dict[str, Any]) -> dict[str, Any]:
    data = message["data"]
    return {k: data[k] for k in ("id", "version", "event", "to_act", "deadline") if k in data}


async def test_every_event_reaches_each_webhook_signed_in_order_as_its_credential_sees_it(
        client: httpx.AsyncClient, hooks: Receiver) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url, host, seat = f"/v1/sessions/{created['session_id']}", created["host_token"], created["seat_tokens"][0]
    public = await _register(client, url, host, hooks)
    own = await _register(client, url, seat, hooks)
    assert own["seat"] == 0 and public["seat"] is None
    assert (await client.post(url + "/start", json={}, headers=bearer(host))).status_code == 200
    over = await _game_over(client, url, host)
    await _catch_up(client, url, seat, own["version"])  # the seat's token brings it back (seat_back), once
    expected = {public["webhook_id"]: await _catch_up(client, url, host, public["version"]),
                own["webhook_id"]: await _catch_up(client, url, seat, own["version"])}
    await hooks.wait_for(lambda: all(len(hooks.taken(h)) >= len(events) for h, events in expected.items()))
    assert not hooks.rejected
    for hook, events in expected.items():
        got = hooks.taken(hook)
        assert [_as_logged(m.body) for m in got] == events  # every event, once, in order, as the credential sees it
        assert [m.id for m in got] == [f"{hook}_{e['id']}" for e in events]
        assert all(m.body["type"] == f"session.{m.body['data']['event']['type']}" for m in got)
    assert len(expected[public["webhook_id"]]) > 40 and over["version"] > 40
    listed = (await client.get(url + "/webhooks", headers=bearer(host))).json()["webhooks"]
    assert [h["webhook_id"] for h in listed] == [public["webhook_id"]] and "secret" not in listed[0]
    assert listed[0]["delivered"] == expected[public["webhook_id"]][-1]["id"]


async def test_a_failing_receiver_gets_the_same_messages_again_with_the_same_ids_in_order(
        client: httpx.AsyncClient, hooks: Receiver) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url, host = f"/v1/sessions/{created['session_id']}", created["host_token"]
    public = await _register(client, url, host, hooks)
    hooks.fail = 2  # the first two messages are answered 500: retried after 1 s, then 2 s
    assert (await client.post(url + "/start", json={}, headers=bearer(host))).status_code == 200
    await _game_over(client, url, host)
    events = await _catch_up(client, url, host, public["version"])
    await hooks.wait_for(lambda: len(hooks.taken(public["webhook_id"])) >= len(events), timeout=30)
    got = hooks.taken(public["webhook_id"])
    assert [_as_logged(m.body) for m in got] == events  # all, once each taken, in order
    refused = [m for m in hooks.received if m.status >= 500]
    assert [m.id for m in refused] == [got[0].id, got[0].id]  # the first event, twice, then taken: same id
    assert got[0].at - refused[0].at >= 2.5  # backed off: 1 s, then 2 s
    listed = (await client.get(url + "/webhooks", headers=bearer(host))).json()["webhooks"]
    assert listed[0]["attempts"] == 0 and listed[0]["failing_since"] is None


async def test_a_receiver_failing_longer_than_the_retries_is_disabled_with_an_event(
        store_kind: str, store_redis: RedisServer | None, hooks: Receiver) -> None:
    if store_kind == "cluster":
        pytest.skip("the cluster's store is the Redis store's: its webhook index is tested by the tests above")
    async with running_service(store_kind, store_redis, **{**HOOKS, "webhook_retry_seconds": 1.5}) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=10) as client:
        created = (await client.post("/v1/sessions", json=GAME)).json()
        url, host = f"/v1/sessions/{created['session_id']}", created["host_token"]
        hooks.down = True
        public = await _register(client, url, host, hooks)
        assert (await client.post(url + "/start", json={}, headers=bearer(host))).status_code == 200
        async with asyncio.timeout(20):
            while (await client.get(url + "/webhooks", headers=bearer(host))).json()["webhooks"]:
                await asyncio.sleep(0.1)
        await _game_over(client, url, host)
        log = await _catch_up(client, url, host, public["version"])
        disabled = [e["event"] for e in log if e["event"]["type"] == "webhook_disabled"]
        assert len(disabled) == 1 and disabled[0]["webhook_id"] == public["webhook_id"]
        assert disabled[0]["reason"] == "failing" and disabled[0]["undelivered"] >= 1
        attempts = len(hooks.received)
        assert attempts >= 2 and all(m.status == 503 for m in hooks.received)
        metrics = (await client.get("/metrics")).text
        assert "webhooks_disabled_total 1.0" in metrics
        await asyncio.sleep(0.5)
        assert len(hooks.received) == attempts  # nothing more is sent to it


async def test_urls_and_callers_a_webhook_may_not_have(client: httpx.AsyncClient, hooks: Receiver) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url, host = f"/v1/sessions/{created['session_id']}", bearer(created["host_token"])
    spectator = (await client.post(url + "/spectators", json={}, headers=host)).json()["spectator_token"]
    r = await client.post(url + "/webhooks", json={"url": hooks.url}, headers=bearer(spectator))
    assert_problem(r, 403, "FORBIDDEN")
    for bad in ("http://example.com/hooks",  # a host not in WEBHOOK_HOSTS
                "http://user:pw@127.0.0.1:9/hooks", "ftp://127.0.0.1/hooks", "http:///nohost", "not a url",
                "http://127.0.0.1:0/hooks", "http://127.0.0.1/hooks#x"):
        r = await client.post(url + "/webhooks", json={"url": bad}, headers=host)
        assert_problem(r, 400, "MALFORMED_REQUEST")
        assert r.json()["field"] == "url", bad
    r = await client.post(url + "/webhooks", json={"url": hooks.url, "events": ["bid_made", "shuffled"]},
                          headers=host)
    assert_problem(r, 400, "MALFORMED_REQUEST")
    assert r.json()["field"] == "events" and "shuffled" in r.json()["detail"]
    for _ in range(8):
        await _register(client, url, created["host_token"], hooks)
    assert_problem(await client.post(url + "/webhooks", json={"url": hooks.url}, headers=host), 403, "FORBIDDEN")
    listed = (await client.get(url + "/webhooks", headers=host)).json()["webhooks"]
    assert len(listed) == 8
    gone = listed[0]["webhook_id"]
    assert (await client.delete(f"{url}/webhooks/{gone}", headers=host)).status_code == 204
    assert_problem(await client.delete(f"{url}/webhooks/{gone}", headers=host), 404, "NOT_FOUND")
    # A seat neither sees nor removes the public's webhooks.
    seat = bearer(created["seat_tokens"][0])
    assert (await client.get(url + "/webhooks", headers=seat)).json()["webhooks"] == []
    assert_problem(await client.delete(f"{url}/webhooks/{listed[1]['webhook_id']}", headers=seat), 404, "NOT_FOUND")


@pytest.mark.parametrize(("env", "bad"), [
    ({"webhook_hosts": ()}, None),  # the operator allows no host: webhooks are off
    ({"webhook_allow_private": False}, "loopback"),
    ({"webhook_allow_http": False}, "http"),
])
async def test_the_operators_rules_refuse_urls(store_kind: str, env: dict[str, Any], bad: str | None,
                                               hooks: Receiver) -> None:
    if store_kind != "memory":
        pytest.skip("the operator's rules are the store's neither")
    async with running_service("memory", None, **{**HOOKS, **env}) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=10) as client:
        created = (await client.post("/v1/sessions", json=GAME)).json()
        url, host = f"/v1/sessions/{created['session_id']}", bearer(created["host_token"])
        r = await client.post(url + "/webhooks", json={"url": hooks.url}, headers=host)
        if bad is None:
            assert_problem(r, 403, "FORBIDDEN")
        else:
            assert_problem(r, 400, "MALFORMED_REQUEST")
            assert bad in r.json()["detail"] or "https" in r.json()["detail"], r.text


async def test_a_seats_webhook_stops_when_the_seat_changes_hands(client: httpx.AsyncClient, hooks: Receiver) -> None:
    created = (await client.post("/v1/sessions", json=GAME)).json()
    url, host = f"/v1/sessions/{created['session_id']}", created["host_token"]
    own = await _register(client, url, created["seat_tokens"][0], hooks)
    assert (await client.post(url + "/seats/0/token", json={}, headers=bearer(host))).status_code == 200
    assert (await client.post(url + "/start", json={}, headers=bearer(host))).status_code == 200
    await _game_over(client, url, host)
    log: list[dict[str, Any]] = []
    async with asyncio.timeout(10):
        while not [e for e in log if e["event"]["type"] == "webhook_disabled"]:
            await asyncio.sleep(0.05)
            log = await _catch_up(client, url, host, own["version"])
    stopped = next(e["event"] for e in log if e["event"]["type"] == "webhook_disabled")
    assert stopped["webhook_id"] == own["webhook_id"] and stopped["reason"] == "seat_changed_hands"
    # It got the reissue's own event at most (logged before the deliverer saw the seat change hands), never a move
    # made while the new token held the seat.
    assert all(m.body["data"]["event"]["type"] == "seat_token_reissued" for m in hooks.received), \
        [(m.body["data"]["id"], m.body["data"]["event"]["type"]) for m in hooks.received]


async def test_the_clock_low_notice_comes_once_per_turn_before_the_deadline(
        store_kind: str, store_redis: RedisServer | None, hooks: Receiver) -> None:
    if store_kind == "cluster":
        pytest.skip("the cluster's store is the Redis store's: its webhook index is tested by the tests above")
    async with running_service(store_kind, store_redis, **{**HOOKS, "webhook_clock_low_seconds": 0.2}) as svc, \
            httpx.AsyncClient(base_url=svc.url, timeout=10) as client:
        game = {**GAME, "clock": {"move_seconds": 0.6, "bot": "random"}}
        created = (await client.post("/v1/sessions", json=game)).json()
        url, host = f"/v1/sessions/{created['session_id']}", created["host_token"]
        own = await _register(client, url, created["seat_tokens"][0], hooks, events=["clock_low", "move_timed_out"])
        assert (await client.post(url + "/start", json={}, headers=bearer(host))).status_code == 200
        await hooks.wait_for(lambda: len([m for m in hooks.taken() if m.body["type"] == "session.move_timed_out"])
                             >= 2, timeout=20)
        got = hooks.taken(own["webhook_id"])
        lows = [m for m in got if m.body["type"] == "session.clock_low"]
        timeouts = [m for m in got if m.body["type"] == "session.move_timed_out"]
        assert len(lows) >= 2 and len({m.id for m in lows}) == len(lows)  # one per turn, each its own id
        first_low, first_timeout = lows[0].body["data"], timeouts[0].body["data"]
        assert first_low["id"].endswith("-low") and first_low["event"]["seat"] == 0
        assert first_low["event"]["deadline"] == first_timeout["event"]["deadline"]  # that turn's deadline
        assert lows[0].at < timeouts[0].at  # before the clock moved for the seat
