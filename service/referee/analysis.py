"""A whole game's analysis as a search (bots/analysis.py, docs/ANALYSIS.md), shared by ``POST /v1/records/analyse``
and a hosted session's ``GET /v1/sessions/{id}/analysis``.

The analysis is bounded like a suggestion: it runs in the replica's :class:`~service.referee.search.SearchPool`
(a place among the searches, 503 ``NOT_READY`` beyond them), and it is charged to the client's playouts per minute
before anything is searched. Its cost is known exactly before it runs (:func:`bots.analysis.analysis_cost`), so
the charge is what it spends, and a request that cannot fit is refused at once (429 ``RATE_LIMITED``: a smaller
``budget`` or fewer seats may fit). The same records, seats, ``seed`` and ``budget`` give the same answer; without
a seed the service draws one and answers it.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable, Sequence

import msgspec

from bots.analysis import ANALYSIS_BUDGET, FairPlay, GameAnalysis, analyse_game, analysis_cost, player_fair_play
from engine import GameRecord
from service.referee.errors import engine_errors
from service.referee.schemas import SEED_BITS
from service.referee.search import SearchPool
from service.web.problems import Problem


class AnalyseResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The analysis of each game (in the order sent) and, for several, the player's fair-play statistic over all
    of them; the seed and budget used (answer them to reproduce it) and the playouts spent."""

    seed: int
    budget: int
    playouts: int
    games: list[GameAnalysis]
    fair_play: FairPlay | None = None


Jobs = Sequence[tuple[GameRecord, tuple[int, ...] | None]]


def analyse_all(jobs: Jobs, seed: int, budget: int, fair_play: bool, luck: bool = True) -> AnalyseResponse:
    """The analysis of each ``(record, seats)`` (verified records), in one call a search worker can run (module
    level, picklable arguments and answer)."""
    games = [analyse_game(record, seats, seed=seed + i, budget=budget, fair_play=fair_play, luck=luck)
             for i, (record, seats) in enumerate(jobs)]
    overall = None
    if fair_play and len(games) > 1:
        overall = player_fair_play(games, [g.seats for g in games])
    return AnalyseResponse(seed=seed, budget=budget, playouts=sum(g.playouts for g in games), games=games,
                           fair_play=overall)


def _cost(jobs: Jobs, budget: int, fair_play: bool, luck: bool) -> int:
    return sum(analysis_cost(record, seats, budget=budget, fair_play=fair_play, luck=luck) for record, seats in jobs)


async def analyse_records(search: SearchPool, client: str, jobs: Sequence[tuple[GameRecord, Sequence[int] | None]],
                          *, seed: int | None = None, budget: int | None = None, fair_play: bool = True,
                          luck: bool = True, gone: Callable[[], Awaitable[None]] | None = None) -> AnalyseResponse:
    """Analyse verified records (each with the seats to analyse, ``None`` for every seat) as a search of
    ``client``'s: charged its exact cost in playouts (429 ``RATE_LIMITED`` when that does not fit), run in the
    search pool once admitted (503 ``NOT_READY`` when it is full; cancelled when ``gone`` returns). ``fair_play``
    and ``luck`` read the true deal: only for a caller who may see every card (a host, a record's holder)."""
    spend = ANALYSIS_BUDGET if budget is None else budget
    chosen = seed if seed is not None else secrets.randbits(SEED_BITS)
    fixed = [(record, None if seats is None else tuple(sorted(set(seats)))) for record, seats in jobs]
    cost = await asyncio.to_thread(_cost, fixed, spend, fair_play, luck)
    limit = search.playouts_per_minute
    if 0 < limit < cost:  # it would never fit: say so, rather than a Retry-After that cannot help
        raise Problem("RATE_LIMITED", f"this analysis costs {cost} playouts, more than a client may spend in a "
                      f"minute ({limit}): ask for a smaller budget, fewer seats or fewer games",
                      headers={"Retry-After": "60"})
    async with search.charged(client, cost) as admission, search.placed(admission, client, gone):
        with engine_errors():
            answer = await admission.run(analyse_all, fixed, chosen, spend, fair_play, luck)
        admission.spend(answer.playouts)
    return answer


__all__ = ["AnalyseResponse", "analyse_all", "analyse_records"]
