"""Where a game is in its life, read from a session's record: nothing here changes anything (:mod:`.life` does).

A session's table (:class:`~service.sessions.table.Table`) says whether its game waits to start, is paused or
ended; its turn clock (:class:`~service.sessions.clock.TurnClock`) which seats are away. From these:

- :func:`status`: ``waiting``, ``running``, ``paused`` or ``ended``;
- :func:`autoplayed`: the seats the service plays now: the bot seats and the seats away (at the clock's bot level,
  with the clock's own per-seat secret, so that an away seat's move is the one the clock would make) while some
  player is at the table (else a table of bots and of seats away would play itself out at once: the seats away
  then wait out the full clock, as before), none at all unless the game runs: nothing is played before the
  start, while paused, or after the end;
- :func:`check_playing`: 409 ``VERSION_CONFLICT`` for a move while the game does not run.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from bots import Level
from engine import GameState
from service.sessions.clock import TurnClock, autoplayed_seats, clock_secret, released, started
from service.sessions.log import GameStarted, SeatForfeited
from service.sessions.problems import conflict
from service.sessions.seats import BOT_MARK, SLOT, BotSeat, Seats
from service.sessions.store import Change, SessionRecord
from service.sessions.table import MAX_REVOKED, Table

#: A bot seat's secret's length (:mod:`.seats`).
BOT_SECRET = SLOT - len(BOT_MARK) - 1

Status = Literal["waiting", "running", "paused", "ended"]

#: What the service plays, and the seats of it played for one move only.
Autoplayed = tuple[dict[int, tuple[Level, bytes]], frozenset[int]]
_NOBODY: frozenset[int] = frozenset()
_NONE: Autoplayed = ({}, _NOBODY)


def status(table: Table) -> Status:
    if table.ended is not None:
        return "ended"
    if table.waiting:
        return "waiting"
    return "paused" if table.paused else "running"


def autoplayed(record: SessionRecord) -> Autoplayed:
    """The seats the service plays now (seat → level, secret), and those of them it plays once more only (came
    back while the clock's bot was making their move). Nothing unless the game runs."""
    table = record.settings
    if table.ended is not None or table.waiting or table.paused:
        return _NONE
    bots = record.seats.bots()
    clock = record.clock
    if clock is None or not any(clock.away):
        return bots, _NOBODY
    away, once = autoplayed_seats(clock)
    if away and not any(record.seats.is_player(s) and s not in away for s in range(record.state.options.players)):
        # Nobody at the table waits for them: a table of bots and of seats away would play itself out at once.
        # The seats away are on the full clock then, as any absent seat.
        away = []
    if not away and not once:
        return bots, frozenset()
    assert clock is not None
    out = dict(bots)
    for seat in (*away, *once):
        if seat not in out:
            out[seat] = (clock.bot, away_secret(record.auth, seat))
    return out, frozenset(once)


def away_secret(auth: bytes, seat: int) -> bytes:
    """The seed secret of the bot's moves for ``seat`` while it is away: the clock's (derived from the seat's own
    secret), as long as a bot seat's, so that a seat forfeited to the bot goes on with the very same moves."""
    return clock_secret(auth, seat)[:BOT_SECRET]


def forfeited(record: SessionRecord, change: Change, seat: int) -> Change:
    """``change`` (the bot's move for ``seat``, away, that reached the clock's ``forfeit_after``) forfeiting the seat
    to the clock's bot as well: the seat a bot's for good (its secret the one its moves away used, so the moves
    go on as decided), its player's token revoked, its name and invitations gone, the seat among those whose
    players left; ``seat_forfeited`` logged after the move's events."""
    clock = change.clock
    assert clock is not None
    table = record.settings
    revoked = table.revoked
    held = record.seats.token_hash(seat)
    if held is not None:
        revoked = (*revoked, held)[-MAX_REVOKED:]
    new = msgspec.structs.replace(
        table, revoked=revoked, names=table.with_name(seat, None, record.state.options.players),
        invitations=tuple(i for i in table.invitations if i.seat != seat), left=tuple(sorted({*table.left, seat})))
    bot = BotSeat(clock.bot, away_secret(record.auth, seat))
    return msgspec.structs.replace(
        change, events=[*change.events, SeatForfeited(seat=seat, level=clock.bot, to_act=change.state.to_act)],
        seats=record.seats.replace(seat, bot), table=new, clock=released(clock, seat))


def plays(record: SessionRecord, seat: int | None) -> bool:
    """Whether the service plays ``seat`` now (a bot's, or away, while the game runs)."""
    return seat is not None and seat in autoplayed(record)[0]


def check_playing(record: SessionRecord) -> None:
    """409 ``VERSION_CONFLICT`` (with the current version) unless the game runs: a move waits for the start, for
    the end of a pause, and is never made after the end."""
    now = status(record.settings)
    if now == "running":
        return
    version = record.version
    if now == "waiting":
        raise conflict(version, f"the game has not started (the session is at version {version}): it starts when "
                                "every seat is taken, or when the host starts it", "not_started")
    if now == "paused":
        raise conflict(version, f"the game is paused (the session is at version {version}): nothing is played "
                                "until the host resumes it", "paused")
    raise conflict(version, f"the game has ended (the session is at version {version}): it was called off or "
                            "abandoned", "ended")


def no_card_played(state: GameState) -> bool:
    """Whether the game never got its first card: no hand was played, and no card of this one."""
    return state.last_hand is None and not state.tricks and (state.trick is None or not state.trick.cards) \
        and state.phase != "game_over"


def absent_seats(record: SessionRecord) -> list[int]:
    """The seats whose players are gone: open (a player left, or never came), left for a bot since the game
    started, or away."""
    seats, table, clock = record.seats, record.settings, record.clock
    n = record.state.options.players
    away = set(autoplayed_seats(clock)[0])
    return [s for s in range(n) if (not seats.is_player(s) and not seats.is_bot(s)) or s in table.left or s in away]


def all_seated(seats: Seats, players: int) -> bool:
    """Whether every seat is taken: a player's or a bot's, none open."""
    return all(seats.is_player(s) or seats.is_bot(s) for s in range(players))


def start_if_seated(record: SessionRecord, seats: Seats, table: Table, clock: TurnClock | None,
                    now_ms: int) -> tuple[Table, TurnClock | None, list[GameStarted]]:
    """The table, clock (``None``: as it is) and events of a change of seats to ``seats`` (with ``table``, the
    clock ``clock``): the game starts with it when it waited for every seat to be taken and now they are
    (``start: "seated"``), its clock running from then."""
    if not table.waiting or table.start != "seated" or not all_seated(seats, record.state.options.players):
        return table, None, []
    return (msgspec.structs.replace(table, waiting=False), started(clock, record.state, now_ms),
            [GameStarted(by="seated", to_act=record.state.to_act)])
