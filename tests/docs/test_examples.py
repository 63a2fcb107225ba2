"""Every shell example of the README, ``docs/`` and ``deploy/`` that shows output is run against a live service,
and what it prints is compared with what the document shows (the convention: ``tests/docs/examples.py`` and
docs/TESTING.md, "Executed examples"). A document that drifts from the service fails here.

The service is started the README's way (``tests/docs/conftest.py``) on a free port, on the in-process store,
with a fixed snapshot key; the examples run in ``bash`` with ``API`` set, using ``curl`` and ``jq`` (without them
the test is skipped on a developer's machine and fails under CI, ``CI`` set, whose ``.ci/run`` installs them).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.tooling import LiveService
from tests.docs.conftest import KEY
from tests.docs.examples import REDIS_DOWN, ROOT, Block, blocks, documents, line_matches, output_matches, run_document
from tests.redis_server import free_port


def require(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(missing)} missing (.ci/run installs them)")
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install curl jq)")


@pytest.fixture(scope="module")
def redis_down(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """A service whose Redis does not answer: ``REDIS_URL`` names a port nothing listens on."""
    live = LiveService.start(tmp_path_factory.mktemp("examples-down") / "service.log",
                             {"SNAPSHOT_KEYS": KEY, "LOG_LEVEL": "ERROR",
                              "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    try:
        yield live
    finally:
        live.stop()


def documented() -> list[tuple[Path, list[Block]]]:
    return [(path, blocks(path.read_text(), str(path.relative_to(ROOT)))) for path in documents()]


def with_console(mark: str | None = None) -> list[Path]:
    return [path for path, found in documented() if any(b.lang == "console" and b.mark == mark for b in found)]


@pytest.mark.slow
@pytest.mark.parametrize("path", with_console(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_examples_print_what_the_document_shows(path: Path, service: LiveService, tmp_path: Path) -> None:
    require("bash", "curl", "jq")
    outcomes = run_document(blocks(path.read_text(), str(path.relative_to(ROOT))), service.url, tmp_path)
    assert outcomes, path
    failed = [o.explain() for o in outcomes if not o.ok]
    assert not failed, "\n\n".join(failed)


@pytest.mark.slow
@pytest.mark.parametrize("path", with_console(REDIS_DOWN), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_examples_with_redis_down_print_what_the_document_shows(path: Path, redis_down: LiveService,
                                                                    tmp_path: Path) -> None:
    require("bash", "curl", "jq")
    outcomes = run_document(blocks(path.read_text(), str(path.relative_to(ROOT))), redis_down.url, tmp_path,
                            mark=REDIS_DOWN)
    assert outcomes, path
    failed = [o.explain() for o in outcomes if not o.ok]
    assert not failed, "\n\n".join(failed)


def test_there_are_executed_examples() -> None:
    """The README's curl game and session, and the API guide's exchanges, are executed examples."""
    paths = {str(p.relative_to(ROOT)) for p in with_console()}
    assert {"README.md", "docs/API.md"} <= paths, paths
    commands = sum(len(b.commands()) for _, found in documented() for b in found
                   if b.lang == "console" and not b.skipped)
    assert commands >= 30, commands


def test_every_transcript_is_run_or_skipped_with_a_reason() -> None:
    for _, found in documented():
        for block in found:
            if block.lang == "console":
                assert block.mark in (None, REDIS_DOWN) or re.fullmatch(r"skip \(.+\)", block.mark), \
                    f"{block.path}:{block.line}: a block is marked 'redis down' or 'skip (reason)': {block.mark!r}"
                block.commands()  # parses: starts with a command
                continue
            prompts = [line for line in block.body.splitlines() if line.startswith("$ ")]
            assert not prompts, (f"{block.path}:{block.line}: a transcript in a ```{block.lang} block is never run;"
                                 " make it ```console (or mark it <!-- example: skip (why) -->)")


def test_wildcards() -> None:
    assert line_matches('{"session_id":"...","version":1}', '{"session_id":"gRlKiHk6-1oC","version":1}')
    assert not line_matches('{"session_id":"...","version":1}', '{"session_id":"x","version":2}')
    assert line_matches("etag: ...", 'etag: "12"')
    assert output_matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert output_matches(["a", "...", "z"], ["a", "z"])
    assert not output_matches(["a", "...", "z"], ["a", "b"])
    assert not output_matches(["a", "b"], ["a", "b", "c"])  # no silent extra output
    assert output_matches(["a", "b", "", ""], ["a", "b  "])


BROKEN = """\
An example whose shown output no longer matches the service:

```console
$ curl -s $API/v1/games -H "content-type: application/json" -d '{"players": 4, "seed": 42, "first_dealer": 3}' \\
>   | jq -c '{phase, to_act}'
{"phase":"auction","to_act":2}
$ curl -s $API/v1/rules | jq -r .language
en
```
"""


@pytest.mark.slow
def test_a_broken_example_fails_the_comparison(service: LiveService, tmp_path: Path) -> None:
    """The same machinery on a document that shows seat 2 to act where the service answers seat 0."""
    require("bash", "curl", "jq")
    outcomes = run_document(blocks(BROKEN, "broken.md"), service.url, tmp_path)
    assert [o.ok for o in outcomes] == [False, True]
    assert outcomes[0].output == ['{"phase":"auction","to_act":0}'], outcomes[0].output
    assert "broken.md:4:" in outcomes[0].explain() and '"to_act":2' in outcomes[0].explain()
    fixed = run_document(blocks(BROKEN.replace('"to_act":2', '"to_act":0'), "fixed.md"), service.url, tmp_path)
    assert [o.ok for o in fixed] == [True, True]
