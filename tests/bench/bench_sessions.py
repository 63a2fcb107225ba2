"""Session moves through Redis against the stateless apply path (a script that prints figures, not a test).

    .venv/bin/python tests/bench/bench_sessions.py [--seconds 10] [--connections 64] [--idempotency-keys]
                                                   [--http service.ops.serving:GuardedHttpToolsProtocol]

Starts a redis-server of its own (free port, no persistence), the service with uvicorn (one worker, no access
log) pinned to CPU 0, and runs the load generator (asyncio, raw HTTP/1.1 keep-alive, one connection per
simulated client, loopback only) on CPU 1; redis-server shares CPU 1 with the generator so that the service
has its core to itself. Scenarios, ``--seconds`` each after a short warm-up:

(a)  ``POST /v1/games/apply`` with a legal move on mid-game four-player snapshots (tricks 2 to 8), a pool
     rotated by every connection (warm: each snapshot sealed by the service itself, its answer to the move
     before, so kept in its cache, as in play on one replica; tests/bench/bench_http.py's pool);
(b)  ``POST /v1/sessions/{id}/moves`` through Redis: each connection creates its own session and plays the
     legal moves of whoever is to act, in turn, with ``If-Match`` (a fresh session when its game ends;
     creations are not counted as moves).

Both scenarios run against one ``uvicorn --factory service.app:create_app --http <--http>`` (the service as
deployed, by default with the served protocol, with ``REDIS_URL`` set, ``LOG_LEVEL=WARNING``, no rate limit or
API keys), one after the other. The session-creation bounds are off (``SESSION_CREATE_PER_MINUTE=0``,
``SESSION_CREATE_TOTAL_PER_MINUTE=0``): every connection is one client address (loopback) creating a session
and a new one per finished game, which the served default (30 a minute per client) would refuse with 429
within seconds; the bounds are measured by tests/ops, not here.

Prints moves/s, p50/p99 latency, the ratio (b)/(a) (target: at least 50%) and the Redis round trips per move,
from ``INFO commandstats`` deltas over the measured window: top-level ``HMGET`` (plain reads) plus ``EVALSHA``
(a move's read, which also asks when the mover last moved, and the compare-and-set; creations subtracted), plus
``EVAL`` (the follow-up of a commit whose answer was lost, should there be one). The store's scripts never call
``HMGET`` themselves, so these counts are exactly the commands the service sent.

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import random
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
from redis import Redis  # noqa: E402

from engine import GameState, Options, apply_move, legal_moves, new_game  # noqa: E402
from service.referee.snapshots import Sealer  # noqa: E402
from tests.bench.processes import free_port, http_answers, pin, start_redis, wait_ready  # noqa: E402

SERVER_CPU = 0
CLIENT_CPU = 1
FACTORY = "service.app:create_app"
HOST = "127.0.0.1"


# -------------------------------------------------------------------------------------------- processes


SERVED = "service.ops.serving:GuardedHttpToolsProtocol"


def start_service(factory: str, env: dict[str, str], http: str = SERVED) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    cmd = [sys.executable, "-m", "uvicorn", "--factory", factory, "--host", HOST, "--port", str(port),
           "--workers", "1", "--no-access-log", "--log-level", "warning", "--http", http]
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, preexec_fn=pin(SERVER_CPU))
    # any HTTP answer to a GET of the sessions path means it is up
    wait_ready(proc, http_answers(port, "/v1/sessions", any_status=True), seconds=30, what=factory)
    return proc, port


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


# ---------------------------------------------------------------------------------------- HTTP client


class Connection:
    """One keep-alive HTTP/1.1 connection; requests are timed, answers checked."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        return cls(*await asyncio.open_connection(HOST, port))

    async def request(self, method: str, path: str, body: bytes = b"",
                      headers: str = "") -> tuple[int, str, bytes]:
        head = (f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n{headers}\r\n").encode()
        self.writer.write(head + body)
        raw = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        m = re.search(r"(?im)^content-length:\s*(\d+)", raw)
        payload = await self.reader.readexactly(int(m.group(1)) if m else 0)
        return int(raw[9:12]), raw, payload

    def close(self) -> None:
        self.writer.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    elapsed: float = 0.0
    extra: dict[str, int] = field(default_factory=dict)
    #: CPU used by the service during the window, as a share of its one core (near 100%: it is the bottleneck).
    server_cpu: float = 0.0
    client_cpu: float = 0.0

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.elapsed

    def pct(self, p: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000


# --------------------------------------------------------------------------------- (a) stateless apply


async def run_apply(port: int, pool: list[bytes], seconds: float, connections: int, server_pid: int) -> Figures:
    figures = Figures()
    start = asyncio.Event()

    async def worker(k: int) -> None:
        conn = await Connection.open(port)
        await start.wait()
        i = k
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            status, _, body = await conn.request("POST", "/v1/games/apply", pool[i % len(pool)])
            figures.latencies.append(time.perf_counter() - t0)
            if status != 200:
                raise SystemExit(f"apply answered {status}: {body[:300]!r}")
            i += 1
        conn.close()

    tasks = [asyncio.create_task(worker(k)) for k in range(connections)]
    await asyncio.sleep(0.5)
    t_start = time.perf_counter()
    cpu_start, own_start = cpu_seconds(server_pid), time.process_time()
    deadline = t_start + seconds
    start.set()
    await asyncio.gather(*tasks)
    figures.elapsed = time.perf_counter() - t_start
    figures.server_cpu = (cpu_seconds(server_pid) - cpu_start) / figures.elapsed
    figures.client_cpu = (time.process_time() - own_start) / figures.elapsed
    return figures


# ---------------------------------------------------------------------------------- (b) session moves


class Player:
    """One client: its session, the seats' tokens, and the game as the engine computes it locally."""

    def __init__(self, conn: Connection, rng: random.Random, idempotency: bool) -> None:
        self.conn, self.rng, self.idempotency = conn, rng, idempotency
        self.created = 0
        self.moves = 0

    async def new_session(self) -> None:
        seed = self.rng.randrange(2**53)  # the contract's seeds: at most 2**53 - 1
        game = {"players": 4, "seed": seed, "known_deal": True, "first_dealer": 0}
        status, _, body = await self.conn.request("POST", "/v1/sessions", msgspec.json.encode(game))
        if status == 400 and b"known_deal" in body:  # a checkout from before the opt-in (--trees): without it
            del game["known_deal"]
            status, _, body = await self.conn.request("POST", "/v1/sessions", msgspec.json.encode(game))
        if status != 201:
            raise SystemExit(f"creating a session answered {status}: {body[:300]!r}")
        created = msgspec.json.decode(body)
        self.path = f"/v1/sessions/{created['session_id']}/moves"
        self.tokens: list[str] = created["seat_tokens"]
        self.version: int = created["version"]
        self.state: GameState = new_game(Options(), seed=seed, first_dealer=0)[0]
        self.created += 1

    async def move(self, latencies: list[float]) -> None:
        if self.state.phase == "game_over":
            await self.new_session()
        move = self.rng.choice(legal_moves(self.state))
        headers = f"Authorization: Bearer {self.tokens[move.seat]}\r\nIf-Match: \"{self.version}\"\r\n"
        if self.idempotency:
            headers += f"Idempotency-Key: m{self.version}\r\n"
        t0 = time.perf_counter()
        status, head, body = await self.conn.request("POST", self.path, msgspec.json.encode({"move": move}),
                                                     headers)
        latencies.append(time.perf_counter() - t0)
        if status != 200:
            raise SystemExit(f"a session move answered {status}: {body[:300]!r}")
        self.version += 1
        if f'etag: "{self.version}"' not in head.lower():
            raise SystemExit(f"unexpected ETag (wanted {self.version}): {head!r}")
        self.state, _ = apply_move(self.state, move)
        self.moves += 1


async def run_sessions(port: int, seconds: float, connections: int, idempotency: bool,
                       redis: Redis, server_pid: int) -> Figures:
    figures = Figures()
    start = asyncio.Event()
    players: list[Player] = []
    ready = 0

    async def worker(k: int) -> None:
        nonlocal ready
        player = Player(await Connection.open(port), random.Random(k), idempotency)
        players.append(player)
        await player.new_session()
        for _ in range(5):  # warm: scripts loaded, connections open
            await player.move([])
        player.created = player.moves = 0
        ready += 1
        await start.wait()
        while time.perf_counter() < deadline:
            await player.move(figures.latencies)
        player.conn.close()

    tasks = [asyncio.create_task(worker(k)) for k in range(connections)]
    while ready < connections:
        await asyncio.sleep(0.05)
    before = redis.info("commandstats")
    t_start = time.perf_counter()
    cpu_start, own_start = cpu_seconds(server_pid), time.process_time()
    deadline = t_start + seconds
    start.set()
    await asyncio.gather(*tasks)
    figures.elapsed = time.perf_counter() - t_start
    figures.server_cpu = (cpu_seconds(server_pid) - cpu_start) / figures.elapsed
    figures.client_cpu = (time.process_time() - own_start) / figures.elapsed
    after = redis.info("commandstats")

    def delta(cmd: str) -> int:
        return int(after.get(f"cmdstat_{cmd}", {}).get("calls", 0) - before.get(f"cmdstat_{cmd}", {}).get("calls", 0))

    figures.extra = {"moves": sum(p.moves for p in players), "created": sum(p.created for p in players),
                     "hmget": delta("hmget"), "evalsha": delta("evalsha"), "eval": delta("eval"),
                     "script": delta("script|load")}
    return figures


# ------------------------------------------------------------------------------------------------ main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--idempotency-keys", action="store_true", help="send an Idempotency-Key with each move")
    parser.add_argument("--http", default=SERVED, help="uvicorn's --http (default: the served protocol)")
    args = parser.parse_args()

    key = Sealer.generate_key()
    redis_proc, redis_port = start_redis(CLIENT_CPU)
    redis = Redis(host=HOST, port=redis_port)
    env = {"SNAPSHOT_KEYS": base64.urlsafe_b64encode(key).rstrip(b"=").decode(), "LOG_LEVEL": "WARNING",
           "REDIS_URL": f"redis://{HOST}:{redis_port}/0", "RATE_LIMIT_PER_MINUTE": "0", "API_KEYS": "",
           "SESSION_CREATE_PER_MINUTE": "0", "SESSION_CREATE_TOTAL_PER_MINUTE": "0"}
    pin(CLIENT_CPU)()
    try:
        server, port = start_service(FACTORY, env, args.http)
        from tests.bench.bench_http import apply_bodies, served_pool

        # Warm: each snapshot sealed by this server (its answer to the move before), so kept in its cache.
        pool = served_pool(port, apply_bodies(Sealer([key]), 6, False), 6, False)
        try:
            asyncio.run(run_apply(port, pool, 2, args.connections, server.pid))  # warm-up
            applied = asyncio.run(run_apply(port, pool, args.seconds, args.connections, server.pid))
            sessions = asyncio.run(run_sessions(port, args.seconds, args.connections, args.idempotency_keys,
                                                redis, server.pid))
        finally:
            stop(server)
    finally:
        stop(redis_proc)

    x = sessions.extra
    round_trips = (x["hmget"] + x["evalsha"] + x["eval"] + x["script"] - x["created"]) / max(1, x["moves"])
    print(f"service on CPU {SERVER_CPU} (uvicorn, 1 worker, no access log); load generator and redis-server on "
          f"CPU {CLIENT_CPU} of {os.cpu_count()}; {args.connections} keep-alive connections; "
          f"{args.seconds:g} s per scenario; both against {FACTORY} --http {args.http}, session-creation "
          "bounds off")
    print(f"(a) POST /v1/games/apply (mid-game 4p snapshots, pool {len(pool)}):  {applied.rps:8.0f} req/s   "
          f"p50 {applied.pct(0.5):6.2f} ms   p99 {applied.pct(0.99):6.2f} ms")
    keyed = " +Idempotency-Key" if args.idempotency_keys else ""
    print(f"(b) POST /v1/sessions/{{id}}/moves via Redis{keyed} (If-Match):  {sessions.rps:8.0f} moves/s "
          f"p50 {sessions.pct(0.5):6.2f} ms   p99 {sessions.pct(0.99):6.2f} ms   "
          f"({x['moves']} moves, {x['created']} sessions created in the window)")
    print(f"ratio (b)/(a): {sessions.rps / applied.rps:.0%}   (target: >= 50%)")
    print(f"CPU over the windows: service (a) {applied.server_cpu:.0%}, (b) {sessions.server_cpu:.0%} of its core; "
          f"load generator (a) {applied.client_cpu:.0%}, (b) {sessions.client_cpu:.0%} of its core")
    print(f"Redis round trips per move: {round_trips:.2f}   (INFO commandstats over the window: HMGET "
          f"{x['hmget']}, EVALSHA {x['evalsha']} incl. {x['created']} creations, EVAL {x['eval']}, "
          f"SCRIPT LOAD {x['script']})")


if __name__ == "__main__":
    main()
