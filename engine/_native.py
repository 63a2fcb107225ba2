"""Which engine runs: the compiled build (mypyc) when a current one exists, else the pure-Python modules.

The compiled modules never sit beside the sources. ``tools/build_engine.py`` (run by the package's install, see
``setup.py``, or by hand) writes them to a build directory with a ``manifest.json`` holding the SHA-256 of every
``engine/*.py`` file they were built from: ``$FIVE_HUNDRED_ENGINE_BUILD`` if set, else ``engine/_compiled`` inside
an installed (non-editable) package, else ``build/engine-mypyc`` beside the package in a checkout (an editable
install). At import, :func:`activate` hashes the current sources
and uses the build only if every hash matches and it was built for this interpreter; one edited, added or
removed ``.py`` file and the pure engine runs, so an editable install never runs a stale compiled module.

``FIVE_HUNDRED_ENGINE`` chooses: ``auto`` (the default: compiled when current, else pure), ``pure`` (never the
build), ``compiled`` (the build or an ``ImportError`` saying why not; CI uses it so a stale or missing build
cannot pass for a compiled run).

This module reads files only at import time, to choose modules, like the import system itself; the engine's
functions stay free of I/O. It is never compiled.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
from collections.abc import MutableSequence
from pathlib import Path

MODE_VARIABLE = "FIVE_HUNDRED_ENGINE"
BUILD_VARIABLE = "FIVE_HUNDRED_ENGINE_BUILD"
MANIFEST = "manifest.json"
#: The build directory inside an installed (non-editable) package, written by the install's build step.
INSTALLED_BUILD = "_compiled"
MODES = ("auto", "pure", "compiled")


def source_hashes(package_dir: Path) -> dict[str, str]:
    """SHA-256 of every ``.py`` file of the package directory, by file name."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(package_dir.glob("*.py"))}


def ext_suffix() -> str:
    """The extension-module suffix of this interpreter (``.cpython-311-x86_64-linux-gnu.so``)."""
    return str(sysconfig.get_config_var("EXT_SUFFIX") or importlib.machinery.EXTENSION_SUFFIXES[0])


def default_build_dir(package_dir: Path) -> Path:
    """``$FIVE_HUNDRED_ENGINE_BUILD``, else an installed package's own build, else the checkout's."""
    env = os.environ.get(BUILD_VARIABLE)
    if env:
        return Path(env)
    installed = package_dir / INSTALLED_BUILD
    return installed if installed.is_dir() else package_dir.parent / "build" / "engine-mypyc"


def check_build(package_dir: Path, build_dir: Path) -> tuple[dict[str, object] | None, str]:
    """(manifest, "") if ``build_dir`` holds a build of exactly the current sources for this interpreter, else
    (None, why not)."""
    manifest_path = build_dir / MANIFEST
    if not manifest_path.is_file():
        return None, f"no compiled build at {build_dir}"
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError) as exc:
        return None, f"unreadable manifest {manifest_path}: {exc}"
    if isinstance(manifest, dict) and isinstance(manifest.get("failed"), str):
        # Written by an install that could not build (tools/build_engine.py --install): say why.
        return None, f"no compiled build: the install could not build it ({manifest['failed']})"
    if not isinstance(manifest, dict) or manifest.get("ext_suffix") != ext_suffix():
        return None, f"the build at {build_dir} is for another interpreter"
    companions = manifest.get("companions", {})
    if not isinstance(companions, dict):
        return None, f"incomplete manifest {manifest_path}"
    # The engine's own sources by file name, a companion package's (compiled in the same build, found beside the
    # engine's package) by package and file name.
    for prefix, built, current in [("", manifest.get("sources"), source_hashes(package_dir)),
                                   *((f"{name}/", hashes, source_hashes(package_dir.parent / str(name)))
                                     for name, hashes in companions.items())]:
        if built != current:
            built = built if isinstance(built, dict) else {}
            changed = sorted(prefix + n for n in set(built) | set(current) if built.get(n) != current.get(n))
            return None, f"stale compiled build: {', '.join(changed)} changed since it was built"
    modules = manifest.get("modules")
    group = manifest.get("group_library")
    if not isinstance(modules, list) or not isinstance(group, str):
        return None, f"incomplete manifest {manifest_path}"
    missing = [m for m in [*modules, group] if not _extension(build_dir, str(m)).is_file()]
    if missing:
        return None, f"the build at {build_dir} lacks {', '.join(missing)}"
    return manifest, ""


def _extension(build_dir: Path, module: str) -> Path:
    """Where the build keeps a module: ``engine.game`` → ``engine/game<suffix>``, the group library at the top."""
    return build_dir.joinpath(*module.split(".")).with_name(module.split(".")[-1] + ext_suffix())


def activate(package_path: MutableSequence[str], package_dir: Path) -> tuple[str, str]:
    """Put a current compiled build first on the package's ``__path__``: ("compiled" | "pure", why)."""
    mode = os.environ.get(MODE_VARIABLE, "auto") or "auto"
    if mode not in MODES:
        raise ImportError(f"{MODE_VARIABLE}={mode!r}: expected one of {', '.join(MODES)}")
    if mode == "pure":
        return "pure", f"{MODE_VARIABLE}=pure"
    build_dir = default_build_dir(package_dir)
    manifest, why = check_build(package_dir, build_dir)
    if manifest is None:
        if mode == "compiled":
            raise ImportError(f"{MODE_VARIABLE}=compiled but {why} (run: python tools/build_engine.py)")
        return "pure", why
    try:
        _load_group_library(build_dir, str(manifest["group_library"]))
    except (ImportError, OSError) as exc:
        if mode == "compiled":
            raise ImportError(f"{MODE_VARIABLE}=compiled but the build at {build_dir} does not load: {exc}") from exc
        return "pure", f"the build at {build_dir} does not load: {exc}"
    package_path.insert(0, str(build_dir / "engine"))
    _ACTIVE[:] = [(build_dir, manifest)]
    return "compiled", f"compiled build at {build_dir}"


#: The compiled build in use, once :func:`activate` has chosen one: (its directory, its manifest).
_ACTIVE: list[tuple[Path, dict[str, object]]] = []


def companion_path(name: str) -> Path | None:
    """Where the compiled build in use keeps package ``name``'s modules, if it was built with them (see
    ``tools/build_engine.py``, ``COMPANIONS``): the package puts it first on its ``__path__``. None while the
    pure engine runs: a companion runs compiled exactly when the engine does, from the same build."""
    if not _ACTIVE:
        return None
    build_dir, manifest = _ACTIVE[0]
    companions = manifest.get("companions")
    return build_dir / name if isinstance(companions, dict) and name in companions else None


def _load_group_library(build_dir: Path, group: str) -> None:
    # The modules' shared library is a top-level module that each compiled module imports by name: load it from
    # the build directory under that name, so nothing is added to sys.path.
    if group in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(group, _extension(build_dir, group))
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {group} from {build_dir}")
    library = importlib.util.module_from_spec(spec)
    sys.modules[group] = library
    try:
        spec.loader.exec_module(library)
    except BaseException:
        del sys.modules[group]
        raise


def _activate_package() -> tuple[str, str]:
    package = sys.modules[__name__.rpartition(".")[0]]  # the engine package, being initialised
    return activate(package.__path__, Path(__file__).resolve().parent)


#: "compiled" or "pure", and why: imported first by ``engine/__init__.py``, before any other engine module.
ENGINE_BUILD, ENGINE_BUILD_REASON = _activate_package()
