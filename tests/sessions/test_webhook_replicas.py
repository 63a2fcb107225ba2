"""Webhooks across real processes: three uvicorn replicas on one real, persistent ``redis-server`` (every write
in its append-only file before the reply) and a real receiver on 127.0.0.1 that verifies every signature with
the Standard Webhooks library. Fifty games, each played by the turn clock for a seat that never moves and by
three bots, each with a webhook for the public's events: every event of every game reaches its webhook, in the
log's order, and a message that comes twice comes with the same id and the same body; then the same with a
replica killed mid-game, and with Redis restarted mid-game (the deliveries' state lives in Redis, not in a
process)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.redis_server import RedisServer
from tests.support import bearer

from .clock_replicas import ABSENT_PLAYER, live_clients, replicas, wait_for
from .conftest import ServiceProcess
from .webhook_receiver import Receiver, receiver

pytestmark = pytest.mark.slow

#: The replicas' webhook settings: the receiver on 127.0.0.1 over http; quick passes; a dead replica's claims
#: lapse within a second.
HOOK_ENV = {"WEBHOOK_HOSTS": "127.0.0.1", "WEBHOOK_ALLOW_HTTP": "true", "WEBHOOK_ALLOW_PRIVATE": "true",
            "WEBHOOK_POLL_SECONDS": "0.05", "WEBHOOK_CLAIM_SECONDS": "1", "WEBHOOK_CLOCK_LOW_SECONDS": "0"}
MOVE_SECONDS = 0.1


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisServer, list[ServiceProcess]]]:
    redis = RedisServer(persist_dir=Path(tmp_path_factory.mktemp("hook-redis")))
    redis.start()
    try:
        with replicas(redis, prefix="hooks:", env=HOOK_ENV) as procs:
            yield redis, procs
    finally:
        redis.stop()


@pytest.fixture
async def clients(three: tuple[RedisServer, list[ServiceProcess]]) -> AsyncIterator[list[httpx.AsyncClient]]:
    async with live_clients(three[1]) as out:
        yield out


@pytest.fixture
async def hooks() -> AsyncIterator[Receiver]:
    async with receiver() as r:
        yield r


async def _games(clients: list[httpx.AsyncClient], hooks: Receiver, count: int) -> list[dict[str, Any]]:
    """``count`` games, each created, given a webhook and started through another replica."""

    async def one(i: int) -> dict[str, Any]:
        client = clients[i % len(clients)]
        body = {**ABSENT_PLAYER, "start": "host", "clock": {"move_seconds": MOVE_SECONDS, "bot": "random"}}
        created = (await client.post("/v1/sessions", json=body)).json()
        url = f"/v1/sessions/{created['session_id']}"
        r = await clients[(i + 1) % len(clients)].post(url + "/webhooks", json={"url": hooks.url},
                                                         headers=bearer(created["host_token"]))
        assert r.status_code == 201, r.text
        hooks.secrets[r.json()["webhook_id"]] = r.json()["secret"]
        r = await clients[(i + 2) % len(clients)].post(url + "/start", json={}, headers=bearer(created["host_token"]))
        assert r.status_code == 200, r.text
        return dict(created)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def _check_delivered(clients: list[httpx.AsyncClient], hooks: Receiver, games: list[dict[str, Any]],
                           timeout: float = 120) -> int:
    """Every game over, and every event of each delivered to its webhook, in order; answers the messages."""
    for created in games:
        try:
            await wait_for(clients, created, lambda body: body["view"]["phase"] == "game_over", timeout=timeout)
        except TimeoutError:
            raise AssertionError(f"session {created['session_id']} did not end") from None
    expected: dict[str, list[dict[str, Any]]] = {}
    for created in games:
        url = f"/v1/sessions/{created['session_id']}"
        listed = (await clients[0].get(url + "/webhooks", headers=bearer(created["host_token"]))).json()
        hook = listed["webhooks"][0]
        r = await clients[-1].get(url + "/events/catch-up", params={"after": str(hook["since"])},
                                  headers=bearer(created["host_token"]))
        expected[hook["webhook_id"]] = r.json()["events"]

    def firsts(hook: str) -> list[dict[str, Any]]:
        seen: dict[str, dict[str, Any]] = {}
        for m in hooks.taken(hook):
            seen.setdefault(m.id, m.body["data"])
        return list(seen.values())

    try:
        await hooks.wait_for(lambda: all(len(firsts(h)) >= len(e) for h, e in expected.items()), timeout=timeout)
    except TimeoutError:
        short = {h: (len(firsts(h)), len(e)) for h, e in expected.items() if len(firsts(h)) < len(e)}
        raise AssertionError(f"webhooks short of their events (got, logged): {short}") from None
    assert not hooks.rejected
    for hook, events in expected.items():
        got = [{k: d[k] for k in ("id", "version", "event", "to_act", "deadline") if k in d} for d in firsts(hook)]
        assert got == events  # every event, in the log's order (by first arrival)
        arrived = [m.body["data"]["id"] for m in hooks.taken(hook)]
        order = {e["id"]: i for i, e in enumerate(events)}
        last = -1
        for event_id in arrived:  # a repeat only ever re-sends from where a claim lapsed, never skips ahead
            assert order[event_id] <= last + 1, (hook, arrived)
            last = max(last, order[event_id])
    by_id: dict[str, bytes] = {}
    for m in hooks.taken():  # a message that came twice came with the same id and the same event
        data = repr({k: v for k, v in m.body["data"].items()})
        assert by_id.setdefault(m.id, data.encode()) == data.encode(), m.id
    return len(hooks.taken())


async def test_fifty_games_every_event_reaches_its_webhook_in_order(clients: list[httpx.AsyncClient],
                                                                   hooks: Receiver) -> None:
    games = await _games(clients, hooks, 50)
    delivered = await _check_delivered(clients, hooks, games)
    assert delivered >= 50 * 20


async def test_redis_restarted_mid_game(three: tuple[RedisServer, list[ServiceProcess]],
                                        clients: list[httpx.AsyncClient], hooks: Receiver) -> None:
    redis = three[0]
    games = await _games(clients, hooks, 10)
    await hooks.wait_for(lambda: len(hooks.taken()) >= 40)
    redis.stop()  # kill -9: every acknowledged write is in the append-only file
    redis.start()
    await _check_delivered(clients, hooks, games)


async def test_a_replica_killed_mid_game(three: tuple[RedisServer, list[ServiceProcess]],
                                         clients: list[httpx.AsyncClient], hooks: Receiver) -> None:
    victim = three[1][1]
    games = await _games(clients, hooks, 10)
    await hooks.wait_for(lambda: len(hooks.taken()) >= 40)
    assert victim.process is not None
    victim.process.kill()  # kill -9, claims and all (the module's last test: the others need all three)
    victim.process.wait()
    await _check_delivered([clients[0], clients[2]], hooks, games)
