"""Perft for Five Hundred: the number of distinct legal move sequences of a given length from a position.

The expected counts in ``perft_data.json`` are a cheap, strong oracle against regressions in move generation:
    .venv/bin/python -m tests.engine.perft --write   # regenerate the data file (only after a deliberate change)

A position is (options, seed, first dealer, a prefix of moves); a finished game counts as one leaf.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import msgspec

from engine import GameState, Move, apply_move, legal_moves, new_game, resolve_options

DATA = Path(__file__).with_name("perft_data.json")
_MOVE = msgspec.json.Decoder(Move)  # type: ignore[var-annotated]


def perft(state: GameState, depth: int) -> int:
    if depth == 0 or state.to_act is None:
        return 1
    moves = legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(apply_move(state, m)[0], depth - 1) for m in moves)


def divide(state: GameState, depth: int) -> dict[str, int]:
    """Perft split by first move (what a mismatch prints)."""
    return {msgspec.json.encode(m).decode(): perft(apply_move(state, m)[0], depth - 1)
            for m in legal_moves(state)}


def position(entry: dict[str, Any]) -> GameState:
    opts = resolve_options(entry["players"], None, entry.get("options", {}))
    state, _ = new_game(opts, seed=entry["seed"], first_dealer=entry["first_dealer"])
    for raw in entry["prefix"]:
        state, _ = apply_move(state, _MOVE.decode(json.dumps(raw)))
    return state


def _prefix_to_play(players: int, options: dict[str, Any], seed: int, first_dealer: int) -> list[Any]:
    """A seeded random auction and exchange that reaches the first lead of a played hand."""
    rng = random.Random(seed)
    for attempt in range(200):
        state, _ = new_game(resolve_options(players, None, options), seed=seed + attempt * 0,
                            first_dealer=first_dealer)
        prefix: list[Any] = []
        while state.phase != "play" and state.hand_number == 0:
            moves = legal_moves(state)
            passes = [m for m in moves if type(m).__name__ == "Pass"]
            bids = [m for m in moves if type(m).__name__ == "Bid"]
            if state.phase == "auction" and bids and not state.high and rng.random() < 0.7:
                move: Move = bids[rng.randrange(min(8, len(bids)))]
            elif state.phase == "auction" and passes:
                move = passes[0]
            else:
                move = moves[rng.randrange(len(moves))]
            prefix.append(msgspec.to_builtins(move))
            state, _ = apply_move(state, move)
        if state.phase == "play" and state.hand_number == 0:
            return prefix
    raise RuntimeError("no played hand reached")


SPECS = [
    # (players, options, seed, first dealer, prefix kind, depth)
    (4, {}, 11, 3, "deal", 3),
    (4, {}, 11, 3, "play", 5),
    (4, {"misere_rank": "between_8S_8C", "blind_misere_enabled": True}, 12, 0, "deal", 3),
    (2, {}, 21, 1, "play", 5),
    (3, {}, 31, 2, "play", 5),
    (5, {}, 51, 4, "play", 4),
    (5, {"five_player_partner_method": "choose_player"}, 52, 0, "deal", 3),
    (6, {}, 61, 5, "play", 4),
    (6, {"six_player_teams": "three_teams_of_two", "six_player_misere": True}, 62, 1, "deal", 3),
    (2, {"two_player_method": "ghost_partners"}, 22, 1, "deal", 3),
    (2, {"two_player_method": "ghost_partners"}, 23, 0, "play", 6),
]


def generate() -> list[dict[str, Any]]:
    out = []
    for players, options, seed, dealer, kind, depth in SPECS:
        prefix = _prefix_to_play(players, options, seed, dealer) if kind == "play" else []
        entry = {"players": players, "options": options, "seed": seed, "first_dealer": dealer,
                 "prefix": prefix, "depth": depth}
        entry["nodes"] = perft(position(entry), depth)
        out.append(entry)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    data = generate()
    for e in data:
        print(e["players"], e["options"], len(e["prefix"]), e["depth"], e["nodes"])
    if args.write:
        DATA.write_text(json.dumps(data, indent=1) + "\n")
