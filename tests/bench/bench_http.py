"""HTTP benchmark: the apply path against a trivial endpoint of the same app (a script, not a test).

    .venv/bin/python tests/bench/bench_http.py [--seconds 10] [--rounds 5] [--connections 64]
                                               [--trivial-path /healthz] [--generator auto|wrk|python] [--views]
                                               [--http PROTOCOL,PROTOCOL] [--trees DIR,DIR] [--echo]
                                               [--sessions]

Starts ``uvicorn --factory service.app:create_app --http service.ops.serving:GuardedHttpToolsProtocol`` (the
service as deployed: the served protocol, one worker, no access log, ``LOG_LEVEL=WARNING``, no rate limit or API
keys) pinned to CPU 0 and a load generator
pinned to CPU 1, both on the loopback interface, with HTTP/1.1 keep-alive connections. Three scenarios of
``--seconds`` each, taking turns in ``--rounds`` slices (so that other load on the machine weighs on all alike):

(a) ``POST /v1/games/apply`` with a legal move on mid-game four-player snapshots: a pool of (snapshot, move)
    pairs from several seeded games, rotated (the API is stateless, so each pair can be replayed forever), each
    snapshot sealed by the server under test (the answer to the move before it). The server keeps the snapshots
    it seals in a cache (service/referee/snapshots.py), so this is the *warm* case: a client sending back the
    snapshot this replica just gave it, as in sequential play on one replica;
(a') the same states sealed by this script under the server's key, every snapshot new to the server (each
    state resealed under fresh nonces into a pool larger than the cache): the *cold* case, another replica's
    snapshot, as behind a load balancer;
(b) ``GET --trivial-path``, by default ``/healthz``: the liveness probe, which checks nothing and answers
    ``{"status": "ok"}``, through the same middleware stack (request ids and access log, metrics, in-flight
    tracking) as every other request.

Prints requests/s and p50/p99 latency of each, and the ratios (a)/(b), (a')/(b) and (a')/(a) (cold against warm).
``--echo`` also serves ``tests/bench/echo_app.py`` (a bare Litestar + msgspec echo, ``uvicorn --http httptools``)
and takes (e) ``POST /echo`` of the warm pool's bodies in each round: the framework's and the server's own cost for
a request of this size, the ceiling of (a); it prints (a)/(e) for each server. ``--sessions`` starts a redis-server
of its own, gives every server ``REDIS_URL`` (with the session-creation bounds off: the benchmark's connections are one
client creating many sessions) and takes in each round, for each, (s) session moves (``POST /v1/sessions/{id}/moves``
with ``If-Match``, tests/bench/bench_sessions.py's players) beside (a) sent by the same Python generator, so that
their ratio compares like with like. ``--http A,B`` starts one server per HTTP implementation (both pinned to CPU 0,
only one under load at a time) and takes the scenarios of all of them in turn in each round, so they are compared
side by side under the same conditions; it then prints each implementation's figures relative to the first one's.
``--trees before,after`` does the same for several source trees of the service (each server runs the code of its
tree: e.g. ``git archive main`` unpacked beside a branch's checkout), so a change's cost or gain is measured in one
sitting, side by side. (``--http`` takes uvicorn's names, ``h11`` and ``httptools``, ``granian`` for granian's ASGI
server when it is installed, or a protocol class: the served ``service.ops.serving:GuardedHttpToolsProtocol`` and
``service.ops.serving:GuardedH11Protocol``; uvicorn's own ``httptools`` loses the body of requests offering
``Upgrade: h2c``, see service/ops/serving.py.)
Each figure comes with the server process's CPU time per request (user + system, from /proc): on a machine
shared with other work the throughput follows the CPU the server is given, the CPU per request much less, so
the ratios are printed both ways (by CPU: the inverse ratio of the CPU each request costs).
The load generator is ``wrk`` when it is installed (this script installs nothing), else a
small asyncio keep-alive generator in Python (which can itself be the bottleneck on very fast endpoints: prefer
wrk).

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from engine import Options, apply_move, legal_moves, new_game  # noqa: E402
from service.app import SNAPSHOT_CACHE_SIZE  # noqa: E402
from service.referee.snapshots import Sealer  # noqa: E402
from tests.bench.processes import free_port, http_answers, pin, wait_ready  # noqa: E402

SERVER_CPU = 0
CLIENT_CPU = 1


# ------------------------------------------------------------------------------------------- the server


SERVED = "service.ops.serving:GuardedHttpToolsProtocol"
ECHO = "echo"


def start_server(port: int, key: bytes, http: str = SERVED, tree: Path = ROOT, factory: str = "service.app:create_app",
                 extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ, SNAPSHOT_KEYS=base64.urlsafe_b64encode(key).rstrip(b"=").decode(),
               LOG_LEVEL="WARNING", RATE_LIMIT_PER_MINUTE="0", API_KEYS="", **(extra_env or {}))
    cmd = [sys.executable, "-m", "uvicorn", "--factory", factory, "--host", "127.0.0.1",
           "--port", str(port), "--http", http, "--workers", "1", "--no-access-log", "--log-level", "warning"]
    if http == "granian":  # for comparison (pip install granian): its own HTTP stack, HTTP/1.1 here
        granian = Path(sys.executable).with_name("granian")
        cmd = [str(granian), "--interface", "asgi", "--factory", "--host", "127.0.0.1", "--port", str(port),
               "--workers", "1", "--no-ws", "--no-access-log", "--log-level", "warning", factory]
    env["PYTHONPATH"] = str(tree) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(cmd, cwd=tree, env=env, preexec_fn=pin(SERVER_CPU, die_with_script=False))
    wait_ready(proc, http_answers(port, "/readyz"), seconds=30, what="the server")
    return proc


def status_of(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


# --------------------------------------------------------------------------------------------- the pool


def apply_pairs(games: int) -> list[tuple[Any, Any]]:
    """Mid-game four-player states (tricks 2 to 8 of a hand) of seeded random games, one legal move each."""
    rng = random.Random(500)
    pairs: list[tuple[Any, Any]] = []
    for seed in range(games):
        state, _ = new_game(Options(), seed=seed)
        for _ in range(2000):
            if state.phase == "game_over" or len(pairs) >= 8 * (seed + 1):
                break
            moves = legal_moves(state)
            if state.phase == "play" and 2 <= len(state.tricks) <= 8 and rng.random() < 0.3:
                pairs.append((state, rng.choice(moves)))
            state, _ = apply_move(state, rng.choice(moves))
    return pairs


def apply_bodies(sealer: Sealer, games: int, with_views: bool, copies: int = 1) -> list[bytes]:
    """Request bodies: :func:`apply_pairs` sealed by ``sealer`` (so new to the server: the cold pool); ``copies``
    distinct snapshots of each state (sealing twice gives different strings)."""
    pairs = apply_pairs(games)
    bodies: list[bytes] = []
    for _ in range(copies):
        for state, move in pairs:
            body: dict[str, Any] = {"snapshot": sealer.seal(state), "move": msgspec.to_builtins(move)}
            if with_views:
                body["views"] = [state.to_act, None]
            bodies.append(msgspec.json.encode(body))
    return bodies


#: Builds a pool with another tree's own engine and sealer (run in that tree, with this script's
#: :func:`apply_bodies` pasted in): the bodies, as msgpack on stdout.
_TREE_POOL = """
import base64, random, sys
from typing import Any
import msgspec
from engine import Options, apply_move, legal_moves, new_game
from pathlib import Path
if Path("service/referee/snapshots.py").exists():
    from service.referee.snapshots import Sealer
else:  # trees from before the service layout
    from service.snapshots import Sealer
{source}
bodies = apply_bodies(Sealer([base64.b64decode({key!r})]), {games}, {views}, copies={copies})
sys.stdout.buffer.write(msgspec.msgpack.encode(bodies))
"""


def tree_bodies(tree: Path, key: bytes, games: int, views: bool, copies: int) -> list[bytes]:
    """:func:`apply_bodies` computed by ``tree``'s own engine and sealer: the same games, states and moves."""
    import inspect

    source = inspect.getsource(apply_pairs) + "\n\n" + inspect.getsource(apply_bodies)
    code = _TREE_POOL.format(source=source.replace("sealer: Sealer", "sealer: Any"),
                             key=base64.b64encode(key).decode(), games=games, views=views, copies=copies)
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True).stdout
    return list(msgspec.msgpack.decode(out, type=list[bytes]))


def served_pool(port: int, pool: list[bytes], games: int, with_views: bool) -> list[bytes]:
    """The warm pool: each body of ``pool`` (:func:`apply_bodies`' order) applied once by the server under test,
    and the snapshot it answers (sealed, and kept in its cache, by that server) with a legal move of the state it
    holds. This is the warm case: a client sending back the snapshot this replica just gave it."""
    rng = random.Random(501)
    out: list[bytes] = []
    for body, (state, move) in zip(pool, apply_pairs(games), strict=True):
        after, _ = apply_move(state, move)
        if after.to_act is None:
            continue
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/games/apply", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            snapshot = json.loads(response.read())["snapshot"]
        warm: dict[str, Any] = {"snapshot": snapshot, "move": msgspec.to_builtins(rng.choice(legal_moves(after)))}
        if with_views:
            warm["views"] = [str(after.to_act), "public"]
        out.append(msgspec.json.encode(warm))
    return out


# ----------------------------------------------------------------------------------- load generators


def run_wrk(url: str, bodies: list[bytes] | None, seconds: float, connections: int) -> dict[str, float]:
    wrk = shutil.which("wrk")
    assert wrk is not None
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench.lua"
        if bodies:
            quoted = ",\n".join("[==[" + b.decode() + "]==]" for b in bodies)
            script.write_text(
                "local bodies = {\n" + quoted + "\n}\n"
                "local i = 0\n"
                'wrk.method = "POST"\n'
                'wrk.headers["Content-Type"] = "application/json"\n'
                "request = function()\n"
                "  i = i % #bodies + 1\n"
                "  return wrk.format(nil, nil, nil, bodies[i])\n"
                "end\n")
        else:
            script.write_text("")
        out = subprocess.run(
            [wrk, "-t1", f"-c{connections}", f"-d{int(seconds)}s", "--latency", "-s", str(script), url],
            check=True, capture_output=True, text=True, preexec_fn=pin(CLIENT_CPU, die_with_script=False)).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        print(out)
        if "Non-2xx" in out:
            raise SystemExit("some responses were not 2xx: the benchmark is not measuring what it claims")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]

    def pct(p: str) -> float:
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        assert m is not None, out
        return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]

    count = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    return {"rps": rps, "p50_ms": pct("50"), "p99_ms": pct("99"), "count": count}


async def _python_load(host: str, port: int, requests: list[bytes], seconds: float,
                       connections: int) -> dict[str, float]:
    latencies: list[float] = []
    stop = time.perf_counter() + seconds
    bad = 0

    turn = itertools.count()  # one rotation shared by all connections, as wrk's does: no two send one body together

    async def worker() -> None:
        nonlocal bad
        reader, writer = await asyncio.open_connection(host, port)
        while time.perf_counter() < stop:
            req = requests[next(turn) % len(requests)]
            t0 = time.perf_counter()
            writer.write(req)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            m = re.search(rb"(?i)content-length:\s*(\d+)", head)
            await reader.readexactly(int(m.group(1)) if m else 0)
            latencies.append(time.perf_counter() - t0)
            if status >= 300:
                bad += 1
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    elapsed = time.perf_counter() - start
    if bad:
        raise SystemExit(f"{bad} responses were not 2xx: the benchmark is not measuring what it claims")
    latencies.sort()
    return {"rps": len(latencies) / elapsed, "p50_ms": latencies[len(latencies) // 2] * 1000,
            "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000, "count": len(latencies)}


def run_python(port: int, path: str, bodies: list[bytes] | None, seconds: float,
               connections: int) -> dict[str, float]:
    if bodies:
        requests = [(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(b)}\r\n\r\n").encode() + b for b in bodies]
    else:
        requests = [f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()]
    pin(CLIENT_CPU, die_with_script=False)()
    return asyncio.run(_python_load("127.0.0.1", port, requests, seconds, connections))


# ------------------------------------------------------------------------------------------------- main


def _combine(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Rounds of equal length: the mean rate, and the median of the rounds' percentiles."""
    def median(key: str) -> float:
        values = sorted(r[key] for r in rounds)
        return values[len(values) // 2]

    return {"rps": sum(r["rps"] for r in rounds) / len(rounds), "p50_ms": median("p50_ms"),
            "p99_ms": median("p99_ms"),
            "cpu_us": sum(r["cpu_s"] for r in rounds) / max(1, sum(r["count"] for r in rounds)) * 1e6}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of process ``pid`` and its descendants (granian serves from a child
    process), all threads included (Linux)."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        child = int(stat.parent.name)
        parents[child] = int(fields[1])
        ticks[child] = int(fields[11]) + int(fields[12])
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += ticks.get(p, 0)
        todo += [c for c, parent in parents.items() if parent == p]
    return total / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="per scenario, split over the rounds")
    parser.add_argument("--rounds", type=int, default=5,
                        help="the scenarios take turns this many times, so a passing load on the machine "
                        "weighs on all of them alike")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--trivial-path", default="/healthz")
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--games", type=int, default=6, help="seeded games the apply pool is drawn from")
    parser.add_argument("--views", action="store_true", help="ask for the mover's and the public view too")
    parser.add_argument("--http", default=SERVED,
                        help="uvicorn HTTP implementation(s), comma-separated (e.g. h11,httptools, or protocol "
                        "classes): several are measured side by side")
    parser.add_argument("--echo", action="store_true", help="measure a bare Litestar + msgspec echo beside")
    parser.add_argument("--sessions", action="store_true",
                        help="measure session moves through Redis beside applies (Python generator)")
    parser.add_argument("--trees", default="",
                        help="source trees of the service, comma-separated (default: this checkout): each is "
                        "served and measured side by side with the others")
    args = parser.parse_args()

    generator = args.generator
    if generator == "auto":
        generator = "wrk" if shutil.which("wrk") else "python"
    if generator == "wrk" and not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk), or use --generator python")
    http = [p.strip() for p in args.http.split(",") if p.strip()]
    trees = [Path(t.strip()).resolve() for t in args.trees.split(",") if t.strip()] or [ROOT]
    # One server per (tree, HTTP implementation), labelled by what differs between them.
    protocols = [f"{tree.name}:{p}" if len(trees) > 1 else p for tree in trees for p in http]
    setups = {label: (tree, p) for label, (tree, p) in zip(protocols, ((t, p) for t in trees for p in http),
                                                           strict=True)}

    key = Sealer.generate_key()
    bodies = apply_bodies(Sealer([key]), args.games, args.views)
    cold_copies = 2 * SNAPSHOT_CACHE_SIZE // len(bodies) + 1
    cold_bodies = apply_bodies(Sealer([key]), args.games, args.views, copies=cold_copies)
    # Each tree's server reads the snapshots its own code seals (the snapshot format may differ between trees),
    # so with several trees each pool is built by that tree's code: the same games, states and moves.
    pools: dict[Path, tuple[list[bytes], list[bytes]]] = {ROOT: (bodies, cold_bodies)}
    for tree in trees:
        if tree != ROOT:
            pools[tree] = (tree_bodies(tree, key, args.games, args.views, 1),
                           tree_bodies(tree, key, args.games, args.views, cold_copies))
    sizes = sorted(len(json.loads(b)["snapshot"]) for b in bodies)
    servers: dict[str, tuple[int, subprocess.Popen[bytes]]] = {}
    results: dict[str, dict[str, dict[str, float]]] = {}
    trivial = args.trivial_path
    redis_proc: subprocess.Popen[bytes] | None = None
    redis: Any = None
    if args.sessions:
        from redis import Redis

        from tests.bench import bench_sessions
        from tests.bench.processes import start_redis

        redis_proc, redis_port = start_redis(CLIENT_CPU)
        redis = Redis(host="127.0.0.1", port=redis_port)
    echo: tuple[int, subprocess.Popen[bytes]] | None = None
    warm_pools: dict[str, list[bytes]] = {}
    try:
        for protocol in protocols:
            port = free_port()
            tree, implementation = setups[protocol]
            extra = {}
            if args.sessions:  # every server on the one Redis (each session's id is its own)
                extra = {"REDIS_URL": f"redis://127.0.0.1:{redis_port}/0", "SESSION_CREATE_PER_MINUTE": "0",
                         "SESSION_CREATE_TOTAL_PER_MINUTE": "0"}
            servers[protocol] = (port, start_server(port, key, implementation, tree, extra_env=extra))
            if status_of(port, trivial) != 200:
                raise SystemExit(f"GET {trivial} does not answer 200: choose another --trivial-path")
            warm_pools[protocol] = served_pool(port, pools[tree][0], args.games, args.views)
        if args.echo:
            port = free_port()
            echo = (port, start_server(port, key, "httptools", factory="tests.bench.echo_app:create_app"))

        def measure(port: int, path: str, pool: list[bytes] | None, seconds: float,
                    pid: int | None = None) -> dict[str, float]:
            before = cpu_seconds(pid) if pid is not None else 0.0
            if generator == "wrk":
                got = run_wrk(f"http://127.0.0.1:{port}{path}", pool, seconds, args.connections)
            else:
                got = run_python(port, path, pool, seconds, args.connections)
            got["cpu_s"] = cpu_seconds(pid) - before if pid is not None else 0.0
            return got

        for protocol, (port, _) in servers.items():
            measure(port, "/v1/games/apply", warm_pools[protocol], 2)  # warm-up: first-request costs
        if echo is not None:
            measure(echo[0], "/echo", bodies, 2)
        slice_seconds = max(1, round(args.seconds / args.rounds))

        def scenarios(protocol: str) -> dict[str, tuple[str, list[bytes] | None]]:
            cold = pools[setups[protocol][0]][1]
            return {"warm": ("/v1/games/apply", warm_pools[protocol]), "cold": ("/v1/games/apply", cold),
                    "plain": (trivial, None)}

        rounds: dict[tuple[str, str], list[dict[str, float]]] = {}
        for _ in range(args.rounds):
            for protocol, (port, proc) in servers.items():
                for name, (path, pool) in scenarios(protocol).items():
                    rounds.setdefault((protocol, name), []).append(measure(port, path, pool, slice_seconds,
                                                                           proc.pid))
            if echo is not None:
                rounds.setdefault((ECHO, "echo"), []).append(measure(echo[0], "/echo", bodies, slice_seconds,
                                                                     echo[1].pid))
            for protocol, (port, proc) in servers.items() if args.sessions else ():
                pin(CLIENT_CPU)()  # the Python generator runs in this process
                applied = asyncio.run(bench_sessions.run_apply(port, warm_pools[protocol], slice_seconds,
                                                               args.connections, proc.pid))
                moves = asyncio.run(bench_sessions.run_sessions(port, slice_seconds, args.connections, False,
                                                                redis, proc.pid))
                for name, figures in (("py-apply", applied), ("py-session", moves)):
                    rounds.setdefault((protocol, name), []).append(
                        {"rps": figures.rps, "p50_ms": figures.pct(0.5), "p99_ms": figures.pct(0.99),
                         "count": len(figures.latencies), "cpu_s": figures.server_cpu * figures.elapsed})
        for (label, name), figures in rounds.items():
            results.setdefault(label, {})[name] = _combine(figures)
    finally:
        for _, server in (*servers.values(), *((echo,) if echo is not None else ())):
            server.terminate()
            server.wait(timeout=15)
        if redis_proc is not None:
            redis_proc.terminate()
            redis_proc.wait(timeout=15)

    cpus = os.cpu_count()
    print(f"generator: {generator}; {args.connections} connections; {args.rounds} rounds of "
          f"{max(1, round(args.seconds / args.rounds))} s per scenario; server on CPU {SERVER_CPU}, load on "
          f"CPU {CLIENT_CPU} of {cpus}")
    print(f"apply pools: warm, {len(warm_pools[protocols[0]])} snapshots from {args.games} games, each sealed by the "
          f"server under test, with a legal move; cold, {len(cold_bodies)} sealed by this script (another replica, "
          f"same key), more than the "
          f"server's {SNAPSHOT_CACHE_SIZE}-entry cache; snapshot size {sizes[0]}-{sizes[-1]} chars "
          f"(median {sizes[len(sizes) // 2]})")
    views = " +views" if args.views else ""

    def line(label: str, figures: dict[str, float], unit: str = "req/s") -> None:
        print(f"  {label:52s} {figures['rps']:8.0f} {unit}   p50 {figures['p50_ms']:7.2f} ms   "
              f"p99 {figures['p99_ms']:7.2f} ms   server CPU {figures['cpu_us']:6.0f} µs/req")

    for protocol in protocols:
        got = results[protocol]
        tree, implementation = setups[protocol]
        server = "granian --interface asgi" if implementation == "granian" else f"uvicorn --http {implementation}"
        print(server + (f", {tree}:" if len(trees) > 1 else ":"))
        line(f"(a)  POST /v1/games/apply{views}, warm", got["warm"])
        line(f"(a') POST /v1/games/apply{views}, cold", got["cold"])
        line(f"(b)  GET {trivial}", got["plain"])
        for basis, key, invert in (("throughput", "rps", False), ("server CPU per request", "cpu_us", True)):
            def rate(figures: dict[str, float], key: str = key, invert: bool = invert) -> float:
                return 1 / figures[key] if invert else figures[key]

            warm, cold, plain = rate(got["warm"]), rate(got["cold"]), rate(got["plain"])
            ratios = (f"  by {basis}: cold/warm (a')/(a) {cold / warm:.0%}   (a)/(b) {warm / plain:.0%}   "
                      f"(a')/(b) {cold / plain:.0%}")
            if echo is not None:
                echoed = rate(results[ECHO]["echo"])
                ratios += f"   warm/echo (a)/(e) {warm / echoed:.0%}   cold/echo (a')/(e) {cold / echoed:.0%}"
            print(ratios)
        if "py-session" in got:
            print("  the same server with Redis, Python generator (like with like):")
            line("(a)  POST /v1/games/apply, warm", got["py-apply"])
            line("(s)  POST /v1/sessions/{id}/moves via Redis (If-Match)", got["py-session"], "moves/s")
            print(f"  session/apply (s)/(a): by throughput {got['py-session']['rps'] / got['py-apply']['rps']:.0%},"
                  f" by server CPU per request {got['py-apply']['cpu_us'] / got['py-session']['cpu_us']:.0%}")
    if echo is not None:
        print("bare Litestar + msgspec echo (tests/bench/echo_app.py), uvicorn --http httptools:")
        line("(e)  POST /echo, the warm pool's bodies", results[ECHO]["echo"])
    first = protocols[0]
    for protocol in protocols[1:]:
        relative = "   ".join(f"{label} {results[protocol][name]['rps'] / results[first][name]['rps']:.0%}"
                               for label, name in (("(a)", "warm"), ("(a')", "cold"), ("(b)", "plain")))
        print(f"{protocol} throughput relative to {first}: {relative}")

if __name__ == "__main__":
    main()
