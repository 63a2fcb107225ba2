"""``POST /v1/games/suggest``: a computer player's move for one seat of a snapshot (a hint button, or a bot).

Stateless like the rest of ``/v1/games``: open the snapshot, give the bot the seat's *view* (never the state)
and the seat's legal moves, answer its decision. The bot is deterministic for a given ``seed``; without one the
service draws a seed and returns it, so any suggestion can be reproduced. A seat that is not to act is answered
422 ``NOT_TO_ACT`` naming the seat that is (or saying that the game is over).

The handler runs in a worker thread: an ``expert`` decision is ~0.1 s of CPU at its default budget, which must
not stall the event loop's other requests.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, post
from litestar.di import NamedDependency
from litestar.openapi.spec import Example
from litestar.params import Body
from msgspec import Meta

from bots import LEVELS, MAX_BUDGET, Candidate, Level, decide
from bots.expert import DEFAULT_BUDGET
from engine import Move, Options, apply_move, legal_moves, new_game, view
from service.games import examples
from service.referee import operations
from service.referee.schemas import SEED_MAX, Seat, Snapshot
from service.referee.snapshots import Sealer
from service.web.openapi import SNAPSHOT_CODES, problem_responses, response_spec
from service.web.struct_dto import StructDTO

BotSeed = Annotated[int, Meta(ge=0, le=SEED_MAX, description="Seeds the bot's random choices: the same snapshot, "
                                                             "seat, level, seed and budget give the same answer.")]
Budget = Annotated[int, Meta(ge=1, le=MAX_BUDGET, description=(
    f"expert only: playouts to spend (default {DEFAULT_BUDGET}; each is one sampled deal played out for one "
    "candidate move). Ignored by the other levels."))]


class SuggestRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask a computer player for the move of the seat to act."""

    snapshot: Snapshot
    seat: Seat
    level: Level = "basic"
    seed: BotSeed | None = None
    budget: Budget | None = None


class SuggestResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The suggested move, and for ``expert`` the candidates it weighed (best first, each with its mean value:
    points for the seat's side minus the other sides' average, for this hand, and its ``success``: how often the
    seat's side made the contract, or defeated another side's, in its playouts) and what it spent."""

    seat: int
    level: Level
    seed: int
    move: Move
    budget: int | None = None
    playouts: int = 0
    deals: int = 0
    candidates: list[Candidate] = msgspec.field(default_factory=list)


def _example() -> tuple[dict[str, object], dict[str, object]]:
    state, _ = new_game(Options(), seed=42, first_dealer=3)
    for _ in range(4):
        seat = state.to_act
        assert seat is not None
        state, _ = apply_move(state, decide(view(state, seat), state.options, level="basic").move)
    seat = state.to_act
    assert seat is not None
    request = {"snapshot": examples.snapshot_placeholder(state), "seat": seat, "level": "expert", "seed": 7,
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


def answer_suggest(data: SuggestRequest, sealer: Sealer) -> SuggestResponse:
    with sealer.acting_on(data.snapshot) as state:
        seed, decision = operations.suggest(state, data.seat, data.level, data.seed, data.budget)
    return SuggestResponse(seat=data.seat, level=data.level, seed=seed, move=decision.move, budget=decision.budget,
                           playouts=decision.playouts, deals=decision.deals, candidates=list(decision.candidates))


class SuggestController(Controller):
    path = "/v1/games/suggest"
    tags = ["games"]

    @post("", operation_id="suggestMove", dto=StructDTO[SuggestRequest], return_dto=None,
          summary="A computer player's move", status_code=200, sync_to_thread=True,
          description="The move a computer player (`level`: " + ", ".join(f"`{lv}`" for lv in LEVELS) + ") "
          "chooses for `seat`, deciding from that seat's view alone. `expert` searches (Perfect Information "
          "Monte Carlo over sampled deals) and also answers the candidate moves it weighed with their "
          "estimated values and the playouts it spent. A seat that is not to act is a 422 `NOT_TO_ACT`.",
          responses={200: response_spec(SuggestResponse, "The suggestion.", ("Expert hint", _RESPONSE)),
                     **problem_responses("MALFORMED_REQUEST", "INVALID_SEED", "NO_SUCH_SEAT", *SNAPSHOT_CODES,
                                         "NOT_TO_ACT", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE")})
    def suggest(self, data: SuggestBody, sealer: NamedDependency[Sealer]) -> SuggestResponse:
        return answer_suggest(data, sealer)
