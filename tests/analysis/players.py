"""The players the analysis is measured against: the bot levels, and a bot that peeks (here only: it is no API
level, and the service never plays it).

The peeking bot plays the expert's move computed from the true deal: the expert's candidates for the decision
(plus nothing else), each played out once on the real cards, the best of them played. With ``rate`` below 1 it
peeks on that share of its decisions (drawn from its own seeded random numbers) and plays ``basic`` on the others.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bots import Level, decide
from bots.analysis import decision_moves
from bots.expert import outcome_of
from bots.knowledge import Knowledge
from engine import GameRecord, GameState, Move, Options, apply_move, build_record, legal_moves, new_game, sides, view
from engine.seats import controller

#: A player: the state (only the peeking bot reads more than its seat's view of it), the seed of this decision.
Player = Callable[[GameState, int], Move]


def level_player(level: Level, budget: int | None = None) -> Player:
    def play(state: GameState, seed: int) -> Move:
        seat = controller(state.options, state.to_act or 0)
        return decide(view(state, seat), state.options, level=level, seed=seed, budget=budget,
                      legal=legal_moves(state)).move
    return play


def open_hand_move(state: GameState) -> Move:
    """The expert's move computed from the true deal: its candidates played out on the real cards."""
    seat = controller(state.options, state.to_act or 0)
    knowledge = Knowledge(view(state, seat), state.options)
    legal = [] if state.phase == "exchange" else legal_moves(state)
    basic = decide(view(state, seat), state.options, level="basic", legal=legal).move
    moves = decision_moves(knowledge, legal, basic)
    if len(moves) == 1:
        return moves[0]
    values = [outcome_of(state, m, knowledge.seat)[0] for m in moves]
    return moves[max(range(len(moves)), key=values.__getitem__)]


def peeking_player(rate: float = 1.0) -> Player:
    def play(state: GameState, seed: int) -> Move:
        if random.Random(seed).random() < rate:
            return open_hand_move(state)
        return level_player("basic")(state, seed)
    return play


def play_records(players: Sequence[Player], *, seed: int, players_count: int = 4, hands: int,
                 options: Options | None = None) -> list[GameRecord]:
    """Games of ``players`` (one per seat) dealt from ``seed`` and the seeds after it, until ``hands`` hands were
    scored or thrown in: their records."""
    opts = options or Options(players=players_count)  # type: ignore[arg-type]
    records: list[GameRecord] = []
    played = 0
    game = 0
    while played < hands:
        game_seed = seed * 1_000 + game
        state, _ = new_game(opts, seed=game_seed, first_dealer=game % opts.players)
        moves: list[Move] = []
        while state.to_act is not None and played < hands:
            seat = controller(opts, state.to_act)
            move = players[seat](state, game_seed * 10_007 + len(moves))
            moves.append(move)
            number = state.hand_number
            state, _ = apply_move(state, move)
            if state.hand_number != number or state.to_act is None:
                played += 1
        records.append(build_record(opts, seed=game_seed, first_dealer=game % opts.players, moves=moves))
        game += 1
    return records


def play_game(players: Sequence[Player], *, seed: int, options: Options, first_dealer: int = 0) -> GameRecord:
    """One whole game of ``players`` (one per seat) dealt from ``seed``, played to its end: its record."""
    state, _ = new_game(options, seed=seed, first_dealer=first_dealer)
    moves: list[Move] = []
    while state.to_act is not None:
        move = players[controller(options, state.to_act)](state, seed * 10_007 + len(moves))
        moves.append(move)
        state, _ = apply_move(state, move)
    return build_record(options, seed=seed, first_dealer=first_dealer, moves=moves)


def side_players(levels: Sequence[Level | Player], opts: Options) -> list[Player]:
    """One player per seat from one level (or player) per side."""
    out: list[Player] = [level_player("basic")] * opts.players
    for i, members in enumerate(sides(opts)):
        entry = levels[i % len(levels)]
        for s in members:
            out[s] = level_player(entry) if isinstance(entry, str) else entry  # type: ignore[arg-type]
    return out
