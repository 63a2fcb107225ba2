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

from engine import (
    SUITS,
    Bid,
    CallCard,
    ChoosePartners,
    Discard,
    GameState,
    Move,
    NominateJoker,
    Play,
    Rejection,
    pack_for,
)
from engine.rules import ALL_BIDS

__all__ = ["syntax_rejection"]


def _card_problem(token: str, pack: tuple[str, ...]) -> Rejection | None:
    if token in pack:
        return None
    return Rejection("UNKNOWN_CARD", f"{token!r} is not a card of this game's {len(pack)}-card pack",
                     {"card": token})


def syntax_rejection(state: GameState, move: Move) -> Rejection | None:
    """A rejection if ``move`` names a seat, card, suit or bid this game does not have, else ``None``."""
    players = state.options.players
    if not 0 <= move.seat < players:
        return Rejection("NO_SUCH_SEAT", f"seat {move.seat} does not exist: seats are 0 to {players - 1}",
                         {"seat": move.seat, "last_seat": players - 1})
    if isinstance(move, Play):
        if move.nominate is not None and move.nominate not in SUITS:
            return Rejection("UNKNOWN_SUIT", f"{move.nominate!r} is not a suit; suits are S, C, D, H",
                             {"suit": move.nominate})
        return _card_problem(move.card, pack_for(state.options))
    if isinstance(move, Bid):
        if move.bid not in ALL_BIDS:
            return Rejection("UNKNOWN_BID", f"{move.bid!r} is not a bid; bids are 6S … 10NT, MISERE, "
                             "OPEN_MISERE, BLIND_MISERE", {"bid": move.bid})
        return None
    if isinstance(move, Discard):
        pack = pack_for(state.options)
        for token in move.cards:
            if (problem := _card_problem(token, pack)) is not None:
                return problem
        return None
    if isinstance(move, NominateJoker):
        if move.suit is not None and move.suit not in SUITS:
            return Rejection("UNKNOWN_SUIT", f"{move.suit!r} is not a suit; suits are S, C, D, H",
                             {"suit": move.suit})
        return _card_problem(move.card, pack_for(state.options))
    if isinstance(move, CallCard):
        return _card_problem(move.card, pack_for(state.options))
    if isinstance(move, ChoosePartners):
        for p in move.partners:
            if not 0 <= p < players:
                return Rejection("NO_SUCH_SEAT",
                                 f"partner seat {p} does not exist: seats are 0 to {players - 1}",
                                 {"seat": p, "last_seat": players - 1})
    return None
