"""Judging a proposed move over HTTP: syntax first (400), then legality (422), as python-chess separates them.

msgspec has already decoded the body into one of the engine's move Structs (its shape is right). What is left
of *syntax* is the tokens: a card, suit, bid or seat that this game does not have is malformed input, answered
400 ``MALFORMED_MOVE`` whoever's turn it is, so that a client learns about a typo before anything else.
Everything after that is the engine's :func:`engine.check_move`, whose reasons are answered 422
``ILLEGAL_MOVE`` with the legal moves of the seat that made the move: none when it is not that seat's turn.
A refusal never lists the seat to act's moves for another seat's move: a host forwarding the problem to the
player who sent the move would show that player another seat's cards.

Validate and apply both call :func:`rejection_of`, so they can never disagree.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine import Event, GameState, IllegalMove, Move, Rejection, apply_move, check_move, legal_moves
from engine.reasons import MALFORMED_REASONS as MALFORMED_REASONS_ENUM
from engine.tokens import token_rejection
from service.i18n.texts import rejection_key
from service.problems import Problem


class MoveCounter(Protocol):
    """Counts applied and refused moves (:class:`service.ops.metrics.ServiceMetrics` is one)."""

    def move_applied(self, count: int = 1) -> None: ...

    def move_refused(self, reason: str) -> None: ...


#: Engine reasons that mean a token was not understood rather than a rule was broken (engine/reasons.py).
MALFORMED_REASONS: frozenset[str] = frozenset(MALFORMED_REASONS_ENUM)


class MalformedMove(Problem):
    """A move naming a card, suit, bid or seat the game does not have."""

    def __init__(self, rejection: Rejection) -> None:
        super().__init__(400, "MALFORMED_MOVE", rejection.detail, reason=rejection.reason,
                         message=rejection_message(rejection))


class IllegalMoveProblem(Problem):
    """A well-formed move that the rules do not allow now."""

    def __init__(self, state: GameState, rejection: Rejection, seat: int) -> None:
        super().__init__(422, "ILLEGAL_MOVE", rejection.detail, title="Illegal move", reason=rejection.reason,
                         legal_moves=movers_legal_moves(state, seat), message=rejection_message(rejection))


def movers_legal_moves(state: GameState, seat: int) -> list[Move]:
    """The legal moves a refusal of ``seat``'s move lists: that seat's own (empty unless it is to act)."""
    return legal_moves(state, seat)


def rejection_message(rejection: Rejection) -> tuple[str, dict[str, Any]]:
    """A refusal as a message of service/i18n: its key and parameters."""
    return rejection_key(rejection.reason, rejection.params), rejection.params


def syntax_rejection(state: GameState, move: Move) -> Rejection | None:
    """A rejection if ``move`` names a seat, card, suit or bid this game does not have, else ``None``
    (the engine's token layer, :func:`engine.tokens.token_rejection`)."""
    return token_rejection(state.options, move)


def rejection_of(state: GameState, move: Move) -> Rejection | None:
    """Why ``move`` is illegal now (``None``: it is legal); raises :class:`MalformedMove` for bad tokens."""
    rejection = syntax_rejection(state, move) or check_move(state, move)
    if rejection is not None and rejection.reason in MALFORMED_REASONS:
        raise MalformedMove(rejection)
    return rejection


def apply_checked(state: GameState, move: Move,
                  counter: MoveCounter | None = None) -> tuple[GameState, list[Event]]:
    """Apply ``move``: the new state and events; :class:`MalformedMove` or :class:`IllegalMoveProblem` if not.

    The same two layers as :func:`rejection_of` (``apply_move`` runs ``check_move`` itself, so it is not run
    twice on the hot path). ``counter`` counts the move as applied, or as refused under its reason.
    """
    rejection = syntax_rejection(state, move)
    if rejection is None:
        try:
            applied = apply_move(state, move)
        except IllegalMove as exc:
            rejection = exc.rejection
        else:
            if counter is not None:
                counter.move_applied()
            return applied
    if counter is not None:
        counter.move_refused(rejection.reason)
    if rejection.reason in MALFORMED_REASONS:
        raise MalformedMove(rejection)
    raise IllegalMoveProblem(state, rejection, move.seat)
