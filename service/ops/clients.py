"""Who is calling: the client identity shared by rate limiting and access logs.

A client is identified by its API key when it sends one (``X-API-Key``), else by its network address. The
key itself is a secret, so it never leaves this function in clear: the identity carries a short SHA-256
fingerprint instead, which is safe to use as a Redis key and to print in logs.

>>> client_identity({"type": "http", "headers": [(b"x-api-key", b"k1")], "client": ("10.0.0.7", 5000)})
'key:6ab9f1eb8f7d3388'
>>> client_identity({"type": "http", "headers": [], "client": ("10.0.0.7", 5000)})
'ip:10.0.0.7'
"""

from __future__ import annotations

import hashlib
import hmac
import re
import urllib.parse
from collections.abc import Collection
from typing import Any

API_KEY_HEADER = "x-api-key"

#: Paths that operational probes and scrapers hit; never authenticated or rate limited.
OPERATIONAL_PATHS: frozenset[str] = frozenset({"/healthz", "/readyz", "/metrics"})


def header_value(scope: Any, name: bytes) -> bytes | None:
    """The first value of header ``name`` (lower-case bytes) in an ASGI scope, if any."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


def fingerprint(secret: bytes) -> str:
    """A short, stable, non-reversible label for a secret (64 bits of SHA-256, hex)."""
    return hashlib.sha256(secret).hexdigest()[:16]


def client_address(scope: Any) -> str:
    """The peer address of the connection (after any proxy-header rewriting by the server)."""
    client = scope.get("client")
    if client:
        return str(client[0])
    return "unknown"


#: The one operation that also takes the API key as a query parameter, ``api_key``: a browser's EventSource cannot
#: send headers. Query strings are never logged (service/ops/logging.py; deploy/nginx.conf logs $uri).
EVENT_STREAM_PATH = re.compile(r"^/v1/sessions/[^/]+/events$")
API_KEY_QUERY = "api_key"


def presented_api_key(scope: Any, header: bytes) -> bytes | None:
    """The API key a request presents: its header, or on the event stream (GET) its ``api_key`` query parameter."""
    raw = header_value(scope, header)
    if raw is None and scope.get("method") == "GET" and EVENT_STREAM_PATH.match(scope.get("path", "")):
        query = bytes(scope.get("query_string", b"")).decode("latin-1")
        # latin-1 both ways: a percent-escaped byte stays one byte (no UTF-8 decoding that could not be re-encoded).
        values = urllib.parse.parse_qs(query, keep_blank_values=True, encoding="latin-1").get(API_KEY_QUERY)
        if values:
            return str(values[0]).encode("latin-1")
    return raw


def client_identity(
    scope: Any,
    *,
    api_key_header: str = API_KEY_HEADER,
    known_api_keys: Collection[str] | None = None,
) -> str:
    """``key:<fingerprint>`` for a request carrying an API key, else ``ip:<address>``.

    When ``known_api_keys`` is given, only a key in that collection identifies the client; any other value
    falls back to the address, so a caller cannot mint fresh rate-limit budgets by inventing keys.
    """
    raw = presented_api_key(scope, api_key_header.lower().encode("latin-1"))
    if raw and (known_api_keys is None or key_matches(raw, known_api_keys)):
        return "key:" + fingerprint(raw)
    return "ip:" + client_address(scope)


def key_matches(candidate: bytes, keys: Collection[str]) -> bool:
    """Whether ``candidate`` equals one of ``keys``, in time independent of where they differ.

    Every configured key is compared (no early exit), each with :func:`hmac.compare_digest`.
    """
    found = False
    for key in keys:
        found |= hmac.compare_digest(candidate, key.encode("utf-8"))
    return found
