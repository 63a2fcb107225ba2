"""What the benchmark scripts share to run their processes: a free port, pinning a process to a CPU, and a
throwaway ``redis-server`` (never the shared one on 6379)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable

from redis import Redis

HOST = "127.0.0.1"
#: The process that imported this module first (a benchmark script): its children die with it.
SCRIPT_PID = os.getpid()


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def pin(cpu: int, *, die_with_script: bool = True) -> Callable[[], None]:
    """For ``preexec_fn`` (and the script itself): run on ``cpu`` (when the machine has it); a child process also
    dies with the script (``die_with_script``)."""

    def pinned() -> None:
        if hasattr(os, "sched_setaffinity") and cpu < (os.cpu_count() or 1):
            os.sched_setaffinity(0, {cpu})
        if die_with_script and os.getpid() != SCRIPT_PID:
            with contextlib.suppress(OSError):
                ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return pinned


def start_redis(cpu: int, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """A fresh ``redis-server`` on a free port, pinned to ``cpu``, without persistence (``extra``: more
    arguments), once it answers a ping: the process and its port."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not on PATH")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no",
                             *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=pin(cpu))
    probe = Redis(host=HOST, port=port, socket_connect_timeout=0.2)
    deadline = time.monotonic() + 10
    while True:
        try:
            probe.ping()
            return proc, port
        except Exception:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise SystemExit("redis-server did not start") from None
            time.sleep(0.02)
