"""A real server process for the ops tests: the served protocol, or the Dockerfile's own command line."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.redis_server import die_with_parent, free_port

ROOT = Path(__file__).resolve().parents[2]
#: The served protocols: the one the README, the Dockerfile and the manifests run, and the pure-Python one.
PROTOCOL = "service.ops.serving:GuardedHttpToolsProtocol"
PROTOCOLS = (PROTOCOL, "service.ops.serving:GuardedH11Protocol")


def dockerfile_command() -> list[str]:
    """The image's ``CMD`` (exec form)."""
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    return list(json.loads(re.search(r"^CMD (\[.*\])$", text, re.MULTILINE)[1]))  # type: ignore[index]


class Server:
    """``cmd`` (default: the served ``protocol`` over the app of tests.sessions.app_factory, whose heartbeat the
    environment sets) on 127.0.0.1 and a free port; its ``uvicorn`` run as this Python's module."""

    def __init__(self, env: dict[str, str], cmd: list[str] | None = None, protocol: str = PROTOCOL,
                 stderr: Any = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        if cmd is None:
            cmd = ["uvicorn", "--factory", "tests.sessions.app_factory:create_app", "--http", protocol,
                   "--no-access-log", "--timeout-graceful-shutdown", "1"]
        cmd = [sys.executable, "-m", *_at(cmd, self.port), "--log-level", "warning"]
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING",
                    "SESSION_HEARTBEAT_SECONDS": "0.5", **env}
        self.process = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL, stderr=stderr,
                                        preexec_fn=die_with_parent)
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(self.url + "/healthz", timeout=1)
                return
            except httpx.TransportError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def stop_cleanly(self, stderr: Any) -> None:
        """Stop the server (SIGTERM) and check that it ended cleanly: exit status 0 or SIGTERM's, and in its
        ``stderr`` (the file it was started with) no traceback and nothing from multiprocessing's resource
        tracker (no semaphore left behind)."""
        self.stop()
        assert self.process.returncode in (0, -15), self.process.returncode
        time.sleep(0.5)  # the resource tracker (a child of the server) writes its warnings as it ends
        stderr.seek(0)
        text = stderr.read().decode(errors="replace")
        assert "leaked semaphore" not in text and "resource_tracker" not in text, text
        assert "Traceback" not in text, text

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)


def _at(cmd: list[str], port: int) -> list[str]:
    """``cmd`` listening on 127.0.0.1:``port`` instead of wherever it said."""
    out: list[str] = []
    skip = False
    for arg in cmd:
        if skip:
            skip = False
        elif arg in ("--host", "--port"):
            skip = True
        else:
            out.append(arg)
    return [*out, "--host", "127.0.0.1", "--port", str(port)]
