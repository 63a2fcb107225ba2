"""Refresh the released ``/v1`` contract, ``openapi/v1.json``, after an additive change.

    .venv/bin/python openapi/regenerate.py   # first: openapi/openapi.json is what the app serves
    .venv/bin/python openapi/release.py      # check it against openapi/v1.json, then copy it there

The copy is made only when the freeze check passes (``tests/api/test_freeze.py``: Optic's breaking-changes
ruleset finds nothing, and both documents lint with 0 errors), so a release can only add to ``/v1``. A change
that breaks ``/v1`` needs a new version (``/v2``), never a refresh of this file. ``--force`` copies without
the check: only for the very first release of a version.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CURRENT = ROOT / "openapi" / "openapi.json"
RELEASED = ROOT / "openapi" / "v1.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--force", action="store_true", help="copy without running the freeze check")
    args = parser.parse_args()
    if not args.force:
        check = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                "tests/api/test_freeze.py"], cwd=ROOT)
        if check.returncode != 0:
            print("not released: openapi/openapi.json does not pass the /v1 freeze check", file=sys.stderr)
            return 1
    shutil.copyfile(CURRENT, RELEASED)
    print(f"released {CURRENT.relative_to(ROOT)} as {RELEASED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
