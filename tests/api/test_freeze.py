"""``/v1`` is frozen: the contract the service serves (``openapi/openapi.json``) may only grow beside the released
one (``openapi/v1.json``), and lints clean.

Two real tools from npm, pinned by ``openapi/tools/package-lock.json`` and installed by this test with ``npm ci``
into a cache outside the checkout (``$FIVEHUNDRED_CLIENTS_CACHE``, as ``tests/clients`` installs its
generators; keyed by the lock's hash, so a rerun installs nothing):

* ``optic diff --check`` with Optic's breaking-changes ruleset (``openapi/tools/optic-standard.yml``): no removed
  operation, response property or enum value, no new required request property or parameter, no changed type;
* ``redocly lint`` (its recommended rules): 0 errors.

The check is shown, in one diff, to fail a deliberately broken copy of the released contract for its two
breaking changes and for nothing it adds (a new operation, a new optional request field, a new response field:
what other work may still add to ``/v1``). After an additive change, ``python openapi/release.py`` refreshes
the released contract.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.clients.tooling import cache_root, digest, require_tools, run

ROOT = Path(__file__).resolve().parents[2]
RELEASED = ROOT / "openapi" / "v1.json"
CURRENT = ROOT / "openapi" / "openapi.json"
TOOLS = ROOT / "openapi" / "tools"
STANDARD = TOOLS / "optic-standard.yml"

pytestmark = pytest.mark.slow  # npm tools, ~30 s of CPU per diff


def contract_tools() -> Path:
    """``npm ci`` of openapi/tools/package-lock.json into the cache (once): its ``node_modules/.bin``."""
    require_tools("node", "npm")
    key = digest(TOOLS / "package.json", TOOLS / "package-lock.json")
    folder = cache_root() / f"contract-tools-{key}"
    marker = folder / ".complete"
    if not marker.exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copy(TOOLS / "package.json", folder / "package.json")
        shutil.copy(TOOLS / "package-lock.json", folder / "package-lock.json")
        run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=folder, timeout=900)
        marker.write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    return folder / "node_modules" / ".bin"


def _quiet_env() -> dict[str, str]:
    """No telemetry and no update check: the tools reach nothing but the files they are given."""
    return {**os.environ, "OPTIC_TELEMETRY_LEVEL": "off", "NO_UPDATE_NOTIFIER": "1",
            "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}


def breaking_changes(base: Path, head: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    """``optic diff`` of ``head`` against ``base`` with the breaking-changes ruleset (exit 0: none), run in
    ``workdir``: under CI (``CI`` set) Optic writes its run's details (``ci-run-details.json``) into the folder it
    runs in, which must not be the checkout's."""
    return subprocess.run([str(contract_tools() / "optic"), "diff", str(base), str(head), "--check",
                           "--standard", str(STANDARD)], cwd=workdir, env=_quiet_env(), capture_output=True,
                          text=True, timeout=900)


def lint(document: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(contract_tools() / "redocly"), "lint", str(document)], cwd=document.parent,
                          env=_quiet_env(), capture_output=True, text=True, timeout=600)


def _broken(released: dict[str, Any]) -> dict[str, Any]:
    """The released contract with two breaking changes a client would feel: a response field removed, and a
    request field made required."""
    broken = copy.deepcopy(released)
    schemas = broken["components"]["schemas"]
    schemas["ApplyResponse"]["properties"].pop("snapshot")
    schemas["ApplyResponse"]["required"].remove("snapshot")
    schemas["CreateGameRequest"]["required"] = [*schemas["CreateGameRequest"].get("required", []), "players"]
    return broken


def _additive(released: dict[str, Any]) -> dict[str, Any]:
    """The released contract grown the way other work may still grow it: a new operation, a new optional
    request field and a new response field."""
    grown = copy.deepcopy(released)
    schemas = grown["components"]["schemas"]
    schemas["CreateGameRequest"]["properties"]["nickname"] = {"type": "string", "maxLength": 40}
    schemas["ApplyResponse"]["properties"]["clock"] = {"type": "integer", "minimum": 0}
    new_path = "/v1/sessions/{session_id}/additive-change-check"  # a path no version of /v1 has
    assert new_path not in grown["paths"]
    grown["paths"][new_path] = {"post": {
        **copy.deepcopy(grown["paths"]["/v1/sessions/{session_id}/snapshot"]["get"]),
        "operationId": "addSpectatorForTheCheck"}}
    return grown


def test_the_released_contract_is_committed_and_versioned() -> None:
    released = json.loads(RELEASED.read_text())
    current = json.loads(CURRENT.read_text())
    assert released["openapi"] == current["openapi"]
    assert all(path.startswith("/v1/") for path in released["paths"] if path.startswith("/v"))
    assert released["info"]["version"].split(".")[0] == current["info"]["version"].split(".")[0]


def test_v1_has_no_breaking_change_and_lints_clean(tmp_path: Path) -> None:
    """The check CI runs: the served contract against the released one, and each lints with 0 errors (when the
    two are the same bytes there is no change to check, and one lint covers both). A copy of the released
    contract both grown additively and broken twice fails the same check for exactly its two breaking changes,
    and not for what it added: one diff shows both ways of the check (Optic takes about a minute of CPU per
    diff of this contract)."""
    released = json.loads(RELEASED.read_text())
    probe = tmp_path / "grown-and-broken.json"
    probe.write_text(json.dumps(_additive(_broken(released))))
    contract_tools()
    same = RELEASED.read_bytes() == CURRENT.read_bytes()
    with ThreadPoolExecutor(max_workers=2) as pool:
        (tmp_path / "probe").mkdir()
        (tmp_path / "current").mkdir()
        probe_diff = pool.submit(breaking_changes, RELEASED, probe, tmp_path / "probe")
        current_diff = None if same else pool.submit(breaking_changes, RELEASED, CURRENT, tmp_path / "current")
        documents = (CURRENT,) if same else (CURRENT, RELEASED)
        lints = [pool.submit(lint, document) for document in documents]
    if current_diff is not None:
        outcome = current_diff.result()
        assert outcome.returncode == 0, (
            "openapi/openapi.json breaks the released /v1 contract (openapi/v1.json):\n"
            f"{outcome.stdout[-6000:]}\n{outcome.stderr[-2000:]}")
    refused = probe_diff.result()
    assert refused.returncode != 0, refused.stdout[-3000:]
    assert "cannot remove response property 'snapshot'" in refused.stdout, refused.stdout[-3000:]
    assert "cannot make a request property required" in refused.stdout, refused.stdout[-3000:]
    failed_rules = [line for line in refused.stdout.splitlines() if line.lstrip().startswith("x [")]
    assert len(failed_rules) == 2, refused.stdout[-3000:]  # the additions (operation, fields) pass
    assert "additive-change-check: added" in refused.stdout, refused.stdout[-3000:]
    for document, linted in zip(documents, lints, strict=True):
        result = linted.result()
        assert result.returncode == 0, f"{document.name}:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
        assert "Your API description is valid" in result.stdout + result.stderr
    assert not (CURRENT.parent / "ci-run-details.json").exists()  # the tools wrote nothing into the checkout
