"""Redis hung (SIGSTOP) and cut mid-commit: no answer other than a success may say that a move was not applied
when it was.

A real ``redis-server`` of this test's own, reached through a TCP proxy in this process that, while cutting,
drops connections at random: after Redis answered (the commit ran; its answer is lost), or before a command
reached it (it did not run). Then Redis is stopped for a while and resumed, some pauses shorter than the
commit bound plus the follow-up (the follow-up finds out), some longer (the outcome stays unknown). Several
games are played meanwhile, every move with ``If-Match`` and an ``Idempotency-Key``, and every answer is
judged against the session as it is afterwards (its version, read once the store answers again):

* 200: the move was applied (version + 1, the engine's events);
* 503 ``STORE_UNAVAILABLE``: the move was not applied; the version must not have moved, ever (a commit still
  on its way must not apply later either);
* 503 ``COMMIT_OUTCOME_UNKNOWN``: either; the same move is retried with the same key, which must answer the
  first result (``Idempotent-Replayed``) exactly when the move had been applied.

At the end each game's whole event log (its SSE stream) and state are compared with the engine's replay of
the moves answered 200, so nothing was applied twice or behind a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from service.sessions.redis_store import RedisStore
from tests.support import jsonable

from .conftest import SEALER, RedisServer, running_service
from .play import SHORT_GAME, Game, Mirror, move_body, read_stream

GAMES = 4
#: How long the fault phases run (seconds): proxy cuts, then Redis hangs.
CUT_SECONDS = 4.0
HANG_ROUNDS = 4
COMMAND_TIMEOUT = 0.4
RESOLVE_TIMEOUT = 0.4


class CuttingProxy:
    """A TCP proxy to Redis that, while ``cutting``, drops a connection now and then: after Redis answered
    (``cut_reply``: the command ran, its answer is lost) or before forwarding a command (it never ran)."""

    def __init__(self, port: int, rng: random.Random) -> None:
        self.port = port
        self.rng = rng
        self.cutting = False
        self.cut_reply = 0.2
        self.cut_request = 0.05
        #: The first bytes of every answer dropped (``*2\r\n:1\r\n`` starts a commit that was applied).
        self.dropped_replies: list[bytes] = []
        self.dropped_requests = 0
        self.server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"redis://127.0.0.1:{port}/0"

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            client_w.close()
            return

        def cut() -> None:
            client_w.transport.abort()
            up_w.transport.abort()

        async def requests() -> None:
            while data := await client_r.read(65536):
                if self.cutting and self.rng.random() < self.cut_request:
                    self.dropped_requests += 1
                    cut()
                    return
                up_w.write(data)
                await up_w.drain()
            up_w.close()

        async def replies() -> None:
            while data := await up_r.read(65536):
                if self.cutting and self.rng.random() < self.cut_reply:
                    self.dropped_replies.append(data[:8])
                    cut()
                    return
                client_w.write(data)
                await client_w.drain()
            client_w.close()

        with contextlib.suppress(Exception):
            await asyncio.gather(requests(), replies())
        cut()


@pytest.fixture
async def faulty() -> AsyncIterator[tuple[RedisServer, CuttingProxy, str]]:
    redis = RedisServer()
    redis.start()
    proxy = CuttingProxy(redis.port, random.Random(17))
    await proxy.start()
    via_proxy = RedisServer(port=redis.port)  # only its URL is used: the service talks to the proxy
    via_proxy.url = proxy.url
    try:
        async with running_service("redis", via_proxy, prefix="fault2:") as svc:
            store = svc.app.state.sessions.service.store
            assert isinstance(store, RedisStore)
            store.command_timeout, store.resolve_timeout = COMMAND_TIMEOUT, RESOLVE_TIMEOUT
            yield redis, proxy, svc.url
    finally:
        await proxy.stop()
        redis.stop()


class Verdicts:
    """Every answer, judged."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.lies: list[str] = []


async def _settled_version(client: httpx.AsyncClient, g: Game) -> int:
    """The session's version once the store answers again (reads change nothing)."""
    deadline = time.monotonic() + 30
    while True:
        r = await client.get(g.url, headers=g.host)
        if r.status_code == 200:
            return int(r.json()["version"])
        assert r.status_code == 503, r.text
        assert time.monotonic() < deadline, "the store did not come back"
        await asyncio.sleep(0.05)


async def _drive(client: httpx.AsyncClient, games: list[Game], seed: int, stop: asyncio.Event,
                 verdicts: Verdicts) -> None:
    """Play games until ``stop`` (a new one when one ends), judging every answer against the session."""
    rng = random.Random(seed)
    g = await _create(client, seed)
    games.append(g)
    while not stop.is_set():
        if g.mirror.state.to_act is None:
            g = await _create(client, seed + len(games) * 1000)
            games.append(g)
        version = g.mirror.version
        move = g.mirror.choose(rng)
        headers = {**g.seats[move.seat], "If-Match": f'"{version}"', "Idempotency-Key": uuid.uuid4().hex}
        r = await client.post(g.url + "/moves", json=move_body(move), headers=headers)
        code = r.json().get("code") if r.status_code != 200 else None
        if code == "COMMIT_OUTCOME_UNKNOWN":
            # Either way; the same move with the same key, until it is answered, must not move twice (the
            # final comparison of the log with the engine's replay checks that).
            verdicts.counts["503 COMMIT_OUTCOME_UNKNOWN"] += 1
            while code in ("COMMIT_OUTCOME_UNKNOWN", "STORE_UNAVAILABLE"):
                await asyncio.sleep(0.05)
                r = await client.post(g.url + "/moves", json=move_body(move), headers=headers)
                code = r.json().get("code") if r.status_code != 200 else None
            replayed = r.status_code == 200 and r.headers.get("idempotent-replayed") == "true"
            verdicts.counts["  then, same key: " + ("replayed (it had been applied)" if replayed
                                                     else "applied now (it had not been)")] += 1
        elif code == "STORE_UNAVAILABLE":
            verdicts.counts["503 STORE_UNAVAILABLE"] += 1
            now = await _settled_version(client, g)
            if now != version:
                verdicts.lies.append(f"version {version}: answered STORE_UNAVAILABLE, but the session is at "
                                     f"{now}")
                if now != version + 1:
                    return
                g.mirror.apply(move)  # it was applied: go on from there (to count every such answer)
            continue
        if r.status_code != 200:
            raise AssertionError(f"unexpected answer {r.status_code}: {r.text}")
        verdicts.counts["200"] += 1
        body = r.json()
        events = g.mirror.apply(move)
        if body["version"] != version + 1 or body["events"] != jsonable(events_for(events, move.seat)):
            verdicts.lies.append(f"version {version}: a 200 that is not the move's own result")


async def _create(client: httpx.AsyncClient, seed: int) -> Game:
    body = Mirror.create_body(seed=seed, options=SHORT_GAME)
    while True:
        r = await client.post("/v1/sessions", json=body)
        if r.status_code == 201:
            return Game(client, r.json(), Mirror.from_body(body))
        assert r.status_code == 503, r.text
        await asyncio.sleep(0.05)


def events_for(events: list[Any], seat: int) -> list[Any]:
    from engine import redact_events

    return list(redact_events(events, seat))


async def test_no_failure_answer_hides_an_applied_move(faulty: tuple[RedisServer, CuttingProxy, str]) -> None:
    redis, proxy, url = faulty
    assert redis.process is not None
    verdicts = Verdicts()
    rng = random.Random(5)
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        games: list[Game] = []
        stop = asyncio.Event()
        drivers = [asyncio.create_task(_drive(client, games, 100 + i, stop, verdicts)) for i in range(GAMES)]
        await asyncio.sleep(0.5)  # the games are under way
        try:
            # Cuts: the proxy drops connections at random, after Redis answered or before it heard.
            proxy.cutting = True
            await asyncio.sleep(CUT_SECONDS)
            proxy.cutting = False
            # Hangs: Redis stopped past the commit bound; resumed within the follow-up's bound, or after it.
            for i in range(HANG_ROUNDS):
                redis.process.send_signal(signal.SIGSTOP)
                try:
                    short = COMMAND_TIMEOUT + RESOLVE_TIMEOUT / 2
                    await asyncio.sleep(short if i % 2 == 0 else COMMAND_TIMEOUT + RESOLVE_TIMEOUT + 0.6)
                finally:
                    redis.process.send_signal(signal.SIGCONT)
                await asyncio.sleep(0.4 + rng.random() * 0.3)
        finally:
            stop.set()
            await asyncio.gather(*drivers)
        for g in games:
            exported = (await client.get(g.url + "/snapshot", headers=g.host)).json()
            assert exported["version"] == g.mirror.version
            assert SEALER.open(exported["snapshot"]) == g.mirror.state
            events, _ = await read_stream(client, g.url + "/events", headers=g.host, count=len(g.mirror.log))
            assert [e.triple() for e in events] == g.mirror.seen_by(None)
    applied_but_cut = sum(d.startswith(b"*2\r\n:1\r\n") for d in proxy.dropped_replies)
    print(f"\nanswers: {dict(sorted(verdicts.counts.items()))}; proxy dropped {len(proxy.dropped_replies)} "
          f"answers ({applied_but_cut} of them of commits that were applied) and {proxy.dropped_requests} "
          f"commands; lies: {len(verdicts.lies)}")
    assert not verdicts.lies, verdicts.lies
    assert applied_but_cut > 0, "no applied commit lost its answer: the follow-up was not exercised"
    assert verdicts.counts["503 STORE_UNAVAILABLE"] > 0 and verdicts.counts["503 COMMIT_OUTCOME_UNKNOWN"] > 0
