"""RFC 9457 problem details for the operational layer.

The ops middlewares answer some requests themselves (401, 429, 503) before any route handler runs, so they
write ``application/problem+json`` straight onto the ASGI ``send`` channel with :func:`send_problem`. The
body is the service's own :class:`service.problems.ProblemDetails` (only its five RFC 9457 members are set
here), so every error in the API has exactly one schema in the OpenAPI document.

>>> problem_type("rate-limited")
'https://fivehundred.dev/problems/rate-limited'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Send

from service.problems import PROBLEM_BASE as PROBLEM_TYPE_BASE
from service.problems import PROBLEM_MEDIA_TYPE, ProblemDetails

__all__ = ["PROBLEM_MEDIA_TYPE", "PROBLEM_TYPE_BASE", "ProblemDetails", "make_problem", "problem_type",
           "send_problem"]

_encoder = msgspec.json.Encoder()


def problem_type(slug: str) -> str:
    """The ``type`` URI of a problem, from its short slug."""
    return PROBLEM_TYPE_BASE + slug


def make_problem(*, status: int, slug: str, title: str, code: str, detail: str, language: str = "en",
                 params: dict[str, Any] | None = None) -> ProblemDetails:
    """Build a :class:`ProblemDetails` whose ``type`` URI is derived from ``slug``; ``title`` and ``detail`` are
    worded in ``language`` (the code's texts in service/i18n, with ``params``) unless it is English."""
    from service.i18n import problem_texts  # local: the i18n package imports the service's problems

    message = None if params is None else (f"problem.{code}.detail", params)
    title, detail = problem_texts(language, code, title, detail, message)
    return ProblemDetails(type=problem_type(slug), title=title, status=status, code=code, detail=detail)


async def send_problem(
    send: Send,
    problem: ProblemDetails,
    *,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Send ``problem`` as a complete HTTP response on a raw ASGI channel."""
    body = _encoder.encode(problem)
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": problem.status,
        "headers": [
            (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            *headers,
        ],
    }
    end: HTTPResponseBodyEvent = {"type": "http.response.body", "body": body, "more_body": False}
    await send(start)
    await send(end)
