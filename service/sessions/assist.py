"""Help for one seat of a hosted session, with that seat's token: is a move legal, why each bid of the bid box
is not, and a hint (a computer player's move, decided from the seat's view alone).

Nothing here needs the sealed snapshot, which opens every hand: a seat's own client never holds more than its
token. Every answer is about the caller's own seat and says only what a refusal of that seat's own move would
say (the engine's check of that seat's move), so it shows nothing the seat may not know. Hints can be turned
off for a session by its host (``"hints": false`` at creation): then ``HINTS_OFF``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

import msgspec

from engine import Bid, GameState, Move, Pass, controlled_seats
from engine.reasons import Reason
from engine.rules import MISERE_BIDS, ladder
from service.i18n import rejection_text
from service.referee import operations
from service.referee.search import SearchPool
from service.referee.suggestions import SuggestResponse, searched
from service.sessions.access import Access, Caller, seat_for, seat_only
from service.sessions.clock import clock_view
from service.sessions.schemas import (
    OWN_SEAT,
    SessionLegalMoves,
    SessionSuggestRequest,
    SessionValidation,
    UnavailableMove,
)
from service.web.problems import Problem


def bid_box(state: GameState, seat: int) -> list[Move]:
    """Every move of a bid box for ``seat``: each bid of this game's ladder (and its sans-kitty form where the
    rules have one), then the pass."""
    opts = state.options
    moves: list[Move] = []
    for bid in ladder(opts):
        moves.append(Bid(seat=seat, bid=bid))
        if opts.sans_kitty_enabled and bid not in MISERE_BIDS:
            moves.append(Bid(seat=seat, bid=bid, sans_kitty=True))
    moves.append(Pass(seat=seat))
    return moves


def unavailable_moves(state: GameState, seat: int, language: str) -> list[UnavailableMove]:
    """The bid box's moves that ``seat`` may not make now, each with the engine's reason (its own check of that
    move: the rule lives in the engine) worded in ``language``."""
    out: list[UnavailableMove] = []
    for move in bid_box(state, seat):
        rejection = operations.validate(state, move)
        if rejection is not None:
            out.append(UnavailableMove(move=move, reason=Reason(rejection.reason),
                                       detail=rejection_text(language, rejection.reason, rejection.detail,
                                                             rejection.params)))
    return out



def may_validate(caller: Caller, path_seat: int | None = None) -> int:
    """Who may validate moves (a seat's token: 403 for the host's, the table host's and a spectator's): its
    seat."""
    return seat_only(caller, "validate moves", "host_validate")


def may_ask_hints(caller: Caller, path_seat: int | None = None) -> int:
    """Who may ask for hints (a seat's token): its seat."""
    return seat_only(caller, "ask for hints", "host_hints")

class SeatAssist:
    """The seat-scoped operations of a session."""

    def __init__(self, access: Access, search: SearchPool | None = None) -> None:
        self.access = access
        #: Where hints are searched (bounded, charged to the client asking).
        self.search = search or SearchPool()

    async def validate(self, session_id: str, token: str, move: Move, language: str) -> SessionValidation:
        """Whether the caller's ``move`` is legal now, without applying it: ``legal``, or the refusal's
        ``reason`` and ``detail`` and the seat's own legal moves, at the exchange in their compact form alone (the
        apply endpoint's checks and listing)."""
        caller = await self.access.caller(session_id, token)
        own = may_validate(caller)
        if move.seat == OWN_SEAT:
            move = msgspec.structs.replace(move, seat=seat_for(caller.record.state, own))
        elif move.seat not in controlled_seats(caller.record.state.options, own):  # itself, or its ghost
            raise Problem("WRONG_SEAT", f"this token acts for seat {own} only; the move names seat "
                                             f"{move.seat}",
                          message=("problem.WRONG_SEAT.detail.seats", {"seat": own, "named": move.seat}))
        state, version = caller.record.state, caller.record.version
        rejection = operations.validate(state, move)
        if rejection is None:
            return SessionValidation(session_id=session_id, version=version, seat=own, legal=True)
        moves, choice = operations.movers_listing(state, own)  # at the exchange the compact form alone, as documented
        return SessionValidation(
            session_id=session_id, version=version, seat=own, legal=False, reason=Reason(rejection.reason),
            detail=rejection_text(language, rejection.reason, rejection.detail, rejection.params),
            legal_moves=moves, discard_choice=choice)

    async def legal_moves(self, session_id: str, token: str, seat: int | None, reasons: bool,
                          language: str, list_discards: bool = True) -> SessionLegalMoves:
        """The caller's legal moves (at the exchange also in their compact form, alone if not
        ``list_discards``); with ``reasons``, during the auction, why each other move of the bid box is not legal
        now."""
        caller = await self.access.caller(session_id, token)
        own = seat_only(caller, "list legal moves", "host_legal_moves")
        if seat is not None and seat != own:
            raise Problem("FORBIDDEN", "a token reads only its own seat's view",
                          message=("problem.FORBIDDEN.detail.own_view", {}))
        state = caller.record.state
        _, moves, choice = operations.legal_listing(state, own, list_discards=list_discards)
        unavailable = unavailable_moves(state, own, language) if reasons and state.phase == "auction" else None
        return SessionLegalMoves(session_id=session_id, version=caller.record.version, seat=own, legal_moves=moves,
                                 discard_choice=choice, unavailable=unavailable,
                                 clock=clock_view(caller.record.clock))

    async def suggest(self, session_id: str, token: str, request: SessionSuggestRequest, client: str = "",
                      gone: Callable[[], Awaitable[None]] | None = None) -> tuple[int, SuggestResponse]:
        """A computer player's move for the caller's seat, from that seat's view only (``NOT_TO_ACT`` when it
        is not to act, ``HINTS_OFF`` when the host turned hints off); and the version it is for. The search is
        the search pool's, charged to ``client`` and cancelled when ``gone`` returns (the client went away:
        :func:`service.referee.suggestions.searched`)."""
        caller = await self.access.caller(session_id, token)
        own = may_ask_hints(caller)
        if not caller.record.settings.hints:
            raise Problem("HINTS_OFF", "the host turned hints off for this session")
        state = caller.record.state
        seed, decision = await searched(self.search, client, lambda: contextlib.nullcontext(state), own,
                                        request.level, request.seed, request.budget, gone)
        return caller.record.version, SuggestResponse(
            seat=own, level=request.level, seed=seed, move=decision.move, budget=decision.budget,
            playouts=decision.playouts, deals=decision.deals, candidates=list(decision.candidates))
