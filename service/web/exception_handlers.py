"""The one exception-handler map: every error the app answers becomes RFC 9457 ``application/problem+json``.

- :class:`service.web.problems.Problem` (snapshot errors, illegal and malformed moves, bad options …) as raised;
- Litestar's validation errors (bad JSON, wrong types, missing or unknown fields) as 400 ``MALFORMED_REQUEST``
  naming the field; when the field is one with its own code (``options`` → ``INVALID_OPTIONS``, ``seed`` →
  ``INVALID_SEED``, ``move`` → ``MALFORMED_MOVE`` …) that code instead, so a client sees the same code whether
  the schema or the engine caught the mistake;
- routing errors as 404 ``NOT_FOUND`` and 405 ``METHOD_NOT_ALLOWED`` (with ``Allow``), an over-large body as
  413 ``BODY_TOO_LARGE``, any other HTTP error by its status;
- anything else as 500 ``INTERNAL``, logged with its traceback. No input may ever reach it; tests check that.
"""

from __future__ import annotations

import logging
import re
from http import HTTPStatus
from typing import Any

from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    MethodNotAllowedException,
    NotFoundException,
    ValidationException,
)
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.types import ExceptionHandlersMap

from service.i18n import request_language
from service.web.problems import PROBLEM_MEDIA_TYPE, Problem

logger = logging.getLogger("fivehundred.errors")

#: Request fields whose validation errors have a more specific code than MALFORMED_REQUEST.
FIELD_CODES = {
    "options": "INVALID_OPTIONS",
    "preset": "INVALID_OPTIONS",
    "seed": "INVALID_SEED",
    "deck_orders": "INVALID_DECK_ORDER",
    "first_dealer": "INVALID_FIRST_DEALER",
    "move": "MALFORMED_MOVE",
    "clock": "INVALID_CLOCK",
    "name": "INVALID_NAME",  # one rule, one code, whatever the length sent
}
#: The code of a client error that the framework raised with no more specific meaning.
_FALLBACK_CODES = {401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED",
                   413: "BODY_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 429: "RATE_LIMITED"}
_FIRST_SEGMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*")


def problem_response(request: Request[Any, Any, Any], problem: Problem) -> Response[Any]:
    return Response(problem.body(request.url.path, request_language(request.scope)), status_code=problem.status,
                    media_type=PROBLEM_MEDIA_TYPE,
                    headers=problem.headers or None)


def validation_errors(exc: ValidationException) -> list[dict[str, Any]]:
    """The ``errors`` of a problem answering ``exc``: each ``{"message", "field", "source"}``."""
    errors: list[dict[str, Any]] = []
    for item in exc.extra if isinstance(exc.extra, list) else []:
        if not isinstance(item, dict):
            continue
        key = str(item.get("key") or "")
        message = str(item.get("message") or "invalid")
        raw_source = item.get("source") or "body"
        source = str(getattr(raw_source, "value", raw_source))  # Litestar gives a ParamType enum for parameters
        if key == "data" and message == "'data'":
            # Litestar's wording for an empty body.
            message = "the request body is empty: send a JSON object"
        field = "" if key == "data" else key
        errors.append({"message": message, "field": field, "source": source})
    return errors


def _validation_problem(exc: ValidationException) -> Problem:
    errors = validation_errors(exc)
    if not errors:
        return Problem("MALFORMED_REQUEST", exc.detail or "the request is malformed",
                       message=("problem.MALFORMED_REQUEST.detail", {}))
    first = errors[0]
    if not first["field"]:
        where = ""
    elif first["source"] == "body":
        where = f" - at `$.{first['field']}`"
    else:
        where = f" - in {first['source']} parameter `{first['field']}`"
    match = _FIRST_SEGMENT.match(first["field"]) if first["source"] == "body" else None
    code = FIELD_CODES.get(match.group(0), "MALFORMED_REQUEST") if match else "MALFORMED_REQUEST"
    if not first["field"]:
        empty = first["message"].startswith("the request body")
        wording: tuple[str, dict[str, Any]] = (
            "problem.MALFORMED_REQUEST.detail.empty_body" if empty else "problem.MALFORMED_REQUEST.detail", {})
    elif first["source"] == "body":
        wording = ("problem.detail.invalid_field", {"field": f"$.{first['field']}", "message": first["message"]})
    else:
        wording = ("problem.detail.invalid_parameter",
                   {"field": first["field"], "source": first["source"], "message": first["message"]})
    return Problem(code, first["message"] + where, errors=errors, message=wording)


#: The order ``Allow`` lists methods in, on every path (the router's own order follows a set's).
METHOD_ORDER = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def canonical_allow(allow: str) -> str:
    """``allow`` with its methods in one fixed order (:data:`METHOD_ORDER`; others after, alphabetically).

    >>> canonical_allow("OPTIONS, POST"), canonical_allow("POST, OPTIONS, GET")
    ('POST, OPTIONS', 'GET, POST, OPTIONS')
    """
    methods = {m.strip().upper() for m in allow.split(",") if m.strip()}
    rank = {m: i for i, m in enumerate(METHOD_ORDER)}
    return ", ".join(sorted(methods, key=lambda m: (rank.get(m, len(rank)), m)))


def _http_problem(exc: HTTPException) -> Problem:
    status = exc.status_code
    headers = {k: v for k, v in (exc.headers or {}).items()}
    if isinstance(exc, ValidationException):
        return _validation_problem(exc)
    if isinstance(exc, NotFoundException):
        return Problem("NOT_FOUND", "no such resource: see the OpenAPI document at /schema/openapi.json")
    if isinstance(exc, MethodNotAllowedException):
        allow = canonical_allow(headers.get("allow", ""))
        if allow:
            headers["allow"] = allow
        return Problem("METHOD_NOT_ALLOWED", f"this path allows {allow or 'other methods'}",
                       headers=headers, message=("problem.METHOD_NOT_ALLOWED.detail", {"allow": allow or "—"}))
    if isinstance(exc, RequestEntityTooLarge) or status == 413:
        return Problem("BODY_TOO_LARGE", "the request body is larger than this service accepts")
    if status == 400:
        # Litestar's own 400s: a body that is not JSON at all.
        return Problem("MALFORMED_REQUEST", f"the request body is not valid JSON: {exc.detail}",
                       message=("problem.MALFORMED_REQUEST.detail.not_json", {"error": exc.detail}))
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    if status >= 500:
        return Problem("INTERNAL", "the service failed unexpectedly; the error has been logged", status=status)
    if status == 415:
        return Problem("UNSUPPORTED_MEDIA_TYPE", exc.detail or "send the body as application/json",
                       title=phrase)
    # Any other client error keeps its status under the nearest enumerated code (service/web/codes.py).
    code = _FALLBACK_CODES.get(status, "MALFORMED_REQUEST")
    return Problem(code, exc.detail or phrase, status=status, title=phrase, headers=headers)


def handle_problem(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    assert isinstance(exc, Problem)
    return problem_response(request, exc)


def handle_http_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    assert isinstance(exc, HTTPException)
    if exc.status_code >= 500:
        logger.error("HTTP %s while serving %s %s: %s", exc.status_code, request.method, request.url.path,
                     exc.detail)
    return problem_response(request, _http_problem(exc))


def handle_internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    logger.exception("unhandled error while serving %s %s", request.method, request.url.path, exc_info=exc)
    problem = Problem("INTERNAL", "the service failed unexpectedly; the error has been logged")
    return problem_response(request, problem)


def exception_handlers(max_body_bytes: int) -> ExceptionHandlersMap:
    """The app's exception-handler map (``max_body_bytes`` words the 413 detail)."""

    def handle_too_large(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
        return problem_response(request, Problem("BODY_TOO_LARGE",
                                                 f"the request body is larger than {max_body_bytes} bytes",
                                                 message=("problem.BODY_TOO_LARGE.detail.limit",
                                                          {"count": max_body_bytes})))

    return {
        Problem: handle_problem,
        RequestEntityTooLarge: handle_too_large,
        HTTPException: handle_http_exception,
        Exception: handle_internal_error,
    }


__all__ = ["FIELD_CODES", "METHOD_ORDER", "canonical_allow", "exception_handlers", "problem_response",
           "validation_errors"]
