"""The table's next game: a rematch at the same seats, and matches of several games with a running score.

A finished game is not the end of a table. ``POST /v1/sessions/{id}/rematch`` begins the next game in the same
session: the same seats, held by the same players (their tokens keep working: a phone keeps the token it has),
the same names, the same bots, the same options and the same kind of clock (every reserve full again), a new deal
from a new secret. It is one change of the session like a move (:meth:`~service.sessions.changes.Changes.run`):
one compare-and-set of the new game's state and of the table's games (:class:`~service.sessions.table.Series`),
logged at the next version as a ``next_game`` event followed by the new game's deal. So the log, the versions and
the event streams simply go on: a stream open across the rematch carries it (a table created with ``series``
keeps its streams open across games), and ``Last-Event-ID`` resumes across it like across any move.

Who may start it is the table's (``series.start``): the host or the table host (``"host"``, and always), or the
seats by agreement (``"seats"``): each seat's request is logged as its agreement (``rematch_asked``), and the
request of the last seat a player holds begins the game. A request names the game that is over (``game``): once
the game after it has begun, every request for it, a retry after a lost answer or fifty at once on several
replicas, is answered that game, and exactly one compare-and-set began it.

A match of ``series.games`` games is over once its last game is; the next game then begins a new match. Its
score is the games won by each side; the table keeps the results of the match's finished games (the current
game's, once it is over, is read from its state).
"""

from __future__ import annotations

import msgspec

from engine import GameState, new_game
from service.referee.deals import draw_secret, secret_setup
from service.referee.errors import engine_errors
from service.sessions.access import Access, Caller, identify, no_spectator
from service.sessions.changes import Changes, Done, Plan, Seen
from service.sessions.clock import restarted
from service.sessions.log import NextGameStarted, RematchAsked
from service.sessions.problems import forbidden
from service.sessions.schemas import GameResultView, NextGame, SeriesOptions, SeriesView
from service.sessions.store import Change, Loaded, SessionRecord
from service.sessions.table import GameTally, Series
from service.web.problems import Problem


def new_series(options: SeriesOptions | None) -> Series | None:
    """A new table's games (``None``: no ``series`` asked: the defaults, streams ending with the game)."""
    if options is None:
        return None
    return Series(games=options.games, start=options.start, continues=True)


def _tally(state: GameState) -> GameTally | None:
    """The result of a game that is over (``None``: not over)."""
    if state.phase != "game_over" or state.result is None:
        return None
    return GameTally(winners=tuple(state.result.winners), scores=tuple(state.scores))


def _players(record: SessionRecord) -> list[int]:
    """The seats a player holds (whose agreement a table of ``start: "seats"`` waits for)."""
    return [seat for seat in range(record.state.options.players) if record.seats.is_player(seat)]


def series_view(record: SessionRecord) -> SeriesView:
    """The table's games as every view shows them (public)."""
    games = record.settings.games
    tally = _tally(record.state)
    results = [*games.results, *([tally] if tally is not None else [])]
    sides = len(record.state.scores)
    by_vote = tally is not None and games.start == "seats"
    asked = sorted(games.votes) if by_vote else []
    return SeriesView(
        game=games.game, match=games.match, match_game=games.match_game, games=games.games,
        score=[sum(1 for r in results if side in r.winners) for side in range(sides)],
        results=[GameResultView(match_game=i + 1, winners=list(r.winners), scores=list(r.scores))
                 for i, r in enumerate(results)],
        match_over=tally is not None and games.match_game >= games.games, start=games.start,
        continues=games.continues, asked=asked,
        waiting=[seat for seat in _players(record) if seat not in games.votes] if by_vote else [])


def game_not_over(record: SessionRecord, asked: int | None) -> Problem:
    """409 ``VERSION_CONFLICT`` (with the session's version): the table's game is not over, or the game ``asked``
    about has not begun. (No code of its own: ``/v1``'s problem codes are an enumeration of the frozen contract.)"""
    game = record.settings.games.game
    if asked is not None and asked > game:
        detail, case = f"the table is at its game {game}: game {asked} has not begun", "game_not_begun"
    else:
        detail, case = f"the table's game {game} is not over: the next game begins once it is", "game_not_over"
    return Problem("VERSION_CONFLICT", detail, current_version=record.version,
                   headers={"ETag": f'"{record.version}"'},
                   message=(f"problem.VERSION_CONFLICT.detail.{case}",
                            {"game": game, "asked": asked, "current_version": record.version}))


def next_game(record: SessionRecord, now_ms: int) -> Change:
    """The change that begins the table's next game after ``record`` (whose game is over)."""
    current = record.state
    games = record.settings.games
    tally = _tally(current)
    assert tally is not None
    if games.match_game >= games.games:  # the match is over: a new one begins
        following = msgspec.structs.replace(games, game=games.game + 1, match=games.match + 1, match_game=1,
                                            since=record.version + 1, results=(), votes=())
    else:
        following = msgspec.structs.replace(games, game=games.game + 1, match_game=games.match_game + 1,
                                            since=record.version + 1, results=(*games.results, tally), votes=())
    options = current.options
    with engine_errors():
        state, events = new_game(options, **secret_setup(options, draw_secret(), ()))
    score = tuple(sum(1 for r in following.results if side in r.winners) for side in range(len(state.scores)))
    started = NextGameStarted(game=following.game, match=following.match, match_game=following.match_game,
                              games=following.games, score=score)
    table = msgspec.structs.replace(record.settings, series=following)
    return Change(state=state, events=[started, *events], clock=restarted(record.clock, state, now_ms), table=table)



def may_ask_next_game(caller: Caller, path_seat: int | None = None) -> None:
    """Who may ask for the next game: the host, the table host, and the seats at a table whose seats start it."""
    no_spectator(caller)
    if caller.seat is not None and caller.record.settings.games.start != "seats":
        raise forbidden("at this table the host starts the next game: a seat's token cannot", "host_rematch")

class Rematch:
    """Begins a table's next game (:func:`next_game`), or counts a seat's agreement to it."""

    def __init__(self, changes: Changes, access: Access) -> None:
        self.changes = changes
        self.access = access

    async def request(self, session_id: str, token: str, game: int | None) -> NextGame:
        """The next game after the table's game ``game`` (none: the current game), asked with ``token``: begun
        now, or already begun (answered as it is), or, at a table whose seats start it, the seat's agreement
        counted while others' is awaited. 409 ``VERSION_CONFLICT`` while that game goes on."""
        caller = await self.access.caller(session_id, token)
        may_ask_next_game(caller)

        def answer(record: SessionRecord, started: bool) -> NextGame:
            return NextGame(session_id=session_id, version=record.version, started=started,
                            series=series_view(record))

        async def step(seen: Seen) -> Plan[NextGame] | Done[NextGame]:
            current = seen.record
            seat = identify(current, Loaded(current, None), token).seat  # the token may have been revoked since
            games = current.settings.games
            if game is not None and games.game > game:
                return Done(answer(current, True))  # begun already: by this request's lost answer, or another
            if current.state.phase != "game_over" or (game is not None and games.game < game):
                raise game_not_over(current, game)
            if seat is not None:
                votes = tuple(sorted({*games.votes, seat}))
                waiting = tuple(s for s in _players(current) if s not in votes)
                if waiting:
                    if votes == games.votes:
                        return Done(answer(current, False))  # asked already
                    table = msgspec.structs.replace(current.settings,
                                                    series=msgspec.structs.replace(games, votes=votes))
                    change = Change(state=current.state, events=[RematchAsked(seat=seat, waiting=waiting,
                                                                              to_act=current.state.to_act)],
                                    table=table)
                    return Plan(change, lambda made: answer(made, False), follow=False)
            change = next_game(current, self.changes.clock.now_ms())
            return Plan(change, lambda made: answer(made, True))

        return await self.changes.run(session_id, step, caller.record)
