"""Who may do what in a hosted session: reading a session afresh and telling whose a token is; and a seat
away that is back, since any request with its token says so.

Only the tokens' hashes are kept: the host's and the players' in the record's seats (:mod:`.seats`), the
spectators' and the revoked ones in its table (:mod:`.table`); a token is compared against every hash, in
constant time per comparison.
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import Callable, Iterable
from typing import NamedTuple

from engine import GameState, player_to_act
from service.sessions.changes import Changes, Done, Plan, Seen
from service.sessions.clock import came_back, is_away
from service.sessions.log import SeatBack
from service.sessions.problems import SessionBusy, forbidden, unauthorized
from service.sessions.seats import NOBODY, hash_token
from service.sessions.store import Change, Loaded, SessionRecord
from service.web.problems import Problem


class Caller(NamedTuple):
    """Who a token belongs to: the host (``seat is None``), a seat, a spectator (``seat is None`` too: it sees
    what the public sees), or the table host (``seat is None``: the host's seat tools, the public's view)."""

    seat: int | None
    loaded: Loaded
    spectator: bool = False
    #: The table host's token: it runs the table (seats, invitations, spectators) but opens nothing hidden.
    table_host: bool = False

    @property
    def record(self) -> SessionRecord:
        return self.loaded.record


#: Who may make a request, stated once per operation: it raises 403 (:func:`seat_only`, :func:`host_only` …)
#: for a caller that may not, given the seat the request's path names (``None`` for none). The operation calls it
#: on a fresh read, and :func:`service.sessions.guards.token_before_body` calls it before a body that does not
#: decode is refused.
MayAsk = Callable[["Caller", int | None], object]


def seat_for(state: GameState, own: int) -> int:
    """The seat a move that names none is for, made with ``own``'s token: the seat to act when ``own`` moves for
    it (its ghost partner, in the ghost-partners game), else ``own``."""
    to_act = state.to_act
    return to_act if to_act is not None and player_to_act(state) == own else own


def _among(digest: bytes, hashes: Iterable[bytes]) -> bool:
    """Whether ``digest`` is one of ``hashes``: every one compared (no early exit), in constant time each."""
    found = False
    for known in hashes:
        found |= hmac.compare_digest(digest, known)
    return found


def identify(record: SessionRecord, loaded: Loaded, token: str) -> Caller:
    """Whose ``token`` is: the host's, a seat's or a spectator's (401 if none of the session's tokens:
    ``TOKEN_REVOKED`` for one that was replaced)."""
    digest = hash_token(token)
    settings = record.settings
    if _among(digest, settings.spectators):
        return Caller(None, loaded, spectator=True)
    table_host = settings.table_host
    if table_host and hmac.compare_digest(digest, table_host):
        return Caller(None, loaded, table_host=True)
    seat = record.seats.role(digest)
    if seat != NOBODY:
        return Caller(seat, loaded)
    if _among(digest, record.settings.revoked):
        raise Problem("TOKEN_REVOKED", "this token was replaced: the host reissued it, or its seat was "
                                            "handed on or left", headers={"WWW-Authenticate": "Bearer"})
    raise unauthorized("this token is not valid for this session", "invalid_token")


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


def full_host_only(caller: Caller, what: str, case: str) -> None:
    """:func:`host_only`, and 403 for the table host too: what opens hidden cards (the snapshot) or ends the
    session is the full host token's alone."""
    host_only(caller, what, case)
    if caller.table_host:
        raise forbidden(f"only the host token can {what}; the table host token runs the table and opens nothing "
                        "hidden", "table_host")


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

    def __init__(self, changes: Changes) -> None:
        self.changes = changes

    async def load(self, session_id: str) -> Loaded:
        """A fresh read of the session (404 if it is gone), remembered for the next move."""
        return await self.changes.read(session_id)

    async def caller(self, session_id: str, token: str) -> Caller:
        """Whose ``token`` is, on a fresh read; a seat away is back with it (:func:`come_back`)."""
        loaded = await self.load(session_id)
        caller = identify(loaded.record, loaded, token)
        if caller.seat is not None and is_away(loaded.record.clock, caller.seat) and \
                loaded.record.settings.ended is None:
            with contextlib.suppress(SessionBusy):  # the session kept changing: the next request says it again
                await come_back(self.changes, session_id, loaded.record, caller.seat, hash_token(token))
            loaded = await self.load(session_id)
            caller = identify(loaded.record, loaded, token)
        return caller


async def come_back(changes: Changes, session_id: str, record: SessionRecord, seat: int, digest: bytes) -> None:
    """``seat``'s player is back (a request with its token, ``digest`` its hash): one change, logged as
    ``seat_back``, made once however many requests of the seat race for it on however many replicas (each
    compare-and-set after the first finds the seat back already). It plays from its next turn: if it is to act
    now, the clock's bot makes this move (played at once, after the change), as it was already doing."""

    async def back(seen: Seen) -> Plan[None] | Done[None]:
        current = seen.record
        held = current.seats.token_hash(seat)
        if held is None or not hmac.compare_digest(held, digest) or not is_away(current.clock, seat) or \
                current.settings.ended is not None:
            return Done(None)
        assert current.clock is not None
        to_act = player_to_act(current.state) == seat
        change = Change(state=current.state, events=[SeatBack(seat=seat, to_act=current.state.to_act)],
                        clock=came_back(current.clock, seat, to_act))
        return Plan(change, lambda _: None, follow=to_act)

    await changes.run(session_id, back, record)
