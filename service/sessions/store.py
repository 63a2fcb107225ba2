"""The session store: one small async interface, two backends (:mod:`.memory`, :mod:`.redis_store`).

A session is a :class:`SessionRecord` (version, tag, game state, token hashes), an append-only log of the
engine's events keyed ``(version, index)``, and a bounded table of idempotency records. Every change is one
atomic compare-and-set on the version and tag (:meth:`SessionStore.commit`); nothing is ever read, modified
and written back across two store calls. Every change renews the idle expiry of everything the session
holds; reads do not (idle means "nobody changed it", so a forgotten tab polling a dead game does not keep it
alive for ever).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, Protocol, TypeVar, overload

import msgspec

from engine import GameState
from service.sessions.clock import TurnClock
from service.sessions.log import LogEntry
from service.sessions.seats import Seats
from service.sessions.table import Table, decode_table, encode_table
from service.web.problems import Problem

#: How many idempotency records a session keeps (the oldest are forgotten first). A retry normally follows
#: its first attempt within seconds, so this is plenty while keeping a long game's footprint bounded.
IDEMPOTENCY_RECORDS_KEPT = 1000

#: The most events one read of the log returns (an SSE stream sends them as one chunk).
EVENTS_PER_READ = 100

STATE_ENCODER = msgspec.msgpack.Encoder()
STATE_DECODER = msgspec.msgpack.Decoder(GameState)
EVENT_ENCODER = STATE_ENCODER
EVENT_DECODER = msgspec.msgpack.Decoder(LogEntry)


#: How long a store remembers that a session was deleted (its streams' readers learn why it ended).
DELETED_MEMORY_SECONDS = 600

class StoreUnavailable(Problem):
    """The store could not be reached or answered with an error: 503, try again shortly."""

    def __init__(self, detail: str = "the session store is unavailable; retry shortly") -> None:
        super().__init__("STORE_UNAVAILABLE", detail, headers={"Retry-After": "1"})


class CommitOutcomeUnknown(StoreUnavailable):
    """A compare-and-set was sent, its answer was lost, and finding out whether it applied failed too.

    A store outage like :class:`StoreUnavailable` (whose handlers it shares), but answered with its own code:
    ``STORE_UNAVAILABLE`` always means "nothing was applied", here the move may or may not have been applied.
    A retry with the same ``Idempotency-Key`` is safe (the key is recorded with the change itself, atomically:
    it answers the first result if the move was applied, or applies it now).
    """

    def __init__(self) -> None:
        Problem.__init__(self, "COMMIT_OUTCOME_UNKNOWN",
                         "the session store stopped answering while this move was being committed: it may or "
                         "may not have been applied. Retrying with the same Idempotency-Key is safe (it "
                         "answers the first result if the move was applied); without one, read the session "
                         "first", headers={"Retry-After": "1"})


K = TypeVar("K")


class _Kept(Generic[K]):
    """A record's field decoded when first read, then kept in the record's ``__dict__`` (a non-data descriptor:
    the kept value is found before it, with no call; :class:`functools.cached_property` without its lock)."""

    def __init__(self, field: str, decode: Callable[[Any], K]) -> None:
        self.field, self.decode = field, decode

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, record: None, owner: type) -> _Kept[K]: ...

    @overload
    def __get__(self, record: object, owner: type) -> K: ...

    def __get__(self, record: object | None, owner: type) -> K | _Kept[K]:
        if record is None:
            return self
        value = self.decode(getattr(record, self.field))
        record.__dict__[self.name] = value
        return value


class SessionRecord(msgspec.Struct, frozen=True, dict=True):
    """What a session is: its ``version`` (bumped by every change), the state, who holds its seats, its table.

    ``auth`` is who holds each seat as the store keeps it (:mod:`.seats`: the host's token hash, then a slot per
    seat: a player's token hash, a bot's or an open seat's mark); read it as :attr:`seats`.
    ``tag`` is drawn at random by every change: ``(version, tag)`` names one exact state even if a store
    that lost data (a Redis restored from an older file) reaches the same version number again by another
    path, so that a compare-and-set against a remembered state can never apply to a different one.
    ``table`` is the table's own record (:class:`service.sessions.table.Table`, msgpack; empty: the defaults):
    its settings and spectators, changed only by the host, atomically with the version like a move; read it as
    :attr:`settings`.
    """

    version: int
    state: GameState
    auth: bytes
    tag: bytes
    #: The session's turn clock (:mod:`.clock`), ``None`` for a session without one.
    clock: TurnClock | None = None
    table: bytes = b""
    #: The version the last change of the game itself made (a move; a change of the table is none): a move chosen
    #: at any version from it on was chosen on the game as it is. 0: no move yet, or not known (a record stored
    #: before it was kept): :attr:`game_since`.
    game_version: int = 0

    @property
    def game_since(self) -> int:
        """The first version at which the game was as it is now."""
        return self.game_version or self.version

    #: Who holds each seat (:meth:`Seats.decode`: decoded once for the same bytes) and the table's settings, names,
    #: invitations and spectators (:func:`decode_table`), each kept with the record once read: every step of a
    #: change reads them from it.
    seats = _Kept[Seats]("auth", Seats.decode)
    settings = _Kept[Table]("table", decode_table)

    def after(self, committed: Committed, change: Change) -> SessionRecord:
        """The record ``change`` made of this one, committed as ``committed``."""
        return SessionRecord(committed.version, change.state, self.auth if change.seats is None else change.auth,
                             committed.tag, self.clock if change.clock is None else change.clock,
                             self.table if change.table is None else change.encoded_table,
                             committed.version if change.state is not self.state else self.game_version)


class Change(msgspec.Struct, frozen=True, kw_only=True, dict=True):
    """One change of a session, as the store commits it: the next ``state`` and its ``events`` (logged under the
    new version), and whatever else it changes (``None``: unchanged).

    Every change of a session, a seat's move, a bot's, the clock's, a change of seats or of the table, is one of
    these, committed by :class:`service.sessions.changes.Changes`."""

    state: GameState
    events: Sequence[LogEntry] = ()
    #: The turn clock after the change (``None``: as it was).
    clock: TurnClock | None = None
    seats: Seats | None = None
    table: Table | None = None
    #: The seat that moved: a move's read and compare-and-set answer when the game last changed
    #: (:attr:`Loaded.changed_ago`).
    mover: int | None = None
    #: An ``Idempotency-Key``'s field and the record of its first answer, kept by the same commit.
    idempotency: tuple[str, IdempotencyRecord] | None = None

    @functools.cached_property
    def auth(self) -> bytes:
        assert self.seats is not None
        return self.seats.encode()

    @functools.cached_property
    def encoded_table(self) -> bytes:
        assert self.table is not None
        return encode_table(self.table)


def new_tag() -> bytes:
    return os.urandom(8)


class IdempotencyRecord(msgspec.Struct, frozen=True, array_like=True):
    """The first answer to a keyed move: the request's fingerprint, the version it made, the response body."""

    fingerprint: bytes
    version: int
    body: bytes


IDEMPOTENCY_ENCODER = msgspec.msgpack.Encoder()
IDEMPOTENCY_DECODER = msgspec.msgpack.Decoder(IdempotencyRecord)


class Loaded(NamedTuple):
    """A read of a session, with the idempotency record asked for (if any), in one round trip; and, when a
    seat was named (a move's read), how long ago (seconds, by the store's clock) the game last changed (a move
    of any seat: ``None`` for none yet)."""

    record: SessionRecord
    replay: IdempotencyRecord | None
    changed_ago: float | None = None
    #: When the game last changed by this process's ``time.monotonic()``, from a store that shares the process's
    #: clock (the in-process one): exact, where ``changed_ago`` is as old as the answer.
    changed_at: float | None = None


#: :attr:`LoggedEvent.to_act` of an entry logged before the seat to act was logged with each version.
NOT_LOGGED = -1


class LoggedEvent(NamedTuple):
    """One entry of a session's event log; its SSE id is ``f"{version}-{seq}"``. ``deadline``: when the seat to
    act once that version was made had to move (milliseconds since the epoch; ``None``: no clock running);
    ``to_act``: that seat (``None``: nobody, the game is over; :data:`NOT_LOGGED`: not known)."""

    version: int
    seq: int
    event: LogEntry
    deadline: int | None = None
    to_act: int | None = NOT_LOGGED


class Committed(NamedTuple):
    version: int
    tag: bytes


class Conflict(NamedTuple):
    """The session moved on: its current record, so the caller can retry without another read; and, for a move,
    how long ago (seconds, by the store's clock) the game last changed (``None``: not yet, or not known)."""

    current: SessionRecord
    changed_ago: float | None = None
    changed_at: float | None = None  # as :attr:`Loaded.changed_at`


class Replayed(NamedTuple):
    record: IdempotencyRecord


class Gone(NamedTuple):
    pass


#: The outcome of a compare-and-set: applied (the new version and tag); lost (the current record); the
#: idempotency key was already used (its record); or the session no longer exists.
CommitOutcome = Committed | Conflict | Replayed | Gone

#: A position in the log: ``(version, index)`` of the last event seen; ``(0, 0)`` is before the first.
Cursor = tuple[int, int]
LOG_START: Cursor = (0, 0)


class SessionStore(Protocol):
    """Where sessions live. Every method is one round trip to the backend (Redis: one command or script)."""

    idle_seconds: int

    async def create(self, session_id: str, record: SessionRecord, events: Sequence[LogEntry]) -> bool:
        """Store a new session and its first events (logged at ``record.version``) atomically; ``False`` if
        the id is taken. A record with a clock deadline enters the deadline index in the same step."""
        ...

    async def load(self, session_id: str, idempotency_field: str | None = None, *,
                   seat: int | None = None) -> Loaded | None:
        """The session (and the idempotency record under ``idempotency_field``, and, for a move of ``seat``, how
        long ago the game last changed), or ``None`` if it is gone."""
        ...

    async def commit(self, session_id: str, base: SessionRecord, state: GameState, events: Sequence[LogEntry],
                     idempotency: tuple[str, IdempotencyRecord] | None = None, *,
                     seat: int | None = None, clock: TurnClock | None = None, table: bytes | None = None,
                     auth: bytes | None = None, ended: bool = False) -> CommitOutcome:
        """If the session is still at ``base`` (its version and tag): store ``state`` at the next version with a new tag
        (a change of the game when ``state`` is not ``base.state`` itself: the record's ``game_version``; and
        ``clock``, ``table`` and ``auth``, when given, as the record's: each not given stays as it is), append
        ``events`` to the log (each carrying the deadline of the clock it leaves), keep the idempotency record, note
        when the game changed (a change of the game; ``seat``: the moving seat, whose lost race answers it), set the
        session's entry of the deadline index to a given ``clock``'s deadline (or remove it when that clock is
        paused), renew the idle expiry. All or nothing; an idempotency key already used answers its record instead.
        Each event is logged with the seat to act after the change: ``state``'s, or nobody once the session ``ended``
        (its game called off or abandoned: :mod:`.life`).

        Never answers a failure for a change that was made: a call whose answer was lost is followed up (a fresh
        connection reads whether this very change is in the store, and makes sure that a copy still on its way cannot
        apply later). :class:`StoreUnavailable` means nothing was applied; :class:`CommitOutcomeUnknown` that it could
        not be found out."""
        ...

    async def delete(self, session_id: str) -> bool:
        ...

    async def exists(self, session_id: str) -> bool:
        ...

    async def was_deleted(self, session_id: str) -> bool:
        """Whether the session was deleted (by its host) in the last :data:`DELETED_MEMORY_SECONDS`, rather than
        expired or never there: so that its open streams say which."""
        ...

    async def read_events(self, session_id: str, after: Cursor, wait: float) -> list[LoggedEvent]:
        """Up to :data:`EVENTS_PER_READ` events after ``after``; if there are none, wait up to ``wait``
        seconds for some (``0``: do not wait). An empty list means none arrived in time."""
        ...

    async def claim_due(self, now_ms: int, until_ms: int, limit: int) -> tuple[list[tuple[str, int]], int | None]:
        """Up to ``limit`` sessions of the deadline index due at ``now_ms``, each claimed (its entry moved to
        ``until_ms``, so that other replicas pass it over until then), and the earliest entry left (``None``:
        none)."""
        ...

    async def settle_clock(self, session_id: str, claimed_ms: int, deadline_ms: int | None) -> None:
        """If the session's index entry is still the claim ``claimed_ms`` (no change moved it meanwhile), set it
        to ``deadline_ms`` (``None``: remove it)."""
        ...

    async def mark_hooks(self, session_id: str, at_ms: int) -> None:
        """Webhooks (:mod:`.webhooks`): the session's entry of the webhook index is due at ``at_ms`` at the latest
        (an entry due sooner stays as it is)."""
        ...

    async def claim_hooks(self, now_ms: int, until_ms: int, limit: int) -> tuple[list[tuple[str, int]], int | None]:
        """As :meth:`claim_due`, over the webhook index."""
        ...

    async def settle_hooks(self, session_id: str, claimed_ms: int, next_ms: int | None) -> None:
        """As :meth:`settle_clock`, over the webhook index (``None``: no entry)."""
        ...

    async def hook_states(self, session_id: str) -> dict[str, bytes]:
        """The delivery state of each of the session's webhooks, by webhook id (kept beside the session, with its
        idle expiry; never in its record, so that a delivery makes no version)."""
        ...

    async def save_hook_states(self, session_id: str, states: dict[str, bytes], dropped: Sequence[str] = ()) -> None:
        """Keep ``states`` (by webhook id) and forget those of ``dropped``."""
        ...

    async def has_room(self) -> bool:
        """Whether a new session may be stored: ``False`` once the store is nearly full (by its own bound), so
        that creation is refused before writes fail."""
        ...

    async def ping(self) -> bool:
        ...

    async def open(self) -> None:
        """Called once at startup (inside the event loop)."""
        ...

    async def close(self) -> None:
        ...
