"""The install is reproducible: ``constraints.txt`` pins every dependency within the ranges of
``pyproject.toml``, and the README's test command (which uses it) is exactly what ``.ci/run`` runs."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support import ROOT


def pins() -> dict[str, Version]:
    out: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep, f"constraints.txt: {line!r} is not a name==version pin"
        out[canonicalize_name(name)] = Version(version)
    return out


def requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]


def test_every_dependency_is_pinned_within_its_range() -> None:
    pinned = pins()
    for requirement in requirements():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"constraints.txt does not pin {requirement.name}"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {requirement.name}=={pinned[name]}, outside pyproject.toml's {requirement}")


def test_the_majors_the_code_relies_on_are_bounded_above() -> None:
    # Litestar removes in 3.0 what 2.x deprecates (the suite fails on its deprecations), and msgspec's msgpack
    # bytes are the snapshots' format; redis-py is unbounded, its internals being held in one adapter (below).
    bounded = {canonicalize_name(r.name): r for r in requirements()}
    for name in ("litestar", "msgspec"):
        assert any(spec.operator in ("<", "<=", "==", "~=") for spec in bounded[name].specifier), bounded[name]


def test_the_private_apis_of_dependencies_live_in_one_adapter_each() -> None:
    private = re.compile(r"litestar\._|make_connection|send_packed_command|read_response|\.can_read\b|slots_cache")
    users = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "service").rglob("*.py")
                   if private.search(path.read_text()))
    assert users == ["service/ops/redis_compat.py", "service/web/litestar_compat.py"], users


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    command = next(line for line in readme.splitlines() if line.startswith("python3 -m venv") and "pytest" in line)
    assert "-c constraints.txt" in command
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(rf"^{re.escape(command)} \|\| exit 1$", ci, re.M), f".ci/run does not run {command!r}"
