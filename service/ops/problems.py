"""RFC 9457 problem details for the operational layer.

The ops middlewares answer some requests themselves (401, 429, 503) before any route handler runs, so they
write ``application/problem+json`` straight onto the ASGI ``send`` channel with :func:`send_problem`. The
body shape is :class:`ProblemDetails`, which the service's own exception handlers may reuse so that every
error in the API has exactly one schema in the OpenAPI document.

>>> problem_type("rate-limited")
'https://fivehundred.dev/problems/rate-limited'
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Send

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "https://fivehundred.dev/problems/"


class ProblemDetails(msgspec.Struct, frozen=True, omit_defaults=True):
    """An RFC 9457 problem body with the service's stable machine ``code``."""

    type: str
    title: str
    status: int
    code: str
    detail: str


_encoder = msgspec.json.Encoder()


def problem_type(slug: str) -> str:
    """The ``type`` URI of a problem, from its short slug."""
    return PROBLEM_TYPE_BASE + slug


def make_problem(*, status: int, slug: str, title: str, code: str, detail: str) -> ProblemDetails:
    """Build a :class:`ProblemDetails` whose ``type`` URI is derived from ``slug``."""
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
