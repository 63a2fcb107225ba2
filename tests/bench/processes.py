"""What the benchmark scripts share to run their processes: a free port, pinning a process to a CPU, waiting
until a started process answers, and a throwaway ``redis-server`` (never the shared one on 6379)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from redis import Redis
from redis.exceptions import RedisError

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
    wait_ready(proc, probe.ping, seconds=10, what="redis-server", pause=0.02, errors=(RedisError, OSError))
    return proc, port


def wait_ready(proc: subprocess.Popen[bytes], probe: Callable[[], object], *, seconds: float, what: str,
               pause: float = 0.1, errors: tuple[type[BaseException], ...] = (OSError,)) -> None:
    """Return once ``probe()`` returns without raising one of ``errors`` (the process ``proc`` answers). If
    ``proc`` exits first, or ``seconds`` pass, kill it and end the script naming ``what``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            probe()
            return
        except errors:
            if proc.poll() is not None:
                raise SystemExit(f"{what} exited with {proc.returncode}") from None
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit(f"{what} did not start within {seconds:.0f} s") from None
            time.sleep(pause)


def http_answers(port: int, path: str, *, any_status: bool = False) -> Callable[[], None]:
    """A probe for :func:`wait_ready`: ``GET path`` on the loopback succeeds (or, with ``any_status``, gets any
    HTTP answer at all)."""

    def probe() -> None:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=1):
                pass
        except urllib.error.HTTPError:
            if not any_status:
                raise
    return probe
