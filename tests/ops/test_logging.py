"""Structured logs: JSON lines on stdout, request ids, and no secrets or hidden cards in any line."""

from __future__ import annotations

import json
import logging

import pytest
from litestar.testing import AsyncTestClient

from service.ops.logging import (
    JsonLogFormatter,
    RedactingFilter,
    accept_request_id,
    json_logging_config,
    request_id_var,
    scrub,
)

from .apps import build_app

TOKEN = "seat0.tok-Zq81_x"  # short on purpose: only the bearer rule can catch it
SNAPSHOT = "v1." + "Qm9keS1vZi1hLXNlYWxlZC1zbmFwc2hvdC0xMjM0NTY3ODkw" * 3
API_KEY = "k3y-of-the-host-app"


def json_lines(output: str) -> list[dict[str, object]]:
    lines = [line for line in output.splitlines() if line.strip()]
    return [json.loads(line) for line in lines]


@pytest.mark.usefixtures("restore_logging")
async def test_every_line_is_json_with_the_request_id_and_no_secrets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = build_app(logging_config=json_logging_config("DEBUG"), api_keys=[API_KEY])
    capsys.readouterr()
    async with AsyncTestClient(app) as client:
        response = await client.post(
            f"/v1/echo?snapshot={SNAPSHOT}&secret=query-only-marker",
            content=json.dumps({"snapshot": SNAPSHOT, "hand": ["4H", "10D", "JS", "QC", "JK"]}),
            headers={
                "Authorization": f"Bearer {TOKEN}",
                "X-API-Key": API_KEY,
                "X-Request-ID": "trace-abc.123",
            },
        )
        missing = await client.get("/v1/does-not-exist", headers={"X-API-Key": API_KEY})
        bad_id = await client.get("/v1/ping", headers={"X-API-Key": API_KEY, "X-Request-ID": "no spaces!"})
    assert response.status_code == 200
    assert response.headers["x-request-id"] == "trace-abc.123"
    assert response.json()["request_id"] == "trace-abc.123"
    assert missing.status_code == 404
    generated_404_id = missing.headers["x-request-id"]
    assert len(generated_404_id) == 32
    assert bad_id.headers["x-request-id"] != "no spaces!"

    output = capsys.readouterr().out
    entries = json_lines(output)  # every line parses
    assert entries
    for entry in entries:
        assert {"timestamp", "level", "logger", "message", "request_id"} <= entry.keys()
    for secret in (TOKEN, SNAPSHOT, SNAPSHOT[:40], API_KEY, "query-only-marker", "snapshot=", "10D"):
        assert secret not in output, secret

    in_request = [e for e in entries if e["request_id"] == "trace-abc.123"]
    loggers = {e["logger"] for e in in_request}
    assert {"fivehundred.test", "fivehundred.access"} <= loggers
    access = next(e for e in in_request if e["logger"] == "fivehundred.access")
    assert access["method"] == "POST"
    assert access["path"] == "/v1/echo"
    assert access["status"] == 200
    assert isinstance(access["duration_ms"], float)
    assert str(access["client"]).startswith("key:")
    app_line = next(e for e in in_request if e["logger"] == "fivehundred.test")
    assert "[CARDS REDACTED]" in str(app_line["message"])
    assert "[REDACTED]" in str(app_line["message"])

    # A 404 is an ordinary answer: an access line, not an error with a traceback.
    assert not [e for e in entries if e["level"] == "ERROR"]
    not_found = [e for e in entries if e["request_id"] == generated_404_id]
    assert any(e.get("status") == 404 and e.get("path") == "/v1/does-not-exist" for e in not_found)


@pytest.mark.usefixtures("restore_logging")
async def test_uncaught_exceptions_are_logged_as_scrubbed_json(capsys: pytest.CaptureFixture[str]) -> None:
    from litestar import get

    @get("/v1/boom", sync_to_thread=False)
    def boom() -> None:
        raise RuntimeError(f"could not open snapshot {SNAPSHOT} with Authorization: Bearer {TOKEN}")

    app = build_app(logging_config=json_logging_config("INFO"), extra_handlers=[boom])
    capsys.readouterr()
    async with AsyncTestClient(app, raise_server_exceptions=False) as client:
        response = await client.get("/v1/boom", headers={"X-Request-ID": "boom-1"})
    assert response.status_code == 500
    output = capsys.readouterr().out
    entries = json_lines(output)
    assert TOKEN not in output and SNAPSHOT[:40] not in output
    errors = [e for e in entries if e["level"] == "ERROR"]
    assert errors and all(e["request_id"] == "boom-1" for e in errors)
    assert any("RuntimeError" in str(e.get("exc_info", "")) for e in errors)


def test_formatter_scrubs_extras_and_exceptions_without_the_filter() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "token %s", (f"Bearer {TOKEN}",), None)
    record.headers = {"authorization": f"Bearer {TOKEN}", "x-api-key": API_KEY}
    record.snapshot = SNAPSHOT
    reset = request_id_var.set("rid-1")
    try:
        line = JsonLogFormatter().format(record)
    finally:
        request_id_var.reset(reset)
    entry = json.loads(line)
    assert entry["request_id"] == "rid-1"
    assert TOKEN not in line and SNAPSHOT[:40] not in line
    assert entry["message"] == "token Bearer [REDACTED]"


def test_filter_renders_and_scrubs_the_message() -> None:
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "hand=%s auth=%s", ("AS KS QS JS", TOKEN), None
    )
    record_headers = f"Authorization: Basic {TOKEN}"
    assert RedactingFilter().filter(record)
    assert record.args is None
    assert "AS KS" not in record.msg
    assert TOKEN not in scrub(record_headers)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("played 10D on trick 3", "played 10D on trick 3"),  # a single card is public once played
        ("GET /v1/sessions/abc123/events 200", "GET /v1/sessions/abc123/events 200"),
        ("bid 7NT by seat 2", "bid 7NT by seat 2"),
    ],
)
def test_scrub_keeps_ordinary_text(text: str, kept: str) -> None:
    assert scrub(text) == kept


@pytest.mark.parametrize(
    "text",
    [
        '{"hand": ["4H", "10D", "JS", "QC", "KD", "AH", "JK"]}',
        "kitty 13H 12S 11C",
        "authorization=opaque-value",
        "'X-API-Key': 'abc'",
        "Bearer abc/def+ghi==",
        "x" * 40,
    ],
)
def test_scrub_removes_secrets(text: str) -> None:
    cleaned = scrub(text)
    assert cleaned != text
    for fragment in ("10D", "13H", "opaque-value", "abc/def", "x" * 40, "'abc'"):
        assert fragment not in cleaned


def test_request_id_acceptance() -> None:
    assert accept_request_id(b"abc-DEF_1.2") == "abc-DEF_1.2"
    assert accept_request_id(b"a" * 128 + b".") != "a" * 128 + "."
    assert accept_request_id(b"ok." * 40) == "ok." * 40  # long, but no opaque run the scrubber would eat
    for bad in (None, b"", b"has space", b"x" * 129, b"semi;colon", "é".encode(), b"z" * 40):
        generated = accept_request_id(bad)
        assert len(generated) == 32 and generated.isalnum()
