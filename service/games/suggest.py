"""``POST /v1/games/suggest``: a computer player's move for one seat of a snapshot (a hint button, or a bot).

Stateless like the rest of ``/v1/games``: open the snapshot, give the bot the seat's *view* (never the state)
and the seat's legal moves, answer its decision. The bot is deterministic for a given ``seed``; without one the
service draws a seed and returns it, so any suggestion can be reproduced. A seat that is not to act is answered
422 ``NOT_TO_ACT`` naming the seat that is (or saying that the game is over).

An ``expert`` decision is searched by the replica's :class:`~service.referee.search.SearchPool` (worker processes,
a bound on searches at once and a playout budget per client: 503 ``NOT_READY`` or 429 ``RATE_LIMITED`` with
``Retry-After`` beyond them); the other levels decide in a worker thread. Neither stalls the event loop's other
requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.openapi.spec import Example
from litestar.params import Body

from bots import LEVELS, Level, decide
from engine import Options, apply_move, legal_moves, new_game, view
from service.config import Settings
from service.ops.clients import client_identity
from service.referee.examples import snapshot_placeholder
from service.referee.schemas import Seat, Snapshot
from service.referee.search import SearchPool, until_disconnected
from service.referee.snapshots import Sealer
from service.referee.suggestions import BotSeed, Budget, SuggestResponse, searched
from service.web.openapi import SNAPSHOT_CODES, problem_responses, response_spec
from service.web.struct_dto import StructDTO


class SuggestRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask a computer player for the move of the seat to act."""

    snapshot: Snapshot
    seat: Seat
    level: Level = "basic"
    seed: BotSeed | None = None
    budget: Budget | None = None


def _example() -> tuple[dict[str, object], dict[str, object]]:
    state, _ = new_game(Options(), seed=42, first_dealer=3)
    for _ in range(4):
        seat = state.to_act
        assert seat is not None
        state, _ = apply_move(state, decide(view(state, seat), state.options, level="basic").move)
    seat = state.to_act
    assert seat is not None
    request = {"snapshot": snapshot_placeholder(state), "seat": seat, "level": "expert", "seed": 7,
               "budget": 48}
    decision = decide(view(state, seat), state.options, level="expert", seed=7, budget=48,
                      legal=legal_moves(state))
    response = SuggestResponse(seat=seat, level="expert", seed=7, move=decision.move, budget=decision.budget,
                               playouts=decision.playouts, deals=decision.deals,
                               candidates=list(decision.candidates))
    return request, msgspec.to_builtins(response)


_REQUEST, _RESPONSE = _example()
SuggestBody = Annotated[SuggestRequest, Body(examples=[
    Example(summary="Expert hint", value=_REQUEST),
    Example(summary="Basic move", value={"snapshot": _REQUEST["snapshot"], "seat": _REQUEST["seat"]}),
])]


async def answer_suggest(data: SuggestRequest, sealer: Sealer, search: SearchPool, client: str,
                         gone: Callable[[], Awaitable[None]] | None = None) -> SuggestResponse:
    seed, decision = await searched(search, client, lambda: sealer.acting_on(data.snapshot), data.seat, data.level,
                                    data.seed, data.budget, gone)
    return SuggestResponse(seat=data.seat, level=data.level, seed=seed, move=decision.move, budget=decision.budget,
                           playouts=decision.playouts, deals=decision.deals, candidates=list(decision.candidates))


class SuggestController(Controller):
    path = "/v1/games/suggest"
    tags = ["games"]

    @post("", operation_id="suggestMove", dto=StructDTO[SuggestRequest], return_dto=None,
          summary="A computer player's move", status_code=200,
          description="The move a computer player (`level`: " + ", ".join(f"`{lv}`" for lv in LEVELS) + ") "
          "chooses for `seat`, deciding from that seat's view alone. `expert` searches (Perfect Information "
          "Monte Carlo over sampled deals) and also answers the candidate moves it weighed with their "
          "estimated values and the playouts it spent. A seat that is not to act is a 422 `NOT_TO_ACT`. "
          "Searches are bounded per replica (searches at once, and a queue: beyond them 503 `NOT_READY`) "
          "and per client (playouts per minute, `SEARCH_PLAYOUTS_PER_MINUTE`: beyond it 429 `RATE_LIMITED`); "
          "both answers carry `Retry-After`.",
          responses={200: response_spec(SuggestResponse, "The suggestion.", ("Expert hint", _RESPONSE)),
                     **problem_responses("MALFORMED_REQUEST", "INVALID_SEED", "NO_SUCH_SEAT", *SNAPSHOT_CODES,
                                         "NOT_TO_ACT", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "NOT_READY")})
    async def suggest(self, request: Request[Any, Any, Any], data: SuggestBody, sealer: NamedDependency[Sealer],
                      search: NamedDependency[SearchPool], settings: NamedDependency[Settings]) -> SuggestResponse:
        client = client_identity(request.scope, known_api_keys=settings.api_keys)
        return await answer_suggest(data, sealer, search, client, lambda: until_disconnected(request.receive))
