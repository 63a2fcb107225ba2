"""``POST /v1/games/suggest``: a computer player's move for one seat of a snapshot (a hint button, or a bot).

Stateless like the rest of ``/v1/games``: open the snapshot, give the bot the seat's *view* (never the state)
and the seat's legal moves, answer its decision. The bot is deterministic for a given ``seed``; without one the
service draws a seed and returns it, so any suggestion can be reproduced. A seat that is not to act is answered
422 ``NOT_TO_ACT`` naming the seat that is (or saying that the game is over).

An ``expert`` decision is searched by the replica's :class:`~service.ops.search.SearchPool` (worker processes,
a bound on searches at once and a playout budget per client: 503 ``NOT_READY`` or 429 ``RATE_LIMITED`` with
``Retry-After`` beyond them); the other levels decide in a worker thread. Neither stalls the event loop's other
requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.openapi.spec import Example
from litestar.params import Body
from msgspec import Meta

from bots import LEVELS, MAX_BUDGET, Candidate, Decision, Level, decide
from bots.expert import DEFAULT_BUDGET, LARGEST_DEFAULT_BUDGET, PHASE_BUDGETS
from engine import GameState, Move, Options, apply_move, legal_moves, new_game, view
from service.config import Settings
from service.games import examples
from service.ops.clients import client_identity
from service.ops.search import SearchPool, until_disconnected
from service.referee import operations
from service.referee.errors import engine_errors
from service.referee.schemas import SEED_MAX, Seat, Snapshot
from service.referee.snapshots import Sealer
from service.web.openapi import SNAPSHOT_CODES, problem_responses, response_spec
from service.web.struct_dto import StructDTO

BotSeed = Annotated[int, Meta(ge=0, le=SEED_MAX, description="Seeds the bot's random choices: the same snapshot, "
                                                             "seat, level, seed and budget give the same answer.")]
Budget = Annotated[int, Meta(ge=1, le=MAX_BUDGET, description=(
    f"expert only: playouts to spend (default {DEFAULT_BUDGET}, "
    + ", ".join(f"{n} in the {phase}" for phase, n in PHASE_BUDGETS.items())
    + "; each is one sampled deal played out for one candidate move). Ignored by the other levels."))]


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


def playouts_asked(level: Level, budget: int | None) -> int:
    """The playouts a suggestion may spend (what the client's playout budget is charged before the state is
    opened, and the unspent part given back): an ``expert``'s budget, or the largest default budget of any phase
    when it names none; 0 for the levels that do not search."""
    return (budget or LARGEST_DEFAULT_BUDGET) if level == "expert" else 0


async def searched(search: SearchPool, client: str, opened: Callable[[], AbstractContextManager[GameState]],
                   seat: int, level: Level, seed: int | None, budget: int | None,
                   gone: Callable[[], Awaitable[None]] | None = None) -> tuple[int, Decision]:
    """:func:`service.referee.operations.suggest` on the state ``opened()`` gives, run where searches run: an
    ``expert`` search in the search pool, once admitted (bounded, charged to ``client``: refused before the state
    is opened or anything computed; cancelled, waiting or running, when ``gone`` returns: the client went away),
    the other levels in a thread."""
    playouts = playouts_asked(level, budget)
    if playouts == 0:
        with opened() as state:
            seed, decide_now = operations.suggestion(state, seat, level, seed, budget)
            with engine_errors():
                return seed, await asyncio.to_thread(decide_now)
    async with search.charged(client, playouts) as admission:
        with opened() as state:
            seed, decide_there = operations.suggestion(state, seat, level, seed, budget)
            async with search.placed(admission, client, gone):
                with engine_errors():  # BotError: unreachable after the checks above; a 422 rather than a 500
                    decision = await admission.run(decide_there)
        admission.spend(decision.playouts)
    return seed, decision


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
