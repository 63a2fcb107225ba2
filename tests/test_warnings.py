"""The suite's warning filters (pyproject.toml): a deprecation raised from the project's own code, or any of
Litestar's, fails the test; others' warnings are only reported."""

from __future__ import annotations

import warnings

import pytest
from litestar.exceptions import LitestarDeprecationWarning


@pytest.mark.parametrize("module", ["engine.cards", "bots.greedy", "service.web.openapi", "service"])
def test_a_deprecation_raised_from_the_projects_code_fails(module: str) -> None:
    with pytest.raises(DeprecationWarning, match="old style"):
        warnings.warn_explicit("old style", DeprecationWarning, f"{module.replace('.', '/')}.py", 1, module=module)


def test_a_litestar_deprecation_fails() -> None:
    with pytest.raises(LitestarDeprecationWarning):
        warnings.warn_explicit("param style", LitestarDeprecationWarning, "litestar/params.py", 1,
                               module="litestar.params")


@pytest.mark.parametrize("module", ["servicemesh", "hypothesis.core", "engines"])
def test_anothers_deprecation_is_reported_not_raised(module: str) -> None:
    with pytest.warns(DeprecationWarning, match="old style"):
        warnings.warn_explicit("old style", DeprecationWarning, "x.py", 1, module=module)
