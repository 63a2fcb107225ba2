"""deploy/CONFIGURATION.md, the one table of environment variables, against what the code reads.

The variables and their defaults come from the code itself: every ``load_*(env)`` function of
``service/config.py`` and of the served protocol (``service/ops/serving.py``) is called with an environment that
records each name asked for, and each documented default is given back to it explicitly, which must change
nothing. So a setting added to the code without a row (or a row for a setting the code no longer reads, or a
wrong default) fails here, naming what to add or correct.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

import pytest

import service.config
import service.ops.serving
from tests.deploy.configuration import TABLE, Variable, variables
from tests.support import ROOT

CODE_READERS = {"app": service.config, "served protocol": service.ops.serving}


class Recording(Mapping[str, str]):
    """An environment holding ``values`` that records every name the code asks it for."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self.values = dict(values or {})
        self.asked: list[str] = []

    def __getitem__(self, name: str) -> str:
        self.asked.append(name)
        return self.values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def loaders() -> dict[str, Callable[[Mapping[str, str]], Any]]:
    """Every ``load_*`` function taking ``env`` in the modules that read the configuration, by qualified name."""
    found: dict[str, Callable[[Mapping[str, str]], Any]] = {}
    modules: list[ModuleType] = list(CODE_READERS.values())
    for module in modules:
        for name, function in vars(module).items():
            if (name.startswith("load_") and inspect.isfunction(function)
                    and "env" in inspect.signature(function).parameters):
                found[f"{function.__module__}.{name}"] = function
    assert "service.config.load_settings" in found
    return found


def read_by_code() -> dict[str, str]:
    """Every variable the loaders read, to the loader that reads it (asked with nothing set, then with each
    documented default set, so that a variable read only when another is set is seen too)."""
    documented = {v.name: v.default for v in variables().values() if v.default is not None}
    out: dict[str, str] = {}
    for name, load in loaders().items():
        for values in ({}, documented):
            env = Recording(values)
            load(env)
            out.update({variable: name for variable in env.asked})
    return out


def test_every_variable_the_code_reads_is_in_the_table_and_nothing_else() -> None:
    code = read_by_code()
    table = {v.name: v for v in variables().values() if v.reader in CODE_READERS}
    missing = sorted(set(code) - set(table))
    assert not missing, (f"{TABLE.relative_to(ROOT)} has no row for {', '.join(missing)} (read by "
                         f"{', '.join(sorted({code[m] for m in missing}))}): add | `NAME` | default | read by | "
                         "meaning |")
    stale = sorted(set(table) - set(code))
    assert not stale, f"{TABLE.relative_to(ROOT)} lists {', '.join(stale)}, which the code no longer reads"


def test_each_documented_default_is_the_codes() -> None:
    by_loader = read_by_code()
    functions = loaders()
    for variable in variables().values():
        if variable.name not in by_loader:
            continue
        load = functions[by_loader[variable.name]]
        # An empty value is the default too, so "unset" is checked as the empty string.
        given = {variable.name: variable.default if variable.default is not None else ""}
        assert load(given) == load({}), (f"{TABLE.relative_to(ROOT)}: {variable.name}'s default is not "
                                         f"{variable.default or 'unset'} in {by_loader[variable.name]}")


def test_a_documented_variable_changes_what_the_code_reads() -> None:
    """The recording sees a read that matters: a wrong value for each variable is refused or read."""
    functions = loaders()
    for variable, loader in read_by_code().items():
        load = functions[loader]
        try:
            changed = load({variable: "not-a-valid-value"})
        except service.config.ConfigError as error:
            assert variable in str(error)
            continue
        assert changed != load({}), f"{variable} is asked for but changes nothing"


def test_the_other_readers_read_what_the_table_says(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    others = {v.name: v for v in variables().values() if v.reader not in CODE_READERS}
    assert {v.reader for v in others.values()} <= {"uvicorn", "engine"}
    for variable in others.values():
        if variable.reader == "uvicorn":
            monkeypatch.delenv(variable.name, raising=False)
            config = uvicorn.Config("service.app:create_app", factory=True, proxy_headers=True)
            assert config.forwarded_allow_ips == variable.default, variable
            monkeypatch.setenv(variable.name, "10.0.0.0/8")
            assert uvicorn.Config("service.app:create_app", factory=True).forwarded_allow_ips == "10.0.0.0/8"
        else:
            loader = (ROOT / "engine" / "_native.py").read_text()
            assert f'"{variable.name}"' in loader, f"the engine's loader does not read {variable.name}"
    assert (ROOT / "engine" / "_native.py").read_text().count('MODES = ("auto",') == 1  # auto is the default


def test_the_other_documents_point_to_the_table_instead_of_repeating_it() -> None:
    names = set(variables())
    for path in (ROOT / "README.md", ROOT / "deploy" / "README.md", ROOT / "deploy" / "SCALING.md"):
        text = path.read_text()
        assert "CONFIGURATION.md" in text, f"{path.relative_to(ROOT)} does not point to deploy/CONFIGURATION.md"
        rows = [line for line in text.splitlines() if line.startswith("| `") and line[3:].split("`")[0] in names]
        assert not rows, f"{path.relative_to(ROOT)} repeats the configuration table: {rows[0]}"


def test_the_manifests_set_only_documented_variables() -> None:
    import yaml

    documented = set(variables())
    configmap = yaml.safe_load((ROOT / "deploy" / "k8s" / "configmap.yaml").read_text())
    assert set(configmap["data"]) <= documented, set(configmap["data"]) - documented
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    environment = compose["services"]["api"]["environment"]
    assert set(environment) <= documented, set(environment) - documented


def test_the_table_parses() -> None:
    table: dict[str, Variable] = variables()
    assert "REDIS_URL" in table and table["REDIS_URL"].default is None
    assert table["MAX_CONNECTIONS"] == Variable("MAX_CONNECTIONS", "10000", "served protocol",
                                                table["MAX_CONNECTIONS"].meaning)
