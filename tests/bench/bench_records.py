"""Records benchmark: how long verifying a whole game takes, on one core (a script, not a test).

    .venv/bin/python tests/bench/bench_records.py [--games 200] [--repeat 3] [--cpu 0]

Plays ``--games`` random four-player games to the end under the default rules (uniformly random legal moves,
except that in the auction a seat passes with probability 0.5 and otherwise bids one of the three lowest bids, so
that games last as many hands as real ones), builds their records, then times, pinned to one CPU:

- replay alone: ``new_game`` and ``apply_move`` for each move (the floor any verification pays);
- ``verify_record``: the engine's replay and field-by-field check of a JSON record already decoded;
- ``POST /v1/records/verify``: the whole request in process (JSON decoding, the token screen, replay, the
  check, sealing the final state, encoding the answer), through Litestar's test client;
- text → record: ``record_from_text`` of the plain-text form;
- a seat's own record: ``verify_seat_record`` of seat 0's record of the game (which also looks for a deal of
  the cards seat 0 did not see that fits each hand);
- the bound: a record of ``MAX_RECORD_MOVES`` moves (a random game with a target no one reaches, cut there).

Prints the median and the 99th percentile of each (each game timed ``--repeat`` times, the best kept), per move
too, the games' lengths, and the ratio of the HTTP call to the bare replay (the machine's load cancels out).

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import msgspec  # noqa: E402

from engine import Bid, Options, Pass, apply_move, legal_moves, new_game, resolve_options  # noqa: E402
from engine.record_text import record_from_text, record_to_text  # noqa: E402
from engine.records import MAX_RECORD_MOVES, GameRecord  # noqa: E402
from engine.replay import build_record, verify_record  # noqa: E402
from engine.seat_records import SeatRecord, seat_record, verify_seat_record  # noqa: E402


def play(rng: random.Random, opts: Options, seed: int, max_moves: int = 100_000) -> GameRecord:
    state, _ = new_game(opts, seed=seed, first_dealer=0)
    moves = []
    while state.to_act is not None and len(moves) < max_moves:
        legal = legal_moves(state)
        if state.phase == "auction":
            # Pass often, else one of the three lowest bids: random high bids would end games in two hands.
            bids = [m for m in legal if isinstance(m, Bid) and not m.sans_kitty][:3]
            move = Pass(seat=state.to_act) if not bids or rng.random() < 0.5 else rng.choice(bids)
        else:
            move = rng.choice(legal)
        moves.append(move)
        state, _ = apply_move(state, move)
    return build_record(opts, seed=seed, first_dealer=0, moves=moves)


def seat_zero(record: GameRecord) -> SeatRecord:
    """Seat 0's own record of the game ``record`` holds."""
    opts = Options(**msgspec.structs.asdict(record.options))
    state, start = new_game(opts, seed=record.seed or 0, first_dealer=record.first_dealer)
    steps = []
    for move in record.moves:
        state, events = apply_move(state, move)
        steps.append(events)
    return seat_record(opts, start, steps, 0)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def timed(fn: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="time each game this many times, keep the best")
    parser.add_argument("--cpu", type=int, default=0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    rng = random.Random(500)
    opts = Options()
    records = [play(rng, opts, seed=i) for i in range(args.games)]
    lengths = [len(r.moves) for r in records]
    hands = [len(r.hands) for r in records]
    sizes = [len(msgspec.json.encode(r)) for r in records]
    print(f"{args.games} four-player games (default rules, random play): moves median {statistics.median(lengths)}"
          f", max {max(lengths)}; hands median {statistics.median(hands)}, max {max(hands)}; JSON record median "
          f"{statistics.median(sizes) / 1000:.1f} kB, max {max(sizes) / 1000:.1f} kB")

    from litestar.testing import TestClient

    from service.app import create_app
    from service.config import Settings

    with TestClient(create_app(Settings(snapshot_keys=(bytes(32),), log_level="WARNING"))) as client:
        headers = {"content-type": "application/json"}

        def post(body: bytes) -> None:
            response = client.post("/v1/records/verify", content=body, headers=headers)
            assert response.status_code == 200, response.text

        def bare(record: GameRecord) -> None:
            state, _ = new_game(opts, seed=record.seed or 0, first_dealer=record.first_dealer)
            for move in record.moves:
                state, _ = apply_move(state, move)

        # Each game's four timings are taken one after another, so that the machine's load (shared, noisy)
        # weighs on all of them alike and their ratios hold even when the absolute figures drift.
        rows: dict[str, list[float]] = {"bare": [], "engine": [], "text": [], "http": [], "seat": []}
        for record in records:
            body = msgspec.json.encode({"record": record})
            text = record_to_text(record)
            seat0 = seat_zero(record)
            rows["bare"].append(timed(lambda r=record: bare(r), args.repeat))
            rows["engine"].append(timed(lambda r=record: verify_record(r), args.repeat))
            rows["text"].append(timed(lambda t=text: record_from_text(t), args.repeat))
            rows["http"].append(timed(lambda b=body: post(b), args.repeat))
            rows["seat"].append(timed(lambda r=seat0: verify_seat_record(r), args.repeat))
        labels = {"bare": "replay alone (new_game + apply_move)", "engine": "verify_record (engine)",
                  "text": "record_from_text", "http": "POST /v1/records/verify (HTTP)",
                  "seat": "verify_seat_record (seat 0)"}
        for key, label in labels.items():
            med, p99 = percentiles(rows[key])
            per_move = statistics.median(t / len(r.moves) for t, r in zip(rows[key], records, strict=True))
            print(f"{label:38s} median {med * 1e3:7.2f} ms   p99 {p99 * 1e3:7.2f} ms   "
                  f"({per_move * 1e6:5.1f} µs per move)")
        ratio = statistics.median(h / b for h, b in zip(rows["http"], rows["bare"], strict=True))
        print(f"HTTP verify / bare replay, median ratio per game: {ratio:.2f}")

        longest = play(random.Random(1), resolve_options(4, None, {"target": 100_000, "lose_at": -100_000}), 1,
                       max_moves=MAX_RECORD_MOVES)
        body = msgspec.json.encode({"record": longest})
        bound_engine = timed(lambda: verify_record(longest), args.repeat)
        bound_http = timed(lambda: post(body), args.repeat)
        print(f"the bound, {len(longest.moves)} moves in {len(longest.hands)} hands ({len(body) / 1000:.0f} kB): "
              f"verify_record {bound_engine * 1e3:.0f} ms, HTTP {bound_http * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
