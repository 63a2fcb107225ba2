"""Search flood benchmark: the other requests' latency while one client floods maximum-budget suggestions (a
script, not a test).

    .venv/bin/python tests/bench/bench_search_flood.py [--seconds 15] [--rounds 2] [--in-flight 20]
                                                       [--budget 5000] [--players 6]
                                                       [--runs bounded:polite,unmetered:hammer,...]
                                                       [--before DIR]

For each run (a configuration of the service and a flooding client), in turn in each of ``--rounds`` rounds (so
that other load on the machine weighs on all alike), a fresh server (``uvicorn --factory service.app:create_app``
with the served protocol, one process, no access log, no request rate limit) is started and measured twice for
``--seconds`` each:

- **idle**: a probe sends, one at a time on one keep-alive connection, ``GET /healthz`` and a stateless apply
  (``POST /v1/games/apply``, a legal move on a four-player snapshot), 10 ms apart;
- **flood**: the same probe while one client (a process of its own, one address) keeps ``--in-flight`` expert
  suggestions of ``--budget`` playouts for a ``--players``-player opening bid in flight. A ``polite`` client
  sends the next as soon as one is answered 200, and after a refusal (503, 429) waits its ``Retry-After``, as
  HTTP asks; a ``hammer`` client sends the next at once whatever the answer: a flood of requests more than of
  searches. Its refusals would take the serving process's CPU at full rate; the service holds a refusal to a
  client that did not wait out its last ``Retry-After`` (``SEARCH_REFUSAL_HOLD_SECONDS``), which slows it to one
  refusal per connection per hold.

The configurations (each as the environment sets it; deploy/CONFIGURATION.md):

- ``bounded``: the service's defaults (search workers, a bound and a queue, a playout budget per client);
- ``unmetered``: the same without the playout budget (``SEARCH_PLAYOUTS_PER_MINUTE=0``): the flood's searches
  keep every search worker busy for the whole flood, the worst case for the serving process;
- ``unheld``: ``unmetered`` with refusals never held (``SEARCH_REFUSAL_HOLD_SECONDS=0``): what a client that
  does not wait out ``Retry-After`` costs without the hold;
- ``unbounded``: searches in threads of the serving process, no bound, no budget (``SEARCH_WORKERS=0``,
  ``BOT_WORKERS=0``, ``SEARCH_CONCURRENCY=0``, ``SEARCH_PLAYOUTS_PER_MINUTE=0``): the service without its search
  bounds, for comparison.

The runs default to ``bounded:polite``, ``bounded:hammer``, ``unmetered:polite``, ``unmetered:hammer``,
``unheld:hammer`` and ``unbounded:polite`` (unbounded never refuses, so its client is the same either way). With
``--before DIR`` (a copy of an earlier version of the code, e.g. ``git archive main | tar -x -C DIR``), a run
named ``before-CONFIG:MODE`` serves that code instead, in the same rounds: a before/after side by side.

Prints, per run, the p50/p99/max latency of each probe idle and under flood (the median over rounds), the ratio
of the flood p99 to the idle p99 (the target: at most 3), and what the flood's suggestions were answered with.
The server and the probe are not pinned or niced: the serving process, its search workers and the clients share
the machine's cores as they would on a replica.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.processes import free_port, http_answers, wait_ready  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
SERVED = "service.ops.serving:GuardedHttpToolsProtocol"
KEY = base64.urlsafe_b64encode(bytes(range(32))).rstrip(b"=").decode()

MODES = ("polite", "hammer")
CONFIGS: dict[str, dict[str, str]] = {
    "bounded": {},
    "unmetered": {"SEARCH_PLAYOUTS_PER_MINUTE": "0"},
    "unheld": {"SEARCH_PLAYOUTS_PER_MINUTE": "0", "SEARCH_REFUSAL_HOLD_SECONDS": "0"},
    "unbounded": {"SEARCH_WORKERS": "0", "BOT_WORKERS": "0", "SEARCH_CONCURRENCY": "0",
                  "SEARCH_PLAYOUTS_PER_MINUTE": "0"},
}


# ------------------------------------------------------------------------------------------------ server


def start_server(port: int, config: dict[str, str], root: Path = ROOT) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SNAPSHOT_KEYS": KEY, "LOG_LEVEL": "WARNING", "RATE_LIMIT_PER_MINUTE": "0", "API_KEYS": "",
           "PYTHONPATH": str(root), **config}
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host", HOST, "--port",
           str(port), "--http", SERVED, "--workers", "1", "--no-access-log", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=root, env=env)
    wait_ready(proc, http_answers(port, "/readyz"), seconds=60, what="the server")
    return proc


def request(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection(HOST, port, timeout=120)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, json.loads(raw) if raw else None
    finally:
        conn.close()


def bodies(port: int, players: int, budget: int) -> tuple[bytes, bytes]:
    """The probe's apply body (a legal move on a four-player snapshot) and the flood's suggestion body."""
    _, game = request(port, "POST", "/v1/games", {"players": 4, "seed": 11})
    _, legal = request(port, "POST", "/v1/games/legal-moves", {"snapshot": game["snapshot"]})
    apply = {"snapshot": game["snapshot"], "move": legal["legal_moves"][0]}
    _, opening = request(port, "POST", "/v1/games", {"players": players, "seed": 5})
    suggest = {"snapshot": opening["snapshot"], "seat": opening["to_act"], "level": "expert", "budget": budget}
    return json.dumps(apply).encode(), json.dumps(suggest).encode()


# ------------------------------------------------------------------------------------------------- probe


def probe(port: int, apply_body: bytes, seconds: float) -> dict[str, list[float]]:
    """Latencies (ms) of ``GET /healthz`` and the stateless apply, one at a time, 10 ms apart."""
    conn = http.client.HTTPConnection(HOST, port, timeout=120)
    out: dict[str, list[float]] = {"healthz": [], "apply": []}
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            for name, method, path, body in (("healthz", "GET", "/healthz", None),
                                             ("apply", "POST", "/v1/games/apply", apply_body)):
                started = time.perf_counter()
                conn.request(method, path, body=body,
                             headers={"Content-Type": "application/json"} if body else {})
                resp = conn.getresponse()
                resp.read()
                out[name].append((time.perf_counter() - started) * 1000)
                if resp.status != 200:
                    raise SystemExit(f"{path} answered {resp.status}")
                time.sleep(0.01)
    finally:
        conn.close()
    return out


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": statistics.median(ordered), "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1], "n": float(len(ordered))}


# ------------------------------------------------------------------------------------------------- flood


async def _flood(port: int, body: bytes, in_flight: int, polite: bool) -> Counter[int]:
    """Keep ``in_flight`` suggestions in flight (each on its own keep-alive connection) until stdin closes; a
    ``polite`` client waits a refusal's ``Retry-After`` before it sends again."""
    counts: Counter[int] = Counter()
    head = (f"POST /v1/games/suggest HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    stopping = asyncio.Event()

    async def one() -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            while not stopping.is_set():
                writer.write(head)
                status_line = await reader.readline()
                length, retry_after = 0, 1.0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                    elif name.lower() == "retry-after":
                        retry_after = float(value)
                await reader.readexactly(length)
                status = int(status_line.split()[1])
                counts[status] += 1
                if polite and status in (429, 503):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stopping.wait(), retry_after)
        except (ConnectionError, asyncio.IncompleteReadError):
            counts[0] += 1
        finally:
            writer.close()

    async def until_stdin_closes() -> None:
        await asyncio.to_thread(sys.stdin.read)
        stopping.set()

    tasks = [asyncio.create_task(one()) for _ in range(in_flight)]
    await until_stdin_closes()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return counts


def flood_main(port: int, body_file: str, in_flight: int, mode: str) -> None:
    counts = asyncio.run(_flood(port, Path(body_file).read_bytes(), in_flight, mode == "polite"))
    print(json.dumps({str(k): v for k, v in sorted(counts.items())}), flush=True)


# -------------------------------------------------------------------------------------------------- main


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its children (the search workers), from /proc."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def settle(pid: int, seconds: float = 30.0) -> None:
    """Wait until the server's process tree is quiet (under 5 % of a core over half a second), at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        before = tree_cpu(pid)
        time.sleep(0.5)
        if tree_cpu(pid) - before < 0.025:
            return


def measure(config: str, mode: str, args: argparse.Namespace, body_file: Path) -> dict[str, Any]:
    port = free_port()
    before = config.startswith("before-")
    server = start_server(port, CONFIGS[config.removeprefix("before-")], Path(args.before) if before else ROOT)
    try:
        settle(server.pid)  # the workers' start (imports) is not measured as idle latency
        apply_body, suggest_body = bodies(port, args.players, args.budget)
        body_file.write_bytes(suggest_body)
        probe(port, apply_body, 2.0)  # warm
        idle = probe(port, apply_body, args.seconds)
        cpu_before = tree_cpu(server.pid)
        flooder = subprocess.Popen([sys.executable, __file__, "--flood", str(port), str(body_file),
                                    str(args.in_flight), mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        time.sleep(3.0)  # the flood fills the searches and their queue
        flooded = probe(port, apply_body, args.seconds)
        cpu = tree_cpu(server.pid) - cpu_before
        out, _ = flooder.communicate(b"", timeout=120)
        answers = json.loads(out.decode().strip().splitlines()[-1])
    finally:
        server.kill()  # at once: the searches the flood left queued are not waited for (workers die with it)
        server.wait()
    return {"idle": {k: summary(v) for k, v in idle.items()}, "flood": {k: summary(v) for k, v in flooded.items()},
            "answers": answers, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--in-flight", type=int, default=20)
    parser.add_argument("--budget", type=int, default=5000)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--runs", default="bounded:polite,bounded:hammer,unmetered:polite,unmetered:hammer,"
                                          "unheld:hammer,unbounded:polite")
    parser.add_argument("--before", help="a copy of an earlier version of the code, served by before-… runs")
    parser.add_argument("--flood", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood:
        flood_main(int(args.flood[0]), args.flood[1], int(args.flood[2]), args.flood[3])
        return
    configs = [c for c in args.runs.split(",") if c]
    unknown = [c for c in configs if c.partition(":")[0].removeprefix("before-") not in CONFIGS
               or c.partition(":")[2] not in MODES or (c.startswith("before-") and not args.before)]
    if unknown:
        raise SystemExit(f"unknown runs {unknown}: CONFIG:MODE, CONFIG one of {sorted(CONFIGS)} (before-CONFIG "
                         f"with --before), MODE one of {MODES}")
    body_file = Path(f"/tmp/bench_search_flood_{os.getpid()}.json")
    results: dict[str, list[dict[str, Any]]] = {c: [] for c in configs}
    try:
        for r in range(args.rounds):
            for config in configs:
                print(f"round {r + 1}/{args.rounds}: {config} …", file=sys.stderr, flush=True)
                name, _, mode = config.partition(":")
                results[config].append(measure(name, mode, args, body_file))
    finally:
        body_file.unlink(missing_ok=True)
    print(f"engine: FIVE_HUNDRED_ENGINE={os.environ.get('FIVE_HUNDRED_ENGINE', 'auto')}; cpus: {os.cpu_count()}; "
          f"flood: {args.in_flight} in flight, {args.players}-player opening bid, budget {args.budget}; "
          f"{args.seconds:g} s per phase, {args.rounds} rounds (medians over rounds)")
    print(f"{'run':<24} {'probe':<8} {'idle p50':>9} {'idle p99':>9} {'idle max':>9} {'flood p50':>10} "
          f"{'flood p99':>10} {'flood max':>10} {'p99 ratio':>10}  samples")
    for config in configs:
        for name in ("healthz", "apply"):
            def med(phase: str, key: str, name: str = name, config: str = config) -> float:
                return statistics.median(r[phase][name][key] for r in results[config])

            ratio = med("flood", "p99") / med("idle", "p99")
            verdict = "ok" if ratio <= 3 else "OVER 3x"
            print(f"{config:<24} {name:<8} {med('idle', 'p50'):9.2f} {med('idle', 'p99'):9.2f} "
                  f"{med('idle', 'max'):9.2f} {med('flood', 'p50'):10.2f} {med('flood', 'p99'):10.2f} "
                  f"{med('flood', 'max'):10.2f} {ratio:9.2f}x  {int(med('idle', 'n'))}/{int(med('flood', 'n'))}"
                  f"  {verdict}")
        answers: Counter[str] = Counter()
        for r in results[config]:
            answers.update(r["answers"])
        cpu = statistics.median(r["cpu"] for r in results[config])
        print(f"{'':<24} flood answers over all rounds (status: count): {dict(sorted(answers.items()))}; "
              f"server CPU during the flood probe: {cpu:.1f} s (median)")
    print("latencies in ms")


if __name__ == "__main__":
    main()
