"""Engine errors as problems, in one place: every API turns what the engine (and the bots) refuse into the same
problem, with the same code, status, detail and message key (for the other languages of service/i18n).

- :class:`engine.OptionsError` (an unknown preset or option value, a rule set that cannot be played) is
  ``INVALID_OPTIONS``; :class:`engine.GameSetupError` is its own ``code`` (``INVALID_SEED``,
  ``INVALID_DECK_ORDER``, ``INVALID_FIRST_DEALER``); both 400.
- A refused move (:class:`engine.Rejection`) is 400 ``MALFORMED_MOVE`` when its reason means a token the game
  does not have (engine/reasons.py), else 422 ``ILLEGAL_MOVE`` with the legal moves of the seat that made the
  move: none when it is not that seat's turn, never the seat to act's, which would show another seat's cards.
- :class:`bots.BotError` is 422 ``NOT_TO_ACT``.
- :class:`engine.records.RecordRefused` (a game record that does not replay) is :func:`record_problem`.

:func:`engine_errors` applies the first and the last to a block of code.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bots import BotError
from engine import GameSetupError, GameState, OptionsError, Rejection, legal_moves
from engine.reasons import MALFORMED_REASONS
from engine.records import RecordRefused
from service.i18n.texts import rejection_key
from service.web.problems import Problem

__all__ = ["bot_problem", "engine_errors", "illegal_move", "malformed_move", "options_problem", "record_problem",
           "refusal_problem", "rejection_message", "setup_problem"]


def rejection_message(rejection: Rejection) -> tuple[str, dict[str, Any]]:
    """A refusal as a message of service/i18n: its key and parameters."""
    return rejection_key(rejection.reason, rejection.params), rejection.params


def malformed_move(rejection: Rejection) -> Problem:
    """A move naming a card, suit, bid or seat the game does not have."""
    return Problem("MALFORMED_MOVE", rejection.detail, reason=rejection.reason,
                   message=rejection_message(rejection))


def illegal_move(state: GameState, rejection: Rejection, seat: int) -> Problem:
    """A well-formed move of ``seat`` that the rules do not allow now, with that seat's own legal moves."""
    return Problem("ILLEGAL_MOVE", rejection.detail, title="Illegal move", reason=rejection.reason,
                   legal_moves=list(legal_moves(state, seat)), message=rejection_message(rejection))


def refusal_problem(state: GameState, rejection: Rejection, seat: int) -> Problem:
    """The problem answering ``seat``'s move refused with ``rejection`` in ``state``."""
    if rejection.reason in MALFORMED_REASONS:
        return malformed_move(rejection)
    return illegal_move(state, rejection, seat)


def options_problem(detail: str) -> Problem:
    return Problem("INVALID_OPTIONS", detail, message=("problem.INVALID_OPTIONS.detail", {"message": detail}))


def setup_problem(code: str, detail: str) -> Problem:
    """A game that cannot be set up: ``code`` is ``INVALID_SEED``, ``INVALID_DECK_ORDER`` or
    ``INVALID_FIRST_DEALER``."""
    return Problem(code, detail, message=(f"problem.{code}.detail", {"message": detail}))


#: Setup problems of a record are the same 400s as creating a game.
RECORD_SETUP_CODES = ("INVALID_SEED", "INVALID_DECK_ORDER", "INVALID_FIRST_DEALER")


def record_problem(exc: RecordRefused, detail: str, snapshot: str | None) -> Problem:
    """A refused game record (``POST /v1/records/verify``): setup problems as creating a game answers them
    (400), a bad move as applying it would (400 malformed, 422 illegal) with its index, the state before it as
    ``snapshot`` and the legal moves there (neither for a seat's record), a derived field that differs as 422
    ``RECORD_MISMATCH``."""
    if exc.code == "INVALID_OPTIONS":
        return options_problem(detail)
    if exc.code in RECORD_SETUP_CODES:
        return setup_problem(exc.code, detail)
    if exc.code == "RECORD_TOO_LONG":
        return Problem("MALFORMED_REQUEST", detail)
    if exc.code in ("MALFORMED_MOVE", "ILLEGAL_MOVE"):
        # A seat's record has no state to show (the game that fits it is not the game played): index and reason.
        state = exc.state
        return Problem(exc.code, detail,
                       title="Illegal move" if exc.code == "ILLEGAL_MOVE" else None, reason=exc.reason,
                       move_index=exc.index, snapshot=snapshot if state is not None else None,
                       legal_moves=list(legal_moves(state)) if state is not None else None)
    return Problem("RECORD_MISMATCH", detail, field=exc.field)


def bot_problem(detail: str) -> Problem:
    return Problem("NOT_TO_ACT", detail)


@contextmanager
def engine_errors() -> Iterator[None]:
    """Raise the engine's and the bots' errors of the block as their problems."""
    try:
        yield
    except OptionsError as exc:
        raise options_problem(str(exc)) from None
    except GameSetupError as exc:
        raise setup_problem(exc.code, str(exc)) from None
    except BotError as exc:
        raise bot_problem(str(exc)) from None
