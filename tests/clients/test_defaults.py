"""Clients generated with each generator's own default settings take the documented requests as they are written.

A field the service fills in when it is left out (``hints``, ``known_deal``, a bid's ``sans_kitty`` …) is
optional in the contract, and must stay optional in a client generated with nothing but the generator's
defaults: openapi-typescript's default (``defaultNonNullable``) made every property with a ``default`` required,
so that ``{"players": 4, "seed": 1, "first_dealer": 3}`` did not compile as a session. The contract now says
those defaults in words (tests/api/test_openapi.py holds it to that); this suite generates a client with each
generator's defaults (``generate.default_clients``: openapi-typescript, @hey-api/openapi-ts, openapi-generator's
typescript-fetch, openapi-python-client) and compiles every request shape of the README, the docs, the client
packages' READMEs and the contract's examples (``shapes.request_shapes``) with ``tsc --strict`` against the
three TypeScript clients and with ``mypy --strict`` against the Python one. A request missing a required field is
refused by each compiler, which shows that the check checks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import generate
from .shapes import Shape, request_shapes, typescript_module
from .tooling import HERE, GeneratorTools

pytestmark = pytest.mark.slow  # three generators and two compilers

#: Each TypeScript client generated with its defaults: how a module imports its types, how a request type is
#: named from its component, and whether its properties are camelCased (typescript-fetch's default naming).
TYPESCRIPT: dict[str, tuple[str, str, bool]] = {
    "openapi-typescript": ('import type { components } from "./openapi-typescript/api";\n'
                           'type S = components["schemas"];', 'S["{}"]', False),
    "hey-api": ('import type * as T from "./hey-api/types.gen";', "T.{}", False),
    "openapi-generator": ('import type * as T from "./openapi-generator/models/index";', "T.{}", True),
}
TSCONFIG = {"compilerOptions": {"strict": True, "noEmit": True, "target": "es2022", "module": "esnext",
                                "moduleResolution": "bundler", "lib": ["es2022", "dom"], "types": []}}
#: A request without its one required field (a session move without ``move``), which must not compile.
MISSING_REQUIRED = Shape("MoveRequest", {}, "a move request without its move")


@pytest.fixture(scope="module")
def defaults(tools: GeneratorTools, typescript_node_modules: Path) -> generate.Build:
    return generate.default_clients(tools, typescript_node_modules)


@pytest.fixture(scope="module")
def shapes() -> list[Shape]:
    found = request_shapes()
    where = {shape.where.split(" (")[0] for shape in found}
    assert {"README.md", "docs/API.md", "contract example", "pinned"} <= where, where
    assert {"CreateSessionRequest", "MoveRequest", "CreateGameRequest"} <= {s.schema for s in found}
    return found


@pytest.fixture
def typescript_project(tmp_path: Path, defaults: generate.Build, typescript_node_modules: Path) -> Iterator[Path]:
    """A folder with each TypeScript client generated with its defaults, to compile shapes beside them."""
    for name in TYPESCRIPT:
        (tmp_path / name).symlink_to(defaults.folder / name, target_is_directory=True)
    (tmp_path / "node_modules").symlink_to(typescript_node_modules.resolve(), target_is_directory=True)
    yield tmp_path


def _tsc(project: Path, node_modules: Path, modules: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, source in modules.items():
        (project / name).write_text(source)
    (project / "tsconfig.json").write_text(json.dumps({**TSCONFIG, "files": sorted(modules)}))
    return subprocess.run([str(node_modules / ".bin" / "tsc"), "-p", "tsconfig.json"], cwd=project,
                          capture_output=True, text=True, timeout=600)


def test_the_generators_ran_with_their_defaults(defaults: generate.Build) -> None:
    assert (defaults.folder / "openapi-typescript" / "api.ts").is_file()
    assert (defaults.folder / "hey-api" / "types.gen.ts").is_file()
    assert (defaults.folder / "openapi-generator" / "models" / "CreateSessionRequest.ts").is_file()
    assert (generate.python_default_package(defaults) / "models" / "create_session_request.py").is_file()


def test_documented_requests_compile_with_tsc_strict_against_each_default_typescript_client(
        typescript_project: Path, typescript_node_modules: Path, shapes: list[Shape]) -> None:
    modules = {f"{name}.ts": typescript_module(shapes, header, type_of, camel)
               for name, (header, type_of, camel) in TYPESCRIPT.items()}
    result = _tsc(typescript_project, typescript_node_modules, modules)
    assert result.returncode == 0, f"tsc --strict refused a documented request:\n{result.stdout[-6000:]}"
    # The check checks: a request missing its required field is refused by every client's types.
    refused = {f"missing-{name}.ts": typescript_module([MISSING_REQUIRED], header, type_of, camel)
               for name, (header, type_of, camel) in TYPESCRIPT.items()}
    result = _tsc(typescript_project, typescript_node_modules, refused)
    assert result.returncode != 0
    for name in refused:
        assert any(line.startswith(name) and "'move'" in line for line in result.stdout.splitlines()), \
            (name, result.stdout[-3000:])


def test_documented_requests_type_check_with_mypy_strict_against_the_default_python_client(
        tmp_path: Path, defaults: generate.Build, tools: GeneratorTools, shapes: list[Shape]) -> None:
    package = generate.python_default_package(defaults)
    env = {**os.environ, "PYTHONPATH": str(package.parent)}

    def written(found: list[Shape], name: str) -> Path:
        data = tmp_path / f"{name}.json"
        data.write_text(json.dumps([{"schema": s.schema, "value": s.value, "where": s.where} for s in found]))
        result = subprocess.run([str(tools.python), str(HERE / "python" / "shapes.py"), package.name, str(data)],
                                capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode == 0, result.stderr[-4000:]
        source = tmp_path / f"{name}.py"
        source.write_text(result.stdout)
        return source

    def mypy(source: Path) -> subprocess.CompletedProcess[str]:
        # The generated package is followed silently (its own code is the generator's); the shapes are checked.
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                               "--python-executable", str(tools.python), "--no-incremental", source.name],
                              cwd=tmp_path, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "MYPYPATH": str(package.parent)})

    checked = written(shapes, "shapes")
    assert checked.read_text().count("m.CreateSessionRequest(") >= 5
    result = mypy(checked)
    assert result.returncode == 0, f"mypy --strict refused a documented request:\n{result.stdout[-6000:]}"
    refused = mypy(written([MISSING_REQUIRED], "missing"))
    assert refused.returncode != 0 and '"move"' in refused.stdout, refused.stdout[-3000:]
