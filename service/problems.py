"""RFC 9457 problem details: one exception type for every error the service answers with.

Handlers raise :class:`Problem`; the app's exception handler turns it into ``application/problem+json`` with a
stable machine ``code`` (and for illegal moves a ``reason`` and the legal moves).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine import Move
from engine.reasons import Reason
from service.codes import ProblemCode

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_BASE = "https://fivehundred.dev/problems/"


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
    #: Illegal moves: the legal moves of the seat that made the move (empty when it is not that seat's turn).
    legal_moves: list[Move] | None = None
    current_version: int | None = None
    #: Records: the index of the refused move, the first derived field that differs, and the state before the
    #: refused move as a snapshot.
    move_index: int | None = None
    field: str | None = None
    snapshot: str | None = None
    errors: list[dict[str, Any]] | None = None


class Problem(Exception):
    """An error answered as problem details; ``code`` must be one of :class:`ProblemCode` (else ValueError)."""

    def __init__(self, status: int, code: str, detail: str, *, title: str | None = None,
                 headers: dict[str, str] | None = None, message: tuple[str, dict[str, Any]] | None = None,
                 **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = ProblemCode(code)
        self.detail = detail
        #: The detail as a message key of service/i18n and its parameters, for the other languages.
        self.message = message
        self.title = title or code.replace("_", " ").capitalize()
        self.headers = headers or {}
        self.extra = extra

    def body(self, instance: str | None = None, language: str = "en") -> ProblemDetails:
        from service.i18n import problem_texts  # local: i18n renders problems, problems do not need i18n

        title, detail = problem_texts(language, self.code, self.title, self.detail, self.message)
        return ProblemDetails(type=PROBLEM_BASE + self.code.lower().replace("_", "-"), title=title,
                              status=self.status, code=self.code, detail=detail, instance=instance,
                              **self.extra)
