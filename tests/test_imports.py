"""The import structure of ``engine/``, ``bots/`` and ``service/``: no import cycles, no engine module importing
the engine package itself, the layers (each imports only from the layers below it), and no private name
(``_name``) imported from another module. (The only import-cycle check of the tests.)

Every ``import`` counts, including those inside functions (a function-level import only hides a cycle), except
those under ``if TYPE_CHECKING:``, which never run. A package's ``__init__`` is a module like any other: ``from
pkg import name`` depends on ``pkg.name`` when that is a module, else on ``pkg`` itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGES = ("engine", "bots", "service")
#: The layers, lowest first: a part may import from its own layer's part and from the layers below, never above
#: (the engine at the bottom; the web layer, which owns the problem codes, below everything that answers HTTP).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("engine",),
    ("bots",),
    ("service.config", "service.i18n", "service.version"),
    ("service.web",),
    ("service.ops",),
    ("service.referee",),
    ("service.games",),
    ("service.sessions", "service.demo"),
    ("service.app", "service"),
)


def module_files() -> dict[str, Path]:
    """Every module of the packages, by dotted name."""
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


MODULES = module_files()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run (anywhere in the module), skipping ``if TYPE_CHECKING:`` bodies."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imports_of(module: str) -> Iterator[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for each runtime import of ``module`` inside the
    packages; the module is the one the import executes (a submodule when the name is one)."""
    tree = ast.parse(MODULES[module].read_text(), str(MODULES[module]))
    for node in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, None, node.lineno
            continue
        source = _absolute(module, node)
        for alias in node.names:
            if f"{source}.{alias.name}" in MODULES:
                yield f"{source}.{alias.name}", None, node.lineno
            elif source in MODULES:
                yield source, alias.name, node.lineno


def import_graph() -> dict[str, set[str]]:
    return {module: {target for target, _, _ in imports_of(module) if target != module} for module in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(module: str) -> Iterator[str]:
    """Each import by ``module`` of a private name of another module, or of a private module from outside its
    package."""
    for target, name, line in imports_of(module):
        where = f"{MODULES[module].relative_to(ROOT)}:{line}"
        if name is not None and _private(name) and target != module:
            yield f"{where} imports {name} from {target}"
        parent, _, last = target.rpartition(".")
        if _private(last) and not (module == parent or module.startswith(parent + ".")):
            yield f"{where} imports the private module {target}"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles(package: str) -> None:
    graph = import_graph()
    inside = {m: {t for t in targets if t.split(".")[0] == package} for m, targets in graph.items()
              if m.split(".")[0] == package}
    assert not cycles(inside), f"import cycles in {package}/: {cycles(inside)}"


def test_no_cycles_across_the_packages() -> None:
    assert not cycles(import_graph())


def test_no_engine_module_imports_the_engine_package() -> None:
    """``engine/__init__`` re-exports the modules; a module importing it back would run the package half-built."""
    found = [m for m, targets in import_graph().items() if m.startswith("engine.") and "engine" in targets]
    assert not found, f"engine modules importing the engine package itself: {found}"


def _part(module: str) -> str:
    """The layer part a module belongs to: ``engine``, ``bots``, or a subpackage of ``service`` such as
    ``service.web`` (``service.app`` and ``service.config`` are parts of their own)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "service" else parts[0]


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a part from a layer above its own (or from a part no layer names)."""
    level = {part: i for i, layer in enumerate(LAYERS) for part in layer}
    found = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = _part(module), _part(target)
            if here == there:
                continue
            if here not in level or there not in level or level[there] > level[here] or (
                    level[there] == level[here] and here != there):
                found.append(f"{module} imports {target}")
    return found


def test_each_layer_imports_only_from_below() -> None:
    assert not layer_violations(import_graph())


def test_the_sessions_never_import_the_stateless_api() -> None:
    """What both APIs share (the example game, the suggestions, the search pool) lives with the referee."""
    graph = import_graph()
    found = [f"{m} imports {t}" for m, targets in sorted(graph.items()) if _part(m) == "service.sessions"
             for t in sorted(targets) if _part(t) == "service.games"]
    assert not found, found
    assert "service.referee.suggestions" in graph["service.sessions.assist"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_private_names_imported_across_modules(package: str) -> None:
    found = [line for module in MODULES if module.split(".")[0] == package for line in private_imports(module)]
    assert not found, "\n".join(found)


def test_the_walk_sees_the_imports() -> None:
    """The graph is not vacuous: known imports are edges, and a known cycle shape is found."""
    graph = import_graph()
    assert "engine" in graph["service.app"] and "service.config" in graph["service.app"]
    assert {f"engine.{m}" for m in ("game", "setup", "auction", "contract", "play", "scoring", "tricks", "tokens")} \
        <= set(graph) and "engine.tricks" in graph["engine.play"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert not cycles({"a": {"b"}, "b": set()})
    assert "service.web.codes" in graph["service.web.problems"]
    assert layer_violations({"service.web.problems": {"service.referee.errors"}}) == [
        "service.web.problems imports service.referee.errors"]
    assert layer_violations({"service.referee.errors": {"service.web.problems", "engine.game"}}) == []
    assert layer_violations({"service.ops.health": {"service.referee.snapshots"}}) != []
