"""The docstring examples of the service and the computer players run and stay true (the engine's are run by
``tests/engine/test_doctests.py``, also on the compiled build)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bots
import service


def _modules(package: object) -> list[str]:
    name = package.__name__  # type: ignore[attr-defined]
    return [name] + [m.name for m in pkgutil.walk_packages(package.__path__, name + ".")]  # type: ignore[attr-defined]


MODULES = _modules(service) + _modules(bots)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"


def test_the_examples_are_found() -> None:
    """The walk reaches the modules that have examples (a walk that found none would pass vacuously)."""
    attempted = {name: doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS,
                                       report=False).attempted for name in MODULES}
    assert attempted["service.app"] > 0 and attempted["bots"] > 0
    assert sum(attempted.values()) >= 10, attempted
