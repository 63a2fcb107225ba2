"""The contract's side of languages: ``Accept-Language`` and ``lang`` declared on every operation.

They are app-level (layered) parameters, so every operation documents them; both are optional, and an unsupported
language falls back as :mod:`service.i18n.negotiation` says (a ``lang`` given twice is refused like any repeated
query parameter, :mod:`service.web.query`).
"""

from __future__ import annotations

from typing import Any

from litestar.params import HeaderParameter, QueryParameter

from service.i18n.negotiation import SUPPORTED_LANGUAGES

_LIST = ", ".join(f"`{language}`" for language in SUPPORTED_LANGUAGES)


def language_parameters() -> dict[str, Any]:
    """Layered parameters for ``Litestar(parameters=...)``."""
    return {
        "accept_language": HeaderParameter(
            annotation=str | None, name="Accept-Language", required=False, default=None,
            description=f"The languages the client prefers (RFC 9110, with quality values and `*`). Texts come "
                        f"in the best supported one: {_LIST}; `en` when none is acceptable. Machine fields "
                        f"(codes, reasons, tokens, option names) never change. The response says its language "
                        f"in `Content-Language`.",
            examples=None),
        "lang": QueryParameter(
            annotation=str | None, name="lang", required=False, default=None,
            description=f"Overrides `Accept-Language` when it names a supported language ({_LIST}); otherwise "
                        f"ignored.",
            examples=None),
    }


__all__ = ["language_parameters"]
