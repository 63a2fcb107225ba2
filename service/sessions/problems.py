"""The sessions' own problems (401, 403, 404, 409), each worded in every language by its ``case``.

Errors of the engine and of the snapshots come from :mod:`service.referee`; these are about tokens, seats and
versions of a hosted session.
"""

from __future__ import annotations

from typing import Any

from service.web.problems import Problem


def etag(version: int) -> str:
    return f'"{version}"'


def unauthorized(detail: str, case: str | None = None) -> Problem:
    """401; ``case`` names the detail's text in the other languages (``problem.UNAUTHORIZED.detail.<case>``)."""
    return Problem("UNAUTHORIZED", detail, headers={"WWW-Authenticate": "Bearer"},
                   message=(f"problem.UNAUTHORIZED.detail.{case}", {}) if case else None)


#: The problem type (RFC 9457 ``type``: ``…/problems/deal-not-secret``) of every refusal of a table whose deals a
#: client knows (a seed, deck orders, or a snapshot of a game dealt from them): its code stays the field's own
#: (``INVALID_SEED``, ``INVALID_DECK_ORDER``, ``FORBIDDEN``), as ``/v1``'s enumeration of codes is frozen.
DEAL_NOT_SECRET = "deal-not-secret"


def forbidden(detail: str, case: str, *, code: str = "FORBIDDEN", kind: str | None = None,
              **params: Any) -> Problem:
    """403; ``case`` and ``params`` word the detail in the other languages (``problem.<code>.detail.<case>``);
    ``kind``: a problem type of its own (:class:`~service.web.problems.Problem`)."""
    return Problem(code, detail, message=(f"problem.{code}.detail.{case}", params), kind=kind)


class SessionGone(Problem):
    """404 ``SESSION_NOT_FOUND``: no such session (never, or no more: deleted, or expired)."""

    def __init__(self, session_id: str) -> None:
        super().__init__("SESSION_NOT_FOUND", f"no session {session_id[:64]!r}: it never existed, was "
                         "deleted, or expired after its idle time (the host can recreate it from a snapshot)")


def not_found(session_id: str) -> Problem:
    return SessionGone(session_id)


class SessionBusy(Problem):
    """409 ``VERSION_CONFLICT``: the session kept changing while a change was tried on it, again and again."""


def conflict(current: int, detail: str, case: str, **params: Any) -> Problem:
    """409 with the current version; ``case`` and ``params`` word it in the other languages."""
    kind = SessionBusy if case == "busy" else Problem
    return kind("VERSION_CONFLICT", detail, current_version=current, headers={"ETag": etag(current)},
                message=(f"problem.VERSION_CONFLICT.detail.{case}", {"current_version": current, **params}))


def busy(current: int) -> SessionBusy:
    """409: the session kept changing; read it and try again."""
    problem = conflict(current, "the session kept changing; read it and try again", "busy")
    assert isinstance(problem, SessionBusy)
    return problem
