"""The zstd dictionary that snapshot version ``v1`` compresses with, and how it was made.

A game state is a few hundred bytes of msgpack with the same field names and card tokens every time, which is
exactly what a trained dictionary is for: with it, zstd shrinks a mid-game state far more than zlib does, and
faster. The dictionary file is part of the snapshot format:
``v1`` snapshots are compressed with ``snapshot.zdict`` as committed. Training a new one means a new snapshot
version (keep the old dictionary to open old snapshots).

    .venv/bin/python -m service.referee.snapshot_dictionary   # trains and writes service/referee/snapshot.zdict.new
"""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import zstandard

DICTIONARY_PATH = Path(__file__).with_name("snapshot.zdict")
DICTIONARY_SIZE = 4096


def load() -> zstandard.ZstdCompressionDict:
    return zstandard.ZstdCompressionDict(DICTIONARY_PATH.read_bytes())


def train(games: int = 600, seed: int = 1) -> bytes:
    """Train on states of seeded random games of every player count and varied options."""
    from engine import apply_move, legal_moves, new_game, option_catalogue, resolve_options

    rng = random.Random(seed)
    choices = [(o["name"], o["allowed"]) for o in option_catalogue()
               if o["allowed"] and o["name"] not in ("players", "deal_pattern")]
    encoder = msgspec.msgpack.Encoder()
    samples: list[bytes | bytearray | memoryview] = []
    for g in range(games):
        players = rng.choice([2, 3, 4, 4, 4, 5, 6])
        opts = resolve_options(players, None, {n: rng.choice(a) for n, a in choices if rng.random() < 0.15})
        state, _ = new_game(opts, seed=g)
        while state.to_act is not None and len(samples) < 40 * (g + 1):
            moves = legal_moves(state)
            state, _ = apply_move(state, moves[rng.randrange(len(moves))])
            samples.append(encoder.encode(state))
    return zstandard.train_dictionary(DICTIONARY_SIZE, samples).as_bytes()


if __name__ == "__main__":
    out = DICTIONARY_PATH.with_suffix(".zdict.new")
    out.write_bytes(train())
    print(f"wrote {out} ({out.stat().st_size} bytes)")
