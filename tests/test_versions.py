"""One release number and one licence: the package (``pyproject.toml``, which reads ``service/version.py``), the
HTTP contract (``openapi/openapi.json``'s ``info.version``) and the client packages (``clients/``) agree."""

from __future__ import annotations

import importlib.metadata
import json
import tomllib
from typing import Any

from service.version import __version__
from tests.support import ROOT


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_package_reads_its_version_from_the_one_place() -> None:
    data = pyproject()
    assert "version" not in data["project"], "pyproject.toml must not repeat the version: service/version.py has it"
    assert "version" in data["project"]["dynamic"]
    assert data["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "service.version.__version__"}
    installed = importlib.metadata.version("five-hundred-referee")
    assert installed == __version__, (f"the installed package says {installed}, service/version.py {__version__}: "
                                      "reinstall (pip install -e .)")


def test_the_contract_carries_the_release_version() -> None:
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert document["info"]["version"] == __version__, "regenerate openapi/openapi.json (openapi/regenerate.py)"


def test_the_release_is_semantic_and_the_rules_version_separate() -> None:
    from engine.options import RULES_VERSION

    major, _minor, _patch = (int(part) for part in __version__.split("."))
    assert major == 1, "the /v1 contract is release 1.x; a major release is a new path prefix"
    assert __version__ != RULES_VERSION


def test_the_licence_is_declared() -> None:
    project = pyproject()["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    metadata = importlib.metadata.metadata("five-hundred-referee")
    assert metadata["License-Expression"] == "MIT"


def test_the_client_packages_take_the_contracts_version_and_the_licence() -> None:
    """clients/generate.py stamps the contract's version into both packages (the client suite checks the built
    wheel and tarball); their committed metadata declares the licence and leaves the version to it."""
    python = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text())
    assert python["project"]["dynamic"] == ["version"]
    assert python["tool"]["setuptools"]["dynamic"]["version"] == {"file": "VERSION"}
    assert (python["project"]["license"], python["project"]["license-files"]) == ("MIT", ["LICENSE"])
    typescript = json.loads((ROOT / "clients" / "typescript" / "package.json").read_text())
    assert typescript["license"] == "MIT" and "LICENSE" in typescript["files"]
    script = (ROOT / "clients" / "generate.py").read_text()
    assert '(stage / "VERSION").write_text(contract_version()' in script
    assert 'package["version"] = version' in script
