"""Static checks as part of the suite: ``mypy --strict`` over the code and ``ruff`` over the code and tests."""

from __future__ import annotations

import subprocess
import sys

from tests.support import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_strict() -> None:
    result = _run("mypy", "--strict", "engine", "bots", "service", "clients/generate.py")
    assert result.returncode == 0, f"mypy --strict failed:\n{result.stdout}\n{result.stderr}"


def test_ruff() -> None:
    result = _run("ruff", "check", "engine", "bots", "service", "tests", "clients")
    assert result.returncode == 0, f"ruff check failed:\n{result.stdout}\n{result.stderr}"
