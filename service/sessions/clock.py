"""Turn clocks of hosted sessions: a time limit per move, an optional reserve per seat, and a bot that moves
for a seat whose time ran out.

A session created with ``"clock": {"move_seconds": 30, "reserve_seconds": 120, "bot": "basic"}`` keeps a
:class:`TurnClock` in its record, beside the state, written by the same compare-and-set as every move:

- when a seat comes to act (any seat: a bot seat's clock is a safety net for bot moves a replica did not get to
  commit), its turn starts *now* and its **deadline** is now + ``move_seconds`` + what is left of its reserve;
- when it moves, the time it took beyond ``move_seconds`` is drawn from its reserve (never below zero);
- when the deadline passes first, the service moves for it (:mod:`.sweeper`): the move the named bot level
  plays from that seat's own view, with a seed drawn from the committed state and a per-seat secret
  (:func:`clock_move`), so every replica that notices computes the same move and the compare-and-set lets
  exactly one commit it. Its version's events start with :class:`MoveTimedOut`; the seat's reserve is spent;
- nobody is to act (the game is over): no deadline, the clock is paused. (The engine scores a hand as part of
  its last card's move and deals the next at once, so a new hand restarts the clock with its first decision.)

A seat whose last turn the clock played, and which has not moved itself since, must show that it knows: its
next move is refused with 409 ``MOVE_TIMED_OUT`` (naming the current version and the version the clock made)
unless it carries ``If-Match`` with a version at or after the clock's move. A move meant for the turn the clock
took can so never be applied to a later turn of the same seat (a trick it then leads, say). A move that
commits before the clock's does is simply applied: the first commit wins.

A seat the clock moved for ``away_after`` times in a row (2 unless the session says otherwise; 0: never) is
**away**: the clock's bot then moves for it at once, in the same chain as the bot seats' moves, instead of waiting
out a full clock each turn, until its player comes back (:mod:`.life`). Those moves count as the clock's (the seat's
next move must show it knows, as above). An absent player so costs the others ``away_after`` full clocks in all,
however many hands it misses. With ``forfeit_after``, a seat away for that many of the bot's moves is forfeited: the
bot keeps it for good (:func:`~service.sessions.lifecycle.forfeited`). A game that waits to start, is paused or
ended has its clock stopped (:func:`stopped`); it runs again from a full turn when the game starts or resumes
(:func:`started`).

Deadlines are absolute (milliseconds since the Unix epoch, UTC) and come from :attr:`ClockSettings.now`, so
tests pass short limits or a clock of their own. Nothing here does I/O: :mod:`.sweeper` plays the moves.
"""

from __future__ import annotations

import datetime
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated

import msgspec

from bots import Level
from engine import GameState, Move, apply_move, player_to_act
from service.referee.deals import topped_up
from service.sessions.bots import bot_move
from service.sessions.log import MoveTimedOut, SessionEvent
from service.sessions.seats import Seats
from service.web.problems import Problem

#: Bounds of a session's clock (seconds). The least move time is a setting (``CLOCK_MIN_MOVE_SECONDS``).
MAX_MOVE_SECONDS = 86_400
MAX_RESERVE_SECONDS = 86_400
DEFAULT_MIN_MOVE_SECONDS = 1.0
#: A seat is away after this many of the clock's moves in a row for it, unless the session says otherwise: an
#: absent player then costs the others at most two full clocks in all, however many hands it misses.
DEFAULT_AWAY_AFTER = 2
MAX_AWAY_AFTER = 100
MAX_FORFEIT_AFTER = 10_000
#: :attr:`TurnClock.away` of a seat: its player is there; it is away (the clock's bot moves for it at once); it
#: came back while the bot was making its move (the player has it from its next turn on).
PRESENT, AWAY, BACK_NEXT_TURN = 0, 1, 2


@dataclass(frozen=True)
class ClockSettings:
    """How a replica runs the clocks: the least move time a session may ask for, how often its sweeper looks
    for due deadlines at most (it also wakes for the earliest one it knows), how long a claim on a due session
    keeps the other replicas off it (a replica that dies holding one delays that move by this much), and the
    wall clock (seconds since the epoch)."""

    min_move_seconds: float = DEFAULT_MIN_MOVE_SECONDS
    poll_seconds: float = 0.1
    claim_seconds: float = 2.0
    now: Callable[[], float] = time.time

    def now_ms(self) -> int:
        return int(self.now() * 1000)


# --------------------------------------------------------------------------------------------- contract


#: The clock's phases, each with a move time of its own if the session sets one: the game's phases by clock phase.
CLOCK_PHASES: dict[str, str] = {"auction": "auction", "redeal_answer": "auction", "call": "exchange",
                                "exchange": "exchange", "nominate": "exchange", "play": "play"}
_PHASE_INDEX = {"auction": 0, "exchange": 1, "play": 2}

Seconds = Annotated[float, msgspec.Meta(gt=0, le=MAX_MOVE_SECONDS)]


class PhaseSeconds(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """A move's time limit by phase, each instead of ``move_seconds`` when given: the auction (and the answer to a
    proposed redeal), the contractor's exchange (with the partner call and the joker's nomination), the play."""

    auction: Seconds | None = None
    exchange: Seconds | None = None
    play: Seconds | None = None


class ClockOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A session's turn clock: each move's time limit (by phase, if wanted), a reserve per seat with an increment
    for each move made in time, and who plays a seat that runs out."""

    #: Seconds each move may take (milliseconds count; at least the service's least move time, 1 s unless
    #: configured otherwise).
    move_seconds: Annotated[float, msgspec.Meta(gt=0, le=MAX_MOVE_SECONDS)]
    #: Extra seconds per seat for the whole game, drawn down by each move that takes longer than
    #: ``move_seconds`` (0: none).
    reserve_seconds: Annotated[float, msgspec.Meta(ge=0, le=MAX_RESERVE_SECONDS)] = 0
    #: The bot level that moves for a seat whose time ran out.
    bot: Level = "basic"
    #: A move's time limit in some phases instead of ``move_seconds``.
    phase_seconds: PhaseSeconds | None = None
    #: Seconds added to a seat's reserve for each move it makes itself before its deadline (0: none), up to
    #: ``reserve_max_seconds``.
    increment_seconds: Annotated[float, msgspec.Meta(ge=0, le=MAX_MOVE_SECONDS)] = 0
    #: The most a reserve may hold once increments are added (default: ``reserve_seconds``, so that increments
    #: only give back what slow moves spent).
    reserve_max_seconds: Annotated[float, msgspec.Meta(ge=0, le=MAX_RESERVE_SECONDS)] | None = None
    #: The clock's moves in a row for a seat after which it is away: the clock's bot then moves for it at once,
    #: without waiting out its time, until its player comes back (any request with its token). 0: never away.
    away_after: Annotated[int, msgspec.Meta(ge=0, le=MAX_AWAY_AFTER)] = DEFAULT_AWAY_AFTER
    #: The bot's moves for a seat away after which the seat is forfeited: the bot keeps it for good (a bot seat at
    #: the clock's level; its player's token stops). 0: never.
    forfeit_after: Annotated[int, msgspec.Meta(ge=0, le=MAX_FORFEIT_AFTER)] = 0


class ClockView(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A session's clock as everyone sees it (clocks are public)."""

    move_seconds: float
    reserve_seconds: float
    bot: Level
    #: The seat on the clock (the seat to act); ``null`` while the clock is paused (nobody is to act).
    seat: int | None
    #: When ``seat`` must have moved (RFC 3339, UTC, milliseconds); ``null`` while paused.
    deadline: str | None
    #: Reserve seconds left, by seat (the deadline of the seat to act already includes its own).
    reserves: list[float]
    #: The move time limits by phase, when the session sets any.
    phase_seconds: PhaseSeconds | None = None
    #: The move time limit of the turn on the clock, when it is not ``move_seconds`` (a phase's own).
    turn_seconds: float | None = None
    #: Seconds added to a seat's reserve for each move it makes in time, up to ``reserve_max_seconds``.
    increment_seconds: float | None = None
    reserve_max_seconds: float | None = None
    #: The clock's moves in a row after which a seat is away (0: never; absent for a session created before).
    away_after: int | None = None
    #: The bot's moves for a seat away after which the seat is forfeited to the bot (absent: never).
    forfeit_after: int | None = None


# -------------------------------------------------------------------------------------------- the record


class TurnClock(msgspec.Struct, frozen=True, array_like=True):
    """A session's clock, kept in its record (times in milliseconds; ``deadline`` since the epoch)."""

    move_ms: int
    reserve_ms: int
    bot: Level
    #: The seat on the clock and when its turn started; ``None`` while paused.
    seat: int | None
    started: int
    deadline: int | None
    #: Reserve left, by seat.
    reserves: tuple[int, ...]
    #: By seat: the version the clock made for it, while that seat has not moved itself since (else 0).
    timed_out: tuple[int, ...]
    #: The move time limit of the turn on the clock (0: ``move_ms``), and the limits by clock phase (auction,
    #: exchange, play; 0: ``move_ms``).
    turn_ms: int = 0
    phase_ms: tuple[int, int, int] = (0, 0, 0)
    #: Added to the mover's reserve for each move made before its deadline, up to ``reserve_max_ms``.
    increment_ms: int = 0
    reserve_max_ms: int = 0
    #: The clock's moves in a row after which a seat is away (0: never), and by seat: the clock's moves in a row
    #: for it (reset when it moves itself or comes back), and whether it is away (:data:`PRESENT`, :data:`AWAY`,
    #: :data:`BACK_NEXT_TURN`). Empty: none kept (a clock without away, or from before it).
    away_after: int = 0
    missed: tuple[int, ...] = ()
    away: tuple[int, ...] = ()
    #: The bot's moves for a seat away after which it is forfeited (0: never).
    forfeit_after: int = 0

    def limit(self, phase: str) -> int:
        """A move's time limit in the game's ``phase``."""
        index = _PHASE_INDEX.get(CLOCK_PHASES.get(phase, ""), -1)
        return (self.phase_ms[index] if index >= 0 else 0) or self.move_ms


CLOCK_ENCODER = msgspec.msgpack.Encoder()
CLOCK_DECODER = msgspec.msgpack.Decoder(TurnClock)


def encode_clock(clock: TurnClock | None) -> bytes:
    return b"" if clock is None else CLOCK_ENCODER.encode(clock)


def decode_clock(raw: bytes | None) -> TurnClock | None:
    return CLOCK_DECODER.decode(raw) if raw else None


def invalid_clock(detail: str, case: str, **params: object) -> Problem:
    return Problem("INVALID_CLOCK", detail, message=(f"problem.INVALID_CLOCK.detail.{case}", dict(params)))


def new_clock(options: ClockOptions | None, state: GameState, settings: ClockSettings,
              now_ms: int) -> TurnClock | None:
    """A new session's clock (``None``: no clock), checked against the bounds, running for the seat to act."""
    if options is None:
        return None
    low = settings.min_move_seconds
    if not low <= options.move_seconds <= MAX_MOVE_SECONDS:
        raise invalid_clock(f"clock.move_seconds must be from {low:g} to {MAX_MOVE_SECONDS}, not "
                            f"{options.move_seconds:g}", "move_seconds", low=f"{low:g}", high=MAX_MOVE_SECONDS,
                            value=f"{options.move_seconds:g}")
    if not 0 <= options.reserve_seconds <= MAX_RESERVE_SECONDS:
        raise invalid_clock(f"clock.reserve_seconds must be from 0 to {MAX_RESERVE_SECONDS}, not "
                            f"{options.reserve_seconds:g}", "reserve_seconds", high=MAX_RESERVE_SECONDS,
                            value=f"{options.reserve_seconds:g}")
    phases = options.phase_seconds or PhaseSeconds()
    for name, seconds in (("auction", phases.auction), ("exchange", phases.exchange), ("play", phases.play)):
        if seconds is not None and seconds < low:
            raise invalid_clock(f"clock.phase_seconds.{name} must be from {low:g} to {MAX_MOVE_SECONDS}, not "
                                f"{seconds:g}", "phase_seconds", phase=name, low=f"{low:g}", high=MAX_MOVE_SECONDS,
                                value=f"{seconds:g}")
    most = options.reserve_seconds if options.reserve_max_seconds is None else options.reserve_max_seconds
    if most < options.reserve_seconds:
        raise invalid_clock(f"clock.reserve_max_seconds must be at least reserve_seconds "
                            f"({options.reserve_seconds:g}), not {most:g}", "reserve_max_seconds",
                            low=f"{options.reserve_seconds:g}", value=f"{most:g}")
    n = state.options.players
    reserve = round(options.reserve_seconds * 1000)
    paused = TurnClock(round(options.move_seconds * 1000), reserve, options.bot, None, now_ms, None,
                       (reserve,) * n, (0,) * n,
                       phase_ms=tuple(round((s or 0) * 1000) for s in (phases.auction, phases.exchange,
                                                                       phases.play)),  # type: ignore[arg-type]
                       increment_ms=round(options.increment_seconds * 1000), reserve_max_ms=round(most * 1000))
    if options.away_after:
        paused = msgspec.structs.replace(paused, away_after=options.away_after, missed=(0,) * n, away=(0,) * n,
                                         forfeit_after=options.forfeit_after)
    return _run_for(paused, state, now_ms)


def stopped(clock: TurnClock | None) -> TurnClock | None:
    """``clock`` stopped (the game waits to start, is paused or ended): nobody on it, no deadline."""
    if clock is None:
        return None
    return msgspec.structs.replace(clock, seat=None, deadline=None, turn_ms=0)


def started(clock: TurnClock | None, state: GameState, now_ms: int) -> TurnClock | None:
    """``clock`` running again (the game started or resumed): the seat to act's turn starts now, in full."""
    return None if clock is None else _run_for(clock, state, now_ms)


def _per_seat(values: tuple[int, ...], n: int) -> list[int]:
    return list(values) if len(values) == n else [0] * n


def is_away(clock: TurnClock | None, seat: int) -> bool:
    """Whether ``seat`` is away (its player has not come back yet)."""
    return clock is not None and seat < len(clock.away) and clock.away[seat] == AWAY


def autoplayed_seats(clock: TurnClock | None) -> tuple[list[int], list[int]]:
    """The seats the clock's bot plays at once: the seats away, and the seats that came back while it was making
    their move (played once more)."""
    if clock is None or not any(clock.away):
        return [], []
    return ([s for s, a in enumerate(clock.away) if a == AWAY],
            [s for s, a in enumerate(clock.away) if a == BACK_NEXT_TURN])


def came_back(clock: TurnClock, seat: int, to_act: bool) -> TurnClock:
    """``clock`` once ``seat``'s player came back: present from its next turn (``to_act``: the bot is making its
    move now, and keeps it), its count of the clock's moves in a row started again."""
    n = len(clock.reserves)
    missed, away = _per_seat(clock.missed, n), _per_seat(clock.away, n)
    missed[seat], away[seat] = 0, BACK_NEXT_TURN if to_act else PRESENT
    return msgspec.structs.replace(clock, missed=tuple(missed), away=tuple(away))


def forfeits(after: TurnClock | None, seat: int | None) -> bool:
    """Whether ``seat``, away, is forfeited once the bot's move for it made ``after``: it has made
    ``forfeit_after`` moves for it while away."""
    return after is not None and seat is not None and after.forfeit_after > 0 and is_away(after, seat) and \
        after.missed[seat] >= after.away_after + after.forfeit_after


def released(clock: TurnClock, seat: int) -> TurnClock:
    """``clock`` once ``seat`` changed hands: present, no count of the clock's moves."""
    n = len(clock.reserves)
    missed, away = _per_seat(clock.missed, n), _per_seat(clock.away, n)
    missed[seat], away[seat] = 0, PRESENT
    return msgspec.structs.replace(clock, missed=tuple(missed), away=tuple(away))


def newly_away(before: TurnClock | None, after: TurnClock | None) -> list[int]:
    """The seats away in ``after`` that were not in ``before``."""
    if after is None or not after.away:
        return []
    was = before.away if before is not None and len(before.away) == len(after.away) else (0,) * len(after.away)
    return [s for s, a in enumerate(after.away) if a == AWAY and was[s] != AWAY]


def _run_for(clock: TurnClock, state: GameState, now_ms: int) -> TurnClock:
    """``clock`` with the turn of ``state``'s seat to act (a ghost's: its human's) starting now (paused when nobody
    is to act)."""
    seat = player_to_act(state)
    if seat is None:
        return msgspec.structs.replace(clock, seat=None, started=now_ms, deadline=None)
    limit = clock.limit(state.phase)
    return msgspec.structs.replace(clock, seat=seat, started=now_ms, deadline=now_ms + limit + clock.reserves[seat],
                                   turn_ms=0 if limit == clock.move_ms else limit)


def restarted(clock: TurnClock | None, state: GameState, now_ms: int) -> TurnClock | None:
    """The clock of the table's next game, whose first state is ``state``: every reserve full again, no seat timed
    out, the first turn started now."""
    if clock is None:
        return None
    n = len(clock.reserves)
    return _run_for(msgspec.structs.replace(clock, reserves=(clock.reserve_ms,) * n, timed_out=(0,) * n), state,
                    now_ms)


def after_move(clock: TurnClock | None, state: GameState, version: int, now_ms: int, *,
               timed_out: bool = False) -> TurnClock | None:
    """The clock once the seat on it moved at ``now_ms`` (or the clock moved for it, ``timed_out``), making
    ``version`` whose state is ``state``: its overrun drawn from its reserve (and, for a move made before its
    deadline, the increment added, up to the most a reserve holds), the next turn started."""
    if clock is None:
        return None
    reserves, flags = list(clock.reserves), list(clock.timed_out)
    mover = clock.seat
    kept = clock
    if mover is not None:
        n = len(reserves)
        missed, away = _per_seat(clock.missed, n), _per_seat(clock.away, n)
        # A seat away (or back from its next turn) is moved for by the clock's bot at once: its move counts as the
        # clock's (the seat's next move must show it knows), though no deadline passed.
        botted = bool(away[mover])
        clocked = timed_out or botted
        overrun = max(0, now_ms - clock.started - (clock.turn_ms or clock.move_ms))
        reserves[mover] = 0 if clocked else max(0, reserves[mover] - overrun)
        if clock.increment_ms and not clocked and clock.deadline is not None and now_ms <= clock.deadline:
            reserves[mover] = max(reserves[mover], min(reserves[mover] + clock.increment_ms,
                                                       clock.reserve_max_ms or clock.reserve_ms))
        flags[mover] = version if clocked else 0
        if clock.away_after:
            if timed_out:
                missed[mover] += 1
                if missed[mover] >= clock.away_after and away[mover] == PRESENT:
                    away[mover] = AWAY
            elif not botted:
                missed[mover] = 0
            elif away[mover] == AWAY:
                missed[mover] += 1  # counted on past away_after: the bot's moves while away
            if away[mover] == BACK_NEXT_TURN:
                away[mover], missed[mover] = PRESENT, 0
            kept = msgspec.structs.replace(clock, missed=tuple(missed), away=tuple(away))
    return _run_for(msgspec.structs.replace(kept, reserves=tuple(reserves), timed_out=tuple(flags)), state,
                    now_ms)


def clocks_after(clock: TurnClock | None, states: Sequence[GameState], version: int,
                 now_ms: int) -> list[TurnClock | None]:
    """The clocks after each of several moves committed at ``now_ms``, the first making ``version``."""
    out: list[TurnClock | None] = []
    for i, state in enumerate(states):
        clock = after_move(clock, state, version + i, now_ms)
        out.append(clock)
    return out


def is_due(clock: TurnClock | None, now_ms: int) -> bool:
    return clock is not None and clock.deadline is not None and clock.deadline <= now_ms


def deadline_text(ms: int | None) -> str | None:
    """``ms`` since the epoch as RFC 3339 UTC with milliseconds (``2026-12-01T22:00:00.000Z``)."""
    if ms is None:
        return None
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def clock_view(clock: TurnClock | None) -> ClockView | None:
    if clock is None:
        return None
    phases = None
    if any(clock.phase_ms):
        auction, exchange, play = (ms / 1000 if ms else None for ms in clock.phase_ms)
        phases = PhaseSeconds(auction=auction, exchange=exchange, play=play)
    return ClockView(move_seconds=clock.move_ms / 1000, reserve_seconds=clock.reserve_ms / 1000, bot=clock.bot,
                     seat=clock.seat, deadline=deadline_text(clock.deadline),
                     reserves=[r / 1000 for r in clock.reserves], phase_seconds=phases,
                     turn_seconds=clock.turn_ms / 1000 if clock.turn_ms and clock.seat is not None else None,
                     increment_seconds=clock.increment_ms / 1000 if clock.increment_ms else None,
                     reserve_max_seconds=clock.reserve_max_ms / 1000 if clock.increment_ms else None,
                     away_after=clock.away_after, forfeit_after=clock.forfeit_after or None)


# ------------------------------------------------------------------------------------------ clock moves


def clock_secret(auth: bytes, seat: int) -> bytes:
    """The seed secret of the clock's moves for ``seat``: derived from the seat's own secret in ``auth`` (the hash
    of its token), which no other seat knows; the seat itself gains nothing by predicting its own move."""
    return hashlib.sha256(b"turn-clock:" + Seats.decode(auth).secret(seat)).digest()


def clock_move(state: GameState, version: int, auth: bytes, clock: TurnClock) -> Move:
    """The move the clock makes for the seat to act at ``version``: the clock's bot level deciding from that
    seat's own view, seeded from the committed state (the same on every replica)."""
    seat = player_to_act(state)
    assert seat is not None
    return bot_move(state, version, clock.bot, clock_secret(auth, seat))


def timed_out_move(state: GameState, version: int, auth: bytes, clock: TurnClock,
                   now_ms: int) -> tuple[GameState, list[SessionEvent]] | None:
    """The move the clock makes when ``clock`` is due on ``state`` at ``version``: the new state and its events
    (:class:`MoveTimedOut` first); ``None`` when there is none to make (no deadline, not due, or the seat to act
    is a bot seat, whose move its own turn plays). The clock after it is :func:`after_move`'s, at the time the
    move is committed."""
    seat = player_to_act(state)
    if seat is None or not is_due(clock, now_ms) or clock.seat != seat or Seats.decode(auth).is_bot(seat):
        return None
    new_state, events = apply_move(topped_up(state), clock_move(state, version, auth, clock))
    marker = MoveTimedOut(seat=seat, bot=clock.bot, deadline=deadline_text(clock.deadline) or "")
    return new_state, [marker, *events]


def check_not_timed_out(clock: TurnClock | None, version: int, seat: int, expected: set[int] | None) -> None:
    """409 ``MOVE_TIMED_OUT`` for a move of ``seat`` whose last turn the clock played, unless ``If-Match``
    (``expected``) names a version at or after the clock's move."""
    made = clock.timed_out[seat] if clock is not None and seat < len(clock.timed_out) else 0
    if not made or (expected is not None and max(expected) >= made):
        return
    raise Problem("MOVE_TIMED_OUT",
                  f"seat {seat} ran out of time: the clock moved for it at version {made} (the session is now at "
                  f"version {version}); nothing was applied. Read the session, and send the next move with "
                  f"If-Match: \"{version}\"",
                  current_version=version, timed_out_version=made, headers={"ETag": f'"{version}"'},
                  message=("problem.MOVE_TIMED_OUT.detail.clock_moved",
                           {"seat": seat, "timed_out_version": made, "current_version": version}))

