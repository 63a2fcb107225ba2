"""The request headers of the sessions, parsed: ``Authorization`` (and ``?access_token=``), ``If-Match``,
``Idempotency-Key`` and ``Last-Event-ID``. Bad values are 400s (401 for a missing token) naming the header."""

from __future__ import annotations

import re

from service.sessions.problems import unauthorized
from service.sessions.store import LOG_START, Cursor
from service.web.problems import Problem

MAX_IDEMPOTENCY_KEY = 128
_EVENT_ID = re.compile(r"(\d{1,18})-(\d{1,9})")


def parse_if_match(value: str | None) -> set[int] | None:
    """The versions an ``If-Match`` header accepts (``None``: any). Accepts ``"5"``, ``5`` and ``W/"5"``."""
    if value is None or value.strip() in ("", "*"):
        return None
    versions: set[int] = set()
    for part in value.split(","):
        tag = part.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        tag = tag.strip('"')
        if not tag.isdigit() or len(tag) > 18:
            raise Problem("INVALID_IF_MATCH", f"If-Match must be a session version such as \"3\"; got "
                                                   f"{part.strip()[:40]!r}")
        versions.add(int(tag))
    return versions


def parse_event_id(value: str | None) -> Cursor:
    """The log position after which a stream resumes (``Last-Event-ID`` is ``<version>-<index>``)."""
    if value is None or value.strip() == "":
        return LOG_START
    m = _EVENT_ID.fullmatch(value.strip())
    if m is None:
        raise Problem("INVALID_LAST_EVENT_ID", "Last-Event-ID must be an event id of this stream, "
                                                    "<version>-<index>")
    return int(m[1]), int(m[2])


#: The index that stands for "the whole version" in a log position: ``after=56`` reads as ``56-<this>``.
WHOLE_VERSION = 10**9 - 1


def parse_after(value: str | None) -> Cursor:
    """The log position after which a catch-up reads: an event id ``<version>-<index>`` (after that event), or a
    version alone (after every event of that version); none: from the start."""
    if value is not None and value.strip().isdigit() and len(value.strip()) <= 18:
        return int(value.strip()), WHOLE_VERSION
    if value is None or value.strip() == "" or _EVENT_ID.fullmatch(value.strip()):
        return parse_event_id(value)
    raise Problem("INVALID_LAST_EVENT_ID", "after must be an event id of this session's log, <version>-<index>, "
                                                "or a version")


def bearer_token(authorization: str | None, access_token: str | None = None) -> str:
    if authorization:
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    if access_token:
        return access_token
    raise unauthorized("a session token is required: Authorization: Bearer <token>")


def idempotency_field(seat: object, key: str) -> str:
    """Where a seat's ``Idempotency-Key`` is recorded (the records are kept per seat)."""
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise Problem("INVALID_IDEMPOTENCY_KEY",
                      f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters")
    return f"{seat}:{key}"
