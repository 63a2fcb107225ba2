"""Build the client packages from the contract: a Python wheel and an npm tarball, both versioned with it.

    python clients/generate.py [--work clients/build] [--dist clients/dist] [--python PY] [--node-modules DIR]
                               [python] [typescript]

* **Python** (``five-hundred-referee-client``, package ``fivehundred_client``): openapi-python-client generates
  the code from ``openapi/openapi.json`` into a copy of ``clients/python/`` (its ``pyproject.toml`` and README),
  with the contract's ``info.version`` as ``VERSION`` and the repository's ``LICENSE``; ``pip wheel`` builds it.
  ``--python`` is an interpreter with openapi-python-client installed (the pinned one:
  ``tests/clients/requirements-generators.txt``).
* **TypeScript** (``five-hundred-referee-client``): openapi-typescript generates ``src/api.ts`` (the contract's
  types) beside the hand-written ``clients/typescript/src/index.ts`` (a typed openapi-fetch client), ``tsc``
  compiles them to ``dist/`` with declarations, the version is stamped into ``package.json`` and ``index.ts``,
  and ``npm pack`` makes the tarball. ``--node-modules`` holds openapi-typescript, openapi-fetch and typescript
  (the pinned ones: ``tests/clients/typescript/package-lock.json``, ``npm ci`` there).

Nothing generated is committed: the build happens in ``--work`` and the packages land in ``--dist`` (both
ignored by git). The client suite (``tests/clients/``) runs this script, installs what it built and plays
against a live service, so what would be published is what is tested.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONTRACT = ROOT / "openapi" / "openapi.json"
LICENSE = ROOT / "LICENSE"
PYTHON_PACKAGE = "fivehundred_client"
VERSION_MARK = "@CONTRACT_VERSION@"


def contract_version() -> str:
    version = json.loads(CONTRACT.read_text())["info"]["version"]
    assert isinstance(version, str)
    return version


def run(cmd: list[str], log: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    """Run a step, keeping its output in ``log``; a failing step stops the build with its output."""
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    log += [f"$ {' '.join(cmd[:4])}", result.stdout, result.stderr]
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} exited with {result.returncode}:\n{result.stdout[-4000:]}"
                         f"\n{result.stderr[-4000:]}")


def fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def python_package(python: Path, work: Path, dist: Path) -> tuple[Path, str]:
    """Generate and build the Python wheel; returns it and the build's log."""
    log: list[str] = []
    stage = fresh(work / "python")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(HERE / "python" / name, stage / name)
    shutil.copy(LICENSE, stage / "LICENSE")
    (stage / "VERSION").write_text(contract_version() + "\n")
    env = {**os.environ, "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff
    run([str(python), "-m", "openapi_python_client", "generate", "--path", str(CONTRACT),
         "--output-path", str(stage / PYTHON_PACKAGE), "--meta", "none", "--overwrite"], log, env=env)
    (stage / PYTHON_PACKAGE / "py.typed").write_text("# Marker file for PEP 561\n")
    dist.mkdir(parents=True, exist_ok=True)
    for old in dist.glob("five_hundred_referee_client-*.whl"):
        old.unlink()
    run([str(python), "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check", "-w", str(dist),
         str(stage)], log)
    (wheel,) = dist.glob("five_hundred_referee_client-*.whl")
    return wheel, "\n".join(log)


def typescript_package(node_modules: Path, work: Path, dist: Path) -> tuple[Path, str]:
    """Generate, compile and pack the npm tarball; returns it and the build's log."""
    log: list[str] = []
    version = contract_version()
    stage = fresh(work / "typescript")
    package = json.loads((HERE / "typescript" / "package.json").read_text())
    package["version"] = version
    (stage / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    for name in ("tsconfig.json", "README.md"):
        shutil.copy(HERE / "typescript" / name, stage / name)
    shutil.copy(LICENSE, stage / "LICENSE")
    (stage / "src").mkdir()
    for source in sorted((HERE / "typescript" / "src").glob("*.ts")):
        (stage / "src" / source.name).write_text(source.read_text().replace(VERSION_MARK, version))
    (stage / "node_modules").symlink_to(node_modules.resolve(), target_is_directory=True)
    bin_dir = node_modules / ".bin"
    # openapi-typescript's own defaults: a request field the service fills in carries no schema `default` in the
    # contract (its default is said in words), so it stays optional; a response field with a `default` is always
    # sent, and is typed as required.
    run([str(bin_dir / "openapi-typescript"), str(CONTRACT), "-o", "src/api.ts"], log, cwd=stage)
    run([str(bin_dir / "tsc"), "-p", "tsconfig.json"], log, cwd=stage)
    dist.mkdir(parents=True, exist_ok=True)
    for old in dist.glob("five-hundred-referee-client-*.tgz"):
        old.unlink()
    run(["npm", "pack", "--silent", "--pack-destination", str(dist.resolve())], log, cwd=stage)
    return dist / f"five-hundred-referee-client-{version}.tgz", "\n".join(log)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="*", help="python, typescript (default: both)")
    parser.add_argument("--work", type=Path, default=HERE / "build")
    parser.add_argument("--dist", type=Path, default=HERE / "dist")
    parser.add_argument("--python", type=Path, default=Path(sys.executable))
    parser.add_argument("--node-modules", type=Path, default=ROOT / "tests" / "clients" / "typescript" / "node_modules")
    args = parser.parse_args(argv)
    packages = list(dict.fromkeys(args.packages or ["python", "typescript"]))
    if not set(packages) <= {"python", "typescript"}:
        parser.error(f"packages are python and typescript, not {', '.join(packages)}")
    for name in packages:
        if name == "python":
            built, log = python_package(args.python, args.work, args.dist)
        else:
            built, log = typescript_package(args.node_modules, args.work, args.dist)
        (args.work / f"{name}.log").write_text(log)
        print(built)


if __name__ == "__main__":
    main()
