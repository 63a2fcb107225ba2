"""Who sits where: invitations to open seats previewed (whose table, which seat, the rules, who sits where; no card
and no token) and redeemed for a seat's token, the host's reissue of a token, handing a seat to a bot or opening
it again, a player leaving.

Every change is one compare-and-set of the session's record (its ``auth`` and its table together, at a new
version, with a table event in the log): on any number of replicas, an invitation is redeemed once (of two
players redeeming it at the same moment, one gets the seat and the other ``INVITATION_REDEEMED``), and a token
that was replaced stops working on every replica at once (a replica's remembered record fails its
compare-and-set and reads the new one). A replaced token is remembered as revoked (401 ``TOKEN_REVOKED``) and
the event streams opened with it end.

A join is safe to retry (an answer lost on the way): the table keeps, with the redeemed invitation, what a retry
of that very join needs to be answered the same seat and token (:func:`seat_token`: the token is derived from the
invitation's code, which only the player holds, and never kept).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import TypeVar

import msgspec

from bots import Level
from engine import GameState
from service.referee import operations
from service.referee.deals import is_secretly_dealt
from service.referee.schemas import resolved
from service.sessions.access import Access, Caller, MayAsk, host_only, seat_only
from service.sessions.changes import Changes, Done, Plan, Seen
from service.sessions.clock import came_back, clock_view, is_away
from service.sessions.headers import idempotency_field
from service.sessions.lifecycle import start_if_seated
from service.sessions.log import SeatJoined, SeatLeft, SeatNamed, SeatTokenReissued, TableEvent
from service.sessions.problems import DEAL_NOT_SECRET, forbidden, unauthorized
from service.sessions.schemas import (
    InvitationIssued,
    InvitationPreview,
    Joined,
    SeatChanged,
    SeatInfo,
    SeatNameSet,
    SeatTokenIssued,
)
from service.sessions.seats import BotSeat, OpenSeat, PlayerSeat, Seat, hash_token, new_bot, new_open
from service.sessions.store import Change, SessionRecord
from service.sessions.table import MAX_REVOKED, Invitation, Table, check_name
from service.web.problems import Problem

A = TypeVar("A")


def new_invitation(seat: int, seconds: int) -> tuple[Invitation, InvitationIssued]:
    """A fresh invitation to ``seat``: what the table keeps (the code's hash) and what the host is given."""
    code = secrets.token_urlsafe(18)
    kept = Invitation(seat=seat, code=hash_token(code), expires_at=time.time() + seconds)
    return kept, InvitationIssued(seat=seat, code=code, expires_in=seconds)


def seats_of(record: SessionRecord) -> list[SeatInfo]:
    """Who holds each seat (public: every view shows it)."""
    out: list[SeatInfo] = []
    for seat, held in enumerate(record.seats.seats[:record.state.options.players]):
        if isinstance(held, BotSeat):
            out.append(SeatInfo(seat=seat, kind="bot", level=held.level))
        elif isinstance(held, OpenSeat):
            out.append(SeatInfo(seat=seat, kind="open", away=is_away(record.clock, seat)))
        else:
            out.append(SeatInfo(seat=seat, kind="human", name=record.settings.name(seat),
                                away=is_away(record.clock, seat)))
    return out


def _check_seat(record: SessionRecord, seat: int) -> None:
    players = record.state.options.players
    if not 0 <= seat < players:
        raise Problem("NO_SUCH_SEAT", f"seat {seat} is not a seat of this {players}-player game")


def _held(record: SessionRecord, seat: int) -> None:
    """409 ``SEAT_NOT_HELD`` unless a player holds ``seat``."""
    if not record.seats.is_player(seat):
        raise Problem("SEAT_NOT_HELD", f"no player holds seat {seat}: it is a bot's or open",
                      message=("problem.SEAT_NOT_HELD.detail.seat", {"seat": seat}))


def _last_player(record: SessionRecord, seat: int) -> bool:
    """Whether every other seat is a bot's (a game of bots alone is not hosted: it would play itself out)."""
    return all(record.seats.is_bot(other) for other in range(record.state.options.players) if other != seat)


def _handed_on(record: SessionRecord, seat: int, holder: Seat, event: TableEvent, answer: Callable[[int], A],
               now_ms: int, *, invitation: Invitation | None = None, left: bool = False) -> Plan[A]:
    """The change that gives ``seat`` to ``holder``: the token of the player who held it stops (it is remembered
    as revoked), and so do its name and its invitations (``invitation`` is the new one, if any)."""
    current = record.settings
    revoked = current.revoked
    gone = record.seats.token_hash(seat)
    if gone is not None:
        revoked = (*revoked, gone)[-MAX_REVOKED:]
    invitations = tuple(i for i in current.invitations if i.seat != seat)
    if invitation is not None:
        invitations = (*invitations, invitation)
    players = record.state.options.players
    # A player who leaves a game under way is one of those who abandoned it, until someone takes the seat.
    gone_from = tuple(sorted({*current.left, seat})) if left and not current.waiting else current.left
    new = msgspec.structs.replace(current, revoked=revoked, names=current.with_name(seat, None, players),
                                  invitations=invitations, left=gone_from)
    return _seated(record, seat, holder, new, event, answer, now_ms)


def _seated(record: SessionRecord, seat: int, holder: Seat, table: Table, event: TableEvent,
            answer: Callable[[int], A], now_ms: int) -> Plan[A]:
    """A change of who holds ``seat``, logged as ``event``. The turn clock runs on: a change of who holds a seat
    is no move; the seat is no longer away (its new holder is there). A game that waited for every seat to be
    taken starts with the change that takes the last (``game_started`` follows ``event``: :mod:`.life`). A seat
    given to a bot may be to act: the bots' turns are played after it."""
    seats = record.seats.replace(seat, holder)
    clock = came_back(record.clock, seat, False) if record.clock is not None and is_away(record.clock, seat) \
        else None
    table, running, started = start_if_seated(record, seats, table, clock or record.clock, now_ms)
    change = Change(state=record.state, events=[event, *started], seats=seats, table=table, clock=running or clock)
    return Plan(change, lambda made: answer(made.version))


#: How long after a join without an ``Idempotency-Key`` the same code and name are answered its token again (a join
#: with a key: as long as the invitation lives). Beyond it, an invitation code seen by others (a link passed
#: round a group chat) opens nothing that its player holds: a name is public.
JOIN_REPLAY_SECONDS = 600


def seat_token(code: str, session_id: str, salt: bytes) -> str:
    """The token of a seat redeemed with the invitation ``code``: derived from the code, which only the player
    holds (the table keeps its hash), and the ``salt`` the join drew. So the token is never kept, yet a retry of
    the join, which sends the code again, gets the very same token back."""
    mac = hmac.new(code.encode(), b"fivehundred seat token\0" + session_id.encode() + b"\0" + salt, hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()


def _key_digest(key: str) -> bytes:
    idempotency_field(None, key)  # 400 INVALID_IDEMPOTENCY_KEY unless 1 to 128 printable ASCII characters
    return hashlib.sha256(b"join:" + key.encode()).digest()


def _rejoined(session_id: str, record: SessionRecord, invitation: Invitation, code: str, name: str,
              key: bytes | None) -> Joined:
    """The first answer of a join retried (:meth:`Seating.join`), or 409 ``INVITATION_REDEEMED`` when it is not
    that join's retry (another key or name, none kept, past its time) or its token no longer holds the seat;
    422 ``IDEMPOTENCY_KEY_REUSED`` for the join's own key with another name."""
    same = False
    if invitation.salt and invitation.expires_at > time.time():
        if key is not None and invitation.key:
            same = hmac.compare_digest(key, invitation.key)
            if same and name != invitation.name:
                raise Problem("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was already used to join under "
                                                             "another name; use a new key for a new join")
        elif key is None and not invitation.key:
            same = name == invitation.name and time.time() < invitation.joined_at + JOIN_REPLAY_SECONDS
    if same:
        token = seat_token(code, session_id, invitation.salt)
        held = record.seats.token_hash(invitation.seat)
        if held is not None and hmac.compare_digest(held, hash_token(token)):
            return Joined(session_id=session_id, version=invitation.version, seat=invitation.seat,
                          seat_token=token, name=invitation.name)
    raise Problem("INVITATION_REDEEMED", "this invitation was already redeemed: ask the host for a new one")


def may_name(caller: Caller, path_seat: int | None) -> None:
    """Who may name the player of ``path_seat``: the host, the table host, or that seat's own token."""
    if caller.seat is None or caller.seat != path_seat:
        host_only(caller, "name another seat's player", "host_only_seats")


def may_leave(caller: Caller, path_seat: int | None = None) -> int:
    """Who may leave a seat (a seat's token): its seat."""
    return seat_only(caller, "leave a seat", "host_leave")


def _seat_tool(what: str) -> MayAsk:
    """Who may use one of the host's seat tools (the host or the table host)."""

    def may(caller: Caller, path_seat: int | None = None) -> None:
        host_only(caller, what, "host_only_seats")

    return may


may_reissue = _seat_tool("reissue a seat's token")
may_hand_to_bot = _seat_tool("hand a seat to a bot")
may_invite = _seat_tool("invite a player")


def check_invitable(state: GameState, known_deal: bool) -> None:
    """403 ``FORBIDDEN`` for opening a seat to an invited player in a game whose deals a client knows (a
    seed or deck orders it gave, or a snapshot's game not dealt in secret), unless the host said ``known_deal``."""
    if known_deal or is_secretly_dealt(state):
        return
    raise forbidden("this session deals from a seed or deck orders a client gave: a seat is opened to an invited "
                    "player only in a session created with \"known_deal\": true", "known_deal", kind=DEAL_NOT_SECRET)


def _invitation(table: Table, digest: bytes) -> Invitation:
    """The invitation whose code hashes to ``digest``: 401 for none of this session's (or one voided since)."""
    found: Invitation | None = None
    for invitation in table.invitations:  # every comparison made, in constant time each
        if hmac.compare_digest(invitation.code, digest):
            found = invitation
    if found is None:
        raise unauthorized("this invitation is not valid for this session", "invalid_invitation")
    return found


def _unexpired(invitation: Invitation) -> None:
    if invitation.expires_at <= time.time():
        raise Problem("INVITATION_EXPIRED", "this invitation has expired: ask the host for a new one")


def _redeemable(table: Table, digest: bytes) -> Invitation:
    """The invitation whose code hashes to ``digest``, while it may be redeemed: 401 for none of this session's
    (or one voided since), 409 ``INVITATION_REDEEMED``, 410 ``INVITATION_EXPIRED``."""
    found = _invitation(table, digest)
    if found.redeemed:
        raise Problem("INVITATION_REDEEMED", "this invitation was already redeemed: ask the host for a new one")
    _unexpired(found)
    return found


def preview_of(session_id: str, record: SessionRecord, invitation: Invitation) -> InvitationPreview:
    """What ``invitation`` opens, as :class:`InvitationPreview` tells it: the table and its seats, never a card
    (of the public view only the sides, the scores and where the game is are read) nor a token."""
    state, table = record.state, record.settings
    public = operations.seat_view(state, None)
    return InvitationPreview(
        session_id=session_id, seat=invitation.seat, expires_in=max(0, int(invitation.expires_at - time.time())),
        host_name=table.host_name, players=state.options.players, options=resolved(state.options),
        rules_version=state.rules_version, seats=seats_of(record), sides=[list(side) for side in public.sides],
        phase=public.phase, hand_number=public.hand_number, scores=list(public.scores), hints=table.hints,
        on_leave=table.on_leave, leave_level=table.leave_level, clock=clock_view(record.clock))


def _other_names(record: SessionRecord, seat: int) -> tuple[str | None, ...]:
    """The names of the seats other than ``seat``."""
    return tuple(name for i, name in enumerate(record.settings.names) if i != seat)


class Seating:
    """Joining, reissuing, handing on and leaving seats: each one change of the session's seats and table."""

    def __init__(self, changes: Changes, access: Access) -> None:
        self.changes = changes
        self.access = access

    # ------------------------------------------------------------------------------------------ players

    async def preview(self, session_id: str, code: str) -> InvitationPreview:
        """What the invitation ``code`` opens, before it is redeemed (:func:`preview_of`); its refusals are
        ``join``'s."""
        record = (await self.access.load(session_id)).record
        return preview_of(session_id, record, _redeemable(record.settings, hash_token(code)))

    async def join(self, session_id: str, code: str, name: str,
                   idempotency_key: str | None = None) -> tuple[Joined, bool]:
        """Redeem the invitation ``code`` under ``name``: the seat's token, and whether this is the answer to an
        earlier request given again. A retry of the same join (the same
        code with the same ``Idempotency-Key``, while the invitation lives; without a key, the same name, for
        :data:`JOIN_REPLAY_SECONDS`) is answered the same seat and token, as long as that token holds the seat."""
        shown = check_name(name)
        key = None if idempotency_key is None else _key_digest(idempotency_key)
        record = (await self.access.load(session_id)).record
        salt = secrets.token_bytes(16)
        token = seat_token(code, session_id, salt)
        digest = hash_token(code)

        async def redeem(seen: Seen) -> Plan[tuple[Joined, bool]] | Done[tuple[Joined, bool]]:
            current = seen.record
            table = current.settings
            found = _invitation(table, digest)
            if found.redeemed:
                return Done((_rejoined(session_id, current, found, code, shown, key), True))
            _unexpired(found)
            seat = found.seat
            check_name(shown, _other_names(current, seat))
            redeemed = msgspec.structs.replace(found, redeemed=True, salt=salt, key=key or b"", name=shown,
                                               joined_at=time.time(), version=current.version + 1)
            invitations = tuple(redeemed if i is found else i for i in table.invitations)
            new = msgspec.structs.replace(table, invitations=invitations,
                                          names=table.with_name(seat, shown, current.state.options.players),
                                          left=tuple(s for s in table.left if s != seat))
            return _seated(current, seat, PlayerSeat(hash_token(token)), new,
                           SeatJoined(seat=seat, name=shown, to_act=current.state.to_act),
                           lambda version: (Joined(session_id=session_id, version=version, seat=seat,
                                                   seat_token=token, name=shown), False), self.changes.clock.now_ms())

        return await self.changes.run(session_id, redeem, record)

    async def name(self, session_id: str, token: str, seat: int, name: str) -> SeatNameSet:
        """Name the player of ``seat``: by the host (or the table host), or by the seat's own token. 409
        ``SEAT_NOT_HELD`` for a bot's or an open seat; 400 ``INVALID_NAME`` for a name against the rule, or alike
        another seat's."""
        shown = check_name(name)
        caller = await self.access.caller(session_id, token)
        may_name(caller, seat)
        _check_seat(caller.record, seat)

        async def named(seen: Seen) -> Plan[SeatNameSet]:
            current = seen.record
            _held(current, seat)
            check_name(shown, _other_names(current, seat))
            table = current.settings
            new = msgspec.structs.replace(table, names=table.with_name(seat, shown, current.state.options.players))
            event = SeatNamed(seat=seat, name=shown, to_act=current.state.to_act)
            change = Change(state=current.state, events=[event], table=new)
            return Plan(change, lambda made: SeatNameSet(session_id=session_id, version=made.version, seat=seat,
                                                         name=shown), follow=False)

        return await self.changes.run(session_id, named, caller.record)

    async def leave(self, session_id: str, token: str) -> SeatChanged:
        """The caller's seat goes to a bot or opens, as the session says (``on_leave``); its token stops."""
        caller = await self.access.caller(session_id, token)
        seat = may_leave(caller)

        async def vacate(seen: Seen) -> Plan[SeatChanged]:
            current = seen.record
            held = current.seats.token_hash(seat)
            if held is None or not hmac.compare_digest(hash_token(token), held):
                raise unauthorized("this token is not valid for this session", "invalid_token")
            table = current.settings
            now = self.changes.clock.now_ms()
            if table.on_leave == "bot" and not _last_player(current, seat):
                return self._to_bot(session_id, current, seat, table.leave_level, now, left=True)
            return self._to_open(session_id, current, seat, invite=False, now_ms=now, left=True)

        return await self.changes.run(session_id, vacate, caller.record)

    # --------------------------------------------------------------------------------------------- host

    async def _host(self, session_id: str, token: str, seat: int, may: MayAsk) -> Caller:
        caller = await self.access.caller(session_id, token)
        may(caller, seat)
        _check_seat(caller.record, seat)
        return caller

    async def reissue(self, session_id: str, token: str, seat: int) -> SeatTokenIssued:
        """A new token for the player of ``seat`` (host only): the old one stops working at once."""
        caller = await self._host(session_id, token, seat, may_reissue)
        fresh = secrets.token_urlsafe(32)

        async def reissue(seen: Seen) -> Plan[SeatTokenIssued]:
            current = seen.record
            _held(current, seat)
            table = current.settings
            held = current.seats.token_hash(seat)
            assert held is not None
            new = msgspec.structs.replace(table, revoked=(*table.revoked, held)[-MAX_REVOKED:])
            return _seated(current, seat, PlayerSeat(hash_token(fresh)), new,
                           SeatTokenReissued(seat=seat, to_act=current.state.to_act),
                           lambda version: SeatTokenIssued(session_id=session_id, version=version, seat=seat,
                                                           seat_token=fresh), self.changes.clock.now_ms())

        return await self.changes.run(session_id, reissue, caller.record)

    async def hand_to_bot(self, session_id: str, token: str, seat: int, level: Level) -> SeatChanged:
        """``seat`` becomes a bot's (host only); its player's token stops working."""
        caller = await self._host(session_id, token, seat, may_hand_to_bot)

        async def to_bot(seen: Seen) -> Plan[SeatChanged]:
            if _last_player(seen.record, seat):
                raise Problem("INVALID_BOTS", "bots: at least one seat must be left to a human player",
                              message=("problem.INVALID_BOTS.detail.no_human", {}))
            return self._to_bot(session_id, seen.record, seat, level, self.changes.clock.now_ms())

        return await self.changes.run(session_id, to_bot, caller.record)

    async def invite(self, session_id: str, token: str, seat: int) -> SeatChanged:
        """Open ``seat`` for someone else (host only), with a new invitation; whoever held it is out (its token
        stops working; a bot stops playing it) and any earlier invitation to it is void."""
        caller = await self._host(session_id, token, seat, may_invite)

        async def to_open(seen: Seen) -> Plan[SeatChanged]:
            check_invitable(seen.record.state, seen.record.settings.known_deal)
            return self._to_open(session_id, seen.record, seat, invite=True, now_ms=self.changes.clock.now_ms())

        return await self.changes.run(session_id, to_open, caller.record)

    # -------------------------------------------------------------------------------------------- changes

    @staticmethod
    def _to_bot(session_id: str, current: SessionRecord, seat: int, level: Level, now_ms: int, *,
                left: bool = False) -> Plan[SeatChanged]:
        return _handed_on(current, seat, new_bot(level),
                          SeatLeft(seat=seat, now="bot", level=level, to_act=current.state.to_act),
                          lambda version: SeatChanged(session_id=session_id, version=version, seat=seat, now="bot"),
                          now_ms, left=left)

    @staticmethod
    def _to_open(session_id: str, current: SessionRecord, seat: int, invite: bool, now_ms: int, *,
                 left: bool = False) -> Plan[SeatChanged]:
        kept, issued = new_invitation(seat, current.settings.invitation_seconds) if invite else (None, None)
        return _handed_on(current, seat, new_open(),
                          SeatLeft(seat=seat, now="open", to_act=current.state.to_act),
                          lambda version: SeatChanged(session_id=session_id, version=version, seat=seat, now="open",
                                                      invitation=issued), now_ms, invitation=kept, left=left)
