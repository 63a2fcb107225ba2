"""The documentation's shell examples, read from the Markdown and run against a live service.

The convention (docs/TESTING.md, "Executed examples"):

* A fenced block tagged ``console`` is a transcript. A line starting with ``$ `` is a command, continued by the
  lines after it that start with ``> `` (as a shell shows them); the lines after it, up to the next command, are
  what it prints (stdout and stderr together). A command with no lines after it must succeed (exit status 0);
  a command that shows output is judged by its output alone.
* In expected output, ``...`` matches any run of characters within a line (an id, a token, a snapshot, a
  timestamp, an ETag), and a line that is ``...`` alone matches any number of lines, none included.
  Trailing spaces and trailing blank lines are not compared.
* Every ``console`` block of one document runs, in order, in one ``bash`` process started in an empty
  directory with ``API`` set to the service's address: a variable or file one block makes is there for the
  next. ``<!-- example: redis down -->`` on the line before a block runs it (in a bash process of its own)
  against a second service whose Redis does not answer; ``<!-- example: skip (why) -->`` leaves it out, and the
  reason is required.
* A block of any other language is not run, and may not contain ``$ `` transcript lines: a transcript is
  either run or marked skipped with its reason, never silently left out.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^(?:<!-- example: (?P<mark>.*?) -->\n)?```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```[ \t]*$",
                   re.M | re.S)
MARK = "@@example-end@@"


def documents() -> list[Path]:
    """The README and every Markdown document of ``docs/`` and ``deploy/``."""
    found = [ROOT / "README.md"]
    for folder in ("docs", "deploy"):
        found += sorted((ROOT / folder).rglob("*.md"))
    return found


@dataclass
class Command:
    line: int  # 1-based, in the document
    text: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    path: str
    line: int
    lang: str
    mark: str | None
    body: str

    @property
    def skipped(self) -> bool:
        return self.mark is not None and self.mark.startswith("skip")

    def commands(self) -> list[Command]:
        out: list[Command] = []
        lines = self.body.splitlines()
        i = 0
        while i < len(lines):
            text = lines[i]
            if text.startswith("$ "):
                start, command = i, text[2:]
                while i + 1 < len(lines) and lines[i + 1].startswith("> "):
                    i += 1
                    command += "\n" + lines[i][2:]
                out.append(Command(self.line + 1 + start, command))
            elif out:
                out[-1].expected.append(text)
            else:
                raise ValueError(f"{self.path}:{self.line + 1 + i}: a console block must start with a '$ ' command")
            i += 1
        return out


def blocks(text: str, path: str) -> list[Block]:
    found = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start("lang")) + 1
        found.append(Block(path, line, m.group("lang"), m.group("mark"), m.group("body")))
    return found


def line_matches(pattern: str, actual: str) -> bool:
    parts = [re.escape(p) for p in pattern.split("...")]
    return re.fullmatch(".*".join(parts), actual, re.S) is not None


def _trim(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` (with ``...`` wildcards) against ``actual``, line by line."""
    want, got = _trim(expected), _trim(actual)

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and line_matches(want[i], got[j]) and match(i + 1, j + 1)

    return match(0, 0)


@dataclass
class Outcome:
    command: Command
    block: Block
    status: int
    output: list[str]

    @property
    def ok(self) -> bool:
        if _trim(self.command.expected):
            return output_matches(self.command.expected, self.output)
        return self.status == 0

    def explain(self) -> str:
        shown = "\n".join(self.command.expected) or "(no output, exit status 0)"
        return (f"{self.block.path}:{self.command.line}: $ {self.command.text}\n--- the document shows\n{shown}\n"
                f"--- the service gave (exit status {self.status})\n" + "\n".join(self.output))


REDIS_DOWN = "redis down"


def run_document(blocks_: list[Block], api: str, workdir: Path, timeout: float = 120,
                 mark: str | None = None) -> list[Outcome]:
    """Run the document's ``console`` blocks marked ``mark`` (by default the unmarked ones) in one bash process;
    each command's outcome."""
    commands = [(b, c) for b in blocks_ if b.lang == "console" and b.mark == mark for c in b.commands()]
    script = ["exec 2>&1"]
    for index, (_, command) in enumerate(commands):
        script.append(command.text)
        script.append(f'__status=$?; printf "\\n{MARK} {index} %d\\n" "$__status"')
    env = {"PATH": os.environ["PATH"], "HOME": str(workdir), "LC_ALL": "C.UTF-8", "API": api}
    result = subprocess.run(["bash", "--noprofile", "--norc"], input="\n".join(script) + "\n", cwd=workdir,
                            env=env, capture_output=True, text=True, timeout=timeout)
    outcomes, lines = [], result.stdout.splitlines()
    pending: list[str] = []
    for line in lines:
        found = re.fullmatch(rf"{MARK} (\d+) (\d+)", line)
        if found is None:
            pending.append(line)
            continue
        block, command = commands[int(found.group(1))]
        outcomes.append(Outcome(command, block, int(found.group(2)), _trim(pending)))
        pending = []
    if len(outcomes) != len(commands):
        missing = commands[len(outcomes)][1]
        raise AssertionError(f"the examples stopped at {missing.text!r} (bash exited {result.returncode}):\n"
                             + "\n".join(pending))
    return outcomes
