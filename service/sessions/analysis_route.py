"""``GET /v1/sessions/{id}/analysis``: a hosted game's analysis once it is over (bots/analysis.py,
docs/ANALYSIS.md), to each credential only what it may see.

The session's whole record (:func:`service.sessions.records.host_record`) is analysed as
``POST /v1/records/analyse`` analyses a record (:func:`service.referee.analysis.analyse_records`: the same search
pool, the same charge to the client's playouts per minute, the same ``seed`` and ``budget``), with what the
credential may read:

- the **host** token and the **table host** token (which reads the whole record once the game is over): every
  seat's decisions and summaries, each hand's luck of the deal and luck-adjusted result, and each seat's
  fair-play statistic;
- a **seat** token: its own seat's decisions and summary (and its ghost's, in the ghost-partners game), each
  valued from its own view at that moment, and each hand's result; no luck (it sums the gains of every seat's
  decisions, each valued from that seat's cards) and no fair-play statistic (it reads every hand), since neither
  is a function of what the seat saw;
- a spectator token: 403 ``FORBIDDEN``, as for the record.

Before the game is over it is 403 ``FORBIDDEN`` for every credential (an analysis mid-game would be a search
for the seats); a session restored from a snapshot has no record to analyse (409 ``RECORD_UNAVAILABLE``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from bots.analysis import ANALYSIS_BUDGET, MAX_ANALYSIS_BUDGET, GameAnalysis
from engine import Bid, Move, Options, Pass, build_record
from service.config import Settings
from service.ops.clients import client_identity
from service.referee.analysis import analyse_all, analyse_records
from service.referee.schemas import SEED_MAX
from service.referee.search import SearchPool, until_disconnected
from service.sessions.access import no_spectator
from service.sessions.headers import bearer_token
from service.sessions.problems import etag, forbidden
from service.sessions.records import host_record, read_log
from service.sessions.service import SessionService
from service.web.openapi import problem_responses, response_spec

SeedQuery = Annotated[int | None, QueryParameter(
    name="seed", required=False, ge=0, le=SEED_MAX,
    description="Seeds the sampled deals: the same game, credential, seed and budget give the same analysis "
                "(none: the service draws one and answers it).")]
BudgetQuery = Annotated[int | None, QueryParameter(
    name="budget", required=False, ge=1, le=MAX_ANALYSIS_BUDGET,
    description=f"Playouts per weighed decision (default {ANALYSIS_BUDGET}).")]


class SessionAnalysisResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A finished game's analysis as the credential may see it: ``seat`` is the seat token's seat (its decisions
    only, no luck, no fair play), ``null`` for the host and table host (every seat, luck and fair play); the seed
    and budget used (give them again to reproduce it) and the playouts spent."""

    session_id: str
    version: int
    seat: int | None
    seed: int
    budget: int
    playouts: int
    game: GameAnalysis


async def session_analysis(service: SessionService, search: SearchPool, client: str, session_id: str, token: str,
                           *, seed: int | None = None, budget: int | None = None,
                           gone: Callable[[], Awaitable[None]] | None = None) -> SessionAnalysisResponse:
    """The analysis of the session's game for ``token`` (the module docstring), charged to ``client``."""
    caller = await service.caller(session_id, token)
    no_spectator(caller)  # an analysis, as a record, is the host's or a seat's
    state, version = caller.record.state, caller.record.version
    if state.phase != "game_over":
        raise forbidden("a game's analysis is read once the game is over: until then it would help the seats "
                        "play", "analysis_game_over")
    since = caller.record.settings.games.since
    log = [e for e in await read_log(service, session_id, since) if since <= e.version <= version]
    record = host_record(state, log, since)
    whole = caller.seat is None  # the host or the table host: both read the whole record of a finished game
    seats = None if caller.seat is None else [caller.seat]
    answer = await analyse_records(search, client, [(record, seats)], seed=seed, budget=budget, fair_play=whole,
                                   luck=whole, gone=gone)
    return SessionAnalysisResponse(session_id=session_id, version=version, seat=caller.seat, seed=answer.seed,
                                   budget=answer.budget, playouts=answer.playouts, game=answer.games[0])


def _example() -> Any:
    moves: list[Move] = [Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)]
    record = build_record(Options(), seed=42, first_dealer=3, moves=moves)
    answer = analyse_all([(record, (0,))], 7, 8, False, False)
    return msgspec.to_builtins(SessionAnalysisResponse(
        session_id="q0Jd3rXyFh2mJZ9KkQ7aLw", version=5, seat=0, seed=answer.seed, budget=answer.budget,
        playouts=answer.playouts, game=answer.games[0]))


class SessionAnalysisController(Controller):
    path = "/v1/sessions"
    tags = ["sessions"]

    @get("/{session_id:str}/analysis", operation_id="getSessionAnalysis", summary="The finished game's analysis",
         description="Once the game is over (docs/ANALYSIS.md): the analysis `POST /v1/records/analyse` gives of "
                     "the session's record, as the credential may see it. The host token and the table host "
                     "token: every seat's decisions and summaries, each hand's luck and luck-adjusted result, and "
                     "each seat's fair-play statistic. A seat token: its own seat's decisions and summary (each "
                     "valued from its own view) and each hand's result, without the luck or the fair-play "
                     "statistic, which read cards it never saw. A spectator token, or a game not over: 403 "
                     "`FORBIDDEN`. A search, bounded like `suggestSessionMove`: charged its exact cost in "
                     "playouts to the client's budget per minute (429 `RATE_LIMITED` beyond it: a smaller "
                     "`budget` may fit) and run among the replica's searches (503 `NOT_READY` when they are "
                     "full). Reproducible with `seed`.",
         security=[{"sessionToken": []}],
         responses={200: response_spec(SessionAnalysisResponse, "The analysis.",
                                       ("A seat's analysis", _example())),
                    **problem_responses("MALFORMED_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "SESSION_NOT_FOUND",
                                        "RECORD_UNAVAILABLE", "RATE_LIMITED", "STORE_UNAVAILABLE", "NOT_READY")})
    async def get_analysis(self, request: Request[Any, Any, Any], session_service: NamedDependency[SessionService],
                           search: NamedDependency[SearchPool], settings: NamedDependency[Settings],
                           session_id: FromPath[str], seed: SeedQuery = None,
                           budget: BudgetQuery = None) -> Response[SessionAnalysisResponse]:
        token = bearer_token(request.headers.get("authorization"))
        client = client_identity(request.scope, known_api_keys=settings.api_keys)
        body = await session_analysis(session_service, search, client, session_id, token, seed=seed, budget=budget,
                                      gone=lambda: until_disconnected(request.receive))
        return Response(body, headers={"ETag": etag(body.version), "Cache-Control": "no-store"})


__all__ = ["SessionAnalysisController", "SessionAnalysisResponse", "session_analysis"]
