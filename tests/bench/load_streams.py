"""Many live event streams on one replica: delivery latency, memory per idle stream, errors (a script that prints
figures, not a test).

    .venv/bin/python tests/bench/load_streams.py [--streams 100,1000,5000] [--seconds 10] [--rate 20]
                                                 [--store redis|memory] [--http PROTOCOL]

Starts a redis-server of its own (free port, no persistence) and the service as served (uvicorn, one worker,
the served protocol ``service.ops.serving:GuardedHttpToolsProtocol`` with its timeouts and limits (``--http``
chooses another, e.g. ``service.ops.serving:GuardedH11Protocol``), no access log,
``LOG_LEVEL=WARNING``)
pinned to CPU 0; the load generator (asyncio, raw HTTP/1.1 sockets, loopback only) and redis-server share CPU 1.
For each N of ``--streams``:

1. creates N/4 four-player sessions and opens one stream per seat (N streams, seat tokens, so every frame is
   redacted for its seat), each read until it has the session's first events;
2. lets them idle for two seconds and reads the service's resident memory: (after - before) / N is the memory
   per idle stream (the sessions themselves live in Redis);
3. drives moves for ``--seconds`` at ``--rate`` moves per second, each on a random session by the seat to act
   (computed by a local engine mirror), and times each move from the moment its request is sent to the moment
   each of the session's four streams has the move's first event;
4. prints the delivery latency percentiles, the memory per stream, the service's Redis connections, and the
   errors: streams that failed to open or ended early, moves refused, deliveries missing two seconds after the
   last move.

The levels run one after the other in one service process, so a level after the first finds memory that the one
before freed and measures less per stream than the same level alone: compare trees with the same ``--streams``.

The service's Redis connections do not grow with the streams (at most 32 for its short commands, one for its
follower, and redis-py's pool for concurrent creations). Current figures, and the command behind them:
docs/BENCHMARKS.md.

Bounded: at most max(N) + 16 client connections (64 opening at a time), every phase under a deadline, then
everything is stopped.
The process's open-files limit is raised to its hard limit (``resource.setrlimit``), which the service, a
child, inherits: 5,000 streams need over 10,000 descriptors on this machine (both ends of each connection).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
from redis import Redis  # noqa: E402

from engine import Bid, GameState, Move, Pass, apply_move, legal_moves, new_game, resolve_options  # noqa: E402
from service.referee.snapshots import Sealer  # noqa: E402
from tests.bench.processes import free_port, http_answers, pin, start_redis, wait_ready  # noqa: E402

HOST = "127.0.0.1"
SERVER_CPU = 0
CLIENT_CPU = 1
STREAMS_PER_SESSION = 4


def raise_open_files_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def start_service(env: dict[str, str], http: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host", HOST, "--port",
           str(port), "--http", http, "--no-access-log", "--log-level", "warning"]
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, preexec_fn=pin(SERVER_CPU))
    wait_ready(proc, http_answers(port, "/healthz"), seconds=30, what="the service")
    return proc, port


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


# ---------------------------------------------------------------------------------------------- HTTP


async def request(port: int, method: str, path: str, body: Any = None,
                  headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """One request on a connection of its own (Connection: close); the status and the decoded JSON."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", "Connection: close",
                f"Content-Length: {len(payload)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        raw = await reader.read()
    finally:
        writer.close()
    head_raw, _, rest = raw.partition(b"\r\n\r\n")
    status = int(head_raw.split(b" ", 2)[1])
    try:
        return status, json.loads(rest) if rest else None
    except ValueError:
        return status, rest


@dataclass
class Table:
    sid: str
    seats: list[str]
    state: GameState
    version: int = 1
    busy: bool = False

    def choose(self, rng: random.Random) -> Move:
        moves = legal_moves(self.state)
        if self.state.phase == "auction":
            if self.state.high is None:
                return next(m for m in moves if isinstance(m, Bid) and m.bid == "6S")
            return next(m for m in moves if isinstance(m, Pass))
        return rng.choice(moves)


@dataclass
class Run:
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    delivered: dict[tuple[str, int], int] = field(default_factory=dict)
    ended_early: int = 0
    open_errors: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    opened: int = 0
    measuring: bool = False


def _fail(run: Run, reason: str) -> None:
    run.open_errors += 1
    run.reasons[reason] = run.reasons.get(reason, 0) + 1


class SseReader:
    """One event stream on a raw socket: notes when each version's first event (``id: <v>-0``) arrives."""

    def __init__(self, port: int, table: Table, seat: int, run: Run) -> None:
        self.port, self.table, self.seat, self.run = port, table, seat, run
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def main(self) -> None:
        run = self.run
        try:
            reader, writer = await asyncio.open_connection(HOST, self.port)
        except OSError as exc:
            _fail(run, type(exc).__name__)
            self.ready.set()
            return
        try:
            writer.write((f"GET /v1/sessions/{self.table.sid}/events HTTP/1.1\r\nHost: {HOST}\r\n"
                          f"Authorization: Bearer {self.table.seats[self.seat]}\r\n"
                          "Accept: text/event-stream\r\n\r\n").encode())
            head = await reader.readuntil(b"\r\n\r\n")
            status_line = head.split(b"\r\n", 1)[0]
            if b" 200 " not in status_line:
                _fail(run, status_line.decode(errors="replace")[9:12])
                return
            buf = b""
            while True:
                data = await reader.read(65536)
                if not data:
                    if run.measuring:
                        run.ended_early += 1
                    return
                now = time.perf_counter()
                buf += data
                lines = buf.split(b"\n")
                buf = lines.pop()
                for line in lines:
                    if not line.startswith(b"id: "):
                        continue
                    version, _, seq = line[4:].strip().partition(b"-")
                    if seq != b"0":
                        continue
                    v = int(version)
                    if v == 1 and not self.ready.is_set():
                        run.opened += 1
                        self.ready.set()
                    key = (self.table.sid, v)
                    t0 = run.sent.get(key)
                    if t0 is not None:
                        run.latencies.append(now - t0)
                        run.delivered[key] = run.delivered.get(key, 0) + 1
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            if run.measuring:
                run.ended_early += 1
            elif not self.ready.is_set():
                _fail(run, type(exc).__name__)
        finally:
            self.ready.set()
            writer.close()


async def create_tables(port: int, count: int, concurrency: int = 16) -> list[Table]:
    options = resolve_options(4, None, None)
    tables: list[Table] = []
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            body = {"players": 4, "seed": i, "known_deal": True, "first_dealer": 3}
            status, created = await request(port, "POST", "/v1/sessions", body)
            if status != 201:
                raise SystemExit(f"creating a session answered {status}: {created}")
            state, _ = new_game(options, seed=i, first_dealer=3)
            tables.append(Table(created["session_id"], created["seat_tokens"], state))

    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(count))), 600)
    return tables


async def drive(port: int, tables: list[Table], run: Run, seconds: float, rate: float,
                rng: random.Random) -> tuple[int, int]:
    """Moves at ``rate`` per second for ``seconds``; (moves applied, moves refused)."""
    applied = refused = 0
    pending: set[asyncio.Task[None]] = set()

    async def move(t: Table) -> None:
        nonlocal applied, refused
        m = t.choose(rng)
        body = {"move": msgspec.json.decode(msgspec.json.encode(m))}
        run.sent[(t.sid, t.version + 1)] = time.perf_counter()
        status, _ = await request(port, "POST", f"/v1/sessions/{t.sid}/moves", body,
                                  {"Authorization": f"Bearer {t.seats[m.seat]}"})
        if status == 200:
            t.state, _ = apply_move(t.state, m)
            t.version += 1
            applied += 1
        else:
            del run.sent[(t.sid, t.version + 1)]
            refused += 1
        t.busy = False

    start = time.perf_counter()
    n = 0
    while (elapsed := time.perf_counter() - start) < seconds:
        due = start + n / rate
        if due > time.perf_counter():
            await asyncio.sleep(due - time.perf_counter())
        idle = [t for t in tables if not t.busy and t.state.phase != "game_over"]
        if idle:
            t = rng.choice(idle)
            t.busy = True
            task = asyncio.create_task(move(t))
            pending.add(task)
            task.add_done_callback(pending.discard)
        n += 1
        del elapsed
    if pending:
        await asyncio.wait(pending, timeout=30)
    return applied, refused


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def one_level(port: int, pid: int, redis: Redis | None, n: int, seconds: float, rate: float,
                    seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    tables = await create_tables(port, max(1, n // STREAMS_PER_SESSION))
    await asyncio.sleep(1)
    before = rss(pid)
    run = Run()
    readers = [SseReader(port, t, seat, run) for t in tables for seat in range(STREAMS_PER_SESSION)]
    opening = asyncio.Semaphore(64)

    async def open_one(r: SseReader) -> None:
        async with opening:
            r.task = asyncio.create_task(r.main())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(r.ready.wait(), 30)

    t_open = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(open_one(r) for r in readers)), 300)
    open_seconds = time.perf_counter() - t_open
    await asyncio.sleep(2)
    after = rss(pid)
    redis_clients = None
    if redis is not None:
        redis_clients = sum(1 for c in redis.client_list() if c.get("name") != "load-probe")
    run.measuring = True
    applied, refused = await drive(port, tables, run, seconds, rate, rng)
    await asyncio.sleep(2)
    run.measuring = False
    expected = applied * STREAMS_PER_SESSION
    got = sum(run.delivered.values())
    for r in readers:
        if r.task is not None:
            r.task.cancel()
    await asyncio.gather(*(r.task for r in readers if r.task is not None), return_exceptions=True)
    lat = run.latencies
    return {
        "streams": len(readers), "opened": run.opened, "open_errors": run.open_errors,
        "open_seconds": open_seconds, "rss_before": before, "rss_after": after,
        "per_stream": (after - before) / max(1, run.opened), "redis_clients": redis_clients,
        "moves": applied, "refused": refused, "deliveries": got, "missing": expected - got,
        "ended_early": run.ended_early, "reasons": run.reasons,
        "p50": pct(lat, 0.50), "p90": pct(lat, 0.90), "p99": pct(lat, 0.99), "max": max(lat) if lat else float("nan"),
        "mean": statistics.fmean(lat) if lat else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", default="100,1000,5000", help="comma-separated stream counts")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of moves per level")
    parser.add_argument("--rate", type=float, default=20.0, help="moves per second")
    parser.add_argument("--store", choices=("redis", "memory"), default="redis")
    parser.add_argument("--http", default="service.ops.serving:GuardedHttpToolsProtocol",
                        help="uvicorn's --http (default: the served protocol)")
    args = parser.parse_args()
    levels = [int(x) for x in args.streams.split(",") if x.strip()]
    limit = raise_open_files_limit()
    print(f"open-files limit raised to {limit} (resource.setrlimit; the service inherits it)")
    need = 2 * max(levels) + 200
    if limit < need:
        raise SystemExit(f"need an open-files limit of at least {need} for {max(levels)} streams; have {limit}")
    pin(CLIENT_CPU)()
    redis_proc = None
    env = {"SNAPSHOT_KEYS": base64.urlsafe_b64encode(Sealer.generate_key()).rstrip(b"=").decode(),
           "LOG_LEVEL": "WARNING", "SESSION_IDLE_SECONDS": "600", "MAX_CONNECTIONS": str(max(levels) + 1000),
           # the bench creates its sessions quickly from one address
           "SESSION_CREATE_PER_MINUTE": "0", "SESSION_CREATE_TOTAL_PER_MINUTE": "0"}
    probe = None
    if args.store == "redis":
        redis_proc, redis_port = start_redis(CLIENT_CPU, "--maxclients", "20000")
        env["REDIS_URL"] = f"redis://{HOST}:{redis_port}/0"
        probe = Redis(host=HOST, port=redis_port, client_name="load-probe")
    service, port = start_service(env, args.http)
    try:
        print(f"store: {args.store}; service pid {service.pid} on CPU {SERVER_CPU}, load generator on CPU "
              f"{CLIENT_CPU}; {args.rate:g} moves/s for {args.seconds:g} s per level; "
              f"{STREAMS_PER_SESSION} seat streams per session")
        header = (f"{'streams':>8} {'opened':>7} {'open s':>7} {'KiB/stream':>10} {'redis conns':>11} "
                  f"{'moves':>6} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} {'max ms':>7} {'errors':>28}")
        print(header)
        for i, n in enumerate(levels):
            r = asyncio.run(one_level(port, service.pid, probe, n, args.seconds, args.rate, seed=i))
            errors = (f"open {r['open_errors']} ended {r['ended_early']} missing {r['missing']} "
                      f"refused {r['refused']}")
            conns = "-" if r["redis_clients"] is None else str(r["redis_clients"])
            print(f"{r['streams']:>8} {r['opened']:>7} {r['open_seconds']:>7.1f} {r['per_stream'] / 1024:>10.1f} "
                  f"{conns:>11} {r['moves']:>6} {r['p50'] * 1000:>7.1f} {r['p90'] * 1000:>7.1f} "
                  f"{r['p99'] * 1000:>7.1f} {r['max'] * 1000:>7.1f} {errors:>28}", flush=True)
            print(f"         service RSS {r['rss_before'] / 2**20:.1f} MiB before the streams, "
                  f"{r['rss_after'] / 2**20:.1f} MiB with them open; {r['deliveries']} deliveries"
                  + (f"; failed opens: {r['reasons']}" if r["reasons"] else ""), flush=True)
            print(f"         load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
                  f"({os.cpu_count()} CPUs)", flush=True)
    finally:
        service.terminate()
        try:
            service.wait(timeout=20)
        except subprocess.TimeoutExpired:
            service.kill()
        if redis_proc is not None:
            redis_proc.kill()


if __name__ == "__main__":
    main()
