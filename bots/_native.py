"""Which bots run: the compiled modules of the engine's build when the engine runs compiled, else the pure ones.

The install compiles the bots with the engine, in one build (``tools/build_engine.py``: one mypyc group, so the
bots' calls into the engine's rules are native calls), whose manifest holds the SHA-256 of every ``bots/*.py``
file too: an edit to either package and both run pure until the next build. The engine's loader
(``engine/_native.py``) chooses the build; this module puts the build's ``bots`` directory first on the package's
``__path__`` when the engine runs from a build that holds them. The package's ``__init__`` (its Structs) and
:mod:`bots.inference` (Structs too: mypyc drops class keywords) stay Python, and so does this module.

It reads nothing itself: the engine's loader read the manifest at import. The bots' functions stay free of I/O.
"""

from __future__ import annotations

import sys

from engine import ENGINE_BUILD, ENGINE_BUILD_REASON, companion_path


def _activate_package() -> tuple[str, str]:
    package = sys.modules[__name__.rpartition(".")[0]]  # the bots package, being initialised
    compiled = companion_path(package.__name__)
    if compiled is None:
        if ENGINE_BUILD != "compiled":
            return "pure", f"the engine runs pure: {ENGINE_BUILD_REASON}"
        return "pure", "the engine's compiled build holds no bots (built before they were compiled with it)"
    package.__path__.insert(0, str(compiled))
    return "compiled", f"compiled build at {compiled.parent}"


#: "compiled" or "pure", and why: imported first by ``bots/__init__.py``, before any other module of the package.
BOTS_BUILD, BOTS_BUILD_REASON = _activate_package()
