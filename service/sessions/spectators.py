"""Spectator tokens: the host mints them; each reads the public view and the public event stream only.

A spectator token's SHA-256 is added to the session's table (:mod:`service.sessions.table`) by one
compare-and-set, like a move: minted on one replica, it works on every replica at once. A session holds at
most :data:`~service.sessions.table.MAX_SPECTATORS` of them (409 ``SPECTATORS_FULL`` after that).
"""

from __future__ import annotations

import secrets

import msgspec

from service.sessions.access import Access, hash_token, host_only
from service.sessions.bot_turns import MOVE_ATTEMPTS
from service.sessions.memo import RecentRecords
from service.sessions.problems import conflict, not_found
from service.sessions.schemas import SpectatorCreated
from service.sessions.store import Committed, Conflict, SessionRecord, SessionStore
from service.sessions.table import MAX_SPECTATORS, decode_table, encode_table
from service.web.problems import Problem


class Spectators:
    """Mints spectator tokens."""

    def __init__(self, store: SessionStore, recent: RecentRecords, access: Access) -> None:
        self.store = store
        self.recent = recent
        self.access = access

    async def mint(self, session_id: str, token: str) -> tuple[int, SpectatorCreated]:
        """A new spectator token (host only) and the version that records it."""
        caller = await self.access.caller(session_id, token)
        host_only(caller, "mint spectator tokens", "host_only_spectators")
        record = caller.record
        spectator = secrets.token_urlsafe(32)
        for _ in range(MOVE_ATTEMPTS):
            table = decode_table(record.table)
            if len(table.spectators) >= MAX_SPECTATORS:
                raise Problem("SPECTATORS_FULL", f"this session already has {MAX_SPECTATORS} spectator "
                                                      "tokens, the most it holds",
                              message=("problem.SPECTATORS_FULL.detail.full", {"max": MAX_SPECTATORS}))
            new = encode_table(msgspec.structs.replace(table, spectators=(*table.spectators,
                                                                          hash_token(spectator))))
            outcome = await self.store.commit(session_id, record, record.state, [], clock=record.clock, table=new)
            if isinstance(outcome, Committed):
                committed = SessionRecord(outcome.version, record.state, record.auth, outcome.tag, record.clock, new)
                self.recent.remember(session_id, committed)
                return outcome.version, SpectatorCreated(
                    session_id=session_id, spectator_token=spectator, spectators=len(table.spectators) + 1,
                    max_spectators=MAX_SPECTATORS)
            if not isinstance(outcome, Conflict):
                self.recent.forget(session_id)
                raise not_found(session_id)
            record = outcome.current  # a move (or another mint) came first: add to the current table
        raise conflict(record.version, "the session kept changing; read it and try again", "busy")
