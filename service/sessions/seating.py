"""Who sits where: invitations to open seats redeemed for a seat's token, the host's reissue of a token, handing
a seat to a bot or opening it again, a player leaving.

Every change is one compare-and-set of the session's record (its ``auth`` and its table together, at a new
version, with a table event in the log): on any number of replicas, an invitation is redeemed once (of two
players redeeming it at the same moment, one gets the seat and the other ``INVITATION_REDEEMED``), and a token
that was replaced stops working on every replica at once (a replica's remembered record fails its
compare-and-set and reads the new one). A replaced token is remembered as revoked (401 ``TOKEN_REVOKED``) and
the event streams opened with it end.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from typing import TypeVar

import msgspec

from bots import Level
from service.sessions.access import Access, Caller, hash_token, host_only, seat_only
from service.sessions.bot_turns import MOVE_ATTEMPTS, BotTurns
from service.sessions.bots import BOT_MARK, bot_seats, bot_slot
from service.sessions.memo import RecentRecords
from service.sessions.problems import conflict, not_found, unauthorized
from service.sessions.schemas import InvitationIssued, Joined, SeatChanged, SeatInfo, SeatTokenIssued
from service.sessions.store import Committed, Conflict, SessionRecord, SessionStore
from service.sessions.table import (
    MAX_REVOKED,
    Invitation,
    SeatJoined,
    SeatLeft,
    SeatTokenReissued,
    Table,
    TableEvent,
    check_name,
    decode_table,
    encode_table,
    is_open,
    open_slot,
    slot_of,
    with_slot,
)
from service.web.problems import Problem

A = TypeVar("A")

#: A change of the table: from the current record, the new table, auth and event, and the answer (given the
#: version the change makes).
Change = Callable[[SessionRecord], tuple[Table, bytes, TableEvent, Callable[[int], A]]]


def new_invitation(seat: int, seconds: int) -> tuple[Invitation, InvitationIssued]:
    """A fresh invitation to ``seat``: what the table keeps (the code's hash) and what the host is given."""
    code = secrets.token_urlsafe(18)
    kept = Invitation(seat=seat, code=hash_token(code), expires_at=time.time() + seconds)
    return kept, InvitationIssued(seat=seat, code=code, expires_in=seconds)


def seats_of(record: SessionRecord) -> list[SeatInfo]:
    """Who holds each seat (public: every view shows it)."""
    table = decode_table(record.table)
    bots = bot_seats(record.auth)
    out: list[SeatInfo] = []
    for seat in range(record.state.options.players):
        if seat in bots:
            out.append(SeatInfo(seat=seat, kind="bot", level=bots[seat][0]))
        elif is_open(record.auth, seat):
            out.append(SeatInfo(seat=seat, kind="open"))
        else:
            out.append(SeatInfo(seat=seat, kind="human", name=table.name(seat)))
    return out


def _revoke(table: Table, auth: bytes, seat: int) -> tuple[bytes, ...]:
    """The table's revoked hashes with ``seat``'s current token's added (if a player holds the seat)."""
    slot = slot_of(auth, seat)
    if slot.startswith(BOT_MARK) or is_open(auth, seat):
        return table.revoked
    return (*table.revoked, slot)[-MAX_REVOKED:]


def _check_seat(record: SessionRecord, seat: int) -> None:
    players = record.state.options.players
    if not 0 <= seat < players:
        raise Problem("NO_SUCH_SEAT", f"seat {seat} is not a seat of this {players}-player game")


def _held(record: SessionRecord, seat: int) -> None:
    """409 ``SEAT_NOT_HELD`` unless a player holds ``seat``."""
    if seat in bot_seats(record.auth) or is_open(record.auth, seat):
        raise Problem("SEAT_NOT_HELD", f"no player holds seat {seat}: it is a bot's or open",
                      message=("problem.SEAT_NOT_HELD.detail.seat", {"seat": seat}))


def _last_player(record: SessionRecord, seat: int) -> bool:
    """Whether every other seat is a bot's (a game of bots alone is not hosted: it would play itself out)."""
    bots = bot_seats(record.auth)
    return all(other in bots for other in range(record.state.options.players) if other != seat)


class Seating:
    """Joining, reissuing, handing on and leaving seats."""

    def __init__(self, store: SessionStore, recent: RecentRecords, access: Access, bots: BotTurns) -> None:
        self.store = store
        self.recent = recent
        self.access = access
        self.bots = bots

    async def _change(self, session_id: str, record: SessionRecord, change: Change[A]) -> A:
        """Apply ``change`` by compare-and-set, on the current record each time it loses a race."""
        for _ in range(MOVE_ATTEMPTS):
            table, auth, event, answer = change(record)
            encoded = encode_table(table)
            # The turn clock runs on: a change of who holds a seat is no move.
            outcome = await self.store.commit(session_id, record, record.state, [event], clock=record.clock,
                                              table=encoded, auth=auth)
            if isinstance(outcome, Committed):
                committed = SessionRecord(outcome.version, record.state, auth, outcome.tag, record.clock, encoded)
                self.recent.remember(session_id, committed)
                await self.bots.play_quietly(session_id, committed)  # a seat given to a bot may be to act
                return answer(outcome.version)
            if not isinstance(outcome, Conflict):
                self.recent.forget(session_id)
                raise not_found(session_id)
            record = outcome.current
        raise conflict(record.version, "the session kept changing; read it and try again", "busy")

    # ------------------------------------------------------------------------------------------ players

    async def join(self, session_id: str, code: str, name: str) -> Joined:
        """Redeem the invitation ``code`` under ``name``: the seat's token."""
        shown = check_name(name)
        record = (await self.access.load(session_id)).record
        token = secrets.token_urlsafe(32)
        digest = hash_token(code)

        def change(current: SessionRecord) -> tuple[Table, bytes, TableEvent, Callable[[int], Joined]]:
            table = decode_table(current.table)
            found: Invitation | None = None
            for invitation in table.invitations:  # every comparison made, in constant time each
                if hmac.compare_digest(invitation.code, digest):
                    found = invitation
            if found is None:
                raise unauthorized("this invitation is not valid for this session", "invalid_invitation")
            if found.redeemed:
                raise Problem("INVITATION_REDEEMED", "this invitation was already redeemed: ask the host "
                                                          "for a new one")
            if found.expires_at <= time.time():
                raise Problem("INVITATION_EXPIRED", "this invitation has expired: ask the host for a new one")
            seat = found.seat
            invitations = tuple(msgspec.structs.replace(i, redeemed=True) if i is found else i
                                for i in table.invitations)
            players = current.state.options.players
            new = msgspec.structs.replace(table, invitations=invitations,
                                          names=table.with_name(seat, shown, players))
            auth = with_slot(current.auth, seat, hash_token(token))
            event = SeatJoined(seat=seat, name=shown, to_act=current.state.to_act)
            return new, auth, event, lambda version: Joined(session_id=session_id, version=version, seat=seat,
                                                             seat_token=token, name=shown)

        return await self._change(session_id, record, change)

    async def leave(self, session_id: str, token: str) -> SeatChanged:
        """The caller's seat goes to a bot or opens, as the session says (``on_leave``); its token stops."""
        caller = await self.access.caller(session_id, token)
        seat = seat_only(caller, "leave a seat", "host_leave")

        def change(current: SessionRecord) -> tuple[Table, bytes, TableEvent, Callable[[int], SeatChanged]]:
            if not hmac.compare_digest(hash_token(token), slot_of(current.auth, seat)):
                raise unauthorized("this token is not valid for this session", "invalid_token")
            table = decode_table(current.table)
            if table.on_leave == "bot" and not _last_player(current, seat):
                return self._to_bot(session_id, current, table, seat, table.leave_level)
            return self._to_open(session_id, current, table, seat, invite=False)

        return await self._change(session_id, caller.record, change)

    # --------------------------------------------------------------------------------------------- host

    async def _host(self, session_id: str, token: str, seat: int, what: str, case: str) -> Caller:
        caller = await self.access.caller(session_id, token)
        host_only(caller, what, case)
        _check_seat(caller.record, seat)
        return caller

    async def reissue(self, session_id: str, token: str, seat: int) -> SeatTokenIssued:
        """A new token for the player of ``seat`` (host only): the old one stops working at once."""
        caller = await self._host(session_id, token, seat, "reissue a seat's token", "host_only_seats")
        fresh = secrets.token_urlsafe(32)

        def change(current: SessionRecord) -> tuple[Table, bytes, TableEvent, Callable[[int], SeatTokenIssued]]:
            _held(current, seat)
            table = decode_table(current.table)
            new = msgspec.structs.replace(table, revoked=_revoke(table, current.auth, seat))
            return (new, with_slot(current.auth, seat, hash_token(fresh)),
                    SeatTokenReissued(seat=seat, to_act=current.state.to_act),
                    lambda version: SeatTokenIssued(session_id=session_id, version=version, seat=seat,
                                                    seat_token=fresh))

        return await self._change(session_id, caller.record, change)

    async def hand_to_bot(self, session_id: str, token: str, seat: int, level: Level) -> SeatChanged:
        """``seat`` becomes a bot's (host only); its player's token stops working."""
        caller = await self._host(session_id, token, seat, "hand a seat to a bot", "host_only_seats")

        def change(current: SessionRecord) -> tuple[Table, bytes, TableEvent, Callable[[int], SeatChanged]]:
            if _last_player(current, seat):
                raise Problem("INVALID_BOTS", "bots: at least one seat must be left to a human player",
                              message=("problem.INVALID_BOTS.detail.no_human", {}))
            return self._to_bot(session_id, current, decode_table(current.table), seat, level)

        return await self._change(session_id, caller.record, change)

    async def invite(self, session_id: str, token: str, seat: int) -> SeatChanged:
        """Open ``seat`` for someone else (host only), with a new invitation; whoever held it is out (its token
        stops working; a bot stops playing it) and any earlier invitation to it is void."""
        caller = await self._host(session_id, token, seat, "invite a player", "host_only_seats")

        def change(current: SessionRecord) -> tuple[Table, bytes, TableEvent, Callable[[int], SeatChanged]]:
            return self._to_open(session_id, current, decode_table(current.table), seat, invite=True)

        return await self._change(session_id, caller.record, change)

    # -------------------------------------------------------------------------------------------- changes

    @staticmethod
    def _to_bot(session_id: str, current: SessionRecord, table: Table, seat: int,
                level: Level) -> tuple[Table, bytes, TableEvent, Callable[[int], SeatChanged]]:
        players = current.state.options.players
        new = msgspec.structs.replace(
            table, revoked=_revoke(table, current.auth, seat), names=table.with_name(seat, None, players),
            invitations=tuple(i for i in table.invitations if i.seat != seat))
        return (new, with_slot(current.auth, seat, bot_slot(level)),
                SeatLeft(seat=seat, now="bot", level=level, to_act=current.state.to_act),
                lambda version: SeatChanged(session_id=session_id, version=version, seat=seat, now="bot"))

    @staticmethod
    def _to_open(session_id: str, current: SessionRecord, table: Table, seat: int,
                 invite: bool) -> tuple[Table, bytes, TableEvent, Callable[[int], SeatChanged]]:
        players = current.state.options.players
        invitations = tuple(i for i in table.invitations if i.seat != seat)
        issued: InvitationIssued | None = None
        if invite:
            kept, issued = new_invitation(seat, table.invitation_seconds)
            invitations = (*invitations, kept)
        new = msgspec.structs.replace(
            table, revoked=_revoke(table, current.auth, seat), names=table.with_name(seat, None, players),
            invitations=invitations)
        return (new, with_slot(current.auth, seat, open_slot()),
                SeatLeft(seat=seat, now="open", to_act=current.state.to_act),
                lambda version: SeatChanged(session_id=session_id, version=version, seat=seat, now="open",
                                            invitation=issued))
