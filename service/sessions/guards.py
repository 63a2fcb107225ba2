"""A session's token is checked before its request's body.

Litestar decodes a body before the handler runs, and the handler is where a token is checked, so a caller that
may not make a request at all (a spectator asking for a hint, a revoked token, a seat calling the host's tools)
would learn that its body does not decode (400 ``MALFORMED_REQUEST``) before being told it may not ask. This
guard runs before the body is decoded, on the operations that declare who may make them (``opt={"may_ask":
…}``, the very check the operation makes: :data:`~service.sessions.access.MayAsk`): when the body does not
decode, it first reads the session and checks the token (401, 404, 403 as the operation would answer them), and
only then lets the body's 400 through. How the body is sent comes first, as for every operation: a body too
large (413) or not declared as JSON in UTF-8 (415). A body that decodes costs one more decode and no read: the operation
checks the token itself, on its own fresh read. A route with a fast route (:mod:`service.web.fastpath`), which
decodes before any guard, makes the same check with :func:`fast_first`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import ClientException
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Scope

from service.sessions.access import MayAsk
from service.sessions.headers import bearer_token
from service.web.fastpath import First
from service.web.media import is_json_media_type
from service.web.struct_dto import decode_request

__all__ = ["MAY_ASK", "fast_first", "token_before_body"]

#: The route option naming who may make a request (a :data:`~service.sessions.access.MayAsk`).
MAY_ASK = "may_ask"


async def _check(app: Any, path_params: Mapping[str, Any], authorization: str | None, may_ask: MayAsk) -> None:
    """401, 404 or 403 for a caller that may not make the request at all; nothing for one that may."""
    token = bearer_token(authorization, None)
    caller = await app.state.sessions.service.access.caller(path_params["session_id"], token)
    seat = path_params.get("seat")
    may_ask(caller, seat if isinstance(seat, int) else None)


async def token_before_body(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    may_ask: MayAsk | None = handler.opt.get(MAY_ASK)
    dto = handler.resolve_data_dto() if may_ask is not None else None
    if may_ask is None or dto is None or not is_json_media_type(connection.headers.get("content-type")):
        return  # a body not sent as JSON is the transport's refusal (415, service/web/media.py), first
    body = await connection.body()  # type: ignore[attr-defined]  # a Request: the handler reads it again, cached
    try:
        decode_request(dto.model_type, body)
    except ClientException:  # ValidationException included: refused after the token
        await _check(connection.app, connection.path_params, connection.headers.get("authorization"), may_ask)


def fast_first(may_ask: MayAsk) -> First:
    """The fast route's check before a body's refusal: the guard's."""

    async def first(scope: Scope) -> None:
        authorization = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), None)
        await _check(scope["app"], scope["path_params"], authorization, may_ask)

    return first
