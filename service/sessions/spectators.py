"""Spectator tokens: the host (or the table host) mints and revokes them; each reads the public view and the
public event stream only.

A spectator token's SHA-256 is added to the session's table (:mod:`service.sessions.table`) by one
compare-and-set, like a move: minted on one replica, it works on every replica at once. A session holds at
most :data:`~service.sessions.table.MAX_SPECTATORS` of them (409 ``SPECTATORS_FULL`` after that). Each has an
id, the start of its hash (:func:`spectator_id`), which revokes it: its hash moves to the revoked ones (401
``TOKEN_REVOKED`` from then on), and a :class:`~service.sessions.log.SpectatorRevoked` event ends its streams.
"""

from __future__ import annotations

import base64
import hmac
import secrets

import msgspec

from service.sessions.access import Access, Caller, host_only
from service.sessions.changes import Changes, Plan, Seen
from service.sessions.log import SpectatorRevoked
from service.sessions.schemas import SpectatorCreated
from service.sessions.seats import hash_token
from service.sessions.store import Change
from service.sessions.table import MAX_REVOKED, MAX_SPECTATORS
from service.web.problems import Problem


def spectator_id(token_hash: bytes) -> str:
    """A spectator token's id: the first 72 bits of its SHA-256, base64url (12 characters). It names the token
    to revoke without being it (a SHA-256 preimage)."""
    return base64.urlsafe_b64encode(token_hash[:9]).decode()



def may_mint_spectators(caller: Caller, path_seat: int | None = None) -> None:
    """Who may mint spectator tokens: the host or the table host."""
    host_only(caller, "mint spectator tokens", "host_only_spectators")

class Spectators:
    """Mints and revokes spectator tokens."""

    def __init__(self, changes: Changes, access: Access) -> None:
        self.changes = changes
        self.access = access

    async def mint(self, session_id: str, token: str) -> tuple[int, SpectatorCreated]:
        """A new spectator token (host or table host) and the version that records it."""
        caller = await self.access.caller(session_id, token)
        may_mint_spectators(caller)
        spectator = secrets.token_urlsafe(32)

        async def add(seen: Seen) -> Plan[tuple[int, SpectatorCreated]]:
            table = seen.record.settings  # a move (or another mint) may have come first: add to the current table
            if len(table.spectators) >= MAX_SPECTATORS:
                raise Problem("SPECTATORS_FULL", f"this session already has {MAX_SPECTATORS} spectator "
                                                      "tokens, the most it holds",
                              message=("problem.SPECTATORS_FULL.detail.full", {"max": MAX_SPECTATORS}))
            new = msgspec.structs.replace(table, spectators=(*table.spectators, hash_token(spectator)))
            created = SpectatorCreated(session_id=session_id, spectator_token=spectator,
                                       spectator_id=spectator_id(hash_token(spectator)),
                                       spectators=len(new.spectators), max_spectators=MAX_SPECTATORS)
            return Plan(Change(state=seen.record.state, table=new), lambda made: (made.version, created),
                        follow=False)

        return await self.changes.run(session_id, add, caller.record)

    async def revoke(self, session_id: str, token: str, revoked_id: str) -> int:
        """Revoke the spectator token whose id is ``revoked_id`` (host or table host): the version that records
        it; 404 ``NOT_FOUND`` for no spectator of the session by that id."""
        caller = await self.access.caller(session_id, token)
        host_only(caller, "revoke spectator tokens", "host_only_spectators")

        async def drop(seen: Seen) -> Plan[int]:
            table = seen.record.settings
            found = None
            for held in table.spectators:  # every id compared, in constant time each
                if hmac.compare_digest(spectator_id(held).encode(), revoked_id.encode()):
                    found = held
            if found is None:
                raise Problem("NOT_FOUND", "no spectator token of this session has that id (it was revoked "
                                           "already, or never minted)",
                              message=("problem.NOT_FOUND.detail.spectator", {}))
            new = msgspec.structs.replace(table, spectators=tuple(h for h in table.spectators if h != found),
                                          revoked=(*table.revoked, found)[-MAX_REVOKED:])
            event = SpectatorRevoked(spectator_id=revoked_id, to_act=seen.record.state.to_act)
            return Plan(Change(state=seen.record.state, events=[event], table=new), lambda made: made.version,
                        follow=False)

        return await self.changes.run(session_id, drop, caller.record)
