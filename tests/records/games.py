"""Random games recorded for the record tests: every player count, random option sets, seeds and deck orders."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import msgspec

from engine import GameState, Move, Options, apply_move, new_game, pack_for
from engine.record_text import record_to_text
from engine.records import GameRecord
from engine.replay import build_record
from tests.engine.randomplay import random_game, random_options


@dataclass(frozen=True)
class PlayedGame:
    options: Options
    seed: int | None
    deck_orders: tuple[tuple[str, ...], ...]
    first_dealer: int
    moves: tuple[Move, ...]
    #: Every state the game went through: after the deal, then after each move.
    states: tuple[GameState, ...]
    record: GameRecord


def play_game(rng: random.Random, players: int, *, deck_orders: int = 0, seedless: bool = False,
              change_probability: float = 0.3, max_steps: int = 3000, cut_at: int | None = None) -> PlayedGame:
    """One random game, played move by move with the engine, and its record (``cut_at``: only its first
    moves, a game still in progress)."""
    opts = random_options(rng, players, change_probability)
    seed = rng.randrange(2**63)
    decks = tuple(tuple(rng.sample(pack_for(opts), len(pack_for(opts)))) for _ in range(deck_orders))
    first_dealer = rng.randrange(players)
    state, _ = new_game(opts, seed=seed, deck_orders=decks, first_dealer=first_dealer)
    states = [state]
    moves: list[Move] = []
    for before, move in random_game(rng, state, max_steps=max_steps):
        if cut_at is not None and len(moves) >= cut_at:
            break
        after, _ = apply_move(before, move)
        moves.append(move)
        states.append(after)
    # A seedless record must hold every deal it plays in: keep the moves up to the first deal after the decks.
    if seedless:
        cut = next((i for i, s in enumerate(states) if s.hand_number >= len(decks)), len(states) - 1)
        moves, states = moves[:cut], states[:cut + 1]
    record = build_record(opts, seed=None if seedless else seed, deck_orders=decks, first_dealer=first_dealer,
                          moves=moves, replay_seed=seed)
    return PlayedGame(opts, None if seedless else seed, decks, first_dealer, tuple(moves), tuple(states), record)


def record_bodies(count: int = 12) -> list[dict[str, Any]]:
    """Request bodies for ``POST /v1/records/verify`` from short real games: valid records (as JSON, as text,
    and as bare moves), and records corrupted at a move or at a derived field."""
    rng = random.Random(17)
    bodies: list[dict[str, Any]] = []
    for i in range(count):
        game = play_game(rng, 2 + i % 5, cut_at=None if i % 3 else 60)
        record = msgspec.to_builtins(game.record)
        kind = i % 4
        if kind == 0:
            bodies.append({"record": record, "as_text": True})
        elif kind == 1:
            bodies.append({"text": record_to_text(game.record)})
        elif kind == 2:
            options = {k: v for k, v in record["options"].items() if k != "players"}
            bodies.append({"players": game.options.players, "options": options, "seed": game.seed,
                           "first_dealer": game.first_dealer, "moves": record["moves"]})
        else:
            k = rng.randrange(len(game.moves))
            bodies.append({"record": {**record, "moves": list(record["moves"][:k]) + [{"type": "pass", "seat": 0}]
                                      + list(record["moves"][k + 1:])}})
            bodies.append({"record": {**record, "scores": [s + 10 for s in record["scores"]]}})
    return bodies
