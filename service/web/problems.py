"""RFC 9457 problem details: one body schema and one exception type for every error the service answers with.

Handlers raise :class:`Problem`; the app's exception handler turns it into ``application/problem+json`` with a
stable machine ``code`` (and for illegal moves a ``reason`` and the legal moves). The ops middlewares, which
answer some requests before any route handler runs (401, 429, 503), build the same body with
:func:`make_problem` and write it with :func:`send_problem`, so every error in the API has one schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Send

from engine import Move
from engine.reasons import Reason
from service.i18n import problem_texts
from service.web.codes import ProblemCode

__all__ = ["PROBLEM_BASE", "PROBLEM_MEDIA_TYPE", "DiscardChoice", "Problem", "ProblemDetails", "make_problem",
           "problem_type", "send_problem"]

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_BASE = "https://fivehundred.dev/problems/"


class DiscardChoice(msgspec.Struct, frozen=True, kw_only=True):
    """The exchange's legal discards in a compact form: choose any ``count`` of ``cards`` (the seat's hand, in
    pack order). Every such choice is legal, listed in pack order it is exactly a move of ``legal_moves``."""

    cards: list[str]
    count: int


class ProblemDetails(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The body of every error response (RFC 9457), with a stable machine ``code``.

    ``reason`` (a stable engine code such as ``MUST_FOLLOW_SUIT``) and ``legal_moves`` come with illegal or
    malformed moves; ``errors`` with malformed requests (each ``{"message": …, "field": …}``).
    """

    type: str
    title: str
    status: int
    #: One of the enumerated codes (``GET /v1/rules`` lists them with their meanings).
    code: ProblemCode
    detail: str
    instance: str | None = None
    #: Refused moves: the engine's stable reason (``GET /v1/rules`` lists them with their meanings).
    reason: Reason | None = None
    #: Illegal moves: the legal moves of the seat that made the move (empty when it is not that seat's turn,
    #: and at the exchange, whose discards come as ``discard_choice``).
    legal_moves: list[Move] | None = None
    #: A refused move at the exchange: the seat's legal discards in their compact form (choose ``count`` of
    #: ``cards``).
    discard_choice: DiscardChoice | None = None
    current_version: int | None = None
    #: ``MOVE_TIMED_OUT``: the version the turn clock made for the seat.
    timed_out_version: int | None = None
    #: Records: the index of the refused move, the first derived field that differs, and the state before the
    #: refused move as a snapshot.
    move_index: int | None = None
    field: str | None = None
    snapshot: str | None = None
    errors: list[dict[str, Any]] | None = None


class Problem(Exception):
    """An error answered as problem details; ``code`` must be one of :class:`ProblemCode` (else ValueError)."""

    def __init__(self, code: str, detail: str, *, status: int | None = None, title: str | None = None,
                 headers: dict[str, str] | None = None, message: tuple[str, dict[str, Any]] | None = None,
                 kind: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.code = ProblemCode(code)
        #: The code's own status (:mod:`service.web.codes`), unless a client error Litestar raised keeps its own.
        self.status = self.code.status if status is None else status
        self.detail = detail
        #: The detail as a message key of service/i18n and its parameters, for the other languages.
        self.message = message
        self.title = title or code.replace("_", " ").capitalize()
        self.headers = headers or {}
        #: A problem type of its own within ``code`` (RFC 9457's ``type``, ``…/problems/<kind>``, with its own
        #: title ``problem.type.<kind>.title``): for a refusal that deserves its own name where the frozen
        #: enumeration of codes cannot grow. ``None``: the code's own type.
        self.kind = kind
        self.extra = extra

    def body(self, instance: str | None = None, language: str = "en") -> ProblemDetails:
        title, detail = problem_texts(language, self.code, self.title, self.detail, self.message, self.kind)
        slug = self.code.lower().replace("_", "-") if self.kind is None else self.kind
        return ProblemDetails(type=PROBLEM_BASE + slug, title=title, status=self.status, code=self.code,
                              detail=detail, instance=instance, **self.extra)


# ----------------------------------------------------------------------------------- answered without a route

# The ops middlewares answer some requests themselves (401, 429, 503) before any route handler runs, so they
# write the problem straight onto the ASGI ``send`` channel; the body is the same :class:`ProblemDetails`, so
# every error in the API has exactly one schema in the OpenAPI document.

_ENCODER = msgspec.json.Encoder()


def problem_type(slug: str) -> str:
    """The ``type`` URI of a problem, from its short slug.

    >>> problem_type("rate-limited")
    'https://fivehundred.dev/problems/rate-limited'
    """
    return PROBLEM_BASE + slug


def make_problem(*, slug: str, title: str, code: str, detail: str, language: str = "en",
                 params: dict[str, Any] | None = None, instance: str | None = None) -> ProblemDetails:
    """Build a :class:`ProblemDetails` whose ``type`` URI is derived from ``slug`` and whose status is the code's;
    ``title`` and ``detail`` are worded in ``language`` (the code's texts in service/i18n, with ``params``).
    ``instance`` is the request's path, as in every other problem."""
    message = None if params is None else (f"problem.{code}.detail", params)
    title, detail = problem_texts(language, code, title, detail, message)
    problem_code = ProblemCode(code)
    return ProblemDetails(type=problem_type(slug), title=title, status=problem_code.status, code=problem_code,
                          detail=detail, instance=instance)


async def send_problem(send: Send, problem: ProblemDetails, *, headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Send ``problem`` as a complete HTTP response on a raw ASGI channel."""
    body = _ENCODER.encode(problem)
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
