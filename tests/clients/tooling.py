"""Generator installs, caches and the live service for the client-compatibility suite.

Every generator comes from a registry at a pinned version, installed by the suite itself the first time and
kept in a cache outside the checkout (``$FIVEHUNDRED_CLIENTS_CACHE``, default ``~/.cache/five-hundred-referee/
clients``), keyed by the hash of the file that pins it, so a rerun (or a CI run in a fresh clone) installs
nothing again:

* ``requirements-generators.txt`` (PyPI): ``openapi-python-client`` and ``openapi-generator-cli`` (whose wheel
  ships openapi-generator's jar; its fat jar also carries the Jackson and JSR-305 classes the generated Java
  code compiles and runs against), in a virtual environment of their own so their dependencies never meet the
  project's.
* ``typescript/package.json`` with its ``package-lock.json`` (npm): ``openapi-typescript``, ``openapi-fetch``,
  ``typescript`` and ``@types/node``, installed with ``npm ci`` into the cache and linked into
  ``typescript/node_modules``.

The service is started exactly as the README's run command says (read from README.md, with only the port
changed to a free one), in a process of its own, on the in-process store.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.redis_server import die_with_parent, free_port

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONTRACT = ROOT / "openapi" / "openapi.json"
GENERATOR_REQUIREMENTS = HERE / "requirements-generators.txt"
TYPESCRIPT_DIR = HERE / "typescript"


def require_tools(*names: str) -> None:
    """Skip on a developer's machine without these programs; fail under CI (``CI`` set), which has them."""
    import pytest

    missing = [name for name in names if shutil.which(name) is None]
    if not missing:
        return
    message = f"{', '.join(missing)} not on PATH (Node.js 20 with npm and a JDK 17 are needed by the clients suite)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def cache_root() -> Path:
    configured = os.environ.get("FIVEHUNDRED_CLIENTS_CACHE")
    root = Path(configured) if configured else Path.home() / ".cache" / "five-hundred-referee" / "clients"
    root.mkdir(parents=True, exist_ok=True)
    return root


def digest(*parts: bytes | str | Path) -> str:
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            h.update(part.read_bytes())
        elif isinstance(part, str):
            h.update(part.encode())
        else:
            h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:16]


def run(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run a command, failing with its whole output when it fails."""
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        shown = shlex.join(cmd[:6]) + (" …" if len(cmd) > 6 else "")
        raise RuntimeError(f"{shown} exited with {result.returncode}\n--- stdout\n{result.stdout[-4000:]}"
                           f"\n--- stderr\n{result.stderr[-4000:]}")
    return result


def _build_once(target: Path, build: Callable[[Path], None]) -> Path:
    """Build into ``target`` unless a finished build is there (a build left half-done is started again). The
    build holds a lock beside ``target``, so that test processes running side by side (pytest-xdist's workers,
    two checkouts) build it once and never into each other's half-done folder."""
    marker = target / ".complete"
    if marker.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():  # built by the process that held the lock before
            return target
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        build(target)
        marker.write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    return target


@dataclass(frozen=True)
class GeneratorTools:
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def openapi_generator_jar(self) -> Path:
        found = sorted(self.venv.glob("lib/python*/site-packages/openapi_generator_cli/openapi-generator.jar"))
        if not found:
            raise RuntimeError(f"openapi-generator.jar is not in {self.venv}")
        return found[0]

    def env(self) -> dict[str, str]:
        """The environment for the generators: their venv first on PATH (openapi-python-client runs ruff)."""
        return {**os.environ, "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
                "VIRTUAL_ENV": str(self.venv)}


def generator_tools() -> GeneratorTools:
    key = digest(GENERATOR_REQUIREMENTS, sys.version)

    def build(venv: Path) -> None:
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "-r", str(GENERATOR_REQUIREMENTS)], timeout=900)

    venv = _build_once(cache_root() / f"generators-{key}", build)
    return GeneratorTools(venv)


def node_modules() -> Path:
    """``npm ci`` of typescript/package-lock.json into the cache, linked as typescript/node_modules."""
    require_tools("node", "npm")
    lock = TYPESCRIPT_DIR / "package-lock.json"
    key = digest(TYPESCRIPT_DIR / "package.json", lock)

    def build(folder: Path) -> None:
        shutil.copy(TYPESCRIPT_DIR / "package.json", folder / "package.json")
        shutil.copy(lock, folder / "package-lock.json")
        run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=folder, timeout=900)

    installed = _build_once(cache_root() / f"npm-{key}", build) / "node_modules"
    link = TYPESCRIPT_DIR / "node_modules"
    if link.is_symlink() and link.resolve() != installed.resolve():
        link.unlink()
    if not link.exists():
        with contextlib.suppress(FileExistsError):  # linked at the same moment by a test process beside this one
            link.symlink_to(installed, target_is_directory=True)
    return link


# ------------------------------------------------------------------------------------------ the live service

README_RUN = re.compile(r"^python3 -m venv \.venv && \.venv/bin/pip install -e \. && (?P<serve>.+)$", re.M)


def readme_serve_command(port: int) -> list[str]:
    """The README's run command (its part after the install), with the port changed to ``port``.

    ``.venv/bin/X`` becomes this interpreter's own ``X`` (the venv the suite runs in is the README's).
    """
    readme = (ROOT / "README.md").read_text()
    found = README_RUN.search(readme)
    if found is None:
        raise RuntimeError("README.md has no run command of the form "
                           "'python3 -m venv .venv && .venv/bin/pip install -e . && <serve command>'")
    argv = shlex.split(found.group("serve"))
    bindir = Path(sys.executable).parent
    argv = [str(bindir / a.removeprefix(".venv/bin/")) if a.startswith(".venv/bin/") else a for a in argv]
    if "--port" not in argv:
        raise RuntimeError(f"the README's run command names no --port: {found.group('serve')}")
    argv[argv.index("--port") + 1] = str(port)
    return argv


@dataclass
class LiveService:
    """The service in a process of its own, started the README's way, on the in-process store."""

    url: str
    command: list[str]
    process: subprocess.Popen[bytes]
    log: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def start(cls, log: Path, extra_env: dict[str, str] | None = None) -> LiveService:
        port = free_port()
        command = readme_serve_command(port)
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "API_KEYS", "CORS_ORIGINS")}
        env.update(extra_env or {})
        out = log.open("wb")
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   preexec_fn=die_with_parent)
        service = cls(f"http://127.0.0.1:{port}", command, process, log, dict(extra_env or {}))
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{shlex.join(command)} exited with {process.returncode}:\n{log.read_text()}")
            try:
                if httpx.get(service.url + "/healthz", timeout=1).status_code == 200:
                    return service
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                service.stop()
                raise RuntimeError(f"{shlex.join(command)} did not answer /healthz within 60 s")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def read_report(stdout: str) -> dict[str, object]:
    """A client program's report: the last stdout line that starts with ``REPORT ``, as JSON."""
    lines = [line for line in stdout.splitlines() if line.startswith("REPORT ")]
    if not lines:
        raise AssertionError(f"the client printed no REPORT line:\n{stdout}")
    report = json.loads(lines[-1].removeprefix("REPORT "))
    assert isinstance(report, dict)
    return report
