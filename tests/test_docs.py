"""The repository's own rules reference and API guide stay true to the code.

* docs/RULES.md section 3 is exactly the engine's option catalogue (names, defaults, values, effects), grouped
  as ``engine/options.py`` groups them; when an option changes, the failure prints the section to paste.
* Every function or name that docs/RULES.md cites next to a module (the "Code:" notes and the module table)
  exists in that module.
* The README, the rules catalogue and the API guide cite files that are in the repository, and every relative
  link of the README, ``docs/`` and ``deploy/`` resolves.
* The README is a front page: about 250 lines at most, linking every guide and tutorial; its quick start keeps
  one snapshot key across restarts and allows a local front end's origin.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from pathlib import Path
from typing import Any

from engine import option_catalogue

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "RULES.md"
API = ROOT / "docs" / "API.md"
SECTION_TITLES = {"3.1": "Auction options", "3.2": "Deck and deal options", "3.3": "Play options",
                  "3.4": "Scoring options", "3.5": "Game-end options", "3.6": "Options by number of players"}


def _value(v: Any) -> str:
    return f"`{json.dumps(v)}`"


def options_section() -> str:
    """Section 3's tables, from ``option_catalogue()`` in the groups of the ``Options`` class's comments."""
    source = (ROOT / "engine" / "options.py").read_text()
    body = source[source.index("class Options"):]
    groups: list[tuple[str, list[str]]] = []
    for line in body.splitlines()[1:]:
        if line and not line.startswith((" ", "\t")):
            break
        heading = re.match(r"\s+# (3\.\d) ", line)
        field = re.match(r"\s+([a-z_0-9]+): ", line)
        if heading:
            groups.append((heading.group(1), []))
        elif field and groups:
            groups[-1][1].append(field.group(1))
    catalogue = {o["name"]: o for o in option_catalogue()}
    out = ["The option `players` (2 to 6, default `4`) chooses the game of section 1 or 2.", ""]
    for number, names in groups:
        out += [f"### {number} {SECTION_TITLES[number]}", "", "| option | default | values | effect |",
                "|---|---|---|---|"]
        for name in names:
            o = catalogue[name]
            values = o["type"] if o.get("allowed") is None else ", ".join(_value(a) for a in o["allowed"])
            out.append(f"| `{name}` | {_value(o['default'])} | {values} | {o['description'].replace('|', '/')} |")
        out.append("")
    listed = {n for _, names in groups for n in names} | {"players"}
    assert listed == set(catalogue), f"options in no group of engine/options.py: {set(catalogue) - listed}"
    return "\n".join(out)


def test_rules_reference_lists_every_option_as_the_catalogue_does() -> None:
    text = RULES.read_text()
    found = re.search(r"<!-- options:begin -->\n(.*?)<!-- options:end -->", text, re.S)
    assert found, "docs/RULES.md lost its options markers"
    expected = options_section()
    assert found.group(1).strip() == expected.strip(), \
        "docs/RULES.md section 3 differs from option_catalogue(); put this between the markers:\n\n" + expected


def test_rules_reference_cites_functions_that_exist() -> None:
    """The ``Code:`` notes and the module table: each backticked name after a module exists in that module."""
    text = RULES.read_text()
    notes = [p.split("*Code:*", 1)[1] for p in re.split(r"\n\s*\n", text) if "*Code:*" in p]
    notes += [line for line in text.splitlines() if line.startswith("| `engine/")]
    checked = 0
    for note in notes:
        # Each module is followed by the names it holds, up to the next module.
        for module, names in re.findall(r"`engine/(\w+)\.py`((?:(?!`engine/).)*)", note.replace("\n", " ")):
            loaded = importlib.import_module(f"engine.{module}")
            for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?`", names):
                if name.isupper() and not hasattr(loaded, name):
                    continue  # a reason code or a constant's value quoted in the prose
                assert hasattr(loaded, name), f"docs/RULES.md cites `{name}` in engine/{module}.py, which has none"
                checked += 1
    assert checked > 60, checked


def test_docs_cite_files_of_the_repository() -> None:
    for doc in (ROOT / "README.md", RULES, API, ROOT / "engine" / "decisions.py"):
        text = doc.read_text()
        bare = [m.start() for m in re.finditer(r"(?<![/\w])(RULES|API)\.md", text)
                if not text[max(0, m.start() - 5):m.start()].endswith("docs/")]
        if doc.parent.name == "docs":  # the two guides cite each other by their plain names
            continue
        assert not bare, f"{doc.relative_to(ROOT)} cites RULES.md/API.md, which are docs/RULES.md and docs/API.md"
    for link in re.findall(r"\]\(((?:docs/)?[A-Za-z_/]+\.md)\)", (ROOT / "README.md").read_text()):
        assert (ROOT / link).exists(), link


def test_every_relative_link_of_the_documents_resolves() -> None:
    """Each ``[text](target)`` of the README, ``docs/`` and ``deploy/`` that is not a URL names a file or folder
    of the repository (relative to the document, as a Markdown viewer reads it)."""
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "deploy").glob("*.md"))]
    checked = 0
    for doc in documents:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (doc.parent / target.split("#")[0]).resolve()
            assert path.exists(), f"{doc.relative_to(ROOT)} links {target}, which is not in the repository"
            checked += 1
    assert checked > 40, checked


def test_the_readme_is_a_front_page() -> None:
    """Read in ten minutes: at most about 250 lines, with the run and test commands, and a map to every guide."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 260, len(text.splitlines())
    for guide in sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "tutorials").glob("*.md")):
        assert f"]({guide.relative_to(ROOT)})" in text, f"the README's map does not link {guide.relative_to(ROOT)}"


def test_the_quick_start_keeps_one_snapshot_key_and_allows_a_local_front_end(tmp_path: Path) -> None:
    """The quick start's lines before the install, run twice in a fresh home: the same key both times (so a
    restarted service opens the snapshots it sealed before), a valid one, and the front end's origin allowed."""
    import base64
    import subprocess

    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Quick start"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "the quick start has no sh block"
    lines = block.group(1).strip().splitlines()
    assert lines[-1].startswith("python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/uvicorn")
    script = "\n".join(lines[:-1]) + '\necho "$SNAPSHOT_KEYS $CORS_ORIGINS"\n'
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    first, second = (subprocess.run(["bash", "-e", "-c", script], env=env, cwd=tmp_path, capture_output=True,
                                    text=True, timeout=30, check=True).stdout.split() for _ in range(2))
    assert first == second, (first, second)
    key, origins = first
    assert len(base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))) == 32
    assert origins == "http://localhost:5173"
    keyfile = next((tmp_path / ".config").rglob("*key*"))
    assert keyfile.stat().st_mode & 0o077 == 0, oct(keyfile.stat().st_mode)  # the key is the owner's alone
    assert "localhost:5173" in (ROOT / "docs" / "tutorials" / "browser.md").read_text()
