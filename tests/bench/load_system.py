"""The whole system under load, through a failover (a script that prints figures, not a test).

    .venv/bin/python tests/bench/load_system.py [--tables 150] [--rates 10,20,40] [--seconds 30]
                                                [--failover-rate 20] [--plain-rate 20] [--hints 0.2]

What it starts (all on this machine, torn down after):

- a Redis Cluster of six nodes, three primaries and three replicas (``tests/cluster_server.py``: free ports,
  no persistence, ``cluster-node-timeout`` 1 s);
- three replicas of the service as served (uvicorn, one worker each, one search and one bot worker each), on the
  cluster, behind one address: ``tests/bench/balancer.py``, a layer-4 balancer handing each connection to the
  next replica in turn;
- ``--tables`` four-seat tables, each created with a turn clock (60 s a move: it runs, and its deadlines are
  kept, but it does not fire at these paces), seat 3 handed to a ``basic`` bot, and four streams open: the
  three players' seats and the host's (every stream through the balancer, so spread over the replicas).

Then three players per table play: each waits, on its own stream, until its seat is to act, takes a turn from a
global pace of human moves (``--rates``, moves per second), asks for a hint first in a share of its turns
(``--hints``, ``basic``), reads its legal moves, and sends one with ``If-Match`` and an ``Idempotency-Key``,
retried with the same key through 503s (after their ``Retry-After``) and broken connections until answered. A
stream that ends reconnects with ``Last-Event-ID`` after the ``retry`` the server sent, as ``EventSource``
does. Phases, each ``--seconds`` long, one after the other on the same tables:

1. sharded pub/sub (the default), at each rate of ``--rates`` (5 s without players' moves before each phase,
   so that what a saturated phase left queued is not measured in the next): the machine's limit is where the
   p99 outgrows the pace;
2. the same at ``--failover-rate``, the primary that holds most tables killed (``SIGKILL``) in the middle; its
   replica is promoted; the killed node is started again 3 s after the promotion (as an orchestrator would),
   rejoins as the new primary's replica, and moves are acknowledged again once it has the data (a change is
   acknowledged once a replica has it: deploy/SCALING.md);
3. plain pub/sub (``REDIS_SHARDED_PUBSUB=false``, replicas started again with it) at ``--plain-rate``, for the
   messages the cluster bus carries per move, side by side with phase 1.

For each phase it prints: the moves per second; the replicas' CPU (the serving processes and their workers, in
cores; also per 1,000 concurrent players, three per table) and memory (resident); the balancer's CPU; Redis
commands per second (all nodes; also per 1,000 players) and the nodes' CPU; the pub/sub messages the cluster
bus delivered per move (every node's count, summed); the p50 and p99 from a player's move sent (and from its
answer, 0 when the stream was first) to its first event on the last of its table's four streams. After the
failover phase: the failover window, from the kill until moves were acknowledged again on the tables of the
failed primary, their streams were connected again and the cluster was whole (the killed node back as a
replica); the percentiles above leave out the moves sent inside it; and the p99 in steps of 2 s around the
kill. At the end of each pub/sub mode, checked against each session's log read back whole
(``events/catch-up`` with each stream's token): events lost and repeated on every stream, and acknowledged
moves missing from the logs (lost) or applied without an acknowledgement (doubled, or in flight when the run
stopped: there are none, every move is answered before the check).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from service.referee.snapshots import Sealer  # noqa: E402
from tests.bench.load_streams import raise_open_files_limit  # noqa: E402
from tests.bench.processes import HOST, free_port, http_answers, wait_ready  # noqa: E402
from tests.cluster_server import RedisClusterServer  # noqa: E402

REPLICAS = 3
#: Seconds without players' moves before each phase.
SETTLE_SECONDS = 5.0
HUMAN_SEATS = (0, 1, 2)
BOT_SEAT = 3
PREFIX = "fh:"
#: The events a player's own move logs first (a move of the clock's logs ``move_timed_out`` first).
MOVE_EVENTS = frozenset({"bid_made", "passed", "looked_at_hand", "redeal_proposed", "redeal_answered", "discarded",
                         "card_called", "went_alone", "partners_chosen", "joker_nominated", "card_played"})


# ----------------------------------------------------------------------------------------- processes


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the replica's search and bot workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) of ``pid`` and its descendants."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def rss_bytes(pid: int) -> int:
    total = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


class System:
    """The cluster, the replicas and the balancer."""

    def __init__(self, cluster: RedisClusterServer) -> None:
        self.cluster = cluster
        self.replicas: list[subprocess.Popen[bytes]] = []
        self.balancer: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.ports: list[int] = []
        self.key = base64.urlsafe_b64encode(Sealer.generate_key()).rstrip(b"=").decode()

    def start(self, sharded: bool, streams: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": self.cluster.url, "SNAPSHOT_KEYS": self.key,
               "LOG_LEVEL": "WARNING", "SESSION_IDLE_SECONDS": "3600", "MAX_CONNECTIONS": str(streams + 2000),
               "SESSION_CREATE_PER_MINUTE": "0", "SESSION_CREATE_TOTAL_PER_MINUTE": "0",
               "RATE_LIMIT_PER_MINUTE": "0", "SEARCH_WORKERS": "1", "BOT_WORKERS": "1",
               "SEARCH_PLAYOUTS_PER_MINUTE": "0", "REDIS_SHARDED_PUBSUB": "true" if sharded else "false"}
        ports = []
        for _ in range(REPLICAS):
            port = free_port()
            cmd = [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host", HOST,
                   "--port", str(port), "--http", "service.ops.serving:GuardedHttpToolsProtocol",
                   "--no-access-log", "--log-level", "warning"]
            self.replicas.append(subprocess.Popen(cmd, cwd=ROOT, env=env))
            ports.append(port)
        self.ports = ports
        for proc, port in zip(self.replicas, ports, strict=True):
            wait_ready(proc, http_answers(port, "/readyz"), seconds=60, what="a replica")
        self.port = free_port()
        self.balancer = subprocess.Popen([sys.executable, str(ROOT / "tests/bench/balancer.py"), str(self.port),
                                          ",".join(f"{HOST}:{p}" for p in ports)])
        wait_ready(self.balancer, http_answers(self.port, "/healthz"), seconds=30, what="the balancer")

    def stop(self) -> None:
        for proc in [*self.replicas, *([self.balancer] if self.balancer else [])]:
            proc.send_signal(signal.SIGTERM)
        for proc in [*self.replicas, *([self.balancer] if self.balancer else [])]:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.replicas, self.balancer = [], None

    def redis_errors(self) -> dict[str, float]:
        """The replicas' ``redis_errors_total`` so far, by operation (summed)."""
        out: dict[str, float] = {}
        for port in self.ports:
            for line in httpx.get(f"http://{HOST}:{port}/metrics", timeout=10).text.splitlines():
                if line.startswith("redis_errors_total{"):
                    operation = line.split('"')[1]
                    out[operation] = out.get(operation, 0) + float(line.rsplit(" ", 1)[1])
        return out

    def usage(self) -> tuple[float, int, float]:
        """(replicas' CPU seconds, replicas' resident bytes, balancer's CPU seconds)."""
        assert self.balancer is not None
        return (sum(cpu_seconds(p.pid) for p in self.replicas), sum(rss_bytes(p.pid) for p in self.replicas),
                cpu_seconds(self.balancer.pid))

    def redis_cpu(self) -> dict[int, float]:
        """Each live Redis node's CPU seconds so far (by port; a node started again counts from 0)."""
        return {port: cpu_seconds(proc.pid) for port, proc in self.cluster.processes.items()
                if proc.poll() is None}

    def redis_counts(self) -> dict[int, tuple[int, int]]:
        """Each live node's (commands processed, pub/sub messages delivered to it over the bus)."""
        out = {}
        bus = self.cluster.bus_messages()
        for port in self.cluster.live_ports():
            try:
                with self.cluster.node(port) as r:
                    out[port] = (int(r.info("stats")["total_commands_processed"]), sum(bus.get(port, (0, 0))))
            except Exception:
                continue
        return out


def counted(before: dict[int, tuple[int, int]],
            after: dict[int, tuple[int, int]]) -> tuple[int, int, dict[int, int]]:
    """Commands and bus messages between two readings, summed over the nodes, and each node's bus messages (a
    node started again in between counts from 0)."""
    commands = bus = 0
    by_node = {}
    for port, (c1, b1) in after.items():
        c0, b0 = before.get(port, (0, 0))
        commands += c1 - c0 if c1 >= c0 else c1
        by_node[port] = b1 - b0 if b1 >= b0 else b1
        bus += by_node[port]
    return commands, bus, by_node


# ------------------------------------------------------------------------------------------- tables


@dataclass
class Stream:
    """One live stream (a seat's, or the host's when ``seat`` is None): every event id it received, in order."""

    table: Table
    seat: int | None
    token: str
    ids: list[str] = field(default_factory=list)
    version: int = 0
    to_act: int | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    connections: int = 0
    connected_at: float = 0.0
    ended: bool = False


@dataclass
class Table:
    sid: str
    host: str
    seats: list[str]
    streams: list[Stream] = field(default_factory=list)
    #: Moves the players had acknowledged: (version, seat, move).
    acked: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    #: version → when the move that made it was sent and answered (the players' moves).
    answered: dict[int, tuple[float, float]] = field(default_factory=dict)
    #: version → when each of the four streams had its first event.
    arrived: dict[int, list[float]] = field(default_factory=dict)
    #: The seat on which the players last moved, by version (so that a seat acts once per version).
    acted: dict[int, int] = field(default_factory=dict)


@dataclass
class Phase:
    name: str
    rate: float
    started: float = 0.0
    ended: float = 0.0
    kill_at: float | None = None
    window_end: float | None = None
    #: When the killed node was back, as the promoted primary's replica, and the cluster whole again.
    whole_at: float | None = None
    affected: set[str] = field(default_factory=set)
    hints: int = 0
    refused: dict[int, int] = field(default_factory=dict)


class Pace:
    """A global pace of human moves: each ``take`` is the next slot of ``rate`` per second."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.next = time.monotonic()

    async def take(self) -> None:
        now = time.monotonic()
        slot = max(now, self.next)
        self.next = slot + 1 / self.rate
        if slot > now:
            await asyncio.sleep(slot - now)


async def read_stream(port: int, stream: Stream, running: asyncio.Event) -> None:
    """The stream, reconnecting with ``Last-Event-ID`` while the run goes on, after the ``retry`` the server
    sends (as ``EventSource`` does; 1 s before the first)."""
    slot = stream.seat if stream.seat is not None else BOT_SEAT
    retry = 1.0
    while not running.is_set() and not stream.ended:
        try:
            reader, writer = await asyncio.open_connection(HOST, port, limit=2**20)
        except OSError:
            await asyncio.sleep(retry)
            continue
        try:
            last = f"Last-Event-ID: {stream.ids[-1]}\r\n" if stream.ids else ""
            writer.write((f"GET /v1/sessions/{stream.table.sid}/events HTTP/1.1\r\nHost: {HOST}\r\n"
                          f"Authorization: Bearer {stream.token}\r\nAccept: text/event-stream\r\n{last}\r\n")
                         .encode())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            if status == 204:
                stream.ended = True
                return
            if status != 200:
                await asyncio.sleep(retry)
                continue
            stream.connections += 1
            stream.connected_at = time.perf_counter()
            stream.opened.set()
            event_id = data = name = None
            while True:
                line = await reader.readline()
                if not line:
                    break
                line = line.rstrip(b"\r\n")
                if line.startswith(b"id: "):
                    event_id = line[4:].decode()
                elif line.startswith(b"retry: "):
                    retry = int(line[7:]) / 1000
                elif line.startswith(b"data: "):
                    data = line[6:]
                elif line.startswith(b"event: "):
                    name = line[7:].decode()
                elif not line and (event_id or name):
                    if name is None and event_id is not None and data is not None:
                        now = time.perf_counter()
                        frame = json.loads(data)
                        stream.ids.append(event_id)
                        version = int(frame["version"])
                        if event_id.endswith("-0"):
                            stream.table.arrived.setdefault(version, [0.0] * 4)[slot] = now
                        stream.version, stream.to_act = version, frame.get("to_act")
                        stream.changed.set()
                    elif name == "end":
                        stream.ended = True
                    event_id = data = name = None
        except (OSError, asyncio.IncompleteReadError, ValueError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
        await asyncio.sleep(retry)


def choose(moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A player's pick: mostly passes in the auction (so contracts are made and played), else any legal move."""
    passes = [m for m in moves if m["type"] == "pass"]
    if passes and rng.random() < 0.8:
        return passes[0]
    return rng.choice(moves)


async def player(client: httpx.AsyncClient, table: Table, seat: int, phase_of: list[Phase], pace_of: list[Pace],
                 stop: asyncio.Event, rng: random.Random, hint_share: float) -> None:
    stream = next(s for s in table.streams if s.seat == seat)
    auth = {"Authorization": f"Bearer {table.seats[seat]}"}
    while not stop.is_set():
        if not (stream.to_act == seat and table.acted.get(stream.version) != seat):
            stream.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stream.changed.wait(), 5)
            if stream.ended or stop.is_set():
                return
            if not (stream.to_act == seat and table.acted.get(stream.version) != seat):
                continue
        await pace_of[0].take()
        if stop.is_set():
            return
        phase = phase_of[0]
        try:
            if rng.random() < hint_share:
                r = await client.post(f"/v1/sessions/{table.sid}/suggest", json={"level": "basic"}, headers=auth)
                phase.hints += r.status_code == 200
            r = await client.get(f"/v1/sessions/{table.sid}/legal-moves", headers=auth)
        except httpx.HTTPError:
            await asyncio.sleep(0.2)
            continue
        if r.status_code != 200:
            phase.refused[r.status_code] = phase.refused.get(r.status_code, 0) + 1
            await asyncio.sleep(float(r.headers.get("retry-after", "1")))
            continue
        listed = r.json()
        version = int(listed["version"])
        if not listed["legal_moves"]:
            table.acted[version] = seat  # not this seat's turn at this version after all
            continue
        move = choose(listed["legal_moves"], rng)
        key = uuid.uuid4().hex
        sent = time.perf_counter()
        while True:  # until answered: 503s and broken connections are retried with the same key
            try:
                r = await client.post(f"/v1/sessions/{table.sid}/moves", json={"move": move},
                                      headers={**auth, "If-Match": f'"{version}"', "Idempotency-Key": key})
            except httpx.HTTPError:
                await asyncio.sleep(0.1)
                continue
            if r.status_code == 503:  # nothing applied, or not known: again after Retry-After, with the same key
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                continue
            break
        answered = time.perf_counter()
        table.acted[version] = seat
        if r.status_code == 200:
            made = version + 1  # the move's own version (the answer's is later when the bot moved after it)
            table.acked.append((made, seat, move))
            table.answered[made] = (sent, answered)
            if phase.kill_at is not None and phase.window_end is None and table.sid in phase.affected \
                    and sent >= phase.kill_at:
                phase.window_end = answered
        else:
            phase.refused[r.status_code] = phase.refused.get(r.status_code, 0) + 1


async def create_tables(client: httpx.AsyncClient, count: int) -> list[Table]:
    sem = asyncio.Semaphore(16)
    tables: list[Table] = []

    async def one() -> None:
        async with sem:
            for _ in range(30):  # a 503 (a cluster still settling after a failover): again after Retry-After
                r = await client.post("/v1/sessions", json={"players": 4, "clock": {"move_seconds": 60,
                                                                                   "bot": "basic"}})
                if r.status_code != 503:
                    break
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
            assert r.status_code == 201, r.text
            created = r.json()
            table = Table(created["session_id"], created["host_token"], created["seat_tokens"])
            r = await client.post(f"/v1/sessions/{table.sid}/seats/{BOT_SEAT}/bot", json={"level": "basic"},
                                  headers={"Authorization": f"Bearer {table.host}"})
            assert r.status_code == 200, r.text
            tables.append(table)

    await asyncio.gather(*(one() for _ in range(count)))
    return tables


# ------------------------------------------------------------------------------------------- figures


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def delivery(tables: list[Table], start: float, end: float, skip: tuple[float, float] | None = None,
             *, from_answer: bool = False) -> tuple[list[float], int]:
    """For the players' moves sent in [start, end) (and outside ``skip``): from each move's sending (or, with
    ``from_answer``, its answer, 0 if before) to its arrival on the last of its table's four streams; and the
    moves whose arrival is missing."""
    out, missing = [], 0
    for t in tables:
        for version, (sent, answered) in t.answered.items():
            if not start <= sent < end or (skip is not None and skip[0] <= sent <= skip[1]):
                continue
            arrivals = t.arrived.get(version)
            if arrivals is None or not all(arrivals):
                missing += 1
                continue
            out.append(max(0.0, max(arrivals) - (answered if from_answer else sent)))
    return out, missing


async def catch_up(client: httpx.AsyncClient, sid: str, token: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        params: dict[str, str] = {"after": after} if after else {}
        for _ in range(50):
            try:
                r = await client.get(f"/v1/sessions/{sid}/events/catch-up", params=params,
                                     headers={"Authorization": f"Bearer {token}"})
                if r.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.2)
        body = r.json()
        events.extend(body["events"])
        if body["complete"] or not body["events"]:
            return events
        after = body["events"][-1]["id"]


async def verify(client: httpx.AsyncClient, tables: list[Table]) -> dict[str, int]:
    """Events lost and repeated on every stream, and acknowledged moves lost or doubled, against the logs."""
    lost = repeated = out_of_order = moves_lost = moves_extra = reconnects = 0
    for t in tables:
        log = await catch_up(client, t.sid, t.host)
        first: dict[int, dict[str, Any]] = {}
        for e in log:
            first.setdefault(int(e["version"]), e["event"])
        acked = {v: seat for v, seat, _ in t.acked}
        for v, seat in acked.items():
            if first.get(v, {}).get("seat") != seat:
                moves_lost += 1

        for v, e in first.items():
            if e.get("seat") in HUMAN_SEATS and e.get("type") in MOVE_EVENTS and v not in acked:
                moves_extra += 1
        for s in t.streams:
            reference = [e["id"] for e in await catch_up(client, t.sid, s.token)]
            got = s.ids
            repeated += len(got) - len(set(got))
            lost += len(set(reference) - set(got))
            if [i for i in got if i in set(reference)] != [i for i in reference if i in set(got)]:
                out_of_order += 1
            reconnects += max(0, s.connections - 1)
    return {"events lost": lost, "events repeated": repeated, "streams out of order": out_of_order,
            "moves lost": moves_lost, "moves applied unacknowledged": moves_extra, "stream reconnects": reconnects}


# ---------------------------------------------------------------------------------------------- run


async def run_mode(system: System, args: argparse.Namespace, sharded: bool, rates: list[float],
                   failover_rate: float | None) -> None:
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    base = f"http://{HOST}:{system.port}"
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        _, rss_idle, _ = system.usage()
        tables = await create_tables(client, args.tables)
        stop_streams = asyncio.Event()
        for t in tables:
            t.streams = [Stream(t, seat, t.seats[seat]) for seat in HUMAN_SEATS] + [Stream(t, None, t.host)]
        readers = [asyncio.create_task(read_stream(system.port, s, stop_streams))
                   for t in tables for s in t.streams]
        await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for t in tables for s in t.streams)), 300)
        players_count = len(tables) * len(HUMAN_SEATS)
        per_k = 1000 / players_count
        streams_count = len(readers)
        await asyncio.sleep(2)
        _, rss_open, _ = system.usage()
        print(f"\n## pub/sub {'sharded (SPUBLISH)' if sharded else 'plain (PUBLISH)'}: {len(tables)} tables, "
              f"{players_count} players, {streams_count} streams open; the replicas' memory "
              f"{rss_idle / 2**20:.0f} MiB before the tables, {rss_open / 2**20:.0f} MiB with their streams open "
              f"({(rss_open - rss_idle) / 2**20 * per_k:.0f} MiB per 1,000 players)", flush=True)
        print("moves/s: the players' moves acknowledged (and the bot's and the clock's); CPU: the replicas' cores "
              "(serving processes and workers; per 1,000 players); RSS: the replicas' resident memory; Redis: "
              "commands per second, all nodes (per 1,000 players), and their CPU (cores, all nodes); bus: pub/sub "
              "messages the cluster bus delivered "
              "per move (all nodes); delivery: from a player's move sent (answered) to its first event on the "
              "last of its table's four streams", flush=True)
        print(f"{'phase':>18} {'moves/s':>13} {'hints':>5} {'CPU cores':>9} {'/1k pl':>6} {'RSS MiB':>7} "
              f"{'bal CPU':>7} {'Redis cmd/s':>11} {'/1k pl':>7} {'Redis CPU':>9} {'bus/move':>8} "
              f"{'sent p50':>8} {'p99':>7} "
              f"{'answer p50':>10} {'p99':>7} {'missing':>7}  refused", flush=True)
        phases = [Phase(f"rate {r:g}", r) for r in rates]
        if failover_rate is not None:
            phases.append(Phase(f"failover at {failover_rate:g}", failover_rate))
        stop = asyncio.Event()
        phase_of = [phases[0]]
        pace_of = [Pace(phases[0].rate)]
        rng = random.Random(args.seed)
        players = [asyncio.create_task(player(client, t, seat, phase_of, pace_of, stop,
                                              random.Random(rng.random()), args.hints))
                   for t in tables for seat in HUMAN_SEATS]
        for phase in phases:
            # A pause between phases: what a saturated phase left queued drains before the next is measured.
            pace_of[0].next = time.monotonic() + SETTLE_SECONDS
            await asyncio.sleep(SETTLE_SECONDS)
            phase_of[0] = phase
            pace_of[0] = Pace(phase.rate)
            versions_before = sum(max(s.version for s in t.streams) for t in tables)
            acked_before = sum(len(t.acked) for t in tables)
            cpu0, _, bal0 = system.usage()
            counts0 = system.redis_counts()
            redis_cpu0 = system.redis_cpu()
            phase.started = time.perf_counter()
            killer = None
            if phase.kill_at is None and phase.name.startswith("failover"):
                killer = asyncio.create_task(failover(system, tables, phase, args.seconds / 2))
            await asyncio.sleep(args.seconds)
            phase.ended = time.perf_counter()
            if killer is not None:
                await killer
            cpu1, rss, bal1 = system.usage()
            commands_n, bus_n, bus_by_node = counted(counts0, system.redis_counts())
            redis_cpu1 = system.redis_cpu()
            redis_cores = sum(c - redis_cpu0.get(p, 0.0) if c >= redis_cpu0.get(p, 0.0) else c
                              for p, c in redis_cpu1.items()) / (time.perf_counter() - phase.started)
            seconds = phase.ended - phase.started
            moves = sum(max(s.version for s in t.streams) for t in tables) - versions_before
            human = sum(len(t.acked) for t in tables) - acked_before
            window_end = None
            if phase.kill_at is not None:  # until moves are acknowledged, the streams connected, the cluster whole
                reconnected = [s.connected_at for t in tables if t.sid in phase.affected for s in t.streams]
                window_end = max([phase.window_end or phase.ended, phase.whole_at or phase.ended, *reconnected])
            skip = (phase.kill_at, window_end) if phase.kill_at is not None and window_end else None
            lat, missing = delivery(tables, phase.started, phase.ended - 2, skip)
            lat_answer, _ = delivery(tables, phase.started, phase.ended - 2, skip, from_answer=True)
            cores = (cpu1 - cpu0) / seconds
            commands = commands_n / seconds
            print(f"{phase.name:>18} {human / seconds:>5.1f} ({(moves - human) / seconds:>4.1f}) {phase.hints:>5} "
                  f"{cores:>9.2f} {cores * per_k:>6.2f} {rss / 2**20:>7.0f} {(bal1 - bal0) / seconds:>7.2f} "
                  f"{commands:>11.0f} {commands * per_k:>7.0f} {redis_cores:>9.3f} {bus_n / max(1, moves):>8.2f} "
                  f"{pct(lat, 0.5) * 1000:>8.1f} {pct(lat, 0.99) * 1000:>7.1f} "
                  f"{pct(lat_answer, 0.5) * 1000:>10.1f} {pct(lat_answer, 0.99) * 1000:>7.1f} {missing:>7}  "
                  f"{phase.refused or '-'}", flush=True)
            print(f"{'':>18} bus messages per move, by node: "
                  + ", ".join(f"{port} {n / max(1, moves):.2f}" for port, n in sorted(bus_by_node.items())),
                  flush=True)
            if phase.kill_at is not None and window_end is not None:
                inside, _ = delivery(tables, phase.kill_at, window_end)
                print(f"{'':>18} failover: {len(phase.affected)} tables on the killed primary; window "
                      f"{window_end - phase.kill_at:.1f} s, from the kill until moves were acknowledged again on "
                      f"them ({(phase.window_end or phase.ended) - phase.kill_at:.1f} s), their streams "
                      f"connected again and the cluster whole; {len(inside)} moves sent inside it (p99 "
                      f"{pct(inside, 0.99) * 1000:.0f} ms); the p99 above is outside it", flush=True)
                print(f"{'':>18} by when the move was sent, seconds from the kill: moves, p99 ms "
                      "(tables of the killed primary / the others)", flush=True)
                for lo in range(-int(phase.kill_at - phase.started), int(phase.ended - phase.kill_at), 2):
                    cells = []
                    for mine in (True, False):
                        group = [t for t in tables if (t.sid in phase.affected) == mine]
                        got, _ = delivery(group, phase.kill_at + lo, phase.kill_at + lo + 2)
                        cells.append(f"{len(got):>3} {pct(got, 0.99) * 1000:>7.0f}")
                    print(f"{'':>18} {lo:>+4} s: {cells[0]} / {cells[1]}", flush=True)
            print(f"{'':>18} load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
            errors = system.redis_errors()
            if errors:
                print(f"{'':>18} the replicas' redis_errors_total: {errors}", flush=True)
        stop.set()
        await asyncio.gather(*players)
        await asyncio.sleep(3)
        stop_streams.set()
        checked = await verify(client, tables)
        for r in readers:
            r.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        print(f"{'':>18} checked against the logs: " + ", ".join(f"{k} {v}" for k, v in checked.items()),
              flush=True)


def holders_of(cluster: RedisClusterServer, tables: list[Table]) -> dict[int, list[str]]:
    """The tables of each primary (by its port)."""
    holders: dict[int, list[str]] = {}
    with cluster.client() as client:
        for t in tables:
            node = client.get_node_from_key(f"{PREFIX}s:{{{t.sid}}}")
            holders.setdefault(int(node.port), []).append(t.sid)
    return holders


async def failover(system: System, tables: list[Table], phase: Phase, after: float) -> None:
    cluster = system.cluster
    holders = await asyncio.to_thread(holders_of, cluster, tables)  # off the loop: the players go on meanwhile
    await asyncio.sleep(after)
    victim = max(holders, key=lambda p: len(holders[p]))
    replica = await asyncio.to_thread(cluster.replica_of, victim)
    phase.affected = set(holders[victim])
    phase.kill_at = time.perf_counter()
    await asyncio.to_thread(cluster.kill, victim)
    while await asyncio.to_thread(cluster.primary_of, f"{PREFIX}s:{{{holders[victim][0]}}}") != replica:
        await asyncio.sleep(0.2)
    promoted = time.perf_counter() - phase.kill_at
    await asyncio.sleep(3)
    # On this thread: the node dies with the thread that started it (tests/redis_server.py, die_with_parent), and
    # the loop's worker threads end with the loop.
    cluster.restart(victim)
    await asyncio.to_thread(cluster.wait_ok)
    phase.whole_at = time.perf_counter()
    print(f"{'':>18} failover: primary {victim} killed, replica {replica} promoted after {promoted:.1f} s; "
          f"the killed node back as its replica {time.perf_counter() - phase.kill_at:.1f} s after the kill",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=150)
    parser.add_argument("--rates", default="10,20,40", help="human moves per second, comma-separated")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds per phase")
    parser.add_argument("--failover-rate", type=float, default=20.0, help="0: no failover phase")
    parser.add_argument("--plain-rate", type=float, default=20.0, help="0: no plain pub/sub phase")
    parser.add_argument("--hints", type=float, default=0.2, help="share of turns asking a hint first")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    raise_open_files_limit()
    cluster = RedisClusterServer()
    cluster.start()
    system = System(cluster)
    try:
        print(f"{os.cpu_count()} CPUs; cluster nodes {cluster.ports} (primaries {cluster.primaries()}); "
              f"{REPLICAS} replicas behind one balancer; {args.seconds:g} s per phase", flush=True)
        rates = [float(x) for x in args.rates.split(",") if x.strip()]
        system.start(sharded=True, streams=args.tables * 4)
        try:
            asyncio.run(run_mode(system, args, True, rates, args.failover_rate or None))
        finally:
            system.stop()
        if args.plain_rate:
            system.start(sharded=False, streams=args.tables * 4)
            try:
                asyncio.run(run_mode(system, args, False, [args.plain_rate], None))
            finally:
                system.stop()
    finally:
        system.stop()
        cluster.stop()


if __name__ == "__main__":
    main()
