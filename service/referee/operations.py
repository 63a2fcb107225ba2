"""The operations of the referee, one function each, shared by the stateless API (``/v1/games``) and the hosted
sessions (``/v1/sessions``): create a game, a seat's view, legal moves, validate a move, apply it, suggest one.

Each takes engine values (a state, a move, a seat) and answers engine values or raises a
:class:`~service.web.problems.Problem`; neither API checks or translates anything itself, so the same input gets the
same answer from both. Where a request names seats as strings (``views``, ``bots``), :func:`seat_named` reads
them, exactly ``"0"`` to ``"5"``.

>>> from engine import Options, Pass, new_game
>>> state, _ = new_game(Options(), seed=1, first_dealer=3)
>>> legal_moves_of(state, None)[0], validate(state, Pass(seat=1)).reason
(0, 'NOT_YOUR_TURN')
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from bots import Decision, Level, decide
from engine import (
    Event,
    GameState,
    IllegalMove,
    Move,
    Rejection,
    SeatView,
    apply_move,
    check_move,
    legal_moves,
    new_game,
    player_to_act,
    resolve_options,
    view,
)
from engine.reasons import MALFORMED_REASONS
from engine.tokens import seat_rejection
from service.referee.deals import draw_secret, secret_setup, topped_up
from service.referee.errors import engine_errors, malformed_move, refusal_listing, refusal_problem
from service.referee.moves import syntax_rejection
from service.referee.schemas import SEED_BITS, DiscardChoice, discard_choice
from service.web.problems import Problem

__all__ = ["SEAT_NAMES", "GameSetup", "MoveCounter", "apply", "check_seat", "create_game", "legal_listing",
           "legal_moves_of", "movers_legal_moves", "movers_listing", "screen", "seat_named", "seat_view", "suggest",
           "suggestion",
           "validate", "viewers"]

#: The seat names a request may use where a JSON object key or a string stands for a seat.
SEAT_NAMES = ("0", "1", "2", "3", "4", "5")


class GameSetup(Protocol):
    """What a new game is made of, as both APIs' create requests hold it."""

    @property
    def preset(self) -> Any: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def deck_orders(self) -> Sequence[Sequence[str]] | None: ...
    @property
    def first_dealer(self) -> int | None: ...


class MoveCounter(Protocol):
    """Counts applied and refused moves (:class:`service.ops.metrics.ServiceMetrics` is one)."""

    def move_applied(self, count: int = 1) -> None: ...

    def move_refused(self, reason: str) -> None: ...


def create_game(players: int, setup: GameSetup, overrides: dict[str, Any],
                views: Iterable[int | None] | None = None) -> tuple[GameState, list[Event], list[int | None]]:
    """A new game of ``players`` from ``setup`` (its options resolved over ``overrides``): the state, the events
    of the deal, and the :func:`viewers` that ``views`` name (checked once the rules say how many seats there
    are). Without a seed every deal no client gave comes from a 256-bit secret the service draws
    (:mod:`service.referee.deals`), which only the state holds."""
    with engine_errors():
        options = resolve_options(players, setup.preset, overrides)
    chosen = viewers(views, options.players)
    if setup.seed is None:
        dealing = secret_setup(options, draw_secret(), setup.deck_orders or ())
    else:
        dealing = {"seed": setup.seed, "deck_orders": setup.deck_orders or ()}
    with engine_errors():
        state, events = new_game(options, **dealing, first_dealer=setup.first_dealer)
    return state, events, chosen


def check_seat(seat: int | None, players: int) -> None:
    """``NO_SUCH_SEAT`` unless ``seat`` is ``None`` or a seat of a ``players``-player game (the engine's token
    layer, :func:`engine.tokens.seat_rejection`)."""
    rejection = None if seat is None else seat_rejection(seat, players)
    if rejection is not None:
        raise Problem("NO_SUCH_SEAT", rejection.detail, message=("problem.NO_SUCH_SEAT.detail", rejection.params))


def seat_named(name: str, players: int) -> int | None:
    """The seat a name stands for (``"0"`` … ``"5"``, exactly as the game numbers its seats), or ``None`` if it
    is not the name of a seat of a ``players``-player game.

    >>> seat_named("2", 4), seat_named("02", 4), seat_named("4", 4)
    (2, None, None)
    """
    return int(name) if name in SEAT_NAMES[:players] else None


def viewers(names: Iterable[int | None] | None, players: int) -> list[int | None]:
    """The distinct viewers a request's ``views`` ask for, in the order asked (``None`` is the public view, a
    seat is its number), checked against the game's seats."""
    out: list[int | None] = []
    for seat in names or ():
        check_seat(seat, players)
        if seat not in out:
            out.append(seat)
    return out


def seat_view(state: GameState, seat: int | None) -> SeatView:
    """What ``seat`` may know (``None``: the public view)."""
    check_seat(seat, state.options.players)
    return view(state, seat)


def legal_moves_of(state: GameState, seat: int | None) -> tuple[int | None, list[Move]]:
    """The seat asked about (``None``: the seat to act) and its legal moves (none when it may not act now)."""
    check_seat(seat, state.options.players)
    seat = state.to_act if seat is None else seat
    return seat, list(legal_moves(state, seat))


def legal_listing(state: GameState, seat: int | None, *,
                  list_discards: bool = True) -> tuple[int | None, list[Move], DiscardChoice | None]:
    """:func:`legal_moves_of`, and at the exchange also the discards' compact form; ``list_discards=False``
    leaves the exchange's listing empty (the compact form says it all)."""
    check_seat(seat, state.options.players)
    seat = state.to_act if seat is None else seat
    moves = legal_moves(state, seat)
    choice = discard_choice(moves)
    return seat, [] if choice is not None and not list_discards else list(moves), choice


def movers_legal_moves(state: GameState, seat: int) -> list[Move]:
    """The legal moves a refusal of ``seat``'s move lists: that seat's own (none unless it is to act), never the
    seat to act's, which would show another seat's cards to the player who sent the move."""
    return list(legal_moves(state, seat))


def movers_listing(state: GameState, seat: int) -> tuple[list[Move], DiscardChoice | None]:
    """:func:`movers_legal_moves` as a refusal lists them: at the exchange the list is empty and the discards
    come in their compact form, so that a refusal stays small (:func:`service.referee.errors.refusal_listing`)."""
    return refusal_listing(legal_moves(state, seat))


def screen(state: GameState, move: Move) -> None:
    """``MALFORMED_MOVE`` (400) if ``move`` names a seat, card, suit or bid this game does not have."""
    rejection = syntax_rejection(state, move)
    if rejection is not None:
        raise malformed_move(rejection)


def validate(state: GameState, move: Move) -> Rejection | None:
    """Why ``move`` is illegal now (``None``: it is legal); ``MALFORMED_MOVE`` for a token the game does not
    have. Validate and apply make the same checks, so they never disagree."""
    screen(state, move)
    rejection = check_move(state, move)
    if rejection is not None and rejection.reason in MALFORMED_REASONS:
        raise malformed_move(rejection)
    return rejection


def apply(state: GameState, move: Move, counter: MoveCounter | None = None, *,
          admit: Callable[[], None] | None = None) -> tuple[GameState, list[Event]]:
    """Apply ``move``: the new state and its events; the refusal's problem (400 malformed, 422 illegal) if it
    is refused, with nothing changed. ``admit``, once the move's syntax is known good and before its legality
    is checked, raises whatever the caller's own conditions refuse (a session's version: 409 before 422).
    ``counter`` counts the move as applied, or as refused under its reason."""
    rejection = syntax_rejection(state, move)
    if rejection is None:
        if admit is not None:
            admit()
        try:
            applied = apply_move(topped_up(state), move)  # checks the move itself: check_move is not run twice
        except IllegalMove as exc:
            rejection = exc.rejection
        else:
            if counter is not None:
                counter.move_applied()
            return applied
    if counter is not None:
        counter.move_refused(rejection.reason)
    raise refusal_problem(state, rejection, move.seat)


def suggestion(state: GameState, seat: int, level: Level, seed: int | None,
               budget: int | None) -> tuple[int, Callable[[], Decision]]:
    """What :func:`suggest` decides, checked but not yet run: the seed used (drawn when ``None``) and the
    decision to make, a picklable call of :func:`bots.decide` on the seat's view (it may run in another
    process). ``NOT_TO_ACT`` (422) for a seat that is not to act."""
    check_seat(seat, state.options.players)
    if player_to_act(state) != seat:  # the seat to act, or (ghost partners) the human whose ghost is to act
        who = "the game is over" if state.to_act is None else f"seat {state.to_act} is"
        raise Problem("NOT_TO_ACT", f"seat {seat} is not to act; {who}")
    seed = secrets.randbits(SEED_BITS) if seed is None else seed
    return seed, functools.partial(decide, view(state, seat), state.options, level=level, seed=seed,
                                   budget=budget if level == "expert" else None, legal=legal_moves(state, seat))


def suggest(state: GameState, seat: int, level: Level, seed: int | None, budget: int | None) -> tuple[int, Decision]:
    """A computer player's move for ``seat``, decided from that seat's view alone: the seed used (drawn when
    ``None``, and answered, so that any suggestion can be reproduced) and the decision. ``NOT_TO_ACT`` (422)
    for a seat that is not to act."""
    seed, decision = suggestion(state, seat, level, seed, budget)
    with engine_errors():  # BotError: unreachable after the checks above; a 422 rather than a 500
        return seed, decision()
