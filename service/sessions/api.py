"""``/v1/sessions``: the HTTP face of :class:`~service.sessions.service.SessionService`.

Each handler reads the token and headers, calls the service once and sets the ``ETag``; everything else
lives in the service. Tokens come as ``Authorization: Bearer <token>`` (and, for the event stream only, as
``?access_token=``, because a browser's ``EventSource`` cannot set headers).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import SecurityScheme
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter
from litestar.response import Stream

from service.problems import ProblemDetails
from service.sessions.service import (
    CreateSessionRequest,
    MoveApplied,
    MoveRequest,
    SessionCreated,
    SessionLegalMoves,
    SessionService,
    SessionSnapshot,
    SessionState,
    bearer_token,
    etag,
)

PATH = "/v1/sessions"
SECURITY_SCHEME = "sessionToken"
SECURITY_SCHEMES = {
    SECURITY_SCHEME: SecurityScheme(type="http", scheme="bearer", description=(
        "A session's host token or one of its seat tokens, as returned when the session was created.")),
}
_SECURED: list[dict[str, list[str]]] = [{SECURITY_SCHEME: []}]
_NO_STORE = {"Cache-Control": "no-store"}

_PROBLEM_MEANINGS = {
    400: "Malformed request (body, header or parameter).",
    401: "Missing or unknown token (`UNAUTHORIZED`).",
    403: "A token of this session, but of the wrong role or seat (`FORBIDDEN`, `WRONG_SEAT`).",
    404: "Unknown, deleted or expired session (`SESSION_NOT_FOUND`).",
    409: "Stale `If-Match` (`VERSION_CONFLICT`, with `current_version` and the current `ETag`).",
    422: "Illegal move (`ILLEGAL_MOVE` with `reason`, `detail`, `legal_moves`), or an `Idempotency-Key` "
         "reused for a different move (`IDEMPOTENCY_KEY_REUSED`); for a snapshot, `SNAPSHOT_CORRUPT`.",
    503: "The session store is unavailable (`STORE_UNAVAILABLE`, with `Retry-After`).",
}


def _problems(*statuses: int) -> dict[int, ResponseSpec]:
    return {s: ResponseSpec(data_container=ProblemDetails, description=_PROBLEM_MEANINGS[s],
                            media_type="application/problem+json") for s in statuses}


def _token(request: Request[Any, Any, Any], access_token: str | None = None) -> str:
    return bearer_token(request.headers.get("authorization"), access_token)


Service = NamedDependency[SessionService]
SessionId = FromPath[str]
SeatQuery = Annotated[int | None, QueryParameter(
    name="seat", required=False, ge=0, le=5,
    description="The seat whose view to read: a seat token may name only its own seat.")]
IfMatch = Annotated[str | None, HeaderParameter(
    name="If-Match", required=False, description='The version the move was chosen at, e.g. "7".')]
IdempotencyKey = Annotated[str | None, HeaderParameter(
    name="Idempotency-Key", required=False,
    description="A client-chosen key (1 to 128 printable characters) that makes a retry safe.")]
AccessToken = Annotated[str | None, QueryParameter(
    name="access_token", required=False, description="The token, for clients that cannot set headers.")]
LastEventIdQuery = Annotated[str | None, QueryParameter(
    name="last_event_id", required=False, description="Resume after this event id (as the header).")]
LastEventIdHeader = Annotated[str | None, HeaderParameter(
    name="Last-Event-ID", required=False, description="Resume after this event id.")]


class SessionsController(Controller):
    """Hosted sessions: a game's state kept by the service, with per-seat tokens, versions and live events."""

    path = PATH
    tags = ["sessions"]

    @post("/", operation_id="create_session", status_code=201, summary="Create a hosted session",
          description="From a new game's settings (as for a stateless game) or from a sealed snapshot. "
                      "Answers the host token and one token per seat; only their SHA-256 hashes are stored.",
          responses=_problems(400, 422, 503))
    async def create_session(self, session_service: Service,
                             data: JSONBody[CreateSessionRequest]) -> Response[SessionCreated]:
        created = await session_service.create(data)
        return Response(created, status_code=201, headers={
            "ETag": etag(created.version), "Location": f"{PATH}/{created.session_id}", **_NO_STORE})

    @get("/{session_id:str}", operation_id="get_session", summary="Read a session as the caller's seat",
         description="A seat token gets its seat's view; the host token the public view.",
         security=_SECURED, responses=_problems(400, 401, 403, 404, 503))
    async def get_session(self, request: Request[Any, Any, Any], session_service: Service,
                          session_id: SessionId, seat: SeatQuery = None) -> Response[SessionState]:
        state = await session_service.get(session_id, _token(request), seat)
        return Response(state, headers={"ETag": etag(state.version), **_NO_STORE})

    @get("/{session_id:str}/legal-moves", operation_id="get_session_legal_moves",
         summary="The caller's seat's legal moves", description="Seat tokens only (the host has no seat).",
         security=_SECURED, responses=_problems(400, 401, 403, 404, 503))
    async def get_legal_moves(self, request: Request[Any, Any, Any], session_service: Service,
                              session_id: SessionId, seat: SeatQuery = None) -> Response[SessionLegalMoves]:
        moves = await session_service.legal_moves(session_id, _token(request), seat)
        return Response(moves, headers={"ETag": etag(moves.version), **_NO_STORE})

    @post("/{session_id:str}/moves", operation_id="apply_session_move", status_code=200,
          summary="Make a move for the caller's seat",
          description="One atomic compare-and-set on the session's version. `If-Match` makes a stale version "
                      "a 409; `Idempotency-Key` makes a retry return the first answer (`Idempotent-Replayed: "
                      "true`) instead of applying twice.",
          security=_SECURED, responses={
              200: ResponseSpec(data_container=MoveApplied, description="Applied (or an idempotent replay)."),
              **_problems(400, 401, 403, 404, 409, 422, 503)})
    async def apply_move(
        self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
        data: JSONBody[MoveRequest], if_match: IfMatch = None, idempotency_key: IdempotencyKey = None,
    ) -> Response[bytes]:
        outcome = await session_service.move(session_id, _token(request), data.move, if_match=if_match,
                                             idempotency_key=idempotency_key)
        headers = {"ETag": etag(outcome.version), **_NO_STORE}
        if outcome.replayed:
            headers["Idempotent-Replayed"] = "true"
        return Response(outcome.body, media_type=MediaType.JSON, headers=headers)

    @get("/{session_id:str}/snapshot", operation_id="export_session_snapshot",
         summary="Export the session's sealed snapshot (host only)",
         description="Keep it: a session that expired or was lost can be recreated from it.",
         security=_SECURED, responses=_problems(401, 403, 404, 503))
    async def export_snapshot(self, request: Request[Any, Any, Any], session_service: Service,
                              session_id: SessionId) -> Response[SessionSnapshot]:
        exported = await session_service.snapshot(session_id, _token(request))
        return Response(exported, headers={"ETag": etag(exported.version), **_NO_STORE})

    @delete("/{session_id:str}", operation_id="delete_session", summary="Delete a session (host only)",
            security=_SECURED, responses=_problems(401, 403, 404, 503))
    async def delete_session(self, request: Request[Any, Any, Any], session_service: Service,
                             session_id: SessionId) -> None:
        await session_service.delete(session_id, _token(request))

    @get("/{session_id:str}/events", operation_id="stream_session_events", media_type="text/event-stream",
         summary="Live events (Server-Sent Events), redacted for the caller's seat",
         description="Each event: `id: <version>-<index>`, `event: <event type>`, `data: <event JSON>`. "
                     "Starts at the beginning of the session's log, or after `Last-Event-ID` (header or "
                     "query), so a reconnect loses and repeats nothing. Heartbeat comments every 15 s; the "
                     "stream ends once the game is over and every event was sent.",
         security=_SECURED, responses=_problems(400, 401, 404, 503))
    async def stream_events(
        self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
        access_token: AccessToken = None, last_event_id: LastEventIdQuery = None,
        last_event_id_header: LastEventIdHeader = None,
    ) -> Stream:
        frames = await session_service.open_stream(session_id, _token(request, access_token),
                                                   last_event_id_header or last_event_id)
        return Stream(frames, media_type="text/event-stream",
                      headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
