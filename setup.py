"""The package's build step for the compiled engine: ``pip install .`` and ``pip install -e .`` run
``tools/build_engine.py --install`` after setuptools' own ``build_py``.

Where a C compiler and the Python headers are present, it compiles the engine with mypyc (mypy is a build
requirement in ``pyproject.toml``), into the package (``engine/_compiled``) for a regular install, or into the
checkout's ``build/engine-mypyc`` for an editable one; elsewhere it records why not, the install goes on, and
the pure-Python engine runs (``engine.ENGINE_BUILD_REASON`` says why). ``FIVE_HUNDRED_ENGINE=pure`` in the
install's environment skips the build. Everything else about the package is in ``pyproject.toml``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent


class BuildPyWithCompiledEngine(build_py):
    """setuptools' ``build_py``, then the compiled engine (never failing the install for it)."""

    def run(self) -> None:
        super().run()
        command = [sys.executable, str(ROOT / "tools" / "build_engine.py"), "--install"]
        if not self.editable_mode:
            # A regular install: the build travels inside the package, beside nothing but its own manifest.
            command += ["--out", str(Path(self.build_lib) / "engine" / "_compiled")]
        # An editable install builds where the checkout looks (build/engine-mypyc, or $FIVE_HUNDRED_ENGINE_BUILD).
        result = subprocess.run(command, cwd=ROOT, check=False)
        if result.returncode != 0:
            print(f"five-hundred-referee: the compiled engine's build step exited {result.returncode}; "
                  "the pure-Python engine runs", file=sys.stderr)


class PlatformDistribution(Distribution):
    """The wheel may carry compiled modules: tag it for this platform and interpreter, never ``py3-none-any``."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPyWithCompiledEngine}, distclass=PlatformDistribution)
