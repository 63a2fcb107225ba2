"""``POST /v1/records/analyse``: a whole game analysed after the fact (bots/analysis.py, docs/ANALYSIS.md).

The body is one game's record (JSON or its plain-text form) with the seats to analyse, or several records of one
player (``games``, each with the seats it held). Each record is verified first, exactly as
``POST /v1/records/verify`` verifies it (the same refusals). The answer: every decision of the chosen seats
weighed by the expert from that seat's view, each seat's summary, each hand's luck of the deal, and each seat's
fair-play statistic (the one figure that reads the true deal), over one game and, for several, over all of them.

The analysis is a search, bounded like ``/v1/games/suggest``: it runs in the replica's
:class:`~service.referee.search.SearchPool` (a place among the searches, 503 ``NOT_READY`` beyond them), and it is
charged to the client's playouts per minute before anything is searched. Its cost is known exactly before it
runs (:func:`bots.analysis.analysis_cost`), so the charge is what it spends, and a request that cannot fit is
refused at once (429 ``RATE_LIMITED``: a smaller ``budget`` or fewer seats may fit). The same records, seats,
``seed`` and ``budget`` give the same answer; without a seed the service draws one and answers it.

:func:`service.referee.analysis.analyse_records` is the whole operation without HTTP; a hosted session's
``GET /v1/sessions/{id}/analysis`` (service/sessions/analysis_route.py) calls it too.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.di import NamedDependency
from litestar.params import Body
from msgspec import Meta

from bots.analysis import ANALYSIS_BUDGET, MAX_ANALYSIS_BUDGET
from engine import Bid, GameRecord, Move, Pass, build_record, resolve_options
from engine.record_text import RecordTextError, record_from_text, record_to_text
from engine.records import RecordRefused
from engine.replay import verify_record
from service.config import Settings
from service.games.records import MAX_RECORD_BODY_BYTES
from service.ops.clients import client_identity
from service.referee.analysis import AnalyseResponse, analyse_all, analyse_records
from service.referee.errors import record_problem
from service.referee.moves import syntax_rejection
from service.referee.operations import check_seat
from service.referee.schemas import SEED_BITS, SEED_MAX, Seat
from service.referee.search import SearchPool, until_disconnected
from service.referee.snapshots import Sealer
from service.web.openapi import ExactExample, problem_responses, response_spec
from service.web.problems import Problem
from service.web.struct_dto import StructDTO

#: The most records one request analyses (several games of one player).
MAX_ANALYSED_GAMES = 16

AnalysisSeed = Annotated[int, Meta(ge=0, le=SEED_MAX, description=(
    "Seeds the sampled deals: the same records, seats, seed and budget give the same analysis."))]
AnalysisBudget = Annotated[int, Meta(ge=1, le=MAX_ANALYSIS_BUDGET, description=(
    f"Playouts per weighed decision (default {ANALYSIS_BUDGET}): each candidate is played out on budget / "
    "candidates sampled deals, at least 2."))]
Seats = Annotated[list[Seat], Meta(max_length=6, description="The seats to analyse (default: every seat).")]
RecordText = Annotated[str, Meta(max_length=MAX_RECORD_BODY_BYTES, description=(
    "A record in its plain-text form (docs/RECORDS.md)."))]


class AnalysedGame(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One of a player's games: its record and the seats the player held in it (default: every seat)."""

    record: GameRecord
    seats: Seats | None = None


class AnalyseRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Exactly one of ``record`` (a JSON record), ``text`` (its plain-text form), each with ``seats``, or
    ``games`` (several records of one player, each with its seats)."""

    record: GameRecord | None = None
    text: RecordText | None = None
    seats: Seats | None = None
    games: Annotated[list[AnalysedGame], Meta(min_length=1, max_length=MAX_ANALYSED_GAMES, description=(
        f"Several records of one player (at most {MAX_ANALYSED_GAMES}), each with the seats it held: the "
        "fair-play statistic is also given over all of them."))] | None = None
    seed: AnalysisSeed | None = None
    budget: AnalysisBudget | None = None


def _verified(record: GameRecord, sealer: Sealer, where: str) -> GameRecord:
    """The record, verified as ``/v1/records/verify`` verifies it (its problems, the place named)."""
    try:
        return verify_record(record, screen=syntax_rejection, replay_seed=secrets.randbits(SEED_BITS)).record
    except RecordRefused as exc:
        snapshot = None if exc.state is None else sealer.seal(exc.state, remember=True)
        detail = f"{where}{exc.detail}".encode("ascii", "backslashreplace").decode("ascii")
        raise record_problem(exc, detail, snapshot) from None


def _seats_of(record: GameRecord, seats: Sequence[int] | None) -> tuple[int, ...] | None:
    if seats is None:
        return None
    for seat in seats:
        check_seat(seat, record.players)
    return tuple(sorted(set(seats)))


def requested_jobs(data: AnalyseRequest, sealer: Sealer) -> list[tuple[GameRecord, tuple[int, ...] | None]]:
    """The verified records of a request and the seats of each (raises a :class:`Problem`)."""
    given = [name for name, value in (("record", data.record), ("text", data.text), ("games", data.games))
             if value is not None]
    if len(given) != 1:
        raise Problem("MALFORMED_REQUEST", "send exactly one of record, text (each with seats) or games")
    if data.games is not None:
        if data.seats is not None:
            raise Problem("MALFORMED_REQUEST", "with games, each game names its own seats")
        return [(_verified(g.record, sealer, f"games[{i}]: "), _seats_of(g.record, g.seats))
                for i, g in enumerate(data.games)]
    record = data.record
    if data.text is not None:
        try:
            record = record_from_text(data.text)
        except RecordTextError as exc:
            error = str(exc).encode("ascii", "backslashreplace").decode("ascii")
            raise Problem("MALFORMED_REQUEST", f"the text record does not parse: {error}") from None
    assert record is not None
    if record.seed is not None and not 0 <= record.seed <= SEED_MAX:
        raise Problem("INVALID_SEED", f"the record's seed must be an integer from 0 to {SEED_MAX}")
    return [(_verified(record, sealer, ""), _seats_of(record, data.seats))]


def _example() -> tuple[dict[str, Any], dict[str, Any]]:
    opts = resolve_options(4, None, {})
    moves: list[Move] = [Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)]
    record = build_record(opts, seed=42, first_dealer=3, moves=moves)
    request = {"text": record_to_text(record), "seats": [0], "seed": 7, "budget": 8}
    return request, msgspec.to_builtins(analyse_all([(record, (0,))], 7, 8, True))


_REQUEST, _RESPONSE = _example()
AnalyseBody = Annotated[AnalyseRequest, Body(examples=[ExactExample(summary="One seat of a game", value=_REQUEST)])]


class AnalysisController(Controller):
    path = "/v1/records/analyse"
    tags = ["records"]

    @post("", operation_id="analyseRecords", dto=StructDTO[AnalyseRequest], return_dto=None,
          summary="Analyse whole games", status_code=200, request_max_body_size=MAX_RECORD_BODY_BYTES,
          description="After the game (docs/ANALYSIS.md): a record (JSON `record` or its `text` form) with the "
          "`seats` to analyse, or several records of one player (`games`, each with its seats), each verified as "
          "`POST /v1/records/verify` verifies it. For each decision of those seats, the candidates' values as the "
          "expert sees them from that seat's view at that moment (never from cards it could not see), the value "
          "of the move played, its loss against the best and its gain over the reference (`basic`) move; per "
          "seat, the average loss per decision by phase and the clear errors; per hand, each side's luck and its "
          "luck-adjusted result (when every seat is analysed: they sum every decision's gain); per seat "
          "(and over all the games sent), a fair-play statistic: how often its choices agreed with the best move "
          "given the cards it could not see, against what its information explains (the one figure that reads "
          "the true deal; `review` is a label for a human, never a verdict). A search, bounded like "
          "`suggestMove`: charged its exact cost in playouts to the client's budget per minute (429 "
          "`RATE_LIMITED` beyond it: a smaller `budget` or fewer seats may fit) and run among the replica's "
          "searches (503 `NOT_READY` when they are full). Reproducible with `seed`.",
          responses={200: response_spec(AnalyseResponse, "The analysis.", ("One seat of a game", _RESPONSE)),
                     **problem_responses("MALFORMED_REQUEST", "INVALID_OPTIONS", "INVALID_SEED",
                                         "INVALID_DECK_ORDER", "INVALID_FIRST_DEALER", "NO_SUCH_SEAT",
                                         "MALFORMED_MOVE", "ILLEGAL_MOVE", "RECORD_MISMATCH", "BODY_TOO_LARGE",
                                         "UNSUPPORTED_MEDIA_TYPE", "NOT_READY")})
    async def analyse(self, request: Request[Any, Any, Any], data: AnalyseBody, sealer: NamedDependency[Sealer],
                      search: NamedDependency[SearchPool], settings: NamedDependency[Settings]) -> AnalyseResponse:
        client = client_identity(request.scope, known_api_keys=settings.api_keys)
        jobs = await asyncio.to_thread(requested_jobs, data, sealer)
        return await analyse_records(search, client, jobs, seed=data.seed, budget=data.budget,
                                     gone=lambda: until_disconnected(request.receive))


__all__ = ["MAX_ANALYSED_GAMES", "AnalyseRequest", "AnalyseResponse", "AnalysedGame", "AnalysisController",
           "analyse_all", "analyse_records", "requested_jobs"]
