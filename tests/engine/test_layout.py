"""The engine's layout keeps its promises: no import cycles, no overlong functions without a reason, and a map
from every rule of docs/RULES.md to the code that implements it.

* Imports: every ``engine`` module's imports of other ``engine`` modules (at the top or inside a function) form
  no cycle, so each module can be read (and compiled) after the ones it uses.
* Length: no function in ``engine/`` is longer than :data:`MAX_LINES` lines unless a comment ``# long: <why>``
  sits on the line above its ``def`` (or its decorators).
* The rule map: every rule section of docs/RULES.md (1.1 to 1.12, section 2, section 3) has a ``*Code:*`` note;
  ``tests/test_docs.py`` checks that each function it names exists in the module it names.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
MAX_LINES = 60


def _engine_imports(path: Path) -> set[str]:
    """The engine modules ``path`` imports (``engine.x`` as ``x``; the package itself as ``__init__``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            if node.module == "engine":
                found.add("__init__")
            elif node.module.startswith("engine."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "engine":
                    found.add("__init__")
                elif alias.name.startswith("engine."):
                    found.add(alias.name.split(".")[1])
    return found


def import_graph() -> dict[str, set[str]]:
    return {p.stem: _engine_imports(p) - {p.stem} for p in sorted(ENGINE.glob("*.py"))}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a list of nodes (first repeated last), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_engine_imports_have_no_cycle() -> None:
    graph = import_graph()
    assert {"game", "setup", "auction", "contract", "play", "scoring", "tricks", "tokens"} <= set(graph)
    assert "__init__" not in set().union(*(deps for name, deps in graph.items() if name != "__init__")), \
        "an engine module imports the engine package itself"
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle in engine/: {' -> '.join(cycle)}"


def overlong_functions(path: Path) -> list[str]:
    """Functions of ``path`` longer than MAX_LINES lines without a ``# long:`` reason above them (name, line)."""
    lines = path.read_text().splitlines()
    out = []
    for node in ast.walk(ast.parse("\n".join(lines), str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            above = lines[first - 2].strip() if first >= 2 else ""
            if length > MAX_LINES and not re.match(r"# long: \S", above):
                out.append(f"{path.name}:{node.lineno} {node.name} ({length} lines)")
    return out


def test_no_engine_function_is_overlong_without_a_reason(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    sample.write_text(f"def long():\n{body}\n\n# long: a table\ndef excused():\n{body}\n")
    assert [s.split()[1] for s in overlong_functions(sample)] == ["long"]
    found = [f for p in sorted(ENGINE.glob("*.py")) for f in overlong_functions(p)]
    assert not found, "functions over 60 lines without a '# long: <why>' comment above them:\n" + "\n".join(found)


def test_every_rule_section_maps_to_code() -> None:
    text = (ROOT / "docs" / "RULES.md").read_text()
    sections = re.split(r"\n(?=#{2,3} )", text)
    titled = {s.split("\n", 1)[0]: s for s in sections}
    wanted = [t for t in titled if re.match(r"### 1\.\d+ ", t)]
    wanted += [t for t in titled if re.match(r"## [23]\. ", t)]
    assert len(wanted) >= 14, wanted
    for title in wanted:
        assert "*Code:*" in titled[title], f"docs/RULES.md {title!r} names no module and function (*Code:*)"
