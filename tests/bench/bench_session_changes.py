"""The sessions wing's own cost per move, in process (a script that prints figures, not a test).

    .venv/bin/python tests/bench/bench_session_changes.py [--games 20] [--store memory|redis] [--against DIR]

Plays ``--games`` four-player games through :class:`service.sessions.service.SessionService` itself, no HTTP:
each seat's token moves in turn (every seat a human's, a legal move drawn by a seeded generator, with
``If-Match``), on the
in-process store or on a redis-server of its own (free port, no persistence). Prints the moves made and the
process CPU per move (``time.process_time``; with Redis, the client's side only). ``--against DIR`` runs the same
games on the checkout at ``DIR`` (a ``git archive`` of another commit, say) in a subprocess, alternately with this
one, three rounds each, and prints both with their ratio: on a shared machine, compare ratios measured side by
side, not figures from separate runs. For a count that does not depend on the machine's load, run it under
``valgrind --tool=callgrind`` with ``--games`` small.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    parser.add_argument("--against", type=Path, default=None, help="another checkout to run beside this one")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2], help=argparse.SUPPRESS)
    parser.add_argument("--redis-url", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


async def _play(games: int, store_kind: str, redis_url: str | None) -> tuple[int, float]:
    import random

    from engine import legal_moves
    from service.referee.snapshots import Sealer
    from service.sessions.memory import MemoryStore
    from service.sessions.redis_store import RedisStore
    from service.sessions.schemas import CreateSessionRequest
    from service.sessions.service import SessionService

    store = MemoryStore(3600) if store_kind == "memory" else RedisStore(redis_url or "", 3600, prefix="bench:")
    await store.open()
    service = SessionService(store, Sealer([Sealer.generate_key()]), stopping=asyncio.Event(),
                             remembered_sessions=0 if store_kind == "memory" else 4096)
    moves, spent = 0, 0.0
    rng = random.Random(7)
    # Four human seats dealt from a seed: a checkout with secret deals asks the host to say so.
    opt_in = {"known_deal": True} if "known_deal" in CreateSessionRequest.__struct_fields__ else {}
    try:
        for game in range(games):
            created = await service.create(CreateSessionRequest(players=4, seed=game, first_dealer=3, **opt_in))
            tokens, version = created.seat_tokens, created.version
            while True:
                caller = await service.caller(created.session_id, created.host_token)
                state = caller.record.state
                if state.to_act is None:
                    break
                move = rng.choice(legal_moves(state, state.to_act))
                token = tokens[state.to_act]
                assert token is not None
                started = time.process_time()
                outcome = await service.move(created.session_id, token, move, if_match=f'"{version}"')
                spent += time.process_time() - started
                version, moves = outcome.version, moves + 1
    finally:
        await store.close()
    return moves, spent


def _measure(root: Path, games: int, store: str, redis_url: str | None) -> tuple[int, float]:
    """One run in a fresh interpreter on the checkout at ``root``: (moves, CPU seconds in the moves)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, str(Path(__file__).resolve()), "--games", str(games), "--store", store, "--child"]
    if redis_url:
        command += ["--redis-url", redis_url]
    out = subprocess.run(command, env=env, cwd=root, check=True, capture_output=True, text=True).stdout.split()
    return int(out[0]), float(out[1])


def main() -> None:
    args = _args()
    if args.child:  # a run of one checkout, for the parent to read
        moves, spent = asyncio.run(_play(args.games, args.store, args.redis_url))
        print(moves, spent)
        return
    redis_proc = None
    redis_url = args.redis_url
    if args.store == "redis" and redis_url is None:
        sys.path.insert(0, str(args.root))
        from tests.bench.processes import start_redis

        redis_proc, port = start_redis(1)
        redis_url = f"redis://127.0.0.1:{port}/0"
    try:
        trees = [("this checkout", args.root)] + ([("against", args.against.resolve())] if args.against else [])
        results: dict[str, list[float]] = {name: [] for name, _ in trees}
        moves = 0
        for _ in range(3 if args.against else 1):
            for name, root in trees:
                moves, spent = _measure(root, args.games, args.store, redis_url)
                results[name].append(spent / moves * 1e6)
        for name, root in trees:
            print(f"{name:14} {root}: {moves} moves, {statistics.median(results[name]):.1f} µs CPU per move "
                  f"(median of {len(results[name])}: {', '.join(f'{r:.1f}' for r in results[name])}), "
                  f"store {args.store}")
        if args.against:
            ratio = statistics.median(results["this checkout"]) / statistics.median(results["against"])
            print(f"ratio this/against: {ratio:.3f}")
    finally:
        if redis_proc is not None:
            redis_proc.terminate()


if __name__ == "__main__":
    main()
