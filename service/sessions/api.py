"""``/v1/sessions``: the HTTP face of :class:`~service.sessions.service.SessionService`.

Each handler reads the token and headers, calls the service once and sets the ``ETag``; everything else
lives in the service. Tokens come as ``Authorization: Bearer <token>`` (and, for the event stream only, as
``?access_token=``, with the API key as ``?api_key=``, because a browser's ``EventSource`` cannot set headers;
query strings are never logged).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example, SecurityScheme
from litestar.params import Body, FromPath, HeaderParameter, PathParameter, QueryParameter
from litestar.response import Stream
from litestar.types import Scope

from service.i18n import request_language
from service.ops.clients import client_identity
from service.referee.search import until_disconnected
from service.referee.suggestions import SuggestResponse
from service.sessions import examples
from service.sessions.assist import may_ask_hints, may_validate
from service.sessions.guards import MAY_ASK, fast_first, token_before_body
from service.sessions.headers import bearer_token
from service.sessions.life import may_run_the_game
from service.sessions.move_loop import MoveOutcome, may_move
from service.sessions.problems import etag
from service.sessions.rematch import may_ask_next_game
from service.sessions.schemas import (
    CreateSessionRequest,
    EmptyRequest,
    HandToBotRequest,
    InvitationPreview,
    Joined,
    JoinRequest,
    MoveApplied,
    MoveRequest,
    NameRequest,
    NextGame,
    RematchRequest,
    SeatChanged,
    SeatNameSet,
    SeatTokenIssued,
    SessionCreated,
    SessionEvents,
    SessionLegalMoves,
    SessionLife,
    SessionSnapshot,
    SessionState,
    SessionSuggestRequest,
    SessionValidation,
    SpectatorCreated,
    WebhookCreated,
    WebhookList,
    WebhookRequest,
    engine_move,
)
from service.sessions.seating import may_hand_to_bot, may_invite, may_leave, may_name, may_reissue
from service.sessions.service import SessionService
from service.sessions.spectators import may_mint_spectators
from service.sessions.webhooks import may_register_webhooks
from service.web.fastpath import FastAnswer, fast_route
from service.web.openapi import SNAPSHOT_CODES, problem_responses, response_spec
from service.web.problems import Problem
from service.web.struct_dto import StructDTO

PATH = "/v1/sessions"
SECURITY_SCHEME = "sessionToken"
INVITATION_SCHEME = "invitationCode"
SECURITY_SCHEMES = {
    SECURITY_SCHEME: SecurityScheme(type="http", scheme="bearer", description=(
        "A session's host token, one of its seat tokens (as returned when the session was created), or a "
        "spectator token (createSpectatorToken).")),
    INVITATION_SCHEME: SecurityScheme(type="http", scheme="bearer", description=(
        "An invitation's code (from createSession's `invitations`, or inviteToSeat): it previews the invitation "
        "(previewInvitation) and nothing else; joinSession takes it in its body.")),
}
_SECURED: list[dict[str, list[str]]] = [{SECURITY_SCHEME: []}]
_NO_STORE = {"Cache-Control": "no-store"}

#: The problem codes of each operation (each documented with an example; see service/web/openapi.py).
_SESSION_CODES = ("MALFORMED_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "SESSION_NOT_FOUND", "STORE_UNAVAILABLE")
_CREATE_CODES = ("MALFORMED_REQUEST", "FORBIDDEN", "INVALID_OPTIONS", "INVALID_SEED", "INVALID_DECK_ORDER",
                 "INVALID_FIRST_DEALER", "INVALID_BOTS", "INVALID_CLOCK", *SNAPSHOT_CODES,
                 "BODY_TOO_LARGE",
                 "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE")
_MOVE_CODES = ("MALFORMED_REQUEST", "MALFORMED_MOVE", "INVALID_IF_MATCH", "INVALID_IDEMPOTENCY_KEY", "UNAUTHORIZED",
               "FORBIDDEN", "WRONG_SEAT", "SESSION_NOT_FOUND", "VERSION_CONFLICT", "MOVE_TIMED_OUT", "ILLEGAL_MOVE",
               "IDEMPOTENCY_KEY_REUSED", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE",
               "COMMIT_OUTCOME_UNKNOWN")
_VALIDATE_CODES = ("MALFORMED_REQUEST", "MALFORMED_MOVE", "UNAUTHORIZED", "FORBIDDEN", "WRONG_SEAT",
                   "SESSION_NOT_FOUND", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE")
_SUGGEST_CODES = ("MALFORMED_REQUEST", "INVALID_SEED", "UNAUTHORIZED", "FORBIDDEN", "HINTS_OFF",
                  "SESSION_NOT_FOUND", "NOT_TO_ACT", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE",
                  "NOT_READY")
_SPECTATOR_CODES = ("MALFORMED_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "SESSION_NOT_FOUND", "SPECTATORS_FULL",
                    "VERSION_CONFLICT", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE")
_JOIN_CODES = ("MALFORMED_REQUEST", "INVALID_NAME", "INVALID_IDEMPOTENCY_KEY", "UNAUTHORIZED", "SESSION_NOT_FOUND",
               "INVITATION_REDEEMED", "INVITATION_EXPIRED", "IDEMPOTENCY_KEY_REUSED", "VERSION_CONFLICT",
               "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE", "COMMIT_OUTCOME_UNKNOWN")
_REMATCH_CODES = ("MALFORMED_REQUEST", "UNAUTHORIZED", "TOKEN_REVOKED", "FORBIDDEN", "SESSION_NOT_FOUND",
                  "VERSION_CONFLICT", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE",
                  "COMMIT_OUTCOME_UNKNOWN")
_PREVIEW_CODES = ("MALFORMED_REQUEST", "UNAUTHORIZED", "SESSION_NOT_FOUND", "INVITATION_REDEEMED",
                  "INVITATION_EXPIRED", "STORE_UNAVAILABLE")
_SEAT_CODES = ("MALFORMED_REQUEST", "UNAUTHORIZED", "TOKEN_REVOKED", "FORBIDDEN", "SESSION_NOT_FOUND",
               "VERSION_CONFLICT", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "STORE_UNAVAILABLE")
_HOST_SEAT_CODES = (*_SEAT_CODES, "NO_SUCH_SEAT", "SEAT_NOT_HELD")
_STREAM_CODES = ("MALFORMED_REQUEST", "INVALID_LAST_EVENT_ID", "UNAUTHORIZED", "TOKEN_REVOKED", "SESSION_NOT_FOUND",
                 "STORE_UNAVAILABLE")


def _token(request: Request[Any, Any, Any], access_token: str | None = None) -> str:
    return bearer_token(request.headers.get("authorization"), access_token)


def _client(request: Request[Any, Any, Any]) -> str:
    """Who is asking (its configured API key, else its address), for the playout budget of hints."""
    settings = request.app.state.get("settings")
    return client_identity(request.scope, known_api_keys=getattr(settings, "api_keys", ()))


def _life(changed: SessionLife) -> Response[SessionLife]:
    return Response(changed, headers={"ETag": etag(changed.version), **_NO_STORE})


def move_headers(outcome: MoveOutcome) -> dict[str, str]:
    """The headers of a move's answer: the new version's ``ETag``, and whether it is an idempotent replay."""
    headers = {"ETag": etag(outcome.version), **_NO_STORE}
    if outcome.replayed:
        headers["Idempotent-Replayed"] = "true"
    return headers


async def _fast_move(scope: Scope, headers: Mapping[bytes, str], data: MoveRequest) -> FastAnswer:
    """``applySessionMove`` on the fast route: the handler's own service call and headers."""
    service: SessionService = scope["app"].state.sessions.service
    outcome = await service.move(scope["path_params"]["session_id"], bearer_token(headers.get(b"authorization")),
                                 engine_move(data.move), if_match=headers.get(b"if-match"),
                                 idempotency_key=headers.get(b"idempotency-key"))
    return outcome.body, [(name.lower().encode(), value.encode()) for name, value in move_headers(outcome).items()]


Service = NamedDependency[SessionService]
CreateBody = Annotated[CreateSessionRequest, Body(examples=examples.CREATE_SESSION_REQUESTS)]
MoveBody = Annotated[MoveRequest, Body(examples=examples.SESSION_MOVE_REQUESTS)]
ValidateBody = Annotated[MoveRequest, Body(examples=examples.SESSION_VALIDATE_REQUESTS)]
SuggestBody = Annotated[SessionSuggestRequest, Body(examples=examples.SESSION_SUGGEST_REQUESTS)]
SpectatorBody = Annotated[EmptyRequest, Body(examples=[Example(summary="Mint", value={})])]
EmptyBody = Annotated[EmptyRequest, Body(examples=[Example(summary="No settings", value={})])]
JoinBody = Annotated[JoinRequest, Body(examples=[Example(summary="Join", value={"code": "ZCvrg8Jp0nBfWQd3VhXy1a2b",
                                                                                  "name": "Ana"})])]
RematchBody = Annotated[RematchRequest, Body(examples=[
    Example(summary="The game after the table's game 1", value={"game": 1}),
    Example(summary="The game after the current one", value={})])]
NameBody = Annotated[NameRequest, Body(examples=[Example(summary="Name", value={"name": "Ana"})])]
WebhookBody = Annotated[WebhookRequest, Body(examples=[
    Example(summary="Every event", value={"url": "https://hooks.example.com/five-hundred"}),
    Example(summary="Turns and the game's end only",
            value={"url": "https://hooks.example.com/five-hundred", "events": ["hand_dealt", "trick_won",
                                                                               "clock_low", "game_over"]})])]
BotBody = Annotated[HandToBotRequest, Body(examples=[Example(summary="An expert bot", value={"level": "expert"})])]
SeatPath = Annotated[int, PathParameter(name="seat", ge=0, le=5, description="A seat of the session's game.")]
ReasonsQuery = Annotated[bool, QueryParameter(
    name="reasons", required=False,
    description="During the auction, also say why each other move of the bid box is not legal now.")]
ListDiscardsQuery = Annotated[bool, QueryParameter(
    name="list_discards", required=False,
    description="At the seat's own exchange, `false` answers the compact form alone (`legal_moves` empty).")]
SessionId = FromPath[str]
SeatQuery = Annotated[int | None, QueryParameter(
    name="seat", required=False, ge=0, le=5,
    description="The seat whose view to read: a seat token may name only its own seat.")]
IfMatch = Annotated[str | None, HeaderParameter(
    name="If-Match", required=False, description='The version the move was chosen at, e.g. "7".')]
IdempotencyKey = Annotated[str | None, HeaderParameter(
    name="Idempotency-Key", required=False,
    description="A client-chosen key (1 to 128 printable characters) that makes a retry safe.")]
LastEventIdQuery = Annotated[str | None, QueryParameter(
    name="last_event_id", required=False, description="Resume after this event id (as the header).")]
AfterQuery = Annotated[str | None, QueryParameter(
    name="after", required=False, max_length=40,
    description="After this event id (`<version>-<index>`) or this version (`<version>`); none: from the start.")]
LastEventIdHeader = Annotated[str | None, HeaderParameter(
    name="Last-Event-ID", required=False, description="Resume after this event id.")]


_PLAIN_SEAT = re.compile(r"/seats/[0-5]/")


def _plain_seat(request: Request[Any, Any, Any], seat: int) -> int:
    """``seat`` if the path writes it as the game numbers seats, one ASCII digit; 400 ``MALFORMED_REQUEST``
    otherwise (``+1``, ``01``, an Arabic-Indic or a fullwidth digit all read as 1 by ``int``)."""
    if _PLAIN_SEAT.search(request.scope["path"]) is None:
        raise Problem("MALFORMED_REQUEST", "a seat in a path is one digit, 0 to 5, as the game numbers seats",
                      message=("problem.MALFORMED_REQUEST.detail.seat_path", {}))
    return seat


class SessionsController(Controller):
    """Hosted sessions: a game's state kept by the service, with per-seat tokens, versions and live events."""

    path = PATH
    tags = ["sessions"]
    #: A token before a body (:mod:`.guards`): on the operations that say who may make them (``MAY_ASK``).
    guards = [token_before_body]

    @post("/", operation_id="createSession", status_code=201, dto=StructDTO[CreateSessionRequest], return_dto=None,
          summary="Create a hosted session",
          description="From a new game's settings (as for a stateless game) or from a sealed snapshot. "
                      "Answers the host token and one token per seat; only their SHA-256 hashes are stored. "
                      "Headers: `ETag` (the version, `\"1\"`) and `Location` (the session's path).",
          responses={201: response_spec(SessionCreated, "The new session and its tokens.",
                                        examples.SESSION_CREATED),
                     **problem_responses(*_CREATE_CODES)})
    async def create_session(self, session_service: Service, data: CreateBody) -> Response[SessionCreated]:
        created = await session_service.create(data)
        return Response(created, status_code=201, headers={
            "ETag": etag(created.version), "Location": f"{PATH}/{created.session_id}", **_NO_STORE})

    @get("/{session_id:str}", operation_id="getSession", summary="Read a session as the caller's seat",
         description="A seat token gets its seat's view; the host token the public view. `ETag`: the "
                     "session's version.",
         security=_SECURED,
         responses={200: response_spec(SessionState, "The caller's view.", examples.SESSION_STATE),
                    **problem_responses(*_SESSION_CODES)})
    async def get_session(self, request: Request[Any, Any, Any], session_service: Service,
                          session_id: SessionId, seat: SeatQuery = None) -> Response[SessionState]:
        state = await session_service.get(session_id, _token(request), seat)
        return Response(state, headers={"ETag": etag(state.version), **_NO_STORE})

    @get("/{session_id:str}/legal-moves", operation_id="getSessionLegalMoves",
         summary="The caller's seat's legal moves",
         description="Seat tokens only (the host has no seat). At the seat's own exchange also `discard_choice`: "
                     "the same discards in a compact form (choose `count` of `cards`), as `legalMoves` answers "
                     "it. With `reasons=true` during the auction, also "
                     "`unavailable`: every other move of the bid box (each bid of the ladder, its sans-kitty form "
                     "where the rules have one, the pass) with the `reason` and `detail` of the engine's check of "
                     "that very move, in one call. `list_discards=false` answers the exchange's compact form alone "
                     "(`legal_moves` empty), as `legalMoves` does. `ETag`: the version these moves are legal at.",
         security=_SECURED,
         responses={200: response_spec(SessionLegalMoves, "The seat's legal moves (empty when it may not act "
                                       "now).", examples.SESSION_LEGAL_MOVES),
                    **problem_responses(*_SESSION_CODES)})
    async def get_legal_moves(self, request: Request[Any, Any, Any], session_service: Service,
                              session_id: SessionId, seat: SeatQuery = None,
                              reasons: ReasonsQuery = False,
                              list_discards: ListDiscardsQuery = True) -> Response[SessionLegalMoves]:
        moves = await session_service.assist.legal_moves(session_id, _token(request), seat, reasons,
                                                         request_language(request.scope), list_discards)
        return Response(moves, headers={"ETag": etag(moves.version), **_NO_STORE})

    @post("/{session_id:str}/validate", operation_id="validateSessionMove",
          opt={MAY_ASK: may_validate}, status_code=200,
          dto=StructDTO[MoveRequest],
          return_dto=None, summary="Check a move of the caller's seat without applying it",
          description="Seat tokens only; the move's `seat` may be left out (the token fixes it). `legal`, or "
                      "the stable `reason`, a `detail` and the seat's own legal moves (at its exchange also "
                      "`discard_choice`, their compact form): the very checks of `applySessionMove`, so they never "
                      "disagree. `ETag`: the version it was checked at.",
          security=_SECURED,
          responses={200: response_spec(SessionValidation, "Whether the move is legal now.",
                                        examples.SESSION_VALIDATION),
                     **problem_responses(*_VALIDATE_CODES)})
    async def validate_move(self, request: Request[Any, Any, Any], session_service: Service,
                            session_id: SessionId, data: ValidateBody) -> Response[SessionValidation]:
        checked = await session_service.assist.validate(session_id, _token(request), engine_move(data.move),
                                                        request_language(request.scope))
        return Response(checked, headers={"ETag": etag(checked.version), **_NO_STORE})

    @post("/{session_id:str}/suggest", operation_id="suggestSessionMove", opt={MAY_ASK: may_ask_hints}, status_code=200,
          dto=StructDTO[SessionSuggestRequest], return_dto=None, summary="A hint for the caller's seat",
          description="Seat tokens only: the move a computer player (`level`, `budget`, `seed` as for "
                      "`suggestMove`) chooses for the caller's seat, deciding from that seat's view alone. "
                      "422 `NOT_TO_ACT` when the seat is not to act; 403 `HINTS_OFF` when the host created the "
                      "session with `\"hints\": false`. `ETag`: the version it was decided at. Hints are "
                      "searched within the bounds of `suggestMove` (503 `NOT_READY`, 429 `RATE_LIMITED` for "
                      "the client's playouts per minute, each with `Retry-After`); the bot seats' own moves "
                      "never wait behind them.",
          security=_SECURED,
          responses={200: response_spec(SuggestResponse, "The hint.", examples.SESSION_SUGGESTION),
                     **problem_responses(*_SUGGEST_CODES)})
    async def suggest_move(self, request: Request[Any, Any, Any], session_service: Service,
                           session_id: SessionId, data: SuggestBody) -> Response[SuggestResponse]:
        version, hint = await session_service.assist.suggest(session_id, _token(request), data,
                                                             _client(request),
                                                             lambda: until_disconnected(request.receive))
        return Response(hint, headers={"ETag": etag(version), **_NO_STORE})

    @post("/{session_id:str}/spectators", operation_id="createSpectatorToken",
          opt={MAY_ASK: may_mint_spectators}, status_code=201,
          dto=StructDTO[EmptyRequest], return_dto=None, summary="Mint a spectator token (host only)",
          description="A read-only token: the public view (`getSession`) and the public event stream "
                      "(`streamSessionEvents`), nothing else (no snapshot, no record, no legal moves, no moves). "
                      "At most 32 per session (409 `SPECTATORS_FULL`). Only its SHA-256 is stored. `ETag`: the "
                      "session's version, which counts this change.",
          security=_SECURED,
          responses={201: response_spec(SpectatorCreated, "The spectator token.", examples.SPECTATOR_CREATED),
                     **problem_responses(*_SPECTATOR_CODES)})
    async def create_spectator(self, request: Request[Any, Any, Any], session_service: Service,
                               session_id: SessionId, data: SpectatorBody) -> Response[SpectatorCreated]:
        version, created = await session_service.spectators.mint(session_id, _token(request))
        return Response(created, status_code=201, headers={"ETag": etag(version), **_NO_STORE})

    @delete("/{session_id:str}/spectators/{spectator_id:str}", operation_id="revokeSpectatorToken",
            status_code=204, summary="Revoke a spectator token (host or table host)",
            description="The spectator token whose `spectator_id` (from `createSpectatorToken`) is given stops "
                        "working at once: 401 `TOKEN_REVOKED` from then on, and its open event streams end with "
                        "a `revoked` event. 404 `NOT_FOUND` for no spectator token of the session by that id. "
                        "`ETag`: the session's version, which counts this change.",
            security=_SECURED,
            responses={204: ResponseSpec(data_container=None, description="Revoked."),
                       **problem_responses("MALFORMED_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "SESSION_NOT_FOUND",
                                           "NOT_FOUND", "TOKEN_REVOKED", "STORE_UNAVAILABLE")})
    async def revoke_spectator(self, request: Request[Any, Any, Any], session_service: Service,
                               session_id: SessionId, spectator_id: FromPath[str]) -> Response[None]:
        version = await session_service.spectators.revoke(session_id, _token(request), spectator_id)
        return Response(None, status_code=204, headers={"ETag": etag(version), **_NO_STORE})

    @post("/{session_id:str}/webhooks", operation_id="registerWebhook", status_code=201,
          opt={MAY_ASK: may_register_webhooks}, dto=StructDTO[WebhookRequest], return_dto=None,
          summary="Register a webhook: the session's events POSTed to a URL, signed",
          description="The host's or the table host's token: the public's events; a seat's token: that seat's "
                      "own (its cards, as its stream shows them; the webhook stops when the seat changes hands). "
                      "Every event logged after it (or only the `events` types named) is POSTed to `url` as it "
                      "happens, one message each, in order, signed as Standard Webhooks sign (`webhook-id`, "
                      "`webhook-timestamp`, `webhook-signature`: HMAC-SHA256 with the answer's `secret`, shown "
                      "this once), at least once, each message's `webhook-id` the same on every retry "
                      "(docs/API.md, \"Webhooks\"). The URL must be https, on a host the operator allows "
                      "(`WEBHOOK_HOSTS`), and not resolve to a private, loopback or link-local address (400 "
                      "`MALFORMED_REQUEST` naming `url`); 403 `FORBIDDEN` when the operator allows none, or the "
                      "session holds 8 already. `ETag`: the session's version, which counts this change.",
          security=_SECURED,
          responses={201: response_spec(WebhookCreated, "The webhook, and its secret.", examples.WEBHOOK_CREATED),
                     **problem_responses(*_SEAT_CODES)})
    async def register_webhook(self, request: Request[Any, Any, Any], session_service: Service,
                               session_id: SessionId, data: WebhookBody) -> Response[WebhookCreated]:
        created = await session_service.webhooks.add(session_id, _token(request), data)
        return Response(created, status_code=201, headers={"ETag": etag(created.version), **_NO_STORE})

    @get("/{session_id:str}/webhooks", operation_id="listWebhooks", summary="The caller's webhooks",
         description="The host's or the table host's token: the public's webhooks; a seat's token: its own. "
                     "Each with where its deliveries are (`delivered`: the last event's id; `attempts` and "
                     "`failing_since` while its receiver fails), never its secret.",
         security=_SECURED,
         responses={200: response_spec(WebhookList, "The webhooks.", examples.WEBHOOK_LIST),
                    **problem_responses(*_SESSION_CODES, "TOKEN_REVOKED")})
    async def list_webhooks(self, request: Request[Any, Any, Any], session_service: Service,
                            session_id: SessionId) -> Response[WebhookList]:
        listed = await session_service.webhooks.listed(session_id, _token(request))
        return Response(listed, headers={"ETag": etag(listed.version), **_NO_STORE})

    @delete("/{session_id:str}/webhooks/{webhook_id:str}", operation_id="removeWebhook", status_code=204,
            summary="Remove a webhook",
            description="One of the caller's webhooks (as `listWebhooks` lists them) stops at once. 404 "
                        "`NOT_FOUND` for none of the caller's by that id. `ETag`: the session's version, which "
                        "counts this change.",
            security=_SECURED,
            responses={204: ResponseSpec(data_container=None, description="Removed."),
                       **problem_responses("MALFORMED_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "SESSION_NOT_FOUND",
                                           "NOT_FOUND", "TOKEN_REVOKED", "STORE_UNAVAILABLE")})
    async def remove_webhook(self, request: Request[Any, Any, Any], session_service: Service,
                             session_id: SessionId, webhook_id: FromPath[str]) -> Response[None]:
        version = await session_service.webhooks.remove(session_id, _token(request), webhook_id)
        return Response(None, status_code=204, headers={"ETag": etag(version), **_NO_STORE})

    @get("/{session_id:str}/invitation", operation_id="previewInvitation",
         summary="What an invitation opens, before joining",
         description="The invitation's `code` as the bearer token (`Authorization: Bearer <code>`): whose table "
                     "(`host_name`, when the host gave one), which `seat`, the rules (`options`, "
                     "`rules_version`), the table's settings (hints, what a seat whose player leaves becomes, the "
                     "turn clock), who sits where (`seats`: each player's name, each bot's level, the open seats; "
                     "`sides`) and how far the game is (`phase`, `hand_number`, `scores`), for a join page to show "
                     "before asking for a name. It shows no card of any hand and no token, and redeems nothing: "
                     "the same code joins afterwards (`joinSession`). Its refusals are `joinSession`'s: 401 "
                     "`UNAUTHORIZED` for a code that is not one of this session's (or was voided), 409 "
                     "`INVITATION_REDEEMED`, 410 `INVITATION_EXPIRED`.",
         security=[{INVITATION_SCHEME: []}],
         responses={200: response_spec(InvitationPreview, "The table the invitation opens.",
                                       examples.INVITATION_PREVIEW),
                    **problem_responses(*_PREVIEW_CODES)})
    async def preview_invitation(self, request: Request[Any, Any, Any], session_service: Service,
                                 session_id: SessionId) -> Response[InvitationPreview]:
        preview = await session_service.seating.preview(session_id, _token(request))
        return Response(preview, headers=_NO_STORE)

    @post("/{session_id:str}/join", operation_id="joinSession", status_code=200, dto=StructDTO[JoinRequest],
          return_dto=None, summary="Redeem an invitation to an open seat",
          description="No token: the invitation's `code` (from `createSession`'s `invitations`, or the host's "
                      "`inviteToSeat`) and the `name` to play under (1 to 32 characters once trimmed: Unicode "
                      "letters, marks, digits, single spaces and `- ' . _`). Answers the seat's token: keep it. An "
                      "invitation is redeemed once, even by two players at the same moment on two replicas (409 "
                      "`INVITATION_REDEEMED` for the other); 410 `INVITATION_EXPIRED` after its time. A retry of "
                      "the same join (an answer lost) is answered the same seat and token again, with "
                      "`Idempotent-Replayed: true` and the join's own version as `ETag`: with the same "
                      "`Idempotency-Key` while the invitation lives (the same key under another name: 422 "
                      "`IDEMPOTENCY_KEY_REUSED`), or, for a join sent without a key, with the same name for 10 "
                      "minutes; as long as that token holds the seat. Every reader of the event stream gets a "
                      "`seat_joined` event. `ETag`: the version.",
          responses={200: response_spec(Joined, "The seat and its token.", examples.JOINED),
                     **problem_responses(*_JOIN_CODES)})
    async def join(self, session_service: Service, session_id: SessionId,
                   data: JoinBody, idempotency_key: IdempotencyKey = None) -> Response[Joined]:
        joined, replayed = await session_service.seating.join(session_id, data.code, data.name, idempotency_key)
        headers = {"ETag": etag(joined.version), **_NO_STORE}
        if replayed:
            headers["Idempotent-Replayed"] = "true"
        return Response(joined, headers=headers)

    @post("/{session_id:str}/rematch", operation_id="rematchSession", opt={MAY_ASK: may_ask_next_game}, status_code=200,
          dto=StructDTO[RematchRequest], return_dto=None, summary="Begin the table's next game",
          description="Once the table's game is over: the next game at the same table, in the same session. The "
                      "same seats, players (their tokens keep working), names and bots, the same options and kind of "
                      "clock (reserves full again), a new secret deal; one compare-and-set at the next version, "
                      "logged as a `next_game` event followed by the new deal, so event streams and "
                      "`Last-Event-ID` go on across it. In a `series`, a match of `series.games` games keeps a "
                      "running score (`series` in every view); after its last game the next game begins a new "
                      "match. The host or the table host begins it; at a table created with `series.start: "
                      "\"seats\"` a seat's token counts as its agreement (a `rematch_asked` event), and the request "
                      "of the last seat a player holds begins it (`started: false` until then). Send `game`, the "
                      "table's game that is over (`series.game` in the views): once its next game has begun, "
                      "every request for it (a retry, a race on several replicas) is answered that game, "
                      "`started: true`, and no third game begins. 409 `VERSION_CONFLICT` while the game goes on "
                      "(or the `game` named has not begun). "
                      "`ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(NextGame, "The next game (or the seat's agreement, counted).",
                                        examples.NEXT_GAME),
                     **problem_responses(*_REMATCH_CODES)})
    async def rematch(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                      data: RematchBody) -> Response[NextGame]:
        answer = await session_service.rematch.request(session_id, _token(request), data.game)
        return Response(answer, headers={"ETag": etag(answer.version), **_NO_STORE})

    @post("/{session_id:str}/leave", operation_id="leaveSession",
          opt={MAY_ASK: may_leave}, status_code=200, dto=StructDTO[EmptyRequest],
          return_dto=None, summary="Leave the caller's seat",
          description="Seat tokens only. The seat goes to a bot or opens for another player, as the session was "
                      "created (`on_leave`); the token stops working at once (401 `TOKEN_REVOKED`) and its "
                      "event streams end. Every reader gets a `seat_left` event. `ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SeatChanged, "What the seat became.", examples.SEAT_LEFT),
                     **problem_responses(*_SEAT_CODES)})
    async def leave(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                    data: EmptyBody) -> Response[SeatChanged]:
        changed = await session_service.seating.leave(session_id, _token(request))
        return Response(changed, headers={"ETag": etag(changed.version), **_NO_STORE})

    @post("/{session_id:str}/seats/{seat:int}/token", operation_id="reissueSeatToken",
          opt={MAY_ASK: may_reissue}, status_code=200,
          dto=StructDTO[EmptyRequest], return_dto=None, summary="Reissue a seat's token (host only)",
          description="For a player who lost their token: a new token for the seat; the old one stops working "
                      "at once (401 `TOKEN_REVOKED`) and the event streams opened with it end. 409 "
                      "`SEAT_NOT_HELD` for a bot's or an open seat. `ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SeatTokenIssued, "The seat's new token.", examples.SEAT_TOKEN_ISSUED),
                     **problem_responses(*_HOST_SEAT_CODES)})
    async def reissue(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                      seat: SeatPath, data: EmptyBody) -> Response[SeatTokenIssued]:
        issued = await session_service.seating.reissue(session_id, _token(request), _plain_seat(request, seat))
        return Response(issued, headers={"ETag": etag(issued.version), **_NO_STORE})

    @post("/{session_id:str}/seats/{seat:int}/bot", operation_id="handSeatToBot",
          opt={MAY_ASK: may_hand_to_bot}, status_code=200,
          dto=StructDTO[HandToBotRequest], return_dto=None, summary="Hand a seat to a bot (host only)",
          description="The service's bot (`level`) plays the seat from now on; its player's token stops working "
                      "and any invitation to it is void. At least one seat stays a player's (400 "
                      "`INVALID_BOTS`). `ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SeatChanged, "The seat is a bot's.", examples.SEAT_TO_BOT),
                     **problem_responses(*_HOST_SEAT_CODES, "INVALID_BOTS")})
    async def hand_to_bot(self, request: Request[Any, Any, Any], session_service: Service,
                          session_id: SessionId, seat: SeatPath, data: BotBody) -> Response[SeatChanged]:
        changed = await session_service.seating.hand_to_bot(session_id, _token(request), _plain_seat(request, seat),
                                                            data.level)
        return Response(changed, headers={"ETag": etag(changed.version), **_NO_STORE})

    @post("/{session_id:str}/seats/{seat:int}/invitation", operation_id="inviteToSeat",
          opt={MAY_ASK: may_invite}, status_code=200,
          dto=StructDTO[EmptyRequest], return_dto=None, summary="Open a seat with a new invitation (host only)",
          description="Whoever held the seat is out (a player's token stops working, a bot stops playing it), "
                      "earlier invitations to it are void, and a new invitation is answered (`invitation`). 403 "
                      "`FORBIDDEN` in a game dealt from a client's seed or deck orders, unless the session was "
                      "created with `known_deal`. "
                      "`ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SeatChanged, "The seat is open.", examples.SEAT_OPENED),
                     **problem_responses(*_HOST_SEAT_CODES)})
    async def invite(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                     seat: SeatPath, data: EmptyBody) -> Response[SeatChanged]:
        changed = await session_service.seating.invite(session_id, _token(request), _plain_seat(request, seat))
        return Response(changed, headers={"ETag": etag(changed.version), **_NO_STORE})

    @post("/{session_id:str}/seats/{seat:int}/name", operation_id="nameSeat", opt={MAY_ASK: may_name}, status_code=200,
          dto=StructDTO[NameRequest], return_dto=None, summary="Name a seat's player (host, table host or the seat)",
          description="The display name of the player who holds `seat` (a seat created with a token has none "
                      "until named): set by the host or table host token, or by the seat's own token. The name "
                      "rule is `joinSession`'s (400 `INVALID_NAME`, also for a name equal to or confusable with "
                      "another player's at the table); 409 `SEAT_NOT_HELD` for a bot's or an open seat. Every "
                      "reader of the event stream gets a `seat_named` event. `ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SeatNameSet, "The seat's player's name.", examples.SEAT_NAMED),
                     **problem_responses(*_HOST_SEAT_CODES, "INVALID_NAME")})
    async def name_seat(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                        seat: SeatPath, data: NameBody) -> Response[SeatNameSet]:
        named = await session_service.seating.name(session_id, _token(request), _plain_seat(request, seat),
                                                   data.name)
        return Response(named, headers={"ETag": etag(named.version), **_NO_STORE})

    @post("/{session_id:str}/start", operation_id="startSession",
          opt={MAY_ASK: may_run_the_game}, status_code=200, dto=StructDTO[EmptyRequest],
          return_dto=None, summary="Start a game that waits for its seats (host or table host)",
          description="A session created with open seats (or with `\"start\": \"host\"`) waits: nothing is "
                      "played and its turn clock is stopped until every seat is taken (the join that takes the last "
                      "starts it) or the host starts it here; seats still open are then on the clock like any "
                      "other. Every reader gets a `game_started` event. 409 `VERSION_CONFLICT` when the game has "
                      "already started. `ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SessionLife, "The game runs.", examples.GAME_STARTED),
                     **problem_responses(*_SEAT_CODES)})
    async def start(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                    data: EmptyBody) -> Response[SessionLife]:
        return _life(await session_service.life.start(session_id, _token(request)))

    @post("/{session_id:str}/pause", operation_id="pauseSession",
          opt={MAY_ASK: may_run_the_game}, status_code=200, dto=StructDTO[EmptyRequest],
          return_dto=None, summary="Pause the game (host or table host)",
          description="Nothing is played while the game is paused, by a seat, a bot or the turn clock (which "
                      "stops): a move is refused with 409 `VERSION_CONFLICT`. Every reader gets a `game_paused` "
                      "event. 409 `VERSION_CONFLICT` when the game is not running. `ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SessionLife, "The game is paused.", examples.GAME_PAUSED),
                     **problem_responses(*_SEAT_CODES)})
    async def pause(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                    data: EmptyBody) -> Response[SessionLife]:
        return _life(await session_service.life.pause(session_id, _token(request)))

    @post("/{session_id:str}/resume", operation_id="resumeSession",
          opt={MAY_ASK: may_run_the_game}, status_code=200, dto=StructDTO[EmptyRequest],
          return_dto=None, summary="Resume a paused game (host or table host)",
          description="The seat to act gets a full turn, its clock starting now. Every reader gets a "
                      "`game_resumed` event. 409 `VERSION_CONFLICT` when the game is not paused. `ETag`: the "
                      "version.",
          security=_SECURED,
          responses={200: response_spec(SessionLife, "The game runs again.", examples.GAME_RESUMED),
                     **problem_responses(*_SEAT_CODES)})
    async def resume(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                     data: EmptyBody) -> Response[SessionLife]:
        return _life(await session_service.life.resume(session_id, _token(request)))

    @post("/{session_id:str}/call-off", operation_id="callOffSession", opt={MAY_ASK: may_run_the_game}, status_code=200,
          dto=StructDTO[EmptyRequest], return_dto=None,
          summary="Call off a game that never got its first card (host or table host)",
          description="Before any card was played (in any hand), the game ends with no result: `status` "
                      "`ended`, `ended.how` `called_off`. Every reader gets a `game_called_off` event, then the "
                      "stream's `end`. 409 `VERSION_CONFLICT` once a card was played, or when the game has ended. "
                      "`ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SessionLife, "The game is called off.", examples.GAME_CALLED_OFF),
                     **problem_responses(*_SEAT_CODES)})
    async def call_off(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                       data: EmptyBody) -> Response[SessionLife]:
        return _life(await session_service.life.call_off(session_id, _token(request)))

    @post("/{session_id:str}/abandon", operation_id="abandonSession", opt={MAY_ASK: may_run_the_game}, status_code=200,
          dto=StructDTO[EmptyRequest], return_dto=None,
          summary="End a game whose players are gone as abandoned (host or table host)",
          description="When some seat's player is gone (the seat is open, was left to a bot since the game "
                      "started, or is away), the game ends as abandoned by those seats: `ended.how` `abandoned`, "
                      "`ended.by` the seats. Every reader gets a `game_abandoned` event, then the stream's `end`. "
                      "409 `VERSION_CONFLICT` when every seat's player is there, the game waits to start (call it "
                      "off) or is over or ended. "
                      "`ETag`: the version.",
          security=_SECURED,
          responses={200: response_spec(SessionLife, "The game is abandoned.", examples.GAME_ABANDONED),
                     **problem_responses(*_SEAT_CODES)})
    async def abandon(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                      data: EmptyBody) -> Response[SessionLife]:
        return _life(await session_service.life.abandon(session_id, _token(request)))

    @post("/{session_id:str}/moves", operation_id="applySessionMove", opt={MAY_ASK: may_move}, status_code=200,
          dto=StructDTO[MoveRequest],
          return_dto=None,
          middleware=[fast_route(MoveRequest, _fast_move, fast_first(may_move))],
          summary="Make a move for the caller's seat",
          description="The move's `seat` may be left out: the token fixes it (its seat, or in the ghost-partners "
                      "game its ghost's while the ghost is to act; if given, it must be one of these, "
                      "else 403 `WRONG_SEAT`). One atomic compare-and-set on the session's version. `If-Match` makes a "
                      "stale version a 409; `Idempotency-Key` makes a retry return the first answer (`Idempotent-"
                      "Replayed: true`) instead of applying twice: send one with every move, so that a retry after a "
                      "lost answer or a 503 `COMMIT_OUTCOME_UNKNOWN` is safe. Without `If-Match`, a move that raced a "
                      "move of its own seat is a 409. `ETag`: the new version.",
          security=_SECURED,
          responses={200: response_spec(MoveApplied, "Applied (or an idempotent replay): the events and the "
                                        "view of the mover's seat.", examples.MOVE_APPLIED),
                     **problem_responses(*_MOVE_CODES)})
    async def apply_move(
        self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
        data: MoveBody, if_match: IfMatch = None, idempotency_key: IdempotencyKey = None,
    ) -> Response[bytes]:
        outcome = await session_service.move(session_id, _token(request), engine_move(data.move), if_match=if_match,
                                             idempotency_key=idempotency_key)
        return Response(outcome.body, media_type=MediaType.JSON, headers=move_headers(outcome))

    @get("/{session_id:str}/snapshot", operation_id="exportSessionSnapshot",
         summary="Export the session's sealed snapshot (host only)",
         description="Keep it: a session that expired or was lost can be recreated from it.",
         security=_SECURED,
         responses={200: response_spec(SessionSnapshot, "The sealed snapshot of the current state.",
                                       examples.SESSION_SNAPSHOT),
                    **problem_responses(*_SESSION_CODES)})
    async def export_snapshot(self, request: Request[Any, Any, Any], session_service: Service,
                              session_id: SessionId) -> Response[SessionSnapshot]:
        exported = await session_service.snapshot(session_id, _token(request))
        return Response(exported, headers={"ETag": etag(exported.version), **_NO_STORE})

    @delete("/{session_id:str}", operation_id="deleteSession", summary="Delete a session (host only)",
            description="Its state, tokens, event log and idempotency records are removed at once; open event "
                        "streams end.",
            security=_SECURED, responses=problem_responses(*_SESSION_CODES))
    async def delete_session(self, request: Request[Any, Any, Any], session_service: Service,
                             session_id: SessionId) -> None:
        await session_service.delete(session_id, _token(request))

    @get("/{session_id:str}/events/catch-up", operation_id="catchUpSessionEvents",
         summary="The events after a point of the log, as JSON (catch-up without a stream)",
         description="The events of the session's log after `after`, redacted for the caller's seat exactly as "
                     "its event stream sends them, each with its event id, in order, up to `version` (the "
                     "session's version when read) in one answer: for a client that slept, lost its stream, or "
                     "cannot hold one open. `after` is an event id `<version>-<index>` (after that event) or a "
                     "version (after every event of that version); none: from the start. When `complete` is "
                     "`false` the answer holds as many events as one answer may: ask again with `after` the last "
                     "event's `id`.",
         security=_SECURED,
         responses={200: response_spec(SessionEvents, "The events after `after`.", examples.CAUGHT_UP),
                    **problem_responses(*_STREAM_CODES)})
    async def catch_up(self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
                       after: AfterQuery = None) -> SessionEvents:
        return await session_service.events_since(session_id, _token(request), after)

    @get("/{session_id:str}/events", operation_id="streamSessionEvents", media_type="text/event-stream",
         summary="Live events (Server-Sent Events), redacted for the caller's seat",
         description="Made for a browser's `EventSource`. Every game event is an unnamed message (so "
                     "`onmessage` receives it): `id: <version>-<index>` and `data:` a JSON object "
                     "`{\"version\", \"to_act\", \"event\"}`: the session version the event belongs to, the seat "
                     "to act once that version's move is complete, and the event as the caller's seat may see it "
                     "(its `type` says which). Starts at the beginning of the session's log, or after "
                     "`Last-Event-ID` (header, or `last_event_id` query), so a reconnect loses and repeats "
                     "nothing. Heartbeat comments every 15 s. When the game is over and every event was sent, "
                     "a final named `end` event (`data: {\"version\", \"to_act\": null}`) ends the stream: "
                     "`source.addEventListener(\"end\", () => source.close())`; a reader that reconnects anyway "
                     "is answered 204, which tells an `EventSource` to stop reconnecting. A stream that ends "
                     "for good before the game is over says why first, in a named event whose `data` is "
                     "`{\"version\"}`: `revoked` (the token stopped working: reissued, its seat handed on or left, "
                     "a spectator revoked; reconnecting is 401 `TOKEN_REVOKED`), `deleted` (the host deleted the "
                     "session) or `expired` (it was idle too long; both 404 on reconnecting). One token holds at "
                     "most 4 open streams on a replica (429 `RATE_LIMITED` beyond). An `EventSource` "
                     "cannot send headers: pass the session token as `access_token` and the API key (when the "
                     "service requires one) as `api_key` in the query; query strings are never logged.",
         security=_SECURED,
         responses={200: response_spec(str, "The event stream (`text/event-stream`).", examples.EVENT_STREAM,
                                       media_type="text/event-stream"),
                    204: ResponseSpec(data_container=None, description="The game is over and the reader has had "
                                      "every event (its `Last-Event-ID` is the last): stop reconnecting."),
                    **problem_responses(*_STREAM_CODES)})
    async def stream_events(
        self, request: Request[Any, Any, Any], session_service: Service, session_id: SessionId,
        last_event_id: LastEventIdQuery = None, last_event_id_header: LastEventIdHeader = None,
    ) -> Stream | Response[None]:
        # The token may come as ?access_token= (declared as a security scheme, not as a parameter).
        frames = await session_service.open_stream(
            session_id, _token(request, request.query_params.get("access_token")),
            last_event_id_header or last_event_id)
        if frames is None:
            return Response(None, status_code=204, headers={"Cache-Control": "no-store"})
        return Stream(frames, media_type="text/event-stream",
                      headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
