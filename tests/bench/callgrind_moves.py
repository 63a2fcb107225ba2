"""Instructions per session move, counted by callgrind, for several trees side by side (a script, not a test).

    .venv/bin/python tests/bench/callgrind_moves.py TREE [TREE ...] [--served-moves 40,240] [--games 1,6]
                                                    [--rate-limit N] [--served-only]

On a machine shared with other work, CPU time per request moves by several per cent from run to run; the count
of instructions a move executes does not. For each tree (a checkout, or a ``git archive`` of a commit with its own
``tools/build_engine.py`` build, or none: the pure engine then runs in both), this counts, under
``valgrind --tool=callgrind``:

* **in process**: :mod:`tests.bench.bench_session_changes`' games through ``SessionService`` on a redis-server of
  this script's own (``--store redis``), each tree run with ``--games A`` and ``--games B``; the difference
  divided by the difference in moves (the service's start and the interpreter's drop out);
* **served**: the service under uvicorn (one worker, the served protocol, ``REDIS_URL``), one client connection
  playing a four-player session with ``If-Match`` as tests/bench/bench_sessions.py's players do (a new session
  when a game ends), ``--served-moves A,B`` moves; the difference in instructions divided by the difference in
  moves. The client runs outside callgrind; the server's background work (the clock sweeper, the log follower)
  runs on the wall clock, which callgrind slows, so this figure moves by a few per cent between runs: run it
  twice.

``--rate-limit N`` serves with ``RATE_LIMIT_PER_MINUTE=N`` (in Redis, as deployed; a limit the moves never reach):
what the request limit costs a move, its RateLimit fields included. ``--served-only`` leaves out the in-process
count (the served one is what the HTTP layers change).

``PYTHONHASHSEED=0`` and seeded games make both counts repeatable. Prints each tree's figures and each one's ratio
to the first tree's. Current figures: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_sessions import Connection, Player  # noqa: E402
from tests.bench.processes import free_port, start_redis  # noqa: E402

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def _refs(log: str) -> int:
    found = _REFS.search(log)
    if found is None:
        raise SystemExit(f"no instruction count in callgrind's output:\n{log[-2000:]}")
    return int(found.group(1).replace(",", ""))


def _env(tree: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree), **extra}


def _valgrind() -> list[str]:
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]


def in_process(tree: Path, games: int, redis_url: str) -> tuple[int, int]:
    """(instructions, moves) of ``games`` games through ``SessionService`` on the tree's code."""
    command = [*_valgrind(), sys.executable, str(ROOT / "tests/bench/bench_session_changes.py"), "--games",
               str(games), "--store", "redis", "--child", "--redis-url", redis_url]
    done = subprocess.run(command, cwd=tree, env=_env(tree), capture_output=True, text=True, check=True)
    return _refs(done.stderr), int(done.stdout.split()[0])


def served(tree: Path, moves: int, redis_url: str, rate_limit: int = 0) -> int:
    """Instructions of a server on the tree's code that answered ``moves`` session moves (and its start)."""
    port = free_port()
    env = _env(tree, REDIS_URL=redis_url, SESSION_CREATE_PER_MINUTE="0", SESSION_CREATE_TOTAL_PER_MINUTE="0",
               LOG_LEVEL="WARNING", RATE_LIMIT_PER_MINUTE=str(rate_limit), API_KEYS="",
               SNAPSHOT_KEYS="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    command = [*_valgrind(), sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host",
               "127.0.0.1", "--port", str(port), "--workers", "1", "--no-access-log", "--log-level", "warning",
               "--http", "service.ops.serving:GuardedHttpToolsProtocol"]
    with tempfile.TemporaryFile("w+") as log:
        server = subprocess.Popen(command, cwd=tree, env=env, stderr=log)
        try:
            asyncio.run(_play(port, moves, server))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(300)
        log.seek(0)
        return _refs(log.read())


async def _play(port: int, moves: int, server: subprocess.Popen[bytes]) -> None:
    for _ in range(1200):  # callgrind starts the interpreter slowly
        if server.poll() is not None:
            raise SystemExit(f"the server stopped (exit {server.returncode})")
        try:
            connection = await Connection.open(port)
            break
        except OSError:
            await asyncio.sleep(0.5)
    else:
        raise SystemExit("the server did not answer within 10 minutes")
    player = Player(connection, random.Random(3), False)
    await player.new_session()
    for _ in range(moves):
        await player.move([])
    connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--games", default="1,6", help="in process: games of the two runs (A,B)")
    parser.add_argument("--served-moves", default="40,240", help="served: moves of the two runs (A,B)")
    parser.add_argument("--rate-limit", type=int, default=0, help="served: RATE_LIMIT_PER_MINUTE (0: off)")
    parser.add_argument("--served-only", action="store_true", help="leave out the in-process count")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    low_games, high_games = map(int, args.games.split(","))
    low_moves, high_moves = map(int, args.served_moves.split(","))
    redis, port = start_redis(1)
    url = f"redis://127.0.0.1:{port}/0"
    figures: list[tuple[Path, float, float]] = []
    try:
        for tree in (t.resolve() for t in args.trees):
            if args.served_only:
                per_move, moved = float("nan"), 0
            else:
                (low, low_n), (high, high_n) = in_process(tree, low_games, url), in_process(tree, high_games, url)
                per_move, moved = (high - low) / (high_n - low_n), high_n - low_n
            per_served = (served(tree, high_moves, url, args.rate_limit)
                          - served(tree, low_moves, url, args.rate_limit)) / (high_moves - low_moves)
            figures.append((tree, per_move, per_served))
            print(f"{tree}: in process {per_move:,.0f} instructions per move ({moved} moves); served "
                  f"{per_served:,.0f} per move ({high_moves - low_moves} moves)", flush=True)
    finally:
        redis.terminate()
    first = figures[0]
    for tree, per_move, per_served in figures[1:]:
        print(f"{tree} against {first[0]}: in process {per_move / first[1]:.3f}, served {per_served / first[2]:.3f}")


if __name__ == "__main__":
    main()
