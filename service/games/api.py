"""``/v1/games``: the stateless core. Every handler is: open the snapshot, one operation of
:mod:`service.referee.operations`, seal, views.

The answer of each operation is a function of this module (``answer_*``), called by its handler; the hottest,
apply, is also answered by a fast route (:mod:`service.web.fastpath`) that calls the same function.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.params import Body, SkipValidation
from litestar.types import Scope

from engine import Event, GameState, SeatView, redact_events
from engine.reasons import Reason
from service.games import examples
from service.games.schemas import (
    ApplyRequest,
    ApplyResponse,
    CreateGameRequest,
    CreateGameResponse,
    LegalMovesRequest,
    LegalMovesResponse,
    ValidateRequest,
    ValidateResponse,
    ViewRequest,
    ViewWithEvents,
)
from service.i18n import rejection_text, request_language
from service.referee import operations
from service.referee.operations import MoveCounter
from service.referee.schemas import overrides_dict, resolved
from service.referee.snapshots import Sealer
from service.web.fastpath import FastAnswer, fast_route
from service.web.openapi import SNAPSHOT_CODES, problem_responses, response_spec
from service.web.struct_dto import StructDTO

__all__ = ["GamesController", "answer_apply", "answer_create", "answer_legal_moves", "answer_validate",
           "answer_view", "views_of"]

CreateBody = Annotated[CreateGameRequest, Body(examples=examples.CREATE_REQUESTS)]
ViewBody = Annotated[ViewRequest, Body(examples=examples.VIEW_REQUESTS)]
LegalMovesBody = Annotated[LegalMovesRequest, Body(examples=examples.LEGAL_MOVES_REQUESTS)]
ValidateBody = Annotated[ValidateRequest, Body(examples=examples.VALIDATE_REQUESTS)]
ApplyBody = Annotated[ApplyRequest, Body(examples=examples.APPLY_REQUESTS)]
#: The app's metrics (``service.ops.metrics.ServiceMetrics``), as the protocol the move path needs.
Metrics = NamedDependency[SkipValidation[MoveCounter]]
SNAPSHOT_READ_CODES = ("MALFORMED_REQUEST", "NO_SUCH_SEAT", *SNAPSHOT_CODES, "BODY_TOO_LARGE",
                       "UNSUPPORTED_MEDIA_TYPE")
_ENCODER = msgspec.json.Encoder()


def views_of(state: GameState, events: list[Event], viewers: list[int | None]) -> dict[str, ViewWithEvents]:
    """Each viewer's view of ``state`` and the ``events`` as that viewer may see them, keyed as asked."""
    return {("public" if seat is None else str(seat)): ViewWithEvents(view=operations.seat_view(state, seat),
                                                                      events=redact_events(events, seat))
            for seat in viewers}


def answer_create(data: CreateGameRequest, sealer: Sealer) -> CreateGameResponse:
    state, events, viewers = operations.create_game(data.players, data, overrides_dict(data.options), data.views)
    return CreateGameResponse(snapshot=sealer.seal(state, remember=True), rules_version=state.rules_version,
                              options=resolved(state.options), phase=state.phase, to_act=state.to_act,
                              events=redact_events(events, None), views=views_of(state, events, viewers))


def answer_view(data: ViewRequest, sealer: Sealer) -> SeatView:
    with sealer.acting_on(data.snapshot) as state:
        return operations.seat_view(state, data.seat)


def answer_legal_moves(data: LegalMovesRequest, sealer: Sealer) -> LegalMovesResponse:
    with sealer.acting_on(data.snapshot) as state:
        seat, moves = operations.legal_moves_of(state, data.seat)
        return LegalMovesResponse(seat=seat, to_act=state.to_act, moves=moves)


def answer_validate(data: ValidateRequest, sealer: Sealer, language: str) -> ValidateResponse:
    with sealer.acting_on(data.snapshot) as state:
        rejection = operations.validate(state, data.move)
        if rejection is None:
            return ValidateResponse(legal=True)
        detail = rejection_text(language, rejection.reason, rejection.detail, rejection.params)
        return ValidateResponse(legal=False, reason=Reason(rejection.reason), detail=detail,
                                legal_moves=operations.movers_legal_moves(state, data.move.seat))


def answer_apply(data: ApplyRequest, sealer: Sealer, metrics: MoveCounter | None) -> ApplyResponse:
    with sealer.acting_on(data.snapshot) as state:
        viewers = operations.viewers(data.views, state.options.players)
        new, events = operations.apply(state, data.move, metrics)
        return ApplyResponse(snapshot=sealer.seal(new, remember=True), phase=new.phase, to_act=new.to_act,
                             events=redact_events(events, None), views=views_of(new, events, viewers))


async def _fast_apply(scope: Scope, headers: Mapping[bytes, str], data: ApplyRequest) -> FastAnswer:
    state = scope["app"].state
    return _ENCODER.encode(answer_apply(data, state.sealer, state.metrics)), []


class GamesController(Controller):
    path = "/v1/games"
    tags = ["games"]

    @post("", operation_id="createGame", dto=StructDTO[CreateGameRequest], return_dto=None,
          summary="Create a game", sync_to_thread=False,
          description="Resolve the rules (players, preset, options), deal the first hand from the seed or "
          "the given deck orders, and return the sealed snapshot with the public events and the views asked "
          "for.",
          responses={201: response_spec(CreateGameResponse, "The new game.",
                                                 examples.CREATE_RESPONSE),
                     **problem_responses("MALFORMED_REQUEST", "INVALID_OPTIONS", "INVALID_SEED",
                                         "INVALID_DECK_ORDER", "INVALID_FIRST_DEALER", "NO_SUCH_SEAT",
                                         "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE")})
    def create(self, data: CreateBody, sealer: NamedDependency[Sealer]) -> CreateGameResponse:
        return answer_create(data, sealer)

    @post("/view", operation_id="viewGame", dto=StructDTO[ViewRequest], return_dto=None,
          summary="A seat's view of a game", status_code=200,
          sync_to_thread=False,
          description="What one seat may know (its own hand, the auction, the tricks …); `seat: null` or "
          "omitted: the public view every spectator may see.",
          responses={200: response_spec(SeatView, "The view.", examples.VIEW_RESPONSE),
                     **problem_responses(*SNAPSHOT_READ_CODES)})
    def view(self, data: ViewBody, sealer: NamedDependency[Sealer]) -> SeatView:
        return answer_view(data, sealer)

    @post("/legal-moves", operation_id="legalMoves", dto=StructDTO[LegalMovesRequest], return_dto=None,
          summary="Legal moves", status_code=200,
          sync_to_thread=False,
          description="Every legal move of `seat` (omitted: of the seat to act); empty when that seat may "
          "not act now.",
          responses={200: response_spec(LegalMovesResponse, "The legal moves.",
                                                 examples.LEGAL_MOVES_RESPONSE),
                     **problem_responses(*SNAPSHOT_READ_CODES)})
    def legal_moves(self, data: LegalMovesBody, sealer: NamedDependency[Sealer]) -> LegalMovesResponse:
        return answer_legal_moves(data, sealer)

    @post("/validate", operation_id="validateMove", dto=StructDTO[ValidateRequest], return_dto=None,
          summary="Check a move without applying it",
          status_code=200, sync_to_thread=False,
          description="A well-formed move is answered 200 with `legal` and, when illegal, the stable "
          "`reason`, a `detail` and the legal moves of the seat that made the move (none when it is not that "
          "seat's turn). A malformed move (unknown card, bid, "
          "suit or seat) is a 400 `MALFORMED_MOVE`. Validate and apply always agree.",
          responses={200: response_spec(ValidateResponse, "Whether the move is legal.",
                                                 *examples.VALIDATE_RESPONSES),
                     **problem_responses("MALFORMED_REQUEST", "MALFORMED_MOVE", *SNAPSHOT_CODES,
                                         "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE")})
    def validate(self, data: ValidateBody, sealer: NamedDependency[Sealer],
                 request: Request[Any, Any, Any]) -> ValidateResponse:
        return answer_validate(data, sealer, request_language(request.scope))

    @post("/apply", operation_id="applyMove", dto=StructDTO[ApplyRequest], return_dto=None,
          summary="Apply a move", status_code=200, sync_to_thread=False,
          middleware=[fast_route(ApplyRequest, _fast_apply)],
          description="Apply a legal move: the new snapshot, the public events the move caused, and the "
          "views asked for (each with the events as that viewer may see them). An illegal move is a 422 "
          "problem with the `reason`, a `detail` and the legal moves of the seat that made the move (none when "
          "it is not that seat's turn); nothing changes.",
          responses={200: response_spec(ApplyResponse, "The game after the move.",
                                                 examples.APPLY_RESPONSE),
                     **problem_responses("MALFORMED_REQUEST", "MALFORMED_MOVE", "NO_SUCH_SEAT",
                                         *SNAPSHOT_CODES, "ILLEGAL_MOVE", "BODY_TOO_LARGE",
                                         "UNSUPPORTED_MEDIA_TYPE")})
    def apply(self, data: ApplyBody, sealer: NamedDependency[Sealer], metrics: Metrics) -> ApplyResponse:
        return answer_apply(data, sealer, metrics)
