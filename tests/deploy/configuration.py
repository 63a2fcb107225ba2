"""The configuration table, deploy/CONFIGURATION.md, parsed: the one list of the environment variables."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.support import ROOT

TABLE = ROOT / "deploy" / "CONFIGURATION.md"
ROW = re.compile(r"^\| `(?P<name>[A-Z][A-Z0-9_]*)` \| (?P<default>unset|`[^`]*`) \| (?P<reader>[a-z ]+) \| "
                 r"(?P<meaning>.+) \|$")


@dataclass(frozen=True)
class Variable:
    name: str
    default: str | None  # None: unset
    reader: str  # app, served protocol, uvicorn, engine
    meaning: str


def variables() -> dict[str, Variable]:
    out: dict[str, Variable] = {}
    for line in TABLE.read_text().splitlines():
        if not line.startswith("| `"):
            continue
        row = ROW.match(line)
        assert row is not None, ("deploy/CONFIGURATION.md: a row not of the form | `NAME` | default | read by | "
                                 f"meaning |: {line}")
        name = row["name"]
        assert name not in out, f"deploy/CONFIGURATION.md lists {name} twice"
        default = None if row["default"] == "unset" else row["default"].strip("`")
        out[name] = Variable(name, default, row["reader"], row["meaning"])
    return out
