"""Spectator tokens: the host mints them; each reads the public view and the public event stream only.

A spectator token's SHA-256 is added to the session's table (:mod:`service.sessions.table`) by one
compare-and-set, like a move: minted on one replica, it works on every replica at once. A session holds at
most :data:`~service.sessions.table.MAX_SPECTATORS` of them (409 ``SPECTATORS_FULL`` after that).
"""

from __future__ import annotations

import secrets

import msgspec

from service.sessions.access import Access, host_only
from service.sessions.changes import Changes, Plan, Seen
from service.sessions.schemas import SpectatorCreated
from service.sessions.seats import hash_token
from service.sessions.store import Change
from service.sessions.table import MAX_SPECTATORS
from service.web.problems import Problem


class Spectators:
    """Mints spectator tokens."""

    def __init__(self, changes: Changes, access: Access) -> None:
        self.changes = changes
        self.access = access

    async def mint(self, session_id: str, token: str) -> tuple[int, SpectatorCreated]:
        """A new spectator token (host only) and the version that records it."""
        caller = await self.access.caller(session_id, token)
        host_only(caller, "mint spectator tokens", "host_only_spectators")
        spectator = secrets.token_urlsafe(32)

        async def add(seen: Seen) -> Plan[tuple[int, SpectatorCreated]]:
            table = seen.record.settings  # a move (or another mint) may have come first: add to the current table
            if len(table.spectators) >= MAX_SPECTATORS:
                raise Problem("SPECTATORS_FULL", f"this session already has {MAX_SPECTATORS} spectator "
                                                      "tokens, the most it holds",
                              message=("problem.SPECTATORS_FULL.detail.full", {"max": MAX_SPECTATORS}))
            new = msgspec.structs.replace(table, spectators=(*table.spectators, hash_token(spectator)))
            created = SpectatorCreated(session_id=session_id, spectator_token=spectator,
                                       spectators=len(new.spectators), max_spectators=MAX_SPECTATORS)
            return Plan(Change(state=seen.record.state, table=new), lambda made: (made.version, created),
                        follow=False)

        return await self.changes.run(session_id, add, caller.record)
