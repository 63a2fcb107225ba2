"""The compiled engine (mypyc) and the loader that chooses it: never stale, never a different wire format.

The loader's choice is tested on every run, with or without a C compiler. The tests marked ``needs_build`` need
a compiled build of the current sources (``python tools/build_engine.py``); CI builds one and runs the engine
tests with ``FIVE_HUNDRED_ENGINE=compiled``, where they run; elsewhere they are skipped, saying why.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

import engine
from engine import Options, _native, apply_move, legal_moves, new_game

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "engine"
BUILD = _native.default_build_dir(PACKAGE)

needs_build = pytest.mark.skipif(engine.ENGINE_BUILD != "compiled",
                                 reason=f"the pure engine is running ({engine.ENGINE_BUILD_REASON})")


def _fake_build(tmp_path: Path, package_dir: Path) -> Path:
    """A build directory whose manifest matches ``package_dir``, with empty files where the modules would be."""
    build = tmp_path / "build"
    (build / "engine").mkdir(parents=True)
    suffix = _native.ext_suffix()
    (build / f"g__mypyc{suffix}").write_bytes(b"")
    (build / "engine" / f"game{suffix}").write_bytes(b"")
    manifest = {"ext_suffix": suffix, "modules": ["engine.game"], "group_library": "g__mypyc",
                "sources": _native.source_hashes(package_dir)}
    (build / _native.MANIFEST).write_text(json.dumps(manifest))
    return build


def _copy_sources(tmp_path: Path) -> Path:
    """A copy of the engine's sources and, beside them, of the packages compiled with it (the bots)."""
    for name in ("engine", "bots"):
        copy = tmp_path / "src" / name
        copy.mkdir(parents=True)
        for p in (ROOT / name).glob("*.py"):
            shutil.copy2(p, copy / p.name)
    return tmp_path / "src" / "engine"


def test_a_build_of_the_current_sources_is_accepted(tmp_path: Path) -> None:
    package = _copy_sources(tmp_path)
    manifest, why = _native.check_build(package, _fake_build(tmp_path, package))
    assert manifest is not None and why == ""


@pytest.mark.parametrize("edit", ["change", "add", "remove"])
def test_any_source_edit_makes_the_build_stale(tmp_path: Path, edit: str) -> None:
    package = _copy_sources(tmp_path)
    build = _fake_build(tmp_path, package)
    if edit == "change":
        (package / "game.py").write_text((package / "game.py").read_text() + "\n# an edit\n")
        changed = "game.py"
    elif edit == "add":
        (package / "extra.py").write_text("X = 1\n")
        changed = "extra.py"
    else:
        (package / "rules.py").unlink()
        changed = "rules.py"
    manifest, why = _native.check_build(package, build)
    assert manifest is None
    assert why.startswith("stale compiled build") and changed in why


def test_an_edit_to_a_package_compiled_with_the_engine_makes_the_whole_build_stale(tmp_path: Path) -> None:
    """The bots are compiled in the engine's build (one mypyc group): an edit to them, and neither runs compiled."""
    package = _copy_sources(tmp_path)
    build = _fake_build(tmp_path, package)
    data = json.loads((build / _native.MANIFEST).read_text())
    data["companions"] = {"bots": _native.source_hashes(package.parent / "bots")}
    (build / _native.MANIFEST).write_text(json.dumps(data))
    assert _native.check_build(package, build) == (data, "")
    expert = package.parent / "bots" / "expert.py"
    expert.write_text(expert.read_text() + "\n# an edit\n")
    manifest, why = _native.check_build(package, build)
    assert manifest is None and why == "stale compiled build: bots/expert.py changed since it was built"
    data["companions"] = ["bots"]
    (build / _native.MANIFEST).write_text(json.dumps(data))
    assert "incomplete manifest" in _native.check_build(package, build)[1]


def test_a_build_for_another_interpreter_or_incomplete_is_refused(tmp_path: Path) -> None:
    package = _copy_sources(tmp_path)
    build = _fake_build(tmp_path, package)
    (build / "engine" / f"game{_native.ext_suffix()}").unlink()
    assert "lacks engine.game" in _native.check_build(package, build)[1]
    data = json.loads((build / _native.MANIFEST).read_text())
    data["ext_suffix"] = ".cpython-39-other.so"
    (build / _native.MANIFEST).write_text(json.dumps(data))
    assert "another interpreter" in _native.check_build(package, build)[1]
    (build / _native.MANIFEST).write_text("{not json")
    assert "unreadable manifest" in _native.check_build(package, build)[1]
    assert "no compiled build" in _native.check_build(package, tmp_path / "nowhere")[1]


def _import_in_subprocess(env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    code = ("import engine, engine.game; print(engine.ENGINE_BUILD, engine.game.__file__); "
            "print(engine.ENGINE_BUILD_REASON)")
    full = {k: v for k, v in os.environ.items() if not k.startswith("FIVE_HUNDRED_ENGINE")} | env
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=full, capture_output=True, text=True,
                          timeout=120)


def test_required_compiled_build_fails_loudly_when_missing(tmp_path: Path) -> None:
    result = _import_in_subprocess({"FIVE_HUNDRED_ENGINE": "compiled", "FIVE_HUNDRED_ENGINE_BUILD": str(tmp_path)})
    assert result.returncode != 0
    assert "FIVE_HUNDRED_ENGINE=compiled but no compiled build" in result.stderr


def test_auto_without_a_build_and_pure_mode_run_the_python_modules(tmp_path: Path) -> None:
    for env in ({"FIVE_HUNDRED_ENGINE_BUILD": str(tmp_path)}, {"FIVE_HUNDRED_ENGINE": "pure"}):
        result = _import_in_subprocess(env)
        assert result.returncode == 0, result.stderr
        build, path = result.stdout.split()[:2]
        assert build == "pure" and path == str(PACKAGE / "game.py")


def test_an_unknown_mode_is_refused() -> None:
    result = _import_in_subprocess({"FIVE_HUNDRED_ENGINE": "fast"})
    assert result.returncode != 0 and "expected one of auto, pure, compiled" in result.stderr


# ------------------------------------------------------------------------------- the install's build step

BUILD_TOOL = ROOT / "tools" / "build_engine.py"


def _build_tool(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("FIVE_HUNDRED_ENGINE")} | (env or {})
    return subprocess.run([sys.executable, str(BUILD_TOOL), *args], cwd=ROOT, env=full, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.skipif(not os.environ.get("CI"), reason="CI checks its own fresh install (pip install -e .)")
def test_the_install_built_the_compiled_engine_where_a_compiler_is_present() -> None:
    """The README's install (``pip install -e .``, as CI runs it) compiled the engine, current with the sources,
    wherever a C compiler is present; without one the build directory says why."""
    probe = _build_tool("--probe")
    manifest, why = _native.check_build(PACKAGE, BUILD)
    if probe.returncode == 0:
        assert manifest is not None, f"the install left no current compiled build: {why}"
        assert sorted(manifest["sources"]) == sorted(p.name for p in PACKAGE.glob("*.py"))  # type: ignore[call-overload]
        assert manifest["companions"] == {"bots": _native.source_hashes(ROOT / "bots")}
    else:
        assert manifest is None and "the install could not build it" in why, why


def test_without_a_working_compiler_the_install_step_records_why_and_the_pure_engine_runs(tmp_path: Path) -> None:
    """``CC`` pointing at a program that fails: the install's step exits 0, its manifest says why, and the engine
    runs pure saying so (``compiled`` mode refuses, saying the same)."""
    build = tmp_path / "build"
    result = _build_tool("--install", "--out", str(build), env={"CC": "/bin/false"})
    assert result.returncode == 0, result.stderr
    assert "could not be built" in result.stdout and "the C compiler (/bin/false) cannot compile" in result.stdout
    assert json.loads((build / _native.MANIFEST).read_text())["failed"].startswith("the C compiler (/bin/false)")
    imported = _import_in_subprocess({"FIVE_HUNDRED_ENGINE_BUILD": str(build)})
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split()[:2] == ["pure", str(PACKAGE / "game.py")]
    assert "no compiled build: the install could not build it (the C compiler (/bin/false)" in imported.stdout
    required = _import_in_subprocess({"FIVE_HUNDRED_ENGINE_BUILD": str(build), "FIVE_HUNDRED_ENGINE": "compiled"})
    assert required.returncode != 0 and "the install could not build it" in required.stderr
    missing = _build_tool("--install", "--out", str(tmp_path / "other"), env={"CC": str(tmp_path / "no-such-cc")})
    assert missing.returncode == 0 and f"no C compiler ({tmp_path / 'no-such-cc'})" in missing.stdout


def test_the_install_step_keeps_a_current_build_and_skips_when_told_pure(tmp_path: Path) -> None:
    current = _fake_build(tmp_path, PACKAGE)
    before = (current / _native.MANIFEST).read_text()
    result = _build_tool("--install", "--out", str(current), env={"CC": "/bin/false"})
    assert result.returncode == 0 and "is current: kept" in result.stdout
    assert (current / _native.MANIFEST).read_text() == before
    skipped = _build_tool("--install", "--out", str(tmp_path / "pure"), env={"FIVE_HUNDRED_ENGINE": "pure"})
    assert skipped.returncode == 0 and "FIVE_HUNDRED_ENGINE=pure: the compiled engine was not built" in skipped.stdout
    assert not (tmp_path / "pure").exists()


@pytest.mark.slow
def test_a_regular_install_carries_its_build_steps_answer_inside_the_package(tmp_path: Path) -> None:
    """The wheel that ``pip install .`` (and the image) installs, built by pip from a copy of the project with a
    failing ``CC``: the build step still lets it build, the package carries the reason in
    ``engine/_compiled/manifest.json``, and the wheel is tagged for this platform, never ``py3-none-any``."""
    import zipfile

    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "_compiled")
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("engine", "bots", "service"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    (src / "tools").mkdir()
    shutil.copy2(BUILD_TOOL, src / "tools" / BUILD_TOOL.name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIVE_HUNDRED_ENGINE")} | {"CC": "/bin/false"}
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                             str(src)], env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert not wheel.name.endswith("py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        manifest = json.loads(archive.read(f"engine/{_native.INSTALLED_BUILD}/{_native.MANIFEST}"))
        assert "engine/game.py" in archive.namelist()
    assert manifest["failed"].startswith("the C compiler (/bin/false) cannot compile"), manifest


def test_an_installed_package_finds_its_own_build(tmp_path: Path) -> None:
    """A regular install carries its build inside the package (``engine/_compiled``); a checkout's is beside it."""
    package = _copy_sources(tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("FIVE_HUNDRED_ENGINE_BUILD", raising=False)
        assert _native.default_build_dir(package) == package.parent / "build" / "engine-mypyc"
        (package / _native.INSTALLED_BUILD).mkdir()
        assert _native.default_build_dir(package) == package / _native.INSTALLED_BUILD
        patch.setenv("FIVE_HUNDRED_ENGINE_BUILD", str(tmp_path / "elsewhere"))
        assert _native.default_build_dir(package) == tmp_path / "elsewhere"


# ---------------------------------------------------------------------------------------- with a real build


@needs_build
def test_the_hot_modules_are_compiled_and_the_structs_are_not() -> None:
    import engine.cards
    import engine.game
    import engine.model
    import engine.options

    for module in (engine.game, engine.cards):
        assert module.__file__ is not None and module.__file__.endswith(_native.ext_suffix())
        assert Path(module.__file__).is_relative_to(BUILD)
    for module in (engine.model, engine.options):
        assert module.__file__ == str(PACKAGE / Path(module.__file__).name)


@needs_build
def test_the_bots_run_compiled_from_the_engines_build_and_their_structs_do_not() -> None:
    """The bots' search loops come from the same build as the engine; their Structs' modules stay Python."""
    import bots
    import bots.basic
    import bots.cardplay
    import bots.endgame
    import bots.expert
    import bots.inference

    assert bots.BOTS_BUILD == "compiled", bots.BOTS_BUILD_REASON
    for module in (bots.expert, bots.cardplay, bots.basic, bots.endgame):
        assert module.__file__ is not None and module.__file__.endswith(_native.ext_suffix())
        assert Path(module.__file__).is_relative_to(BUILD / "bots")
    for module in (bots, bots.inference):
        assert module.__file__ is not None and Path(module.__file__).parent == ROOT / "bots"


_DECISIONS = """
import json, bots, engine
from engine import view
from tests.bots.states import mover, random_states
out = {"build": [engine.ENGINE_BUILD, bots.BOTS_BUILD], "decisions": []}
for players in (2, 3, 4, 5, 6, "ghosts"):
    for i, (opts, state) in enumerate(random_states(players, games=6, seed=11, every=7)):
        if state.to_act is None:
            continue
        d = bots.decide(view(state, mover(state)), opts, level="expert", seed=i, budget=48)
        out["decisions"].append(repr(d))
print(json.dumps(out))
"""


@needs_build
def test_compiled_and_pure_bots_decide_alike() -> None:
    """The same expert decisions (move, every candidate's value and success share, what was spent), position by
    position, at every player count and the ghost-partners game, whether the bots run compiled or pure."""
    dumps = {}
    for mode in ("pure", "compiled"):
        env = {k: v for k, v in os.environ.items() if k != "FIVE_HUNDRED_ENGINE"} | {"FIVE_HUNDRED_ENGINE": mode}
        result = subprocess.run([sys.executable, "-c", _DECISIONS], cwd=ROOT, env=env, capture_output=True,
                                text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        dumps[mode] = json.loads(result.stdout)
        assert dumps[mode]["build"] == [mode, mode]
    assert len(dumps["pure"]["decisions"]) > 60
    assert dumps["pure"]["decisions"] == dumps["compiled"]["decisions"]


@needs_build
def test_an_edited_source_falls_back_to_pure_end_to_end(tmp_path: Path) -> None:
    """A real build and a copy of its sources: current → compiled; one edit → pure, naming the file."""
    package = _copy_sources(tmp_path)
    build = tmp_path / "build"
    shutil.copytree(BUILD, build)
    env = {"FIVE_HUNDRED_ENGINE_BUILD": str(build), "PYTHONPATH": str(package.parent)}
    result = _import_in_subprocess(env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["compiled", str(build / "engine" / f"game{_native.ext_suffix()}")]
    (package / "rules.py").write_text((package / "rules.py").read_text() + "\n# edited after the build\n")
    result = _import_in_subprocess(env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["pure", str(package / "game.py")]
    assert "stale compiled build: rules.py changed" in result.stdout
    result = _import_in_subprocess(env | {"FIVE_HUNDRED_ENGINE": "compiled"}, cwd=tmp_path)
    assert result.returncode != 0 and "stale compiled build: rules.py changed" in result.stderr


_DUMP = """
import json, random, sys, msgspec, engine
from engine import Options, apply_move, legal_moves, new_game
out = {"build": engine.ENGINE_BUILD, "structs": {}, "games": []}
for name in ("model", "options", "game"):
    module = getattr(engine, name)
    for attr, cls in sorted(vars(module).items()):
        if isinstance(cls, type) and issubclass(cls, msgspec.Struct) and cls.__module__ == module.__name__:
            cfg = cls.__struct_config__
            out["structs"][cls.__module__ + "." + attr] = [
                {k: repr(getattr(cfg, k)) for k in dir(cfg) if not k.startswith("_")},
                list(cls.__struct_fields__), repr(cls.__struct_defaults__)]
for players in (2, 3, 4, 5, 6):
    rng = random.Random(players)
    state, events = new_game(Options(players=players), seed=players)
    trail = []
    for _ in range(150):
        if state.to_act is None:
            break
        moves = legal_moves(state)
        move = moves[rng.randrange(len(moves))]
        state, events = apply_move(state, move)
        trail.append(msgspec.json.encode([move, events]).decode())
    out["games"].append([msgspec.json.encode(state).decode(), msgspec.msgpack.encode(state).hex(), trail])
print(json.dumps(out))
"""


@needs_build
def test_compiled_and_pure_engines_agree_on_structs_moves_and_encodings() -> None:
    """Same Struct definitions, same games from the same seeds, byte-identical JSON and msgpack encodings."""
    dumps = {}
    for mode in ("pure", "compiled"):
        env = {k: v for k, v in os.environ.items() if k != "FIVE_HUNDRED_ENGINE"} | {"FIVE_HUNDRED_ENGINE": mode}
        result = subprocess.run([sys.executable, "-c", _DUMP], cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0, result.stderr
        dumps[mode] = json.loads(result.stdout)
        assert dumps[mode]["build"] == mode
    assert dumps["pure"]["structs"] == dumps["compiled"]["structs"]
    assert len(dumps["pure"]["structs"]) > 40
    assert dumps["pure"]["games"] == dumps["compiled"]["games"]


def test_a_mid_game_state_round_trips() -> None:
    """Whichever engine runs: a mid-game state decodes back to an equal state (the snapshot tests pin bytes)."""
    rng = random.Random(5)
    state, _ = new_game(Options(), seed=5)
    for _ in range(30):
        moves = legal_moves(state)
        state, _ = apply_move(state, moves[rng.randrange(len(moves))])
    for codec in (msgspec.json, msgspec.msgpack):
        assert codec.decode(codec.encode(state), type=type(state)) == state
