"""The token layer: the one refusal for each card, suit, bid or seat token a game does not have.

A token is its own printed form (``"10H"`` is the ten of hearts, ``"7NT"`` the bid, ``"S"`` the suit, ``2`` the
seat), so there is nothing to parse or print: a token is checked. A token this game does not have is *malformed*
(:class:`engine.reasons.Reason` of kind ``malformed``); everything else about a move is the rules' business.
The engine's checks and the HTTP service both call these functions, so a bad token is refused in one wording.

>>> suit_rejection("H") is None, bid_rejection("7NT") is None
(True, True)
>>> card_rejection("1H", ("AH", "KH")).detail
"'1H' is not a card of this game's 2-card pack"
>>> seat_rejection(4, 4).reason
'NO_SUCH_SEAT'
"""

from __future__ import annotations

from engine.cards import ALL_CARDS, SUITS, parse_card
from engine.deal import pack_for
from engine.model import Bid, CallCard, ChoosePartners, Discard, Move, NominateJoker, Play, Rejection
from engine.options import Options
from engine.reasons import Reason
from engine.rules import ALL_BIDS
from engine.seats import seat_count


def is_seat(seat: object, players: int) -> bool:
    """Whether ``seat`` is a seat number of a game of ``players`` (an int, not a bool, from 0)."""
    return type(seat) is int and 0 <= seat < players


def card_rejection(token: object, pack: tuple[str, ...]) -> Rejection | None:
    """``UNKNOWN_CARD`` unless ``token`` is a card of ``pack``."""
    if isinstance(token, str) and token in pack:
        return None
    return Rejection(Reason.UNKNOWN_CARD, f"{token!r} is not a card of this game's {len(pack)}-card pack",
                     {"card": token})


def suit_rejection(token: object) -> Rejection | None:
    """``UNKNOWN_SUIT`` unless ``token`` is a suit."""
    if isinstance(token, str) and token in SUITS:
        return None
    return Rejection(Reason.UNKNOWN_SUIT, f"{token!r} is not a suit; suits are S, C, D, H", {"suit": token})


def bid_rejection(token: object) -> Rejection | None:
    """``UNKNOWN_BID`` unless ``token`` is a bid of any rule set (whether this one allows it is the auction's)."""
    if isinstance(token, str) and token in ALL_BIDS:
        return None
    return Rejection(Reason.UNKNOWN_BID, f"{token!r} is not a bid; bids are 6S … 10NT, MISERE, OPEN_MISERE, "
                     "BLIND_MISERE", {"bid": token})


def seat_rejection(seat: object, players: int, *, partner: bool = False) -> Rejection | None:
    """``NO_SUCH_SEAT`` unless ``seat`` is a seat of a game of ``players`` (``partner``: a named partner's)."""
    if is_seat(seat, players):
        return None
    return Rejection(Reason.NO_SUCH_SEAT, f"{'partner ' if partner else ''}seat {seat} does not exist: seats are "
                     f"0 to {players - 1}", {"seat": seat, "last_seat": players - 1})


def token_rejection(opts: Options, move: Move) -> Rejection | None:
    """The refusal of the first token of ``move`` that this game does not have (seat, card, suit, bid, partner),
    else ``None``: what a move's syntax can get wrong, whoever's turn it is."""
    rejection = seat_rejection(move.seat, seat_count(opts))
    if rejection is not None:
        return rejection
    if isinstance(move, Play):
        if move.nominate is not None and (rejection := suit_rejection(move.nominate)) is not None:
            return rejection
        return card_rejection(move.card, pack_for(opts))
    if isinstance(move, Bid):
        return bid_rejection(move.bid)
    if isinstance(move, Discard):
        pack = pack_for(opts)
        for token in move.cards:
            if (rejection := card_rejection(token, pack)) is not None:
                return rejection
        return None
    if isinstance(move, NominateJoker):
        if move.suit is not None and (rejection := suit_rejection(move.suit)) is not None:
            return rejection
        return card_rejection(move.card, pack_for(opts))
    if isinstance(move, CallCard):
        return card_rejection(move.card, pack_for(opts))
    if isinstance(move, ChoosePartners):
        for p in move.partners:
            if (rejection := seat_rejection(p, opts.players, partner=True)) is not None:
                return rejection
    return None


__all__ = ["ALL_CARDS", "bid_rejection", "card_rejection", "is_seat", "parse_card", "seat_rejection", "suit_rejection",
           "token_rejection"]
