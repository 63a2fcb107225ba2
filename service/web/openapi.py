"""The OpenAPI document's configuration: problem responses per operation, schemas for array-like Structs.

The committed ``openapi/openapi.json`` is what :func:`service.app.create_app` serves at
``/schema/openapi.json`` (``openapi/regenerate.py`` rewrites it; a test fails when they differ).
"""

from __future__ import annotations

import copy
import json
import typing
from typing import TYPE_CHECKING, Any

import msgspec
from litestar import Router
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Components, Example, Schema, SecurityScheme, Tag
from litestar.openapi.spec.enums import OpenAPIType
from litestar.static_files import create_static_files_router

from service.version import __version__
from service.web.codes import ProblemCode
from service.web.litestar_compat import StructSchemaPlugin
from service.web.problems import PROBLEM_MEDIA_TYPE, Problem, ProblemDetails

if TYPE_CHECKING:
    from litestar.connection import Request
    from litestar.typing import FieldDefinition

    from service.web.litestar_compat import SchemaCreator

#: The contract's version is the release's (service/version.py).
API_VERSION = __version__

API_DESCRIPTION = """\
Rules as a service for the card game Five Hundred: the referee for third-party games (web, mobile, bots).

The stateless core works on **snapshots**: an opaque, versioned string holding a game's whole state,
sealed with authenticated encryption by this service. Create a game, then send its snapshot back with each
move; every answer carries the new snapshot. Holding a snapshot reveals nothing hidden; an altered one is
refused.

**Hosted sessions** (`/v1/sessions`) keep a game's state in the service instead: a bearer token per seat and
one for the host, an integer `version` exposed as the `ETag` (send it back in `If-Match`: a stale one is a
409), `Idempotency-Key` for safe retries, and a Server-Sent Events stream per seat, resumable with
`Last-Event-ID`.

Every error is `application/problem+json` (RFC 9457) with a stable machine `code`; illegal moves add a
stable `reason` (e.g. `MUST_FOLLOW_SUIT`) and the legal moves. Malformed input is 400, a well-formed but
illegal move 422. When the service is configured with API keys, every `/v1` request needs one in
`X-API-Key` (401 otherwise); with a rate limit, a client over it gets 429 with `Retry-After`.

`/healthz`, `/readyz` and `/metrics` are the operational probes and the Prometheus scrape endpoint (never
behind API keys or rate limits).
"""


class ExactStructSchemaPlugin(StructSchemaPlugin):
    """Struct schemas as msgspec really decodes and encodes them, where Litestar's own plugin is looser:

    - ``forbid_unknown_fields`` Structs (every request body, every move) get ``additionalProperties: false``;
    - ``array_like`` Structs (the engine's auction ``Call``) are JSON arrays, described as tuples
      (``prefixItems``), not as objects: ``auction: [[0, "7H", false], …]``.
    """

    def is_plugin_supported_field(self, field_definition: FieldDefinition) -> bool:
        annotation = field_definition.annotation
        return isinstance(annotation, type) and issubclass(annotation, msgspec.Struct)

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: SchemaCreator) -> Schema:
        struct = field_definition.annotation
        config = struct.__struct_config__
        if config.array_like:
            return self._tuple_schema(struct, schema_creator)
        schema = super().to_openapi_schema(field_definition, typing.cast(Any, schema_creator))
        if config.forbid_unknown_fields:
            schema.additional_properties = False
        return schema

    @staticmethod
    def _tuple_schema(struct: type[msgspec.Struct], schema_creator: SchemaCreator) -> Schema:
        from litestar.typing import FieldDefinition as FD

        hints = typing.get_type_hints(struct, include_extras=True)
        fields = msgspec.structs.fields(struct)
        items = [schema_creator.for_field_definition(FD.from_annotation(hints[f.name], name=f.name))
                 for f in fields]
        required = sum(1 for f in fields if f.required)
        names = ", ".join(f.name for f in fields)
        doc = (struct.__doc__ or struct.__name__).strip().splitlines()[0]
        return Schema(type=OpenAPIType.ARRAY, prefix_items=items, min_items=required, max_items=len(fields),
                      title=struct.__name__, description=f"{doc} Sent as an array: [{names}].")


class ExactExample(Example):
    """An example whose value is written as given: Litestar's spec writer drops every ``null`` in nested
    objects, which would make response examples miss required members (``"winner": null`` …)."""

    def to_schema(self) -> dict[str, Any]:
        out = super().to_schema()
        out["value"] = self.value
        return out


# --------------------------------------------------------------------------------------- problem responses

#: An example of each problem code an operation documents: (detail of the example, extra members of the example
#: body or, as ``title``, the problem's title when it is not the code's own wording). The status is the code's
#: own (service/web/codes.py).
PROBLEM_EXAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "MALFORMED_REQUEST": ("Expected `int` >= 2 - at `$.players`", {}),
    "MALFORMED_MOVE": ("'1H' is not a card of this game's 43-card pack", {"reason": "UNKNOWN_CARD"}),
    "INVALID_OPTIONS": ("Invalid enum value '44' - at `$.options.deck_4p`", {}),
    "INVALID_SEED": ("Expected `int` >= 0 - at `$.seed`", {}),
    "INVALID_DECK_ORDER": ("deck_orders[0] is not a permutation of the 43-card pack (missing ['JK'], "
                                "not in pack [], repeated ['4H'])", {}),
    "INVALID_FIRST_DEALER": ("first_dealer must be a seat from 0 to 3", {}),
    "INVALID_BOTS": ("bots: at least one seat must be left to a human player", {}),
    "INVALID_CLOCK": ("clock.move_seconds must be from 1 to 86400, not 0.5", {}),
    "NO_SUCH_SEAT": ("seat 4 does not exist: seats are 0 to 3", {}),
    "SNAPSHOT_MALFORMED": ("a snapshot has three dot-separated parts", {}),
    "SNAPSHOT_VERSION_UNSUPPORTED": ("snapshot version 'v9' is not supported (supported: v1, v2)", {}),
    "SNAPSHOT_UNKNOWN_KEY": ("the snapshot was sealed under a key this service does not hold", {}),
    "SNAPSHOT_TAMPERED": ("the snapshot failed authentication: it was altered or sealed elsewhere", {}),
    "SNAPSHOT_CORRUPT": ("the snapshot's state is inconsistent: cards held twice: ['JK']", {}),
    "ILLEGAL_MOVE": ("seat 1 must follow H: play one of ['4H', 'QH']",
                     {"reason": "MUST_FOLLOW_SUIT", "legal_moves": [
                         {"type": "play", "seat": 1, "card": "4H", "nominate": None},
                         {"type": "play", "seat": 1, "card": "QH", "nominate": None}]}),
    "NOT_TO_ACT": ("seat 2 is not to act; seat 0 is", {}),
    "BODY_TOO_LARGE": ("the request body is larger than 65536 bytes", {}),
    "UNSUPPORTED_MEDIA_TYPE": ("send the request body as Content-Type: application/json, in UTF-8 (got 'text/plain')",
                               {}),
    # Game records.
    "RECORD_MISMATCH": ("hands[2].score.changes[0] does not match what the moves derive",
                        {"field": "hands[2].score.changes[0]"}),
    "RECORD_UNAVAILABLE": ("this session was restored from a snapshot: its log, and so its record, starts "
                           "there", {}),
    # Hosted sessions.
    "INVALID_IF_MATCH": ("If-Match must be a session version such as \"3\"; got 'abc'", {}),
    "INVALID_IDEMPOTENCY_KEY": ("Idempotency-Key must be 1 to 128 printable ASCII characters", {}),
    "INVALID_LAST_EVENT_ID": ("Last-Event-ID must be an event id of this stream, <version>-<index>", {}),
    "UNAUTHORIZED": ("this token is not valid for this session", {}),
    "FORBIDDEN": ("only the host token can export the snapshot", {}),
    "WRONG_SEAT": ("this token acts for seat 2 only; the move names seat 1", {}),
    "HINTS_OFF": ("the host turned hints off for this session", {}),
    "SPECTATORS_FULL": ("this session already has 32 spectator tokens, the most it holds", {}),
    "NOT_FOUND": ("no spectator token of this session has that id (it was revoked already, or never minted)", {}),
    "INVALID_NAME": ("name: a name is made of letters, digits, spaces and - ' . _ only", {}),
    "INVITATION_REDEEMED": ("this invitation was already redeemed: ask the host for a new one", {}),
    "INVITATION_EXPIRED": ("this invitation has expired: ask the host for a new one", {}),
    "TOKEN_REVOKED": ("this token was replaced: the host reissued it, or its seat was handed on or left", {}),
    "SEAT_NOT_HELD": ("no player holds seat 2: it is a bot's or open", {}),
    "SESSION_NOT_FOUND": ("no session 'q0Jd3rXyFh2mJZ9KkQ7aLw': it never existed, was deleted, or expired "
                               "after its idle time (the host can recreate it from a snapshot)", {}),
    "VERSION_CONFLICT": ("the session is at version 8, not 7", {"current_version": 8}),
    "MOVE_TIMED_OUT": ("seat 2 ran out of time: the clock moved for it at version 9 (the session is now at version "
                       "10); nothing was applied. Read the session, and send the next move with If-Match: \"10\"",
                       {"current_version": 10, "timed_out_version": 9}),
    "IDEMPOTENCY_KEY_REUSED": ("this Idempotency-Key was already used for a different move; use a new key "
                                    "for a new move", {}),
    "STORE_UNAVAILABLE": ("the session store is unavailable; retry shortly", {}),
    "COMMIT_OUTCOME_UNKNOWN": ("the session store stopped answering while this move was being committed: "
                               "it may or may not have been applied. Retrying with the same "
                               "Idempotency-Key is safe (it answers the first result if the move was "
                               "applied); without one, read the session first", {}),
    # Answered before any handler when API keys or rate limits are configured (service/ops).
    "API_KEY_REQUIRED": ("Send your API key in the X-API-Key header.", {"title": "API key required"}),
    "API_KEY_INVALID": ("The X-API-Key header does not hold a valid API key.",
                        {"title": "API key invalid"}),
    "RATE_LIMITED": ("This client may make 600 requests per 60 s; retry after 12 s.",
                     {"title": "Too many requests"}),
    # GET /readyz (service/ops/health.py documents it).
    "NOT_READY": ("Failed checks: store=failed.", {"title": "Service not ready"}),
}

_STATUS_DESCRIPTIONS = {
    400: "Malformed input: the body, a header, a parameter or a token in the body is not understood, or the "
         "snapshot is not one this service sealed (altered, truncated, or under an unknown key).",
    401: "Missing or unknown credentials: the session token (`Authorization: Bearer …`) or, when the service "
         "requires API keys, the `X-API-Key` header.",
    403: "A token of this session, but of the wrong role or seat, or an operation the host turned off.",
    404: "Unknown, deleted or expired session.",
    409: "Stale `If-Match`: the session is at another version (`current_version`, and the current `ETag`); or a "
         "change of the table that cannot be made now (an invitation already redeemed, a seat nobody holds, as "
         "many spectators as a session holds).",
    410: "An invitation whose time is up: ask the host for a new one.",
    413: "The request body is larger than the configured limit (MAX_BODY_BYTES).",
    415: "The request body is not `application/json`.",
    422: "Well-formed but not acceptable: an illegal move (with the reason and the legal moves), a suggestion for a "
         "seat that is not to act, a snapshot that opens but whose state is inconsistent, or an `Idempotency-Key` "
         "reused for a different move.",
    429: "Too many requests from this client (RATE_LIMIT_PER_MINUTE); `Retry-After` says when to retry.",
    503: "The session store is unavailable; `Retry-After` says when to retry. `STORE_UNAVAILABLE`: nothing was "
         "applied. `COMMIT_OUTCOME_UNKNOWN` (moves): the move may or may not have been applied; a retry with the "
         "same `Idempotency-Key` is safe.",
}

#: What a status's description says of codes that only some operations answer with.
_CODE_NOTES = {
    "NOT_READY": "`NOT_READY` (suggestions and hints): every search place of this replica (searches at once and "
                 "their queue) is taken, the detail says so; nothing was searched or charged; retry after "
                 "`Retry-After`.",
}
#: Codes whose status's general description does not apply to them.
_STORE_CODES = ("STORE_UNAVAILABLE", "COMMIT_OUTCOME_UNKNOWN")


def _description(status: int, group: list[str]) -> str:
    if status == 503 and not any(code in _STORE_CODES for code in group):
        text = "Unavailable for now."
    else:
        text = _STATUS_DESCRIPTIONS[status]
    notes = [_CODE_NOTES[code] for code in group if code in _CODE_NOTES]
    return " ".join([text, *notes, "Codes: " + ", ".join(group) + "."])


#: The problem codes each kind of operation can answer with.
SNAPSHOT_CODES = ("SNAPSHOT_MALFORMED", "SNAPSHOT_VERSION_UNSUPPORTED", "SNAPSHOT_UNKNOWN_KEY",
                  "SNAPSHOT_TAMPERED", "SNAPSHOT_CORRUPT")
#: Codes every ``/v1`` operation may answer with when API keys or a rate limit are configured; added by
#: :func:`problem_responses` to each operation.
GATEWAY_CODES = ("API_KEY_REQUIRED", "API_KEY_INVALID", "RATE_LIMITED")


def response_spec(container: Any, description: str, *examples: tuple[str, Any],
                  media_type: str = "application/json") -> ResponseSpec:
    """A documented success response with named example bodies."""
    return ResponseSpec(data_container=container, description=description, generate_examples=False,
                        media_type=media_type,
                        examples=[ExactExample(summary=summary, value=value) for summary, value in examples])


def problem_example(code: str) -> dict[str, Any]:
    detail, extra = PROBLEM_EXAMPLES[code]
    body = Problem(code, detail, **extra).body()
    return typing.cast("dict[str, Any]", msgspec.to_builtins(body))


def problem_responses(*codes: str) -> dict[int, ResponseSpec]:
    """One problem+json response per status that ``codes`` (and the :data:`GATEWAY_CODES` of every ``/v1``
    operation) use, with an example of each code."""
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys((*codes, *GATEWAY_CODES)):
        by_status.setdefault(ProblemCode(code).status, []).append(code)
    return {
        status: ResponseSpec(
            data_container=ProblemDetails,
            description=_description(status, group),
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
            examples=[ExactExample(summary=code, value=problem_example(code)) for code in group],
        )
        for status, group in sorted(by_status.items())
    }


#: Where the service serves Swagger UI's own files (from the ``swagger-ui-bundle-v2`` package): the UI at
#: ``/schema/swagger`` (and ``/schema``) loads nothing from the internet, so it works offline and behind a CSP
#: that allows only the service's own origin for scripts and styles. The other UIs Litestar offers load their
#: code from CDNs and are not served.
SWAGGER_ASSETS_PATH = "/schema/swagger-ui"


def swagger_assets_router() -> Router:
    """A static-files router for Swagger UI's bundled assets (not in the OpenAPI document)."""
    from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

    return create_static_files_router(path=SWAGGER_ASSETS_PATH, directories=[swagger_ui_path],
                                      include_in_schema=False, send_as_attachment=False)


def _swagger_plugin(finished: FinishedDocument) -> SwaggerRenderPlugin:
    return FinishedSwaggerRenderPlugin(
        finished,
        path="/swagger",
        js_url=f"{SWAGGER_ASSETS_PATH}/swagger-ui-bundle.js",
        css_url=f"{SWAGGER_ASSETS_PATH}/swagger-ui.css",
        standalone_preset_js_url=f"{SWAGGER_ASSETS_PATH}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{SWAGGER_ASSETS_PATH}/favicon-32x32.png'>",
    )


def openapi_config(security_schemes: dict[str, SecurityScheme] | None = None) -> OpenAPIConfig:
    """The document's configuration; ``security_schemes`` (the sessions' bearer tokens) go into its components."""
    finished = FinishedDocument()
    return OpenAPIConfig(
        title="Five Hundred referee",
        version=API_VERSION,
        description=API_DESCRIPTION,
        tags=[
            Tag(name="rules", description="The rules catalogue: options, presets, bid ladder, score table."),
            Tag(name="games", description="Stateless games: snapshot in, snapshot out."),
            Tag(name="sessions", description="Hosted sessions: the service keeps the game; seat and host tokens, "
                                             "versions (ETag, If-Match), idempotent moves, live events."),
            Tag(name="operations", description="Liveness, readiness and Prometheus metrics (not under /v1)."),
        ],
        components=Components(security_schemes=dict(security_schemes or {})),
        create_examples=False,
        use_handler_docstrings=False,
        # Swagger UI first: it is also served at /schema. Both serve finish_document of Litestar's document.
        render_plugins=[_swagger_plugin(finished), FinishedJsonRenderPlugin(finished)],
    )


# ------------------------------------------------------------------------------------ document post-processing


def _enum_meanings(schema: dict[str, Any], meanings: dict[str, str], intro: str) -> None:
    """Write each member's meaning into an enum component: a Markdown list in ``description`` (for readers and
    Swagger UI) and ``x-enum-descriptions`` (which openapi-generator turns into per-constant doc comments)."""
    lines = "\n".join(f"- `{value}`: {meaning}" for value, meaning in meanings.items())
    schema["description"] = f"{intro}\n\n{lines}"
    schema["x-enum-descriptions"] = list(meanings.values())


#: Arrays whose positions mean something: which are indexed by seat and which by side (an index into the
#: ``sides`` of the view or the rules catalogue; each side is a list of seats).
_BY_SEAT = "Indexed by seat (position i is seat i)."
_BY_SIDE = "Indexed by side (position i is side i of `sides`)."
INDEXED_ARRAYS: dict[str, dict[str, str]] = {
    "SeatView": {"hand_sizes": _BY_SEAT, "looked": _BY_SEAT, "tricks_won": _BY_SEAT, "scores": _BY_SIDE,
                 "sides": "Indexed by side: the seats of each side (one seat per side in games without partners).",
                 "auction": "The calls of this hand's auction in the order they were made."},
    "HandScored": {"tricks_won": _BY_SEAT, "deltas": _BY_SIDE, "scores": _BY_SIDE,
                   "contracting_seats": "The seats of the contracting side (not indexed)."},
    "GameResult": {"winners": "The sides that won (side numbers, not indexed).",
                   "losers": "The sides that went out backwards (side numbers, not indexed)."},
    "GameOver": {"winners": "The sides that won (side numbers, not indexed).",
                 "losers": "The sides that went out backwards (side numbers, not indexed)."},
    "RulesCatalogue": {"sides": "Indexed by side: the seats of each side (one seat per side in games without "
                                "partners)."},
    "SessionCreated": {"seat_tokens": _BY_SEAT},
    "DealerCut": {"draws": "The cards cut, in draw order (ties cut again)."},
}


def _collapse_single_oneofs(node: Any) -> None:
    """``oneOf`` with one member (Litestar writes them for optional request fields) becomes that member."""
    if isinstance(node, dict):
        alternatives = node.get("oneOf")
        if isinstance(alternatives, list) and len(alternatives) == 1:
            del node["oneOf"]
            for key, value in alternatives[0].items():
                node.setdefault(key, value)
        for value in node.values():
            _collapse_single_oneofs(value)
    elif isinstance(node, list):
        for value in node:
            _collapse_single_oneofs(value)


def _tag_of(schemas: dict[str, Any], ref: str) -> str | None:
    """The ``type`` tag of a tagged Struct's component (a ``const`` member), if ``ref`` names one."""
    target = schemas.get(ref.rsplit("/", 1)[-1], {})
    tag = target.get("properties", {}).get("type", {}).get("const")
    return tag if isinstance(tag, str) else None


def _add_discriminators(node: Any, schemas: dict[str, Any]) -> None:
    """Every ``oneOf`` of tagged Structs (moves, events, catalogue options) gets its ``discriminator``, so that
    generated clients pick the member by its ``type`` instead of trying each one."""
    if isinstance(node, dict):
        alternatives = node.get("oneOf")
        if isinstance(alternatives, list) and len(alternatives) > 1 and all("$ref" in a for a in alternatives):
            tags = {_tag_of(schemas, a["$ref"]): a["$ref"] for a in alternatives}
            if None not in tags and len(tags) == len(alternatives):
                node["discriminator"] = {"propertyName": "type", "mapping": tags}
        for value in node.values():
            _add_discriminators(value, schemas)
    elif isinstance(node, list):
        for value in node:
            _add_discriminators(value, schemas)


#: The RateLimit fields' values (service/ops/ratelimit.py): one item per policy, in one field line.
_POLICY = r'"(default|playouts)";q=[0-9]{1,15};w=[0-9]{1,9}'
_POLICIES = rf"^{_POLICY}(, {_POLICY})?$"
_LIMIT = r'"(default|playouts)";r=[0-9]{1,15};t=[0-9]{1,9}'
_LIMITS = rf"^{_LIMIT}(, {_LIMIT})?$"
#: Response headers the service sends, declared once in ``components.headers``.
RESPONSE_HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {"description": "The request's id (the client's own X-Request-ID if it sent a sane one); it is "
                                    "on the service's log line of this request.",
                     "schema": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"}},
    "ETag": {"description": "The session's version, quoted (e.g. \"7\"): send it back in If-Match.",
             "schema": {"type": "string", "pattern": "^\"[0-9]{1,18}\"$"}},
    "Location": {"description": "The new session's path, /v1/sessions/{session_id}.",
                 "schema": {"type": "string", "pattern": "^/v1/sessions/[A-Za-z0-9_-]{16,64}$"}},
    "Idempotent-Replayed": {"description": "`true` when this answer is the replay of an earlier request with the "
                                           "same Idempotency-Key (nothing was applied again); absent otherwise.",
                            "schema": {"type": "string", "enum": ["true"]}},
    "Retry-After": {"description": "Seconds to wait before retrying.",
                    "schema": {"type": "integer", "minimum": 1}},
    "RateLimit-Policy": {
        "description": "The client's quota policies (draft-ietf-httpapi-ratelimit-headers-11): `\"default\"`, "
                       "requests per window, when a request limit is configured (RATE_LIMIT_PER_MINUTE), on every "
                       "answer of the operation; and on the searches (`suggestMove`, `suggestSessionMove`, "
                       "`analyseRecords`) `\"playouts\"`, the playouts per window an `expert` search draws on "
                       "(SEARCH_PLAYOUTS_PER_MINUTE), when the answer's search was charged or refused for it. "
                       "E.g. `\"default\";q=600;w=60, \"playouts\";q=20000;w=60`: quota `q` in window `w` "
                       "(seconds). Absent for a limit that is off, or whose store did not answer.",
        "schema": {"type": "string", "pattern": _POLICIES}},
    "RateLimit": {
        "description": "What the client has left of each policy of RateLimit-Policy: `r`, the quota remaining, "
                       "and `t`, the seconds until its window ends and the quota is whole again (on a 429, the "
                       "refused policy's `t` is its Retry-After). E.g. `\"default\";r=598;t=41`.",
        "schema": {"type": "string", "pattern": _LIMITS}},
    "Allow": {"description": "The methods this path allows.", "schema": {"type": "string"}},
    "WWW-Authenticate": {"description": "The credentials expected: `Bearer` (a session token) or "
                                        "`APIKey header=\"X-API-Key\"`.", "schema": {"type": "string"}},
}
_HEADER_REF = "#/components/headers/"

#: Headers per (operationId, status); every response of every operation also carries X-Request-ID, every 429
#: and 503 Retry-After, every 405 Allow and every 401 WWW-Authenticate, and every response of a ``/v1`` operation
#: (all rate limited) the RateLimit fields.
OPERATION_HEADERS: dict[tuple[str, str], tuple[str, ...]] = {
    ("createSession", "201"): ("ETag", "Location"),
    ("getSession", "200"): ("ETag",),
    ("getSessionLegalMoves", "200"): ("ETag",),
    ("exportSessionSnapshot", "200"): ("ETag",),
    ("applySessionMove", "200"): ("ETag", "Idempotent-Replayed"),
    ("applySessionMove", "409"): ("ETag",),
}
_STATUS_HEADERS = {"401": ("WWW-Authenticate",), "405": ("Allow",), "429": ("Retry-After",),
                   "503": ("Retry-After",)}
_RATE_LIMITED_HEADERS = ("RateLimit-Policy", "RateLimit")

#: Credentials. API keys are required only when the service is configured with API_KEYS: every ``/v1``
#: operation lists "with an API key" and "without" as alternatives. Browsers' EventSource cannot send headers,
#: so the event stream also takes both credentials as query parameters (never logged: deploy/OPERATIONS.md, "Logs").
SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key",
               "description": "An integrator's API key, when the service is configured with API_KEYS (401 "
                              "API_KEY_REQUIRED / API_KEY_INVALID otherwise)."},
    "apiKeyQuery": {"type": "apiKey", "in": "query", "name": "api_key",
                    "description": "The API key as a query parameter: the event stream only, for EventSource."},
    "sessionTokenQuery": {"type": "apiKey", "in": "query", "name": "access_token",
                          "description": "A session token as a query parameter: the event stream only, for "
                                         "EventSource."},
}
EVENT_STREAM_OPERATION = "streamSessionEvents"


def _security(path: str, op: dict[str, Any]) -> list[dict[str, list[str]]]:
    if not path.startswith("/v1/"):
        return []  # probes and the scrape endpoint: no credentials
    base: list[dict[str, list[str]]] = op.get("security") or [{}]
    keyed = [{"apiKey": [], **alternative} for alternative in base]
    if op.get("operationId") == EVENT_STREAM_OPERATION:
        return [*keyed, {"apiKeyQuery": [], "sessionTokenQuery": []}, *base, {"sessionTokenQuery": []}]
    return [*keyed, *base]


def _declare_headers_and_security(document: dict[str, Any]) -> None:
    components = document.setdefault("components", {})
    components["headers"] = {name: dict(spec) for name, spec in RESPONSE_HEADERS.items()}
    components.setdefault("securitySchemes", {}).update(SECURITY_SCHEMES)
    for path, item in document.get("paths", {}).items():
        for op in item.values():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            op["security"] = _security(path, op)
            for status, response in op["responses"].items():
                names = ("X-Request-ID", *_STATUS_HEADERS.get(status, ()),
                         *OPERATION_HEADERS.get((op.get("operationId", ""), status), ()),
                         *(_RATE_LIMITED_HEADERS if path.startswith("/v1/") else ()))
                headers = response.setdefault("headers", {})
                for name in names:
                    headers[name] = {"$ref": _HEADER_REF + name}


#: The exact schema of every path, query and header parameter (Litestar writes optional ones as ``X or null``
#: and loses bounds of 0): what the service accepts, so that anything outside is refused.
_EVENT_ID = r"^\s*([0-9]{1,18}-[0-9]{1,9})?\s*$"
_ETAG = r'(W/)?"?[0-9]{1,18}"?'
PARAMETER_SCHEMAS: dict[tuple[str, str], dict[str, Any]] = {
    ("path", "session_id"): {"type": "string", "pattern": "^[A-Za-z0-9_-]{16,64}$"},
    ("query", "seat"): {"type": "integer", "minimum": 0, "maximum": 5},
    ("query", "players"): {"type": "integer", "minimum": 2, "maximum": 6, "default": 4},
    ("query", "preset"): {"type": "string", "enum": ["australian", "american", "beagle"]},
    ("query", "last_event_id"): {"type": "string", "pattern": _EVENT_ID},
    ("header", "Last-Event-ID"): {"type": "string", "pattern": _EVENT_ID},
    ("header", "If-Match"): {"type": "string", "maxLength": 1024,
                             "pattern": rf"^\s*(\*|{_ETAG}(\s*,\s*{_ETAG})*)?\s*$"},
    ("header", "Idempotency-Key"): {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[ -~]+$"},
}


def _exact_parameters(document: dict[str, Any]) -> None:
    for item in document.get("paths", {}).values():
        for op in item.values():
            for parameter in op.get("parameters", []) if isinstance(op, dict) else []:
                exact = PARAMETER_SCHEMAS.get((parameter.get("in", ""), parameter.get("name", "")))
                schema = parameter.get("schema", {})
                if exact is None:  # declared elsewhere (e.g. service/i18n): only "X or null" becomes X
                    alternatives = [a for a in schema.get("oneOf", []) if a.get("type") != "null"]
                    if len(alternatives) == 1 and len(schema["oneOf"]) == 2:
                        rest = {k: v for k, v in schema.items() if k != "oneOf"}
                        parameter["schema"] = {**alternatives[0], **rest}
                    continue
                description = schema.get("description")
                parameter["schema"] = {**exact, **({"description": description} if description else {})}


def _references(node: Any) -> set[str]:
    """The component names ``node`` refers to directly (``$ref`` anywhere inside it)."""
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_SCHEMA_REF):
            found.add(ref[len(_SCHEMA_REF):])
        for value in node.values():
            found |= _references(value)
    elif isinstance(node, list):
        for value in node:
            found |= _references(value)
    return found


_SCHEMA_REF = "#/components/schemas/"


def request_schemas(document: dict[str, Any]) -> set[str]:
    """Every component a request body reaches, directly or through other components."""
    schemas = document.get("components", {}).get("schemas", {})
    todo = [name for item in document.get("paths", {}).values() for op in item.values()
            if isinstance(op, dict) for name in _references(op.get("requestBody", {}))]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen and name in schemas:
            seen.add(name)
            todo += _references(schemas[name])
    return seen


def _defaults_in_words(node: Any) -> None:
    """Each property's ``default`` written into its description instead (``Default: `true`.``), everywhere in
    ``node``. A request field the service fills in when it is left out is optional, and a client generated with
    its generator's default settings must see it so: openapi-typescript's default (``defaultNonNullable``) makes
    every property with a ``default`` required, so that ``{"players": 4}`` would not compile as a session
    request. The service's own defaults are unchanged; only how the contract states them."""
    if isinstance(node, dict):
        for prop in (node.get("properties") or {}).values():
            if isinstance(prop, dict) and "default" in prop:
                said = f"Default: `{json.dumps(prop.pop('default'), ensure_ascii=False)}`."
                prop["description"] = f"{prop['description'].rstrip()} {said}" if prop.get("description") else said
        for value in node.values():
            _defaults_in_words(value)
    elif isinstance(node, list):
        for value in node:
            _defaults_in_words(value)


def finish_document(document: dict[str, Any]) -> dict[str, Any]:
    """What Litestar cannot express, written into the generated document (once, when first served):
    single-member ``oneOf`` collapsed, discriminators, which arrays are indexed by seat or side, the meanings of
    the reasons and codes, response headers (Litestar drops ``headers`` of responses that carry examples), the
    security requirements of every operation, and the defaults of request fields in words
    (:func:`_defaults_in_words`)."""
    from engine.reasons import Reason

    _exact_parameters(document)
    _collapse_single_oneofs(document)
    schemas = document.get("components", {}).get("schemas", {})
    _add_discriminators(document, schemas)
    for name in request_schemas(document):
        _defaults_in_words(schemas[name])
    for item in document.get("paths", {}).values():
        for op in item.values():
            if isinstance(op, dict):
                _defaults_in_words(op.get("requestBody", {}))
    _declare_headers_and_security(document)
    for name, fields in INDEXED_ARRAYS.items():
        properties = schemas.get(name, {}).get("properties", {})
        for field, text in fields.items():
            if field in properties:
                prop = properties[field]
                prop["description"] = f"{prop['description']} {text}" if prop.get("description") else text
    if "Reason" in schemas:
        _enum_meanings(schemas["Reason"], {r.value: f"({r.kind}) {r.meaning}" for r in Reason},
                       "Why a move is refused: `malformed` reasons are answered 400 `MALFORMED_MOVE`, `illegal` "
                       "ones 422 `ILLEGAL_MOVE` (or `legal: false` from validateMove). Stable; new ones may be "
                       "added.")
    if "ProblemCode" in schemas:
        _enum_meanings(schemas["ProblemCode"], {c.value: f"({c.status}) {c.meaning}" for c in ProblemCode},
                       "The stable machine code of an error response. New ones may be added.")
    return document


class FinishedDocument:
    """:func:`finish_document` of the document Litestar builds, computed once: Litestar hands every render plugin
    the same (cached) dictionary, which is left as it is."""

    def __init__(self) -> None:
        self._source: dict[str, Any] | None = None
        self._finished: dict[str, Any] = {}

    def __call__(self, document: dict[str, Any]) -> dict[str, Any]:
        if document is not self._source:
            self._finished = finish_document(copy.deepcopy(document))
            self._source = document
        return self._finished


class FinishedJsonRenderPlugin(JsonRenderPlugin):
    """``/schema/openapi.json``: the finished document."""

    def __init__(self, finished: FinishedDocument, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.finished = finished

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, self.finished(openapi_schema))


class FinishedSwaggerRenderPlugin(SwaggerRenderPlugin):
    """Swagger UI on the finished document."""

    def __init__(self, finished: FinishedDocument, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.finished = finished

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, self.finished(openapi_schema))
