"""What carrying the move history in a stateless snapshot would cost (a script, not a test).

    .venv/bin/python tests/bench/bench_record_snapshots.py [--games 100]

Plays the records benchmark's four-player games to the end (tests/bench/bench_records.py) and, 50 moves in,
halfway and at the end, compares the length of the sealed snapshot of the state with the length the same
sealing pipeline (msgpack, zstd with the snapshot dictionary, AES-GCM, base64url) gives for the state together
with the moves so far. Prints the medians, the largest, and the median ratio.

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import msgspec  # noqa: E402
from bench_records import play  # noqa: E402

from engine import GameState, Options, apply_move, new_game  # noqa: E402
from service.referee import snapshots  # noqa: E402

SEALER = snapshots.Sealer([bytes(32)])
ENCODER = msgspec.msgpack.Encoder()
#: "v1." + an 8-digit key id + "."; then the 12-byte nonce and the 16-byte tag around the compressed body.
PREFIX, AEAD_BYTES = len("v1.12345678."), 12 + 16


def sealed_length(payload: Any) -> int:
    body = snapshots._compressor().compress(ENCODER.encode(payload))
    return PREFIX + len(snapshots._b64e(bytes(AEAD_BYTES) + body))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(500)
    rows: dict[str, list[tuple[int, int, int]]] = {"50 moves in": [], "halfway": [], "at the end": []}
    for i in range(args.games):
        record = play(rng, Options(), seed=i)
        state, _ = new_game(Options(), seed=i, first_dealer=0)
        states: list[GameState] = [state]
        for move in record.moves:
            state, _ = apply_move(state, move)
            states.append(state)
        n = len(record.moves)
        for label, k in (("50 moves in", min(50, n)), ("halfway", n // 2), ("at the end", n)):
            plain = len(SEALER.seal(states[k]))
            assert abs(plain - sealed_length(states[k])) <= 4  # the same pipeline as Sealer.seal
            rows[label].append((k, plain, sealed_length([states[k], list(record.moves[:k])])))
    for label, r in rows.items():
        print(f"{label:12s} moves median {statistics.median(x[0] for x in r):5.0f}   snapshot median "
              f"{statistics.median(x[1] for x in r):5.0f} chars   with the moves median "
              f"{statistics.median(x[2] for x in r):6.0f} chars (largest {max(x[2] for x in r)})   ratio "
              f"{statistics.median(x[2] / x[1] for x in r):.1f}x")


if __name__ == "__main__":
    main()
