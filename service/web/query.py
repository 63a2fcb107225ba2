"""Query parameters as the contract declares them: each given at most once, and only with a value it allows.

Every query parameter of the API is single-valued. Left to the framework, a repeated one
(``GET /v1/rules?preset=american&preset=beagle``) was answered as if it had not been given at all, and a value
of ``null`` for an optional one (``?preset=null``, ``?seat=null``) as its absence: both silently answered
something other than what was asked. This middleware refuses them first, 400 ``MALFORMED_REQUEST`` naming the
parameter (with ``errors`` as every refused parameter has), before any handler or fast route runs.

The parameters an operation takes are read from the app's own OpenAPI document (the operation matched by the
request's path template and method), so that a parameter added to an operation is covered without a list to
keep; the event stream's credentials in the query (``access_token``, ``api_key``) count as its parameters too.
Query parameters an operation does not declare are ignored, as HTTP expects.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from litestar.enums import ScopeType
from litestar.exceptions import ValidationException
from litestar.types import ASGIApp, HTTPScope, Receive, Scope, Send

from service.web.openapi import EVENT_STREAM_OPERATION, PARAMETER_SCHEMAS, SECURITY_SCHEMES

__all__ = ["QueryParameterMiddleware", "query_problem"]

#: The credentials the event stream takes in its query (declared as security schemes, not as parameters).
_QUERY_CREDENTIALS = tuple(scheme["name"] for scheme in SECURITY_SCHEMES.values() if scheme.get("in") == "query")
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: Parameters whose malformed value the operation answers with a code of its own, wherever it is given (the
#: event stream's ``last_event_id``, as its ``Last-Event-ID`` header: 400 ``INVALID_LAST_EVENT_ID``).
_OWN_CODES = frozenset({"last_event_id"})


def _refused(name: str, message: str) -> ValidationException:
    return ValidationException(detail="Validation failed",
                               extra=[{"message": message, "key": name, "source": "query"}])


def _value_problem(name: str, value: str) -> str | None:
    """Why ``value`` is not one the contract allows for the query parameter ``name`` (``None``: it may be).
    Checked here: what the framework would read as something else (``null`` as no value, ``3.0`` as 3); the
    framework checks the rest (types, bounds)."""
    schema = PARAMETER_SCHEMAS.get(("query", name))
    if schema is None:
        return None
    if "enum" in schema and value not in schema["enum"]:
        return f"Invalid enum value {value!r}"
    if schema.get("type") == "integer" and not _INTEGER.fullmatch(value):
        return f"Expected `int`, got {value!r}"
    if "pattern" in schema and name not in _OWN_CODES and not re.search(schema["pattern"], value):
        return f"Expected a string matching {schema['pattern']!r}, got {value!r}"
    return None


def query_problem(query_string: bytes, declared: frozenset[str]) -> ValidationException | None:
    """The refusal of a query string that repeats a ``declared`` parameter or gives one a value the contract
    does not allow (``None``: nothing to refuse).

    >>> query_problem(b"preset=american&preset=beagle", frozenset({"players", "preset"})).extra
    [{'message': 'given 2 times; give it once', 'key': 'preset', 'source': 'query'}]
    >>> query_problem(b"seat=null", frozenset({"seat"})).extra[0]["message"]
    "Expected `int`, got 'null'"
    >>> query_problem(b"players=3&x=1&x=2", frozenset({"players", "preset"})) is None
    True
    """
    counts: dict[str, int] = {}
    values: dict[str, str] = {}
    for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if name in declared:
            counts[name] = counts.get(name, 0) + 1
            values[name] = value
    for name, count in counts.items():
        if count > 1:
            return _refused(name, f"given {count} times; give it once")
    for name, value in values.items():
        problem = _value_problem(name, value)
        if problem is not None:
            return _refused(name, problem)
    return None


class QueryParameterMiddleware:
    """Refuses a request whose query repeats a parameter its operation declares, or gives one a value the
    contract does not allow (the module doc). Mounted inside routing, where the operation is known."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._declared: dict[tuple[str, str], frozenset[str]] = {}

    def declared(self, scope: HTTPScope) -> frozenset[str]:
        """The query parameters of the operation ``scope`` was routed to (its path template and method)."""
        key = (str(scope.get("path_template", "")), scope["method"])
        names = self._declared.get(key)
        if names is None:
            names = self._declared[key] = _operation_parameters(scope["app"].openapi_schema, *key)
        return names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and scope.get("query_string"):
            refusal = query_problem(scope["query_string"], self.declared(scope))
            if refusal is not None:
                raise refusal
        await self.app(scope, receive, send)


def _operation_parameters(document: Any, path: str, method: str) -> frozenset[str]:
    item = (document.paths or {}).get(path) if document is not None else None
    operation = getattr(item, method.lower(), None) if item is not None else None
    if operation is None:
        return frozenset()
    names = {p.name for p in operation.parameters or () if getattr(p, "param_in", None) == "query"}
    if operation.operation_id == EVENT_STREAM_OPERATION:
        names.update(_QUERY_CREDENTIALS)
    return frozenset(names)
