"""Build the compiled engine with mypyc, beside the sources, never in them.

    .venv/bin/python tools/build_engine.py            # build into build/engine-mypyc (about a minute)
    .venv/bin/python tools/build_engine.py --probe    # exit 0 if this machine can build (a C compiler, headers)
    .venv/bin/python tools/build_engine.py --clean    # remove the build: the pure engine runs
    python tools/build_engine.py --install --out DIR  # the package install's step (setup.py): never fails

The package's install runs it (``setup.py``'s build step, for ``pip install .`` and ``pip install -e .``) with
``--install``: it builds when it can and otherwise writes a manifest saying why not (no C compiler, no mypyc, a
failed compile), which ``engine.ENGINE_BUILD_REASON`` then reports, and the install goes on with the pure engine.
An install with ``FIVE_HUNDRED_ENGINE=pure`` in its environment skips the build; one that finds a current build
at its output keeps it.

Every ``engine/*.py`` module is compiled except the package's ``__init__``, its loader ``_native``, the integrity
check of untrusted states (``integrity``), and any
module whose classes take class keywords (``class X(msgspec.Struct, frozen=True)``): mypyc drops those keywords,
which would silently change a Struct's encoding and validation, so the modules holding Structs (``model``,
``options``) stay Python and the wire format is the one the pure engine writes. The bots (``COMPANIONS``) are
compiled in the same build and the same mypyc group, by the same rules (``bots/__init__``, ``bots/_native`` and
``bots/inference``, which holds Structs, stay Python); the manifest's ``companions`` holds their hashes, and
``bots/_native.py`` loads them from the build exactly when the engine runs compiled.

The output goes to ``build/engine-mypyc/`` (or ``$FIVE_HUNDRED_ENGINE_BUILD``) with a ``manifest.json`` of the
SHA-256 of every source it was built from; ``engine/_native.py`` uses the build only while those hashes match
the current sources, so an edit to any ``.py`` file falls back to the pure engine until the next build. The new
build is assembled aside and renamed into place, so a process starting meanwhile finds the old build, the new
one or, for an instant, none (and runs the pure engine), never half of one.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "engine"
#: Packages compiled with the engine, in the same build (one mypyc group: their calls into the engine are native
#: calls): the bots' playouts and searches spend most of their time in their own loops over the engine's rules.
COMPANIONS = ("bots",)
NEVER_COMPILED = {
    "__init__.py": "the package and its loader stay Python",
    "_native.py": "the package and its loader stay Python",
    # It checks decoded, untrusted states value by value (a bool where a seat number belongs, say): compiled code
    # narrows such values by their annotations and answered differently on hostile input, and it is not hot.
    "integrity.py": "its checks of hostile values must see exactly what Python sees",
}

REQUESTED_MODE = os.environ.get("FIVE_HUNDRED_ENGINE", "")  # as the caller set it (an install's "pure" skips)
os.environ["FIVE_HUNDRED_ENGINE"] = "pure"  # the build itself never loads a compiled engine
sys.path.insert(0, str(ROOT))
from engine import _native  # noqa: E402


def compilable(path: Path) -> tuple[bool, str]:
    """Whether mypyc may compile a module without changing what it does, and why not."""
    if path.name in NEVER_COMPILED:
        return False, NEVER_COMPILED[path.name]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ClassDef) and node.keywords:
            return False, f"class {node.name} takes class keywords, which mypyc drops"
    return True, ""


_PROBE_C = "#include <Python.h>\nint five_hundred_probe(void) { return Py_IsInitialized(); }\n"


def probe() -> str:
    """Empty if this machine can build, else what is missing. The compiler is the one the build uses: ``$CC``,
    else the interpreter's; it must compile a file that includes ``Python.h``."""
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if not compiler or shutil.which(compiler[0]) is None:
        return f"no C compiler ({compiler[0] if compiler else 'CC is empty'})"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        return f"no Python headers ({include}/Python.h)"
    with tempfile.TemporaryDirectory(prefix="five-hundred-probe-") as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text(_PROBE_C)
        try:
            result = subprocess.run([*compiler, "-I", include, "-c", str(source), "-o", str(Path(tmp) / "probe.o")],
                                    capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"the C compiler ({shlex.join(compiler)}) did not run: {exc}"
        if result.returncode != 0:
            said = (result.stderr or result.stdout).strip().splitlines()
            return (f"the C compiler ({shlex.join(compiler)}) cannot compile against Python.h (exit "
                    f"{result.returncode}{': ' + said[0][:200] if said else ''})")
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (pip install -e '.[test]' brings mypy, which includes it)"
    return ""


def build(out: Path) -> None:
    packages = ("engine", *COMPANIONS)
    modules = []  # "package/module.py"
    for package in packages:
        for path in sorted((ROOT / package).glob("*.py")):
            ok, why = compilable(path)
            if ok:
                modules.append(f"{package}/{path.name}")
            else:
                print(f"  keeping {package}/{path.name} as Python: {why}")
    hashes = {package: _native.source_hashes(ROOT / package) for package in packages}
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".stage-", dir=out.parent))
    try:
        for package in packages:
            (stage / package).mkdir()
            for path in (ROOT / package).glob("*.py"):
                shutil.copy2(path, stage / package / path.name)
            if _native.source_hashes(stage / package) != hashes[package]:
                raise SystemExit("the sources changed while being copied; run the build again")
        started = time.monotonic()
        cmd = [sys.executable, "-m", "mypyc", "--strict", "--python-version", "3.11", *modules]
        env = {**os.environ, "MYPYC_OPT_LEVEL": os.environ.get("MYPYC_OPT_LEVEL", "3")}
        result = subprocess.run(cmd, cwd=stage, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            raise SystemExit(f"mypyc failed (exit {result.returncode}){': ' + said[-1][:200] if said else ''}")
        suffix = _native.ext_suffix()
        groups = [p for p in stage.glob(f"*__mypyc{suffix}")]
        if len(groups) != 1:
            raise SystemExit(f"expected one mypyc group library in {stage}, found {groups}")
        result_dir = stage / "result"
        for package in packages:
            (result_dir / package).mkdir(parents=True)
        shutil.move(groups[0], result_dir / groups[0].name)
        names = []
        for m in modules:
            package, _, name = m.partition("/")
            so = stage / package / (name[:-3] + suffix)
            if not so.is_file():
                raise SystemExit(f"mypyc produced no {package}/{so.name}")
            shutil.move(so, result_dir / package / so.name)
            names.append(f"{package}.{name[:-3]}")
        manifest = {
            "ext_suffix": suffix,
            "python": sys.version,
            "mypyc": _mypy_version(),
            "modules": names,
            "group_library": groups[0].name[: -len(suffix)],
            "sources": hashes["engine"],
            "companions": {package: hashes[package] for package in COMPANIONS},
        }
        (result_dir / _native.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        # Swap in the new build whole: rename the old one away, the new one in, then delete the old.
        old = None
        if out.exists():
            old = stage / "previous"
            out.rename(old)
        result_dir.rename(out)
        print(f"compiled {len(names)} modules in {time.monotonic() - started:.0f} s into {out}")
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def install_build(out: Path) -> str:
    """The install's step: build into ``out`` if possible, else leave a manifest there saying why not. Never
    raises: the answer is what happened, for the install's log."""
    if REQUESTED_MODE == "pure":
        return "FIVE_HUNDRED_ENGINE=pure: the compiled engine was not built; the pure-Python engine runs"
    if _native.check_build(PACKAGE, out)[0] is not None:
        return f"the compiled engine at {out} is current: kept"
    why = probe()
    if not why:
        try:
            build(out)
            return f"built the compiled engine into {out}"
        except SystemExit as exc:  # build() reports its failures so
            why = str(exc.code)
        except Exception as exc:  # noqa: BLE001  # an install must not fail for want of the optional build
            why = f"{type(exc).__name__}: {exc}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / _native.MANIFEST).write_text(json.dumps({"failed": why}, indent=2) + "\n")
    return f"the compiled engine could not be built ({why}); the pure-Python engine runs"


def _mypy_version() -> str:
    from mypy.version import __version__

    return str(__version__)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=_native.default_build_dir(PACKAGE))
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--probe", action="store_true", help="exit 0 if a build is possible here, 1 if not")
    group.add_argument("--clean", action="store_true", help="remove the compiled build")
    group.add_argument("--install", action="store_true",
                       help="the package install's step: build if possible, else record why not; exit 0 either way")
    args = parser.parse_args()
    if args.install:
        print(f"five-hundred-referee: {install_build(args.out)}", flush=True)
        return
    if args.clean:
        shutil.rmtree(args.out, ignore_errors=True)
        print(f"removed {args.out}: the pure-Python engine runs")
        return
    missing = probe()
    if args.probe:
        print(missing or "a compiled engine can be built here")
        raise SystemExit(1 if missing else 0)
    if missing:
        raise SystemExit(f"cannot build the compiled engine: {missing}; the pure-Python engine runs")
    build(args.out)


if __name__ == "__main__":
    main()
