"""The hot path of ``POST /v1/games/apply``: a route middleware that answers a well-formed legal move itself.

A stateless apply is the request a game host sends for every card played, so its cost is the service's cost.
Most of a framework request (dependency injection, the DTO and handler signature, the response object) is the
same every time and does not depend on the game. This middleware, mounted on the apply route only and so
inside every app-level middleware (CORS, API keys, rate limits, logging, metrics), reads the body, decodes it with
the same strict decoder, runs the same engine call and sealing as the handler, and writes the JSON response.

Anything else (a body that is not ``application/json``, over the limit or of unknown length, malformed JSON, a
bad snapshot, an illegal move, an unknown seat in ``views``) is handed, body and all, to the regular handler,
which answers exactly as the contract says. Nothing is counted or stored before that hand-over, so the regular
path sees a fresh request.
``tests/api/test_fastpath.py`` checks that both paths give the same bytes.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    ReceiveMessage,
    Scope,
    Send,
)

from engine import apply_move, redact_events
from service.referee.moves import syntax_rejection
from service.referee.schemas import ApplyRequest, ApplyResponse
from service.web.media import is_json_media_type

_DECODER = msgspec.json.Decoder(ApplyRequest)

_ENCODER = msgspec.json.Encoder()
_JSON = b"application/json"


class ApplyFastPath:
    """ASGI middleware for the apply route (``middleware=[ApplyFastPath]`` on the handler)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["app"].state
        limit: int = state.settings.max_body_bytes
        length = -1
        json_body = False
        for name, value in scope["headers"]:
            if name == b"content-length":
                length = int(value) if value.isdigit() else -1
            elif name == b"content-type":
                json_body = is_json_media_type(value)
        if not 0 < length <= limit or not json_body:
            await self.app(scope, receive, send)
            return
        body, more = await _read_body(receive, limit)
        if body is None:
            return  # the client went away
        payload = self._answer(state, body) if not more else None
        if payload is None:
            await self.app(scope, _replay(body, more, receive), send)
            return
        start: HTTPResponseStartEvent = {
            "type": "http.response.start", "status": 200,
            "headers": [(b"content-type", _JSON), (b"content-length", str(len(payload)).encode())]}
        await send(start)
        body_event: HTTPResponseBodyEvent = {"type": "http.response.body", "body": payload, "more_body": False}
        await send(body_event)

    @staticmethod
    def _answer(state: Any, body: bytes) -> bytes | None:
        """The response body for a well-formed legal move, or ``None`` to let the handler answer."""
        try:
            data = _DECODER.decode(body)
            sealer = state.sealer
            game = sealer.open(data.snapshot)
            players = game.options.players
            views = data.views
            if views and any(v != "public" and int(v) >= players for v in views):
                return None
            if syntax_rejection(game, data.move) is not None:
                return None
            new, events = apply_move(game, data.move)
        except Exception:  # every refusal is answered, and counted, by the regular handler
            return None
        from service.games.api import _viewers, _views  # the handler's own helpers: one definition of the answer

        response = ApplyResponse(snapshot=sealer.seal(new, remember=True), phase=new.phase, to_act=new.to_act,
                                 events=redact_events(events, None),
                                 views=_views(new, events, _viewers(views, players)))
        state.metrics.move_applied()
        return _ENCODER.encode(response)


def _replay(body: bytes, more: bool, receive: Receive) -> Receive:
    """A receive that first returns the body already read, then (if any is left) the rest from the client."""
    sent = False

    async def replay() -> ReceiveMessage:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replay


class SessionMoveFastPath:
    """ASGI middleware for ``POST /v1/sessions/{id}/moves``: the same service call as the handler, without the
    framework's per-request machinery.

    Headers and body are read exactly as the handler's parameters would be; anything unusual (no or oversized
    Content-Length, a body that does not decode, an over-long Idempotency-Key) goes to the regular handler before
    the session is touched. Once :meth:`SessionService.move` is called, its refusals (401, 403, 404, 409, 422,
    503…) are raised as they are, so the app's exception handlers render them exactly as for the handler.
    """

    def __init__(self, app: ASGIApp) -> None:
        # Imported here: the sessions package mounts this middleware, so it cannot be imported at module level.
        from service.referee.schemas import MoveRequest
        from service.sessions.service import bearer_token, etag

        self.app = app
        self._decoder = msgspec.json.Decoder(MoveRequest)
        self._bearer_token = bearer_token
        self._etag = etag

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app_state = scope["app"].state
        limit: int = app_state.settings.max_body_bytes
        length = -1
        authorization = if_match = idempotency_key = None
        json_body = False
        for name, value in scope["headers"]:
            if name == b"content-length":
                length = int(value) if value.isdigit() else -1
            elif name == b"content-type":
                json_body = is_json_media_type(value)
            elif name == b"authorization":
                authorization = value.decode("latin-1")
            elif name == b"if-match":
                if_match = value.decode("latin-1")
            elif name == b"idempotency-key":
                idempotency_key = value.decode("latin-1")
        session_id = scope.get("path_params", {}).get("session_id")
        if not 0 < length <= limit or not json_body or not isinstance(session_id, str) or (
                idempotency_key is not None and not 0 < len(idempotency_key) <= 128):
            await self.app(scope, receive, send)
            return
        body, more = await _read_body(receive, limit)
        if body is None:
            return  # the client went away
        data = None
        if not more:
            try:
                data = self._decoder.decode(body)
            except msgspec.MsgspecError:
                data = None
        if data is None:
            await self.app(scope, _replay(body, more, receive), send)
            return
        service = app_state.sessions.service
        outcome = await service.move(session_id, self._bearer_token(authorization, None), data.move,
                                     if_match=if_match, idempotency_key=idempotency_key)
        headers = [(b"content-type", _JSON), (b"content-length", str(len(outcome.body)).encode()),
                   (b"etag", self._etag(outcome.version).encode()), (b"cache-control", b"no-store")]
        if outcome.replayed:
            headers.append((b"idempotent-replayed", b"true"))
        start: HTTPResponseStartEvent = {"type": "http.response.start", "status": 200, "headers": headers}
        await send(start)
        body_event: HTTPResponseBodyEvent = {"type": "http.response.body", "body": outcome.body,
                                             "more_body": False}
        await send(body_event)


async def _read_body(receive: Receive, limit: int) -> tuple[bytes | None, bool]:
    """The request body (``None`` if the client left), and whether more remains after ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None, False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if size > limit:
            break
    return b"".join(chunks), more
