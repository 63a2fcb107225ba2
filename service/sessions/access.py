"""Who may do what in a hosted session: reading a session afresh and telling whose a token is.

A session's ``auth`` is SHA-256(host token) followed by one 32-byte slot per seat (the SHA-256 of the seat's
token, or a bot slot: :mod:`service.sessions.bots`). Only hashes are stored; a token is compared against every
slot in constant time per comparison.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import NamedTuple

from engine import GameState, player_to_act
from service.sessions.bot_turns import BotTurns
from service.sessions.bots import bot_to_act
from service.sessions.memo import RecentRecords
from service.sessions.problems import forbidden, not_found, unauthorized
from service.sessions.store import Loaded, SessionRecord, SessionStore
from service.sessions.table import decode_table
from service.web.problems import Problem

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
TOKEN_HASH = 32


class Caller(NamedTuple):
    """Who a token belongs to: the host (``seat is None``), a seat, or a spectator (``seat is None`` too: it
    sees what the public sees)."""

    seat: int | None
    loaded: Loaded
    spectator: bool = False

    @property
    def record(self) -> SessionRecord:
        return self.loaded.record


def seat_for(state: GameState, own: int) -> int:
    """The seat a move that names none is for, made with ``own``'s token: the seat to act when ``own`` moves for
    it (its ghost partner, in the ghost-partners game), else ``own``."""
    to_act = state.to_act
    return to_act if to_act is not None and player_to_act(state) == own else own


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def role(auth: bytes, token: str) -> int | None:
    """The seat ``token`` acts for (``None``: the host); 401 if it is neither the host's nor a seat's."""
    digest = hash_token(token)
    found: int | None = -1
    # Compare against every hash (no early exit) in constant time per comparison.
    for i in range(len(auth) // TOKEN_HASH):
        if hmac.compare_digest(digest, auth[i * TOKEN_HASH:(i + 1) * TOKEN_HASH]):
            found = None if i == 0 else i - 1
    if found == -1:
        raise unauthorized("this token is not valid for this session", "invalid_token")
    return found


def is_spectator(table: bytes, token: str) -> bool:
    """Whether ``token`` is one of the session's spectator tokens."""
    digest = hash_token(token)
    found = False
    for spectator in decode_table(table).spectators:
        found |= hmac.compare_digest(digest, spectator)
    return found


def identify(record: SessionRecord, loaded: Loaded, token: str) -> Caller:
    """Whose ``token`` is: the host's, a seat's or a spectator's (401 if none of the session's tokens:
    ``TOKEN_REVOKED`` for one that was replaced)."""
    if is_spectator(record.table, token):
        return Caller(None, loaded, spectator=True)
    try:
        return Caller(role(record.auth, token), loaded)
    except Problem:
        if is_revoked(record.table, token):
            raise Problem("TOKEN_REVOKED", "this token was replaced: the host reissued it, or its seat was "
                                                "handed on or left", headers={"WWW-Authenticate": "Bearer"}) from None
        raise


def is_revoked(table: bytes, token: str) -> bool:
    digest = hash_token(token)
    found = False
    for revoked in decode_table(table).revoked:
        found |= hmac.compare_digest(digest, revoked)
    return found


def no_spectator(caller: Caller) -> None:
    """403 for a spectator: it reads the public view and the public event stream, and nothing else."""
    if caller.spectator:
        raise forbidden("a spectator token reads the public view and the public event stream only", "spectator")


def seat_only(caller: Caller, what: str, case: str) -> int:
    no_spectator(caller)
    if caller.seat is None:
        raise forbidden(f"the host token cannot {what}; use the seat's token", case)
    return caller.seat


def host_only(caller: Caller, what: str, case: str) -> None:
    no_spectator(caller)
    if caller.seat is not None:
        raise forbidden(f"only the host token can {what}", case)


def viewer(caller: Caller, seat: int | None) -> int | None:
    """The seat whose view the caller gets: its own (a seat may name only itself; the host none)."""
    if seat is not None and seat != caller.seat:
        no_spectator(caller)
        if caller.seat is not None:
            raise forbidden("a token reads only its own seat's view", "own_view")
        raise forbidden("the host token reads the public view only", "host_public_view")
    return caller.seat


class Access:
    """Fresh reads of a session (404 if it is gone), remembered for the next move, and its callers."""

    def __init__(self, store: SessionStore, recent: RecentRecords, bots: BotTurns) -> None:
        self.store = store
        self.recent = recent
        self.bots = bots

    async def load(self, session_id: str, idempotency_field: str | None = None, *,
                   seat: int | None = None) -> Loaded:
        """A fresh read of the session (404 if it is gone), remembered for the next move."""
        if _SESSION_ID.fullmatch(session_id) is None:
            raise not_found(session_id)
        loaded = await self.store.load(session_id, idempotency_field, seat=seat)
        if loaded is None:
            self.recent.forget(session_id)
            raise not_found(session_id)
        self.recent.remember(session_id, loaded.record)
        if bot_to_act(loaded.record.state, loaded.record.auth):
            # Bot moves a replica did not get to commit (the store failed, or it stopped): play them now.
            return Loaded(await self.bots.play(session_id, loaded.record), loaded.replay)
        return loaded

    async def caller(self, session_id: str, token: str) -> Caller:
        loaded = await self.load(session_id)
        return identify(loaded.record, loaded, token)
