"""Generating (and compiling) each client from the committed contract, and the generators' warnings.

Each build is cached next to the tools, keyed by the contract, the pinned generator versions and the
generator settings, so an unchanged contract is not generated again on a rerun; the generator's log is kept
with the build and its warnings are read from it every time.

Every warning a generator prints is sorted here: ``KNOWN_WARNINGS`` lists the ones that do not point at the
contract, each with the reason (docs/API.md, "Generated clients", says the same). Any other warning fails the
suite, so a contract change that a generator dislikes is seen at once.
"""

from __future__ import annotations

import re
import shutil
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .tooling import (
    CONTRACT,
    GENERATOR_REQUIREMENTS,
    HERE,
    ROOT,
    TYPESCRIPT_DIR,
    GeneratorTools,
    _build_once,
    cache_root,
    digest,
    run,
)

PYTHON_PACKAGE = "fivehundred_client"
JAVA_PACKAGE = "dev.fivehundred.client"
JAVA_TEMPLATES = HERE / "java" / "templates"
JAVA_SOURCES = HERE / "java" / "src"
JAVA_PROPERTIES = ",".join([
    f"invokerPackage={JAVA_PACKAGE}", f"apiPackage={JAVA_PACKAGE}.api", f"modelPackage={JAVA_PACKAGE}.model",
    "hideGenerationTimestamp=true",
    # JsonNullable needs jackson-databind-nullable, which no registry reachable here ships; the contract's
    # nullable fields are plain nullable values in Java without it.
    "openApiNullable=false",
    # One request object per operation (a builder), so a new optional parameter does not change every
    # method's signature.
    "useSingleRequestParameter=true",
])

# generator -> (regular expression over one warning line, why it does not point at the contract)
KNOWN_WARNINGS: dict[str, list[tuple[str, str]]] = {
    "openapi-generator": [
        (r"OpenAPI 3\.1 support is still in beta",
         "the generator's own notice for every OpenAPI 3.1 document; the contract is 3.1 on purpose (JSON Schema "
         "2020-12: const, null in type lists)"),
        (r"ModelUtils - Failed to get the schema name: null",
         "printed once per run for `additionalProperties: false` (a JSON Schema boolean schema, which the 3.1 parser "
         "has no name for): a schema with only that and a const property reproduces it. The contract says it on "
         "purpose, since the service refuses unknown fields; the generated models are complete and compile"),
    ],
    "openapi-python-client": [],
    "openapi-typescript": [],
}


@dataclass(frozen=True)
class Build:
    folder: Path
    log: str

    def lines(self, pattern: str) -> list[str]:
        """The log's lines that match ``pattern`` (how each generator marks a warning differs)."""
        return [line.strip() for line in self.log.splitlines() if re.search(pattern, line)]


def unexplained(generator: str, warnings: list[str]) -> list[str]:
    known = KNOWN_WARNINGS[generator]
    return [w for w in warnings if not any(re.search(p, w) for p, _ in known)]


def _cached(name: str, build: Callable[[Path], None], *keys: bytes | str | Path) -> Build:
    folder = _build_once(cache_root() / f"{name}-{digest(CONTRACT, GENERATOR_REQUIREMENTS, *keys)}", build)
    for older in cache_root().glob(f"{name}-*"):  # builds of earlier contracts are not needed again
        if older != folder and older.is_dir():
            shutil.rmtree(older, ignore_errors=True)
    return Build(folder, (folder / "build.log").read_text())


CLIENTS = ROOT / "clients"
#: What the client packages are built from besides the contract: the script and the package sources.
PACKAGE_SOURCES = sorted(p for p in CLIENTS.rglob("*") if p.is_file() and not {"build", "dist", "node_modules"}
                         & set(p.relative_to(CLIENTS).parts) and "__pycache__" not in p.parts)


def readme_example(readme: Path, language: str) -> str:
    """The first ``language`` code block of a package README: its usage example."""
    return readme.read_text().split(f"```{language}\n", 1)[1].split("```", 1)[0]


def _package(name: str, folder: Path, *options: str) -> tuple[Path, str]:
    """``clients/generate.py <name>``, building into ``folder``: the package it built, and the build's log."""
    run([sys.executable, str(CLIENTS / "generate.py"), name, "--work", str(folder / "work"),
         "--dist", str(folder / "dist"), *options])
    built = [p for p in (folder / "dist").iterdir() if p.suffix in (".whl", ".tgz")]
    assert len(built) == 1, built
    return built[0], (folder / "work" / f"{name}.log").read_text()


def python_client(tools: GeneratorTools) -> Build:
    """The Python client package, as clients/generate.py builds it (a wheel), installed with pip into
    ``site/`` (put it on PYTHONPATH; its dependencies are the generators' environment's)."""

    def build(folder: Path) -> None:
        wheel, log = _package("python", folder, "--python", str(tools.python))
        run([str(tools.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--target", str(folder / "site"), str(wheel)])
        (folder / "build.log").write_text(log)

    return _cached("python-client", build, "package", Path(__file__), *PACKAGE_SOURCES)


def typescript_client(node_modules: Path) -> Build:
    """The TypeScript client package, as clients/generate.py builds it (an npm tarball), unpacked into a node
    project's ``node_modules`` (as ``npm install <tarball>`` does; its one dependency, openapi-fetch, and the
    compiler are the pinned ones) and the scenario compiled against it with ``tsc --strict``."""
    sources = sorted((TYPESCRIPT_DIR / "src").glob("*.ts"))

    def build(folder: Path) -> None:
        tarball, generated = _package("typescript", folder, "--node-modules", str(node_modules))
        project = folder / "project"
        (project / "src").mkdir(parents=True)
        for item in ("package.json", "tsconfig.json"):
            shutil.copy(TYPESCRIPT_DIR / item, project / item)
        for source in sources:
            shutil.copy(source, project / "src" / source.name)
        # The package README's example, compiled with the scenario (and run by the suite).
        (project / "src" / "readme_example.ts").write_text(readme_example(CLIENTS / "typescript" / "README.md", "ts"))
        modules = project / "node_modules"
        modules.mkdir()
        for entry in node_modules.resolve().iterdir():
            (modules / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        with tarfile.open(tarball) as packed:
            packed.extractall(folder / "unpacked", filter="data")
        (folder / "unpacked" / "package").rename(modules / "five-hundred-referee-client")
        result = run([str(node_modules / ".bin" / "tsc"), "--strict", "-p", "tsconfig.json"], cwd=project)
        log = [generated, "$ tsc --strict", result.stdout, result.stderr]
        (folder / "build.log").write_text("\n".join(log))

    return _cached("typescript-client", build, TYPESCRIPT_DIR / "package-lock.json",
                   TYPESCRIPT_DIR / "tsconfig.json", Path(__file__), *sources, *PACKAGE_SOURCES)


def java_client(tools: GeneratorTools) -> Build:
    """openapi-generator's Java client (``library=native``: java.net.http.HttpClient), compiled with javac
    together with the scenario program, against the Jackson classes the generator's jar carries."""
    sources = sorted(JAVA_SOURCES.rglob("*.java"))
    templates = sorted(JAVA_TEMPLATES.glob("*.mustache"))

    def build(folder: Path) -> None:
        jar = str(tools.openapi_generator_jar)
        generated = folder / "generated"
        result = run(["java", "-jar", jar, "generate", "-i", str(CONTRACT), "-g", "java", "--library", "native",
                      "-t", str(JAVA_TEMPLATES), "-o", str(generated),
                      "--global-property", "models,apis,supportingFiles,modelDocs=false,apiDocs=false,"
                      "modelTests=false,apiTests=false",
                      "--additional-properties", JAVA_PROPERTIES])
        log = ["$ openapi-generator", result.stdout, result.stderr]
        java_files = [str(p) for p in sorted((generated / "src" / "main" / "java").rglob("*.java"))]
        result = run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(folder / "classes"), "-cp", jar,
                      *java_files, *map(str, sources)], timeout=900)
        log += ["$ javac", result.stdout, result.stderr]
        (folder / "build.log").write_text("\n".join(log))

    return _cached("java-client", build, JAVA_PROPERTIES, *sources, *templates)


#: The clients generated with each generator's own default settings (no option beyond input and output), as a
#: third party first runs them: each request type must let a field the service fills in be left out.
DEFAULT_GENERATORS = ("openapi-typescript", "hey-api", "openapi-generator", "openapi-python-client")


def default_clients(tools: GeneratorTools, node_modules: Path) -> Build:
    """openapi-typescript (``openapi-typescript/api.ts``), @hey-api/openapi-ts (``hey-api/``), openapi-generator's
    TypeScript client (``typescript-fetch``: its Java client's default library, okhttp-gson, needs jars that no
    registry reachable here ships; ``openapi-generator/``) and openapi-python-client (``python/``, its package
    inside), each with its defaults, from the committed contract."""

    def build(folder: Path) -> None:
        bin_dir = node_modules / ".bin"
        log: list[str] = []
        steps = [
            ("openapi-typescript", [str(bin_dir / "openapi-typescript"), str(CONTRACT), "-o",
                                    str(folder / "openapi-typescript" / "api.ts")], None),
            ("hey-api", [str(bin_dir / "openapi-ts"), "-i", str(CONTRACT), "-o", str(folder / "hey-api")], None),
            ("openapi-generator", ["java", "-jar", str(tools.openapi_generator_jar), "generate", "-i", str(CONTRACT),
                                   "-g", "typescript-fetch", "-o", str(folder / "openapi-generator")], None),
            ("openapi-python-client", [str(tools.python), "-m", "openapi_python_client", "generate", "--path",
                                       str(CONTRACT), "--output-path", str(folder / "python")], tools.env()),
        ]
        for name, command, env in steps:
            result = run(command, cwd=folder, env=env)
            log += [f"$ {name}", result.stdout, result.stderr]
        (folder / "build.log").write_text("\n".join(log))

    return _cached("default-clients", build, TYPESCRIPT_DIR / "package-lock.json", Path(__file__))


def python_default_package(build: Build) -> Path:
    """The package openapi-python-client generated with its defaults (the folder holding ``models/``)."""
    (models,) = (build.folder / "python").glob("*/models/__init__.py")
    return models.parent.parent
