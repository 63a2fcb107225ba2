"""Redis memory per hosted session: new, and after some moves (a script that prints figures, not a test).

    .venv/bin/python tests/bench/bench_session_memory.py [--sessions 500] [--moves 40] [--tree PATH]

Starts a redis-server of its own (free port, no persistence; never the shared one) and the service as served
(uvicorn, one worker, the Redis store, the creation budgets off: ``SESSION_CREATE_PER_MINUTE=0`` and
``SESSION_CREATE_TOTAL_PER_MINUTE=0``), from this tree or from ``--tree`` (another checkout, e.g. a
``git archive`` of an older commit, served with this script's Python), then:

1. reads Redis's ``used_memory`` (``INFO memory``), creates ``--sessions`` four-player sessions one after the
   other through the API (``POST /v1/sessions``), reads it again: the difference over the sessions is the memory
   per new session, Redis's own bookkeeping of the keys included;
2. sums ``MEMORY USAGE <key> SAMPLES 0`` over one new session's keys (the keys naming its id), and prints each;
3. plays ``--moves`` moves on that session through the API (the seat to act is the one whose
   ``GET /legal-moves`` is not empty; the first seat bids 6 spades, the others pass, then each plays its first
   legal move; no ``Idempotency-Key``) and prints its keys' ``MEMORY USAGE`` again.

Current figures, and the command behind them: deploy/SCALING.md ("Sizing Redis").
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from redis import Redis  # noqa: E402

from tests.bench.processes import HOST, free_port, http_answers, pin, start_redis, wait_ready  # noqa: E402

SERVER_CPU = 0
REDIS_CPU = 1


def start_service(tree: Path, redis_url: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(tree), "REDIS_URL": redis_url, "LOG_LEVEL": "WARNING",
           "SNAPSHOT_KEYS": base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode(),
           "SESSION_CREATE_PER_MINUTE": "0", "SESSION_CREATE_TOTAL_PER_MINUTE": "0"}
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host", HOST, "--port",
           str(port), "--no-access-log", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=tree, env=env, preexec_fn=pin(SERVER_CPU))
    wait_ready(proc, http_answers(port, "/healthz"), seconds=60, what="the service", pause=0.2)
    return proc, port


class Client:
    """One keep-alive connection to the service; JSON in and out."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None


def used_memory(redis: Redis) -> int:
    return int(redis.info("memory")["used_memory"])


def session_keys(redis: Redis, session_id: str) -> dict[str, int]:
    """``MEMORY USAGE`` (every element counted: ``SAMPLES 0``) of each key naming ``session_id``."""
    keys = sorted(k.decode() for k in redis.scan_iter(match=f"*{session_id}*", count=1000))
    return {k: int(redis.memory_usage(k, samples=0) or 0) for k in keys}


def play(client: Client, session_id: str, seats: list[str], moves: int) -> int:
    """Up to ``moves`` moves on the session (fewer if it ends); the moves applied."""
    applied = 0
    bid = False
    path = f"/v1/sessions/{session_id}"
    while applied < moves:
        for token in seats:
            status, legal = client.call("GET", f"{path}/legal-moves", token=token)
            if status != 200:
                raise SystemExit(f"legal moves answered {status}: {legal}")
            if legal["legal_moves"]:
                break
        else:
            return applied  # nobody may act: the game is over
        options = legal["legal_moves"]
        chosen = next((m for m in options if not bid and m.get("bid") == "6S"), None) \
            or next((m for m in options if m.get("type") == "pass"), None) or options[0]
        bid = bid or chosen.get("bid") == "6S"
        status, answer = client.call("POST", f"{path}/moves", {"move": chosen}, token=token)
        if status != 200:
            raise SystemExit(f"a move answered {status}: {answer}")
        applied += 1
    return applied


def print_keys(title: str, keys: dict[str, int], session_id: str) -> None:
    print(f"{title}: {sum(keys.values())} bytes in {len(keys)} keys (MEMORY USAGE ... SAMPLES 0)")
    for key, size in keys.items():
        print(f"    {size:>7}  {key.replace(session_id, '<id>')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=500, help="new four-player sessions")
    parser.add_argument("--moves", type=int, default=40, help="moves played on one session afterwards")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose service is served")
    args = parser.parse_args()
    pin(REDIS_CPU)()
    redis_proc, redis_port = start_redis(REDIS_CPU)
    service = None
    try:
        redis = Redis(host=HOST, port=redis_port)
        print(f"redis-server {redis.info('server')['redis_version']}; service from {args.tree.resolve()}")
        service, port = start_service(args.tree.resolve(), f"redis://{HOST}:{redis_port}/0")
        client = Client(port)
        body = {"players": 4, "seed": 0, "known_deal": True, "first_dealer": 3}
        status, first = client.call("POST", "/v1/sessions", body)  # warms the service and Redis's scripts
        if status != 201:
            raise SystemExit(f"creating a session answered {status}: {first}")
        time.sleep(0.5)
        before = used_memory(redis)
        created = []
        for i in range(args.sessions):
            status, answer = client.call("POST", "/v1/sessions", {**body, "seed": i + 1})
            if status != 201:
                raise SystemExit(f"creating a session answered {status}: {answer}")
            created.append(answer)
        time.sleep(0.5)
        after = used_memory(redis)
        print(f"used_memory {before} -> {after} over {args.sessions} new sessions: "
              f"{(after - before) / args.sessions:.0f} bytes per session")
        one = created[-1]
        session_id = one["session_id"]
        print_keys("one new session", session_keys(redis, session_id), session_id)
        moved = play(client, session_id, one["seat_tokens"], args.moves)
        print_keys(f"after {moved} moves", session_keys(redis, session_id), session_id)
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    finally:
        if service is not None:
            service.terminate()
            try:
                service.wait(timeout=20)
            except subprocess.TimeoutExpired:
                service.kill()
        redis_proc.kill()


if __name__ == "__main__":
    main()
