"""Generated clients against the live service: openapi-python-client, openapi-typescript + openapi-fetch
(compiled with ``tsc --strict``, run with node) and openapi-generator's Java client (``library=native``,
compiled with javac, run on the JDK's own ``java.net.http.HttpClient``, which asks every plain-http request to
upgrade to h2c).

Each client is generated from the committed ``openapi/openapi.json`` and plays the same scenario (see
``conftest.SCENARIO``) using only what its generator made: create a game, list its legal moves, apply one, read
an illegal move's ``ILLEGAL_MOVE`` problem and its ``reason``, create a session, play it to the end with
``If-Match`` on every move, reading each new ``ETag``, and read the host's event stream to its end. Each prints
what it saw as one ``REPORT`` line; ``check_report`` holds it to the plain-HTTP reference.
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
import zipfile
from typing import Any

import pytest

from service.version import __version__

from . import generate
from .conftest import SCENARIO
from .tooling import HERE, ROOT, GeneratorTools, LiveService, read_report, require_tools

#: The quick loop (``pytest -m "not slow"``) leaves these out: three client generators,
#: their compilers and a live service.
pytestmark = pytest.mark.slow

CLIENT_TIMEOUT = 180



def check_report(report: dict[str, Any], ref: dict[str, Any]) -> None:
    game = report["game"]
    assert (game["phase"], game["to_act"]) == (ref["game"]["phase"], ref["game"]["to_act"])
    assert game["snapshot_chars"] > 0
    assert game["options"] == ref["game"]["options"], "the options did not survive the client's model"
    assert report["legal"] == ref["legal"]
    assert report["applied"] == ref["applied"]
    illegal = report["illegal"]
    assert (illegal["status"], illegal["code"], illegal["reason"]) == \
        (ref["illegal"]["status"], ref["illegal"]["code"], ref["illegal"]["reason"])
    assert illegal["code"] == "ILLEGAL_MOVE" and illegal["reason"]
    assert str(illegal["content_type"]).startswith("application/problem+json")

    session = report["session"]
    assert (session["status"], session["etag"], session["version"], session["seats"]) == (201, '"1"', 1, 4)
    assert str(session["location"]).startswith("/v1/sessions/")
    moves = report["moves"]
    assert len(moves) == ref["session_game"]["moves"]
    for before, move in enumerate(moves, start=1):
        assert move == {"if_match": before, "etag": f'"{before + 1}"', "version": before + 1}
    assert report["final_phase"] == ref["session_game"]["final_phase"] == "game_over"

    stream = report["stream"]
    assert stream["status"] == 200 and str(stream["content_type"]).startswith("text/event-stream")
    frames = [f for f in stream["frames"] if "data" in f]
    events = [f for f in frames if not is_end(f)]
    types = [event_of(f)["type"] for f in events]
    assert types == ref["session_game"]["events"]
    for frame, kind in zip(events, types, strict=True):
        assert frame.get("event", kind) == kind, "a named event must carry its own type"
        data = json.loads(frame["data"])
        if "version" in data:  # the session's version after the move, as the event's id says
            assert f"{data['version']}-" == frame["id"][:len(str(data["version"])) + 1], frame
    ids = [tuple(int(part) for part in f["id"].split("-")) for f in events]
    assert ids == sorted(set(ids)), "event ids must be unique and increasing"
    assert all(not is_end(f) for f in frames[:-1]), "nothing may follow the end of the stream"


def event_of(frame: dict[str, str]) -> dict[str, Any]:
    """The event a stream frame carries: its data, or the data's ``event`` when it is wrapped with the
    session's ``version`` and ``to_act``."""
    data = json.loads(frame["data"])
    event = data.get("event", data)
    assert isinstance(event, dict) and "type" in event, frame
    return event


def is_end(frame: dict[str, str]) -> bool:
    """The stream's final ``end`` frame (named ``end``, or data of type ``end``)."""
    if frame.get("event") == "end":
        return True
    try:
        return bool(json.loads(frame.get("data", "")).get("type") == "end")
    except (ValueError, AttributeError):
        return False


def assert_no_unexplained(build: generate.Build, generator: str, pattern: str) -> None:
    found = generate.unexplained(generator, build.lines(pattern))
    assert not found, f"{generator} warned about the contract (fix it, or explain it in KNOWN_WARNINGS):\n" + \
        "\n".join(found)


# ---------------------------------------------------------------------------------------------------- Python


@pytest.fixture(scope="module")
def python_build(tools: GeneratorTools) -> generate.Build:
    return generate.python_client(tools)


def test_python_client_generates_without_contract_warnings(python_build: generate.Build) -> None:
    # openapi-python-client prints its warnings as blocks after "Warning(s) encountered while generating".
    assert "Warning(s) encountered" not in python_build.log, python_build.log
    assert_no_unexplained(python_build, "openapi-python-client", r"(?i)warn")


def test_python_client_plays_the_scenario(python_build: generate.Build, tools: GeneratorTools,
                                          live_service: LiveService, reference: dict[str, Any]) -> None:
    env = {**os.environ, "PYTHONPATH": str(python_build.folder / "site")}
    result = subprocess.run([str(tools.python), str(HERE / "python" / "play.py"), live_service.url,
                             json.dumps(SCENARIO)], capture_output=True, text=True, env=env, timeout=CLIENT_TIMEOUT)
    assert result.returncode == 0, f"the Python client failed:\n{result.stdout}\n{result.stderr}"
    check_report(read_report(result.stdout), reference)


def test_python_package_carries_the_release_version_and_licence(python_build: generate.Build) -> None:
    (wheel,) = (python_build.folder / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as packed:
        names = packed.namelist()
        metadata = packed.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    fields = dict(line.split(": ", 1) for line in metadata.split("\n\n")[0].splitlines() if ": " in line)
    assert (fields["Name"], fields["Version"], fields["License-Expression"]) == \
        ("five-hundred-referee-client", __version__, "MIT")
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "fivehundred_client/py.typed" in names


def test_python_package_readme_example_runs(python_build: generate.Build, tools: GeneratorTools,
                                            live_service: LiveService) -> None:
    """The package README's example, as written, against the live service (only its base URL changed)."""
    example = generate.readme_example(ROOT / "clients" / "python" / "README.md", "python")
    assert 'BASE_URL = "http://127.0.0.1:8000"' in example
    example = example.replace('"http://127.0.0.1:8000"', repr(live_service.url))
    env = {**os.environ, "PYTHONPATH": str(python_build.folder / "site")}
    result = subprocess.run([str(tools.python), "-c", example], capture_output=True, text=True, env=env,
                            timeout=CLIENT_TIMEOUT)
    assert result.returncode == 0, f"the README example failed:\n{result.stdout}\n{result.stderr}"
    assert "bid_made" in result.stdout or "passed" in result.stdout, result.stdout


# ------------------------------------------------------------------------------------------------ TypeScript


@pytest.fixture(scope="module")
def typescript_build(typescript_node_modules: Any) -> generate.Build:
    return generate.typescript_client(typescript_node_modules)


def test_typescript_client_generates_and_compiles_strictly(typescript_build: generate.Build) -> None:
    # openapi-typescript marks problems with a warning sign or "warn"; tsc --strict failing fails the build.
    assert_no_unexplained(typescript_build, "openapi-typescript", r"(?i)⚠|warn|error")
    assert (typescript_build.folder / "project" / "dist" / "play.js").is_file()


def test_typescript_client_plays_the_scenario(typescript_build: generate.Build, live_service: LiveService,
                                              reference: dict[str, Any]) -> None:
    result = subprocess.run(["node", str(typescript_build.folder / "project" / "dist" / "play.js"), live_service.url,
                             json.dumps(SCENARIO)], capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    assert result.returncode == 0, f"the TypeScript client failed:\n{result.stdout}\n{result.stderr}"
    check_report(read_report(result.stdout), reference)


def test_typescript_package_carries_the_release_version_and_licence(typescript_build: generate.Build) -> None:
    (tarball,) = (typescript_build.folder / "dist").glob("*.tgz")
    with tarfile.open(tarball) as packed:
        names = packed.getnames()
        extracted = packed.extractfile("package/package.json")
        assert extracted is not None
        package = json.loads(extracted.read())
    assert (package["name"], package["version"], package["license"]) == \
        ("five-hundred-referee-client", __version__, "MIT")
    assert {"package/LICENSE", "package/README.md", "package/dist/index.js", "package/dist/index.d.ts",
            "package/dist/api.d.ts"} <= set(names)
    with tarfile.open(tarball) as packed:
        index = packed.extractfile("package/dist/index.js")
        assert index is not None
        assert f'CONTRACT_VERSION = "{__version__}"' in index.read().decode()


def test_typescript_package_readme_example_runs(typescript_build: generate.Build, live_service: LiveService) -> None:
    """The package README's example, compiled with tsc --strict beside the scenario, run against the live
    service (only its base URL changed)."""
    compiled = typescript_build.folder / "project" / "dist" / "readme_example.js"
    code = compiled.read_text()
    assert '"http://127.0.0.1:8000"' in code
    pointed = compiled.with_name("readme_example_live.js")
    pointed.write_text(code.replace('"http://127.0.0.1:8000"', json.dumps(live_service.url)))
    result = subprocess.run(["node", str(pointed)], capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    assert result.returncode == 0, f"the README example failed:\n{result.stdout}\n{result.stderr}"
    first, second = result.stdout.strip().splitlines()
    assert first.isdigit() and "type" in second, result.stdout


# ------------------------------------------------------------------------------------------------------ Java


@pytest.fixture(scope="module")
def java_build(tools: GeneratorTools) -> generate.Build:
    require_tools("java", "javac")
    return generate.java_client(tools)


def test_java_client_generates_without_contract_warnings(java_build: generate.Build) -> None:
    assert_no_unexplained(java_build, "openapi-generator", r"\b(WARN|ERROR)\b")


def test_java_client_plays_the_scenario(java_build: generate.Build, tools: GeneratorTools,
                                        live_service: LiveService, reference: dict[str, Any]) -> None:
    classpath = os.pathsep.join([str(java_build.folder / "classes"), str(tools.openapi_generator_jar)])
    result = subprocess.run(["java", "-cp", classpath, "dev.fivehundred.check.Play", live_service.url,
                             json.dumps(SCENARIO)], capture_output=True, text=True, timeout=CLIENT_TIMEOUT)
    assert result.returncode == 0, f"the Java client failed:\n{result.stdout}\n{result.stderr}"
    check_report(read_report(result.stdout), reference)
