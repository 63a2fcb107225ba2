"""``/v1/games``: the stateless core. Every handler is: open the snapshot, one engine call, seal, views."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Annotated, Any

from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.params import Body, SkipValidation

from engine import (
    Event,
    GameSetupError,
    GameState,
    OptionsError,
    SeatView,
    legal_moves,
    new_game,
    redact_events,
    resolve_options,
    view,
)
from engine.reasons import Reason
from engine.tokens import seat_rejection
from service import examples
from service.fastpath import ApplyFastPath
from service.i18n import rejection_text, request_language
from service.moves import MoveCounter, apply_checked, movers_legal_moves, rejection_of
from service.openapi import SNAPSHOT_CODES, problem_responses
from service.problems import Problem
from service.schemas import (
    ApplyRequest,
    ApplyResponse,
    CreateGameRequest,
    CreateGameResponse,
    LegalMovesRequest,
    LegalMovesResponse,
    ValidateRequest,
    ValidateResponse,
    ViewName,
    ViewRequest,
    ViewWithEvents,
    overrides_dict,
    resolved,
)
from service.snapshots import Sealer
from service.struct_dto import StructDTO

CreateBody = Annotated[CreateGameRequest, Body(examples=examples.CREATE_REQUESTS)]
ViewBody = Annotated[ViewRequest, Body(examples=examples.VIEW_REQUESTS)]
LegalMovesBody = Annotated[LegalMovesRequest, Body(examples=examples.LEGAL_MOVES_REQUESTS)]
ValidateBody = Annotated[ValidateRequest, Body(examples=examples.VALIDATE_REQUESTS)]
ApplyBody = Annotated[ApplyRequest, Body(examples=examples.APPLY_REQUESTS)]
#: The app's metrics (``service.ops.metrics.ServiceMetrics``), as the protocol the move path needs.
Metrics = NamedDependency[SkipValidation[MoveCounter]]
SNAPSHOT_READ_CODES = ("MALFORMED_REQUEST", "NO_SUCH_SEAT", *SNAPSHOT_CODES, "BODY_TOO_LARGE",
                       "UNSUPPORTED_MEDIA_TYPE")


def _check_seat(seat: int | None, players: int) -> None:
    rejection = None if seat is None else seat_rejection(seat, players)
    if rejection is not None:
        raise Problem(400, "NO_SUCH_SEAT", rejection.detail, message=("problem.NO_SUCH_SEAT.detail", rejection.params))


def _viewers(names: Sequence[ViewName] | None, players: int) -> list[int | None]:
    """The distinct viewers asked for (``None`` is the public view), checked against the game's seats."""
    out: list[int | None] = []
    for name in names or ():
        seat = None if name == "public" else int(name)
        _check_seat(seat, players)
        if seat not in out:
            out.append(seat)
    return out


def _views(state: GameState, events: list[Event], viewers: list[int | None]) -> dict[str, ViewWithEvents]:
    return {("public" if seat is None else str(seat)): ViewWithEvents(view=view(state, seat),
                                                                      events=redact_events(events, seat))
            for seat in viewers}


class GamesController(Controller):
    path = "/v1/games"
    tags = ["games"]

    @post("", operation_id="createGame", dto=StructDTO[CreateGameRequest], return_dto=None,
          summary="Create a game", sync_to_thread=False,
          description="Resolve the rules (players, preset, options), deal the first hand from the seed or "
          "the given deck orders, and return the sealed snapshot with the public events and the views asked "
          "for.",
          responses={201: examples.response_spec(CreateGameResponse, "The new game.",
                                                 examples.CREATE_RESPONSE),
                     **problem_responses("MALFORMED_REQUEST", "INVALID_OPTIONS", "INVALID_SEED",
                                         "INVALID_DECK_ORDER", "INVALID_FIRST_DEALER", "NO_SUCH_SEAT",
                                         "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE")})
    def create(self, data: CreateBody, sealer: NamedDependency[Sealer]) -> CreateGameResponse:
        try:
            opts = resolve_options(data.players, data.preset, overrides_dict(data.options))
        except OptionsError as exc:
            raise Problem(400, "INVALID_OPTIONS", str(exc),
                          message=("problem.INVALID_OPTIONS.detail", {"message": str(exc)})) from None
        viewers = _viewers(data.views, opts.players)
        # Without a client seed the service draws one and never reveals it: it decides every future deal.
        seed = secrets.randbits(63) if data.seed is None else data.seed
        try:
            state, events = new_game(opts, seed=seed, deck_orders=data.deck_orders or (),
                                     first_dealer=data.first_dealer)
        except GameSetupError as exc:
            raise Problem(400, exc.code, str(exc),
                          message=(f"problem.{exc.code}.detail", {"message": str(exc)})) from None
        return CreateGameResponse(snapshot=sealer.seal(state, remember=True),
                                  rules_version=state.rules_version, options=resolved(opts), phase=state.phase,
                                  to_act=state.to_act, events=redact_events(events, None),
                                  views=_views(state, events, viewers))

    @post("/view", operation_id="viewGame", dto=StructDTO[ViewRequest], return_dto=None,
          summary="A seat's view of a game", status_code=200,
          sync_to_thread=False,
          description="What one seat may know (its own hand, the auction, the tricks …); `seat: null` or "
          "omitted: the public view every spectator may see.",
          responses={200: examples.response_spec(SeatView, "The view.", examples.VIEW_RESPONSE),
                     **problem_responses(*SNAPSHOT_READ_CODES)})
    def view(self, data: ViewBody, sealer: NamedDependency[Sealer]) -> SeatView:
        state = sealer.open(data.snapshot)
        _check_seat(data.seat, state.options.players)
        return view(state, data.seat)

    @post("/legal-moves", operation_id="legalMoves", dto=StructDTO[LegalMovesRequest], return_dto=None,
          summary="Legal moves", status_code=200,
          sync_to_thread=False,
          description="Every legal move of `seat` (omitted: of the seat to act); empty when that seat may "
          "not act now.",
          responses={200: examples.response_spec(LegalMovesResponse, "The legal moves.",
                                                 examples.LEGAL_MOVES_RESPONSE),
                     **problem_responses(*SNAPSHOT_READ_CODES)})
    def legal_moves(self, data: LegalMovesBody, sealer: NamedDependency[Sealer]) -> LegalMovesResponse:
        state = sealer.open(data.snapshot)
        _check_seat(data.seat, state.options.players)
        seat = state.to_act if data.seat is None else data.seat
        return LegalMovesResponse(seat=seat, to_act=state.to_act, moves=legal_moves(state, seat))

    @post("/validate", operation_id="validateMove", dto=StructDTO[ValidateRequest], return_dto=None,
          summary="Check a move without applying it",
          status_code=200, sync_to_thread=False,
          description="A well-formed move is answered 200 with `legal` and, when illegal, the stable "
          "`reason`, a `detail` and the legal moves of the seat that made the move (none when it is not that "
          "seat's turn). A malformed move (unknown card, bid, "
          "suit or seat) is a 400 `MALFORMED_MOVE`. Validate and apply always agree.",
          responses={200: examples.response_spec(ValidateResponse, "Whether the move is legal.",
                                                 *examples.VALIDATE_RESPONSES),
                     **problem_responses("MALFORMED_REQUEST", "MALFORMED_MOVE", *SNAPSHOT_CODES,
                                         "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE")})
    def validate(self, data: ValidateBody, sealer: NamedDependency[Sealer],
                 request: Request[Any, Any, Any]) -> ValidateResponse:
        state = sealer.open(data.snapshot)
        rejection = rejection_of(state, data.move)
        if rejection is None:
            return ValidateResponse(legal=True)
        detail = rejection_text(request_language(request.scope), rejection.reason, rejection.detail,
                                rejection.params)
        return ValidateResponse(legal=False, reason=Reason(rejection.reason), detail=detail,
                                legal_moves=movers_legal_moves(state, data.move.seat))

    @post("/apply", operation_id="applyMove", dto=StructDTO[ApplyRequest], return_dto=None,
          summary="Apply a move", status_code=200, sync_to_thread=False, middleware=[ApplyFastPath],
          description="Apply a legal move: the new snapshot, the public events the move caused, and the "
          "views asked for (each with the events as that viewer may see them). An illegal move is a 422 "
          "problem with the `reason`, a `detail` and the legal moves of the seat that made the move (none when "
          "it is not that seat's turn); nothing changes.",
          responses={200: examples.response_spec(ApplyResponse, "The game after the move.",
                                                 examples.APPLY_RESPONSE),
                     **problem_responses("MALFORMED_REQUEST", "MALFORMED_MOVE", "NO_SUCH_SEAT",
                                         *SNAPSHOT_CODES, "ILLEGAL_MOVE", "BODY_TOO_LARGE",
                                         "UNSUPPORTED_MEDIA_TYPE")})
    def apply(self, data: ApplyBody, sealer: NamedDependency[Sealer],
              metrics: Metrics) -> ApplyResponse:
        state = sealer.open(data.snapshot)
        viewers = _viewers(data.views, state.options.players)
        new, events = apply_checked(state, data.move, metrics)
        return ApplyResponse(snapshot=sealer.seal(new, remember=True), phase=new.phase, to_act=new.to_act,
                             events=redact_events(events, None), views=_views(new, events, viewers))
