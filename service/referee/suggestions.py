"""What both APIs share about computer players: the suggestion's wire types and how a suggestion is searched.

``POST /v1/games/suggest`` (:mod:`service.games.suggest`, on a snapshot) and a session's hint
(:mod:`service.sessions.assist`, on its state) answer the same :class:`SuggestResponse`, decided by
:func:`searched`: an ``expert`` search in the replica's :class:`~service.referee.search.SearchPool` (bounded,
charged to the client's playout budget), the other levels in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Annotated

import msgspec
from msgspec import Meta

from bots import MAX_BUDGET, Candidate, Decision, Level
from bots.expert import DEFAULT_BUDGET, LARGEST_DEFAULT_BUDGET, PHASE_BUDGETS
from engine import GameState, Move
from service.referee import operations
from service.referee.errors import engine_errors
from service.referee.schemas import SEED_MAX
from service.referee.search import SearchPool

BotSeed = Annotated[int, Meta(ge=0, le=SEED_MAX, description="Seeds the bot's random choices: the same snapshot, "
                                                             "seat, level, seed and budget give the same answer.")]
Budget = Annotated[int, Meta(ge=1, le=MAX_BUDGET, description=(
    f"expert only: playouts to spend (default {DEFAULT_BUDGET}, "
    + ", ".join(f"{n} in the {phase}" for phase, n in PHASE_BUDGETS.items())
    + "; each is one sampled deal played out for one candidate move). Ignored by the other levels."))]


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
