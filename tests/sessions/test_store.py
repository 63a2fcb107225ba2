"""The store contract, run against both backends: compare-and-set, idempotency records, the log, expiry."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from engine import Event, Move, Options, apply_move, legal_moves, new_game
from service.sessions import MemoryStore, RedisStore, SessionStore
from service.sessions import memory as memory_module
from service.sessions import redis_store as redis_module
from service.sessions.store import (
    EVENTS_PER_READ,
    LOG_START,
    Committed,
    Conflict,
    Gone,
    IdempotencyRecord,
    Replayed,
    SessionRecord,
    StoreUnavailable,
    new_tag,
)

from .conftest import REDIS_FIXTURES, STORE_KINDS, RedisServer, running_service
from .play import Game, move_body

AUTH = bytes(32 * 5)


@pytest.fixture(params=STORE_KINDS)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[SessionStore]:
    s: SessionStore
    if request.param == "memory":
        s = MemoryStore(idle_seconds=60)
    else:  # only the Redis store's tests start a redis-server (or a cluster)
        redis_server: RedisServer = request.getfixturevalue(REDIS_FIXTURES[request.param])
        s = RedisStore(redis_server.url, 60, prefix=f"st{uuid.uuid4().hex[:8]}:", max_wait=5)
    await s.open()
    yield s
    await s.close()


def _game() -> tuple[SessionRecord, list[Event]]:
    state, events = new_game(Options(), seed=99, first_dealer=0)
    return SessionRecord(1, state, AUTH, new_tag()), list(events)


async def _play(store: SessionStore, sid: str, base: SessionRecord, n: int) -> SessionRecord:
    """``n`` moves committed one after the other from ``base``; the last record."""
    for _ in range(n):
        state, events = apply_move(base.state, legal_moves(base.state)[0])
        done = await store.commit(sid, base, state, events)
        assert isinstance(done, Committed) and done.version == base.version + 1
        base = SessionRecord(done.version, state, base.auth, done.tag)
    return base


async def test_create_is_all_or_nothing_and_ids_are_unique(store: SessionStore) -> None:
    record, events = _game()
    assert await store.create("a" * 22, record, events)
    assert not await store.create("a" * 22, record, [])
    loaded = await store.load("a" * 22)
    assert loaded is not None and loaded.record == record and loaded.replay is None
    assert [(e.version, e.seq, e.event) for e in await store.read_events("a" * 22, LOG_START, 0)] == [
        (1, i, e) for i, e in enumerate(events)]
    assert await store.load("b" * 22) is None


async def test_compare_and_set(store: SessionStore) -> None:
    record, _ = _game()
    sid = uuid.uuid4().hex
    await store.create(sid, record, [])
    state, events = apply_move(record.state, legal_moves(record.state)[0])
    done = await store.commit(sid, record, state, events)
    assert isinstance(done, Committed) and done.version == 2 and done.tag != record.tag
    current = SessionRecord(2, state, AUTH, done.tag, game_version=2)  # a move: a change of the game
    # Lost: the answer is the current record, so the caller can retry without reading.
    assert await store.commit(sid, record, state, events) == Conflict(current)
    # The same version with another tag (a store that lost data and got there another way) is not current.
    forged = SessionRecord(2, state, AUTH, new_tag())
    assert await store.commit(sid, forged, state, events) == Conflict(current)
    loaded = await store.load(sid)
    assert loaded is not None and loaded.record == current
    assert [(e.version, e.seq) for e in await store.read_events(sid, LOG_START, 0)] == [
        (2, i) for i in range(len(events))]
    assert await store.commit("gone" * 6, current, state, events) == Gone()


async def test_the_table_is_kept_and_changed_only_with_a_commit(store: SessionStore) -> None:
    record, _ = _game()
    record = SessionRecord(1, record.state, AUTH, record.tag, table=b"table-1")
    sid = uuid.uuid4().hex
    await store.create(sid, record, [])
    loaded = await store.load(sid)
    assert loaded is not None and loaded.record.table == b"table-1"
    assert (await store.load(sid, "0:k", seat=0)).record.table == b"table-1"  # type: ignore[union-attr]
    # A move keeps the table; a change of the table is a commit of its own (a new version, the same state).
    state, events = apply_move(record.state, legal_moves(record.state)[0])
    done = await store.commit(sid, record, state, events)
    assert isinstance(done, Committed)
    moved = SessionRecord(done.version, state, AUTH, done.tag, table=b"table-1", game_version=done.version)
    assert (await store.load(sid)).record == moved  # type: ignore[union-attr]
    changed = await store.commit(sid, moved, state, [], table=b"table-2")
    assert isinstance(changed, Committed) and changed.version == 3
    # the game is as version 2 made it: a move chosen at version 2 or 3 was chosen on the same game
    current = SessionRecord(3, state, AUTH, changed.tag, table=b"table-2", game_version=2)
    assert (await store.load(sid)).record == current  # type: ignore[union-attr]
    assert current.game_since == 2
    # A stale change of the table loses, and the answer carries the current table.
    assert await store.commit(sid, moved, state, [], table=b"table-3") == Conflict(current)


async def test_idempotency_records_replay_and_are_bounded(store: SessionStore,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_module, "IDEMPOTENCY_RECORDS_KEPT", 3)
    monkeypatch.setattr(redis_module, "IDEMPOTENCY_RECORDS_KEPT", 3)
    record, _ = _game()
    sid = uuid.uuid4().hex
    await store.create(sid, record, [])
    base = record
    for v in range(1, 6):
        first = IdempotencyRecord(b"fp", v + 1, b"body%d" % v)
        state, events = apply_move(base.state, legal_moves(base.state)[0])
        done = await store.commit(sid, base, state, events, (f"0:k{v}", first))
        assert isinstance(done, Committed) and done.version == v + 1
        # The same key again, even at a stale version, answers the first record.
        assert await store.commit(sid, base, state, events, (f"0:k{v}", first)) == Replayed(first)
        base = SessionRecord(done.version, state, AUTH, done.tag)
    kept = [(await store.load(sid, f"0:k{v}")) for v in range(1, 6)]
    assert [k.replay is not None for k in kept if k is not None] == [False, False, True, True, True]


async def test_log_reads_are_bounded_and_wait_for_new_events(store: SessionStore) -> None:
    record, events = _game()
    sid = uuid.uuid4().hex
    await store.create(sid, record, events)
    base = await _play(store, sid, record, 59)
    everything = []
    cursor = LOG_START
    while batch := await store.read_events(sid, cursor, 0):
        assert len(batch) <= EVENTS_PER_READ
        everything.extend(batch)
        cursor = batch[-1].version, batch[-1].seq
    assert len(everything) > EVENTS_PER_READ
    assert [(e.version, e.seq) for e in everything] == sorted({(e.version, e.seq) for e in everything})
    # Nothing new: a read waits, and wakes as soon as a change is committed.
    started = time.monotonic()
    assert await store.read_events(sid, cursor, 0.2) == []
    assert time.monotonic() - started >= 0.15
    waiter = asyncio.create_task(store.read_events(sid, cursor, 5))
    await asyncio.sleep(0.1)
    state, evs = apply_move(base.state, legal_moves(base.state)[0])
    started = time.monotonic()
    await store.commit(sid, base, state, evs)
    woken = await asyncio.wait_for(waiter, 5)
    assert time.monotonic() - started < 1 and [e.event for e in woken] == evs


async def test_every_key_of_a_session_carries_the_idle_ttl(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, 30, prefix=f"ttl{uuid.uuid4().hex[:8]}:")
    try:
        record, events = _game()
        sid = uuid.uuid4().hex
        await store.create(sid, record, events)
        state, evs = apply_move(record.state, legal_moves(record.state)[0])
        await store.commit(sid, record, state, evs, ("0:k", IdempotencyRecord(b"f", 2, b"b")))
        sync = redis_server.sync_client()
        ttls = [sync.pttl(k) for k in store.keys(sid)]
        assert all(25_000 < t <= 30_000 for t in ttls), ttls
        assert await store.delete(sid)
        assert sync.exists(*store.keys(sid)) == 0
    finally:
        await store.close()


async def test_redis_round_trips_per_move(redis_server: RedisServer) -> None:
    """What one move over HTTP sends to Redis, counted on the client side (every command goes through
    ``execute_command``) and cross-checked with ``INFO commandstats``: one compare-and-set when the replica
    remembers the current record, a read (or a lost compare-and-set answering the current record) and a
    compare-and-set otherwise; never more."""
    prefix = f"rt{uuid.uuid4().hex[:8]}:"
    async with running_service("redis", redis_server, prefix=prefix) as a, \
            running_service("redis", redis_server, prefix=prefix) as b, \
            httpx.AsyncClient(base_url=a.url) as via_a, httpx.AsyncClient(base_url=b.url) as via_b:
        sent = {a.url: _count_commands(a), b.url: _count_commands(b)}
        g = await Game.create(via_a)
        sync = redis_server.sync_client()
        rng = random.Random(0)

        async def move(client: httpx.AsyncClient, chosen: Move | None = None,
                       headers: dict[str, str] | None = None, replaying: bool = False) -> list[str]:
            chosen = chosen or g.mirror.choose(rng)
            for log in sent.values():
                log.clear()
            sync.config_resetstat()
            r = await client.post(g.url + "/moves", json=move_body(chosen),
                                  headers={**g.seats[chosen.seat], **(headers or {})})
            assert r.status_code == 200, r.text
            assert (r.headers.get("idempotent-replayed") == "true") == replaying
            if not replaying:
                g.mirror.apply(chosen)
            stats = sync.info("commandstats")
            # (Each replica's clock sweeper looks at the deadline index meanwhile: a ZRANGE, not the move's.)
            log = [c for c in sent[str(client.base_url).rstrip("/")] if c != "ZRANGE"]
            top_level = sum(stats.get(f"cmdstat_{c}", {}).get("calls", 0) for c in ("hmget", "evalsha"))
            assert top_level == len(log), (stats, log)
            return list(log)

        assert await move(via_a) == ["EVALSHA"]  # A created it and remembers it: the CAS alone
        assert await move(via_a) == ["EVALSHA"]
        # B never saw it: read (a script: the record, and when the mover last moved), then CAS.
        assert await move(via_b) == ["EVALSHA", "EVALSHA"]
        # A is behind: on its remembered state the move is not this seat's turn, and no error is answered from
        # a remembered state: a fresh read, then the CAS. (A CAS that loses would answer the current record.)
        assert await move(via_a) == ["EVALSHA", "EVALSHA"]
        assert await move(via_a, headers={"If-Match": f'"{g.mirror.version}"'}) == ["EVALSHA"]
        keyed = g.mirror.choose(rng)
        assert await move(via_a, keyed, {"Idempotency-Key": "k1"}) == ["EVALSHA"]
        # The retry: the remembered state is past that move, so one read (with the key's record) to replay it.
        assert await move(via_a, keyed, {"Idempotency-Key": "k1"}, replaying=True) == ["EVALSHA"]
        assert await move(via_b, keyed, {"Idempotency-Key": "k1"}, replaying=True) == ["EVALSHA"]


def _count_commands(svc: Any) -> list[str]:
    """Record the name of every command the service's Redis client sends (the short commands' client, and the
    store's own packed hot-path commands)."""
    store = svc.app.state.sessions.service.store
    assert isinstance(store, RedisStore)
    sent: list[str] = []
    execute: Any = store.client.execute_command
    send: Any = store._send

    async def counting(*args: Any, **kw: Any) -> Any:
        sent.append(str(args[0]))
        return await execute(*args, **kw)

    async def counting_packed(packed: bytes, *args: Any) -> Any:
        sent.append(packed.split(b"\r\n")[2].decode())
        return await send(packed, *args)

    store.client.execute_command = counting  # type: ignore[method-assign]
    store._send = counting_packed  # type: ignore[method-assign]
    return sent


@asynccontextmanager
async def _full_queue(kind: str, request: pytest.FixtureRequest) -> AsyncIterator[tuple[RedisStore, str, int,
                                                                                       Callable[[], None]]]:
    """A Redis store (one Redis or a cluster) with a 0.2 s command bound, holding a session whose log has ``n``
    events, with every place for a command in flight taken: ``(store, session id, n, free the places)``; the
    places are freed and the store closed on the way out."""
    server: RedisServer = request.getfixturevalue(REDIS_FIXTURES[kind])
    store = RedisStore(server.url, 60, prefix=f"q{uuid.uuid4().hex[:8]}:", command_timeout=0.2)
    await store.open()
    held = 0
    places = store._in_flight if store.cluster else store._hot._slots

    def free() -> None:
        nonlocal held
        for _ in range(held):
            places.release()
        held = 0

    try:
        record, events = _game()
        sid = uuid.uuid4().hex
        assert await store.create(sid, record, events)
        while not places.locked():
            await places.acquire()
            held += 1
        yield store, sid, len(events), free
    finally:
        free()
        await store.close()


@pytest.mark.parametrize("kind", ["redis", "cluster"])
async def test_a_command_queued_for_a_place_longer_than_its_bound_still_answers(
        kind: str, request: pytest.FixtureRequest) -> None:
    """Every place for a command in flight taken (a burst), commands queue; the wait is not counted in their
    0.2 s bound, which is for Redis's answer: held 0.6 s, they all answer once places free."""
    async with _full_queue(kind, request) as (store, sid, n, free):
        reads = [asyncio.create_task(store.read_events(sid, LOG_START, 0)) for _ in range(5)]
        await asyncio.sleep(0.6)
        assert not any(t.done() for t in reads)  # queued all along
        free()
        assert [len(r) for r in await asyncio.gather(*reads)] == [n] * 5


@pytest.mark.parametrize("kind", ["redis", "cluster"])
async def test_a_queue_that_does_not_move_fails_its_commands_in_queue_timeout(
        kind: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_module, "QUEUE_TIMEOUT", 0.3)
    async with _full_queue(kind, request) as (store, sid, _, _free):
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.read_events(sid, LOG_START, 0)
        assert 0.3 <= time.monotonic() - started < 2
