"""The in-process session store: Redis's semantics (versions, CAS, event log, idle expiry) without I/O.

Used when no ``REDIS_URL`` is configured, so the service runs out of the box; sessions then live only as long
as the process and are not shared between replicas. Atomicity comes from the event loop: no method awaits
between checking and changing a session. Live readers of the log wait on one :class:`asyncio.Condition` per
session.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine import GameState
from service.sessions.clock import TurnClock
from service.sessions.log import LogEntry
from service.sessions.store import (
    DELETED_MEMORY_SECONDS,
    EVENTS_PER_READ,
    IDEMPOTENCY_RECORDS_KEPT,
    CommitOutcome,
    Committed,
    Conflict,
    Cursor,
    Gone,
    IdempotencyRecord,
    Loaded,
    LoggedEvent,
    Replayed,
    SessionRecord,
    new_tag,
)


@dataclass
class _Session:
    record: SessionRecord
    expires_at: float
    log: list[LoggedEvent] = field(default_factory=list)
    #: ``(version, index)`` of each log entry, for bisecting.
    log_keys: list[Cursor] = field(default_factory=list)
    idempotency: OrderedDict[str, IdempotencyRecord] = field(default_factory=OrderedDict)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    #: When the game last changed (the store's monotonic clock).
    game_changed: float | None = None

    def append(self, version: int, events: Sequence[LogEntry], deadline: int | None, to_act: int | None) -> None:
        for i, e in enumerate(events):
            self.log.append(LoggedEvent(version, i, e, deadline, to_act))
            self.log_keys.append((version, i))


class MemoryStore:
    """Sessions in a dict, expired lazily on access (and swept now and then on creation).

    ``on_expired(count)``, if given, is told of sessions dropped for idleness (not of deleted ones). With
``max_sessions``, creation is refused (:meth:`has_room`) once that many sessions are live.
    """

    def __init__(self, idle_seconds: int, *, on_expired: Callable[[int], None] | None = None,
                 max_sessions: int = 0) -> None:
        self.idle_seconds = idle_seconds
        #: :meth:`has_room` is ``False`` at this many live sessions (0: no bound).
        self.max_sessions = max_sessions
        self._sessions: dict[str, _Session] = {}
        #: The deadline index: session id -> its clock's deadline, or a replica's claim on it (ms since the epoch).
        self._deadlines: dict[str, int] = {}
        self._next_sweep = 0.0
        self._on_expired = on_expired
        #: Sessions deleted lately, and when (their streams say ``deleted``, not ``expired``).
        self._deleted: dict[str, float] = {}
        #: The webhook index (session id -> when its webhooks are next due, or a claim) and the deliveries' state.
        self._hooks: dict[str, int] = {}
        self._hook_states: dict[str, dict[str, bytes]] = {}

    @staticmethod
    def _now() -> float:
        return time.monotonic()

    def _live(self, session_id: str) -> _Session | None:
        s = self._sessions.get(session_id)
        if s is not None and s.expires_at <= self._now():
            self._drop(session_id)
            self._expired(1)
            return None
        return s

    def _drop(self, session_id: str) -> None:
        self._hook_states.pop(session_id, None)
        s = self._sessions.pop(session_id, None)
        if s is not None:
            asyncio.ensure_future(self._notify(s))  # wake its readers so their streams end

    @staticmethod
    async def _notify(s: _Session) -> None:
        async with s.changed:
            s.changed.notify_all()

    def _sweep(self) -> None:
        now = self._now()
        if now < self._next_sweep:
            return
        self._next_sweep = now + min(60.0, self.idle_seconds)
        expired = [sid for sid, s in self._sessions.items() if s.expires_at <= now]
        for sid in expired:
            self._drop(sid)
        self._expired(len(expired))

    def _expired(self, count: int) -> None:
        if count and self._on_expired is not None:
            self._on_expired(count)

    async def create(self, session_id: str, record: SessionRecord, events: Sequence[LogEntry]) -> bool:
        self._sweep()
        if self._live(session_id) is not None:
            return False
        s = _Session(record=record, expires_at=self._now() + self.idle_seconds)
        deadline = record.clock.deadline if record.clock is not None else None
        s.append(record.version, events, deadline, record.state.to_act)
        self._sessions[session_id] = s
        self._index(session_id, record.clock)
        return True

    def _index(self, session_id: str, clock: TurnClock | None) -> None:
        if clock is None:
            return
        if clock.deadline is None:
            self._deadlines.pop(session_id, None)
        else:
            self._deadlines[session_id] = clock.deadline

    async def claim_due(self, now_ms: int, until_ms: int, limit: int) -> tuple[list[tuple[str, int]], int | None]:
        due = sorted((ms, sid) for sid, ms in self._deadlines.items() if ms <= now_ms)[:limit]
        for _, sid in due:
            self._deadlines[sid] = until_ms
        return [(sid, until_ms) for _, sid in due], min(self._deadlines.values(), default=None)

    async def settle_clock(self, session_id: str, claimed_ms: int, deadline_ms: int | None) -> None:
        if self._deadlines.get(session_id) != claimed_ms:
            return
        if deadline_ms is None:
            del self._deadlines[session_id]
        else:
            self._deadlines[session_id] = deadline_ms

    async def mark_hooks(self, session_id: str, at_ms: int) -> None:
        held = self._hooks.get(session_id)
        if held is None or at_ms < held:
            self._hooks[session_id] = at_ms

    async def claim_hooks(self, now_ms: int, until_ms: int, limit: int) -> tuple[list[tuple[str, int]], int | None]:
        due = sorted((ms, sid) for sid, ms in self._hooks.items() if ms <= now_ms)[:limit]
        for _, sid in due:
            self._hooks[sid] = until_ms
        return [(sid, until_ms) for _, sid in due], min(self._hooks.values(), default=None)

    async def settle_hooks(self, session_id: str, claimed_ms: int, next_ms: int | None) -> None:
        if self._hooks.get(session_id) != claimed_ms:
            return
        if next_ms is None:
            del self._hooks[session_id]
        else:
            self._hooks[session_id] = next_ms

    async def hook_states(self, session_id: str) -> dict[str, bytes]:
        return dict(self._hook_states.get(session_id, {})) if self._live(session_id) is not None else {}

    async def save_hook_states(self, session_id: str, states: dict[str, bytes], dropped: Sequence[str] = ()) -> None:
        if self._live(session_id) is None:
            return
        held = self._hook_states.setdefault(session_id, {})
        held.update(states)
        for hook_id in dropped:
            held.pop(hook_id, None)

    async def load(self, session_id: str, idempotency_field: str | None = None, *,
                   seat: int | None = None) -> Loaded | None:
        s = self._live(session_id)
        if s is None:
            return None
        replay = s.idempotency.get(idempotency_field) if idempotency_field is not None else None
        changed = s.game_changed if seat is not None else None
        return Loaded(s.record, replay, None if changed is None else self._now() - changed, changed)

    async def commit(self, session_id: str, base: SessionRecord, state: GameState, events: Sequence[LogEntry],
                     idempotency: tuple[str, IdempotencyRecord] | None = None, *,
                     seat: int | None = None, clock: TurnClock | None = None, table: bytes | None = None,
                     auth: bytes | None = None, ended: bool = False) -> CommitOutcome:
        s = self._live(session_id)
        if s is None:
            return Gone()
        if idempotency is not None:
            first = s.idempotency.get(idempotency[0])
            if first is not None:
                return Replayed(first)
        if s.record.version != base.version or s.record.tag != base.tag:
            changed = s.game_changed if seat is not None else None
            return Conflict(s.record, None if changed is None else self._now() - changed, changed)
        if state is not base.state:
            s.game_changed = self._now()
        version = base.version + 1
        self._index(session_id, clock)
        clock = s.record.clock if clock is None else clock  # (none given: the clock stands)
        s.record = SessionRecord(version, state, s.record.auth if auth is None else auth, new_tag(), clock,
                                 s.record.table if table is None else table,
                                 version if state is not base.state else s.record.game_version)
        s.append(version, events, clock.deadline if clock is not None else None, None if ended else state.to_act)
        if idempotency is not None:
            s.idempotency[idempotency[0]] = idempotency[1]
            while len(s.idempotency) > IDEMPOTENCY_RECORDS_KEPT:
                s.idempotency.popitem(last=False)
        s.expires_at = self._now() + self.idle_seconds
        async with s.changed:
            s.changed.notify_all()
        return Committed(version, s.record.tag)

    async def delete(self, session_id: str) -> bool:
        existed = self._live(session_id) is not None
        now = self._now()
        self._deleted = {k: t for k, t in self._deleted.items() if now - t < DELETED_MEMORY_SECONDS}
        if existed:
            self._deleted[session_id] = now
        self._drop(session_id)
        return existed

    async def was_deleted(self, session_id: str) -> bool:
        deleted = self._deleted.get(session_id)
        return deleted is not None and self._now() - deleted < DELETED_MEMORY_SECONDS

    async def exists(self, session_id: str) -> bool:
        return self._live(session_id) is not None

    async def read_events(self, session_id: str, after: Cursor, wait: float) -> list[LoggedEvent]:
        s = self._live(session_id)
        if s is None:
            return []
        batch = self._after(s, after)
        if batch or wait <= 0:
            return batch
        async with s.changed:
            try:
                await asyncio.wait_for(s.changed.wait_for(lambda: bool(self._after(s, after))
                                                          or self._sessions.get(session_id) is not s), wait)
            except TimeoutError:
                return []
        return self._after(s, after) if self._sessions.get(session_id) is s else []

    @staticmethod
    def _after(s: _Session, after: Cursor) -> list[LoggedEvent]:
        start = bisect.bisect_right(s.log_keys, after)
        return s.log[start:start + EVENTS_PER_READ]

    async def has_room(self) -> bool:
        if not self.max_sessions or len(self._sessions) < self.max_sessions:
            return True
        self._next_sweep = 0.0  # full: drop what has expired, then look again
        self._sweep()
        return len(self._sessions) < self.max_sessions

    async def ping(self) -> bool:
        return True

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        self._sessions.clear()
        self._deadlines.clear()
        self._hooks.clear()
        self._hook_states.clear()
