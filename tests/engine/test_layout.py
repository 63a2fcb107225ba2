"""The engine's layout keeps its promises: no overlong functions without a reason, and a map from every rule of
docs/RULES.md to the code that implements it. (Its imports, cycles included, are tests/test_imports.py's.)

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
