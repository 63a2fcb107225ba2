"""The syntax of a proposed move: a card, suit, bid or seat that this game does not have.

msgspec has already decoded the body into one of the engine's move Structs (its shape is right). What is left
of *syntax* is the tokens: a token the game does not have is malformed input, answered 400 ``MALFORMED_MOVE``
whoever's turn it is, so that a client learns about a typo before anything else (python-chess separates them
the same way). Everything after that is the engine's :func:`engine.check_move`, answered 422 ``ILLEGAL_MOVE``.
Both are applied by the operations of :mod:`service.referee.operations` (validate and apply make the same checks,
so they never disagree) and by the record replay of :mod:`service.games.records`; the refusals become problems in
:mod:`service.referee.errors`.
"""

from __future__ import annotations

from engine import GameState, Move, Rejection
from engine.tokens import token_rejection

__all__ = ["syntax_rejection"]


def syntax_rejection(state: GameState, move: Move) -> Rejection | None:
    """A rejection if ``move`` names a seat, card, suit or bid this game does not have, else ``None`` (the
    engine's token layer, :func:`engine.tokens.token_rejection`)."""
    return token_rejection(state.options, move)
