"""The OpenAPI document's configuration: problem responses per operation, schemas for array-like Structs.

The committed ``openapi/openapi.json`` is what :func:`service.app.create_app` serves at
``/schema/openapi.json`` (``openapi/regenerate.py`` rewrites it; a test fails when they differ).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

import msgspec
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.spec import Components, Example, Schema, SecurityScheme, Tag
from litestar.openapi.spec.enums import OpenAPIType

from service.problems import PROBLEM_MEDIA_TYPE, Problem, ProblemDetails

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator
    from litestar.typing import FieldDefinition

API_VERSION = "1.0.0"

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
        schema = super().to_openapi_schema(field_definition, schema_creator)
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

#: Each problem code the API answers with: (status, detail of the example, extra members of the example body
#: or, as ``title``, the problem's title when it is not the code's own wording).
PROBLEM_EXAMPLES: dict[str, tuple[int, str, dict[str, Any]]] = {
    "MALFORMED_REQUEST": (400, "Expected `int` >= 2 - at `$.players`", {}),
    "MALFORMED_MOVE": (400, "'1H' is not a card of this game's 43-card pack", {"reason": "UNKNOWN_CARD"}),
    "INVALID_OPTIONS": (400, "Invalid enum value '44' - at `$.options.deck_4p`", {}),
    "INVALID_SEED": (400, "Expected `int` >= 0 - at `$.seed`", {}),
    "INVALID_DECK_ORDER": (400, "deck_orders[0] is not a permutation of the 43-card pack (missing ['JK'], "
                                "not in pack [], repeated ['4H'])", {}),
    "INVALID_FIRST_DEALER": (400, "first_dealer must be a seat from 0 to 3", {}),
    "NO_SUCH_SEAT": (400, "seat 4 does not exist: seats are 0 to 3", {}),
    "SNAPSHOT_MALFORMED": (400, "a snapshot has three dot-separated parts", {}),
    "SNAPSHOT_VERSION_UNSUPPORTED": (400, "snapshot version 'v2' is not supported (supported: v1)", {}),
    "SNAPSHOT_UNKNOWN_KEY": (400, "the snapshot was sealed under a key this service does not hold", {}),
    "SNAPSHOT_TAMPERED": (400, "the snapshot failed authentication: it was altered or sealed elsewhere", {}),
    "SNAPSHOT_CORRUPT": (422, "the snapshot's state is inconsistent: cards held twice: ['JK']", {}),
    "ILLEGAL_MOVE": (422, "seat 1 must follow H: play one of ['4H', 'QH']",
                     {"reason": "MUST_FOLLOW_SUIT", "legal_moves": [
                         {"type": "play", "seat": 1, "card": "4H", "nominate": None},
                         {"type": "play", "seat": 1, "card": "QH", "nominate": None}]}),
    "BODY_TOO_LARGE": (413, "the request body is larger than 65536 bytes", {}),
    # Game records.
    "RECORD_MISMATCH": (422, "hands[2].score.changes[0] does not match what the moves derive",
                        {"field": "hands[2].score.changes[0]"}),
    "RECORD_UNAVAILABLE": (409, "this session was restored from a snapshot: its log, and so its record, starts "
                                "there", {}),
    # Hosted sessions.
    "INVALID_IF_MATCH": (400, "If-Match must be a session version such as \"3\"; got 'abc'", {}),
    "INVALID_IDEMPOTENCY_KEY": (400, "Idempotency-Key must be 1 to 128 printable ASCII characters", {}),
    "INVALID_LAST_EVENT_ID": (400, "Last-Event-ID must be an event id of this stream, <version>-<index>", {}),
    "UNAUTHORIZED": (401, "this token is not valid for this session", {}),
    "FORBIDDEN": (403, "only the host token can export the snapshot", {}),
    "WRONG_SEAT": (403, "this token acts for seat 2 only; the move names seat 1", {}),
    "SESSION_NOT_FOUND": (404, "no session 'q0Jd3rXyFh2mJZ9KkQ7aLw': it never existed, was deleted, or expired "
                               "after its idle time (the host can recreate it from a snapshot)", {}),
    "VERSION_CONFLICT": (409, "the session is at version 8, not 7", {"current_version": 8}),
    "IDEMPOTENCY_KEY_REUSED": (422, "this Idempotency-Key was already used for a different move; use a new key "
                                    "for a new move", {}),
    "STORE_UNAVAILABLE": (503, "the session store is unavailable; retry shortly", {}),
    # Answered before any handler when API keys or rate limits are configured (service/ops).
    "API_KEY_REQUIRED": (401, "Send your API key in the X-API-Key header.", {"title": "API key required"}),
    "API_KEY_INVALID": (401, "The X-API-Key header does not hold a valid API key.",
                        {"title": "API key invalid"}),
    "RATE_LIMITED": (429, "This client may make 600 requests per 60 s; retry after 12 s.",
                     {"title": "Too many requests"}),
    # GET /readyz (service/ops/health.py documents it).
    "NOT_READY": (503, "Failed checks: store=failed.", {"title": "Service not ready"}),
}

_STATUS_DESCRIPTIONS = {
    400: "Malformed input: the body, a header, a parameter or a token in the body is not understood, or the "
         "snapshot is not one this service sealed (altered, truncated, or under an unknown key).",
    401: "Missing or unknown credentials: the session token (`Authorization: Bearer …`) or, when the service "
         "requires API keys, the `X-API-Key` header.",
    403: "A token of this session, but of the wrong role or seat.",
    404: "Unknown, deleted or expired session.",
    409: "Stale `If-Match`: the session is at another version (`current_version`, and the current `ETag`).",
    413: "The request body is larger than the configured limit (MAX_BODY_BYTES).",
    422: "Well-formed but not acceptable: an illegal move (with the reason and the legal moves), a snapshot that "
         "opens but whose state is inconsistent, or an `Idempotency-Key` reused for a different move.",
    429: "Too many requests from this client (RATE_LIMIT_PER_MINUTE); `Retry-After` says when to retry.",
    503: "The session store is unavailable; `Retry-After` says when to retry. Nothing was applied.",
}

#: The problem codes each kind of operation can answer with.
SNAPSHOT_CODES = ("SNAPSHOT_MALFORMED", "SNAPSHOT_VERSION_UNSUPPORTED", "SNAPSHOT_UNKNOWN_KEY",
                  "SNAPSHOT_TAMPERED", "SNAPSHOT_CORRUPT")
#: Codes every ``/v1`` operation may answer with when API keys or a rate limit are configured; added by
#: :func:`problem_responses` to each operation.
GATEWAY_CODES = ("API_KEY_REQUIRED", "API_KEY_INVALID", "RATE_LIMITED")


def problem_example(code: str) -> dict[str, Any]:
    status, detail, extra = PROBLEM_EXAMPLES[code]
    body = Problem(status, code, detail, **extra).body()
    return typing.cast("dict[str, Any]", msgspec.to_builtins(body))


def problem_responses(*codes: str) -> dict[int, ResponseSpec]:
    """One problem+json response per status that ``codes`` (and the :data:`GATEWAY_CODES` of every ``/v1``
    operation) use, with an example of each code."""
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys((*codes, *GATEWAY_CODES)):
        by_status.setdefault(PROBLEM_EXAMPLES[code][0], []).append(code)
    return {
        status: ResponseSpec(
            data_container=ProblemDetails,
            description=_STATUS_DESCRIPTIONS[status] + " Codes: " + ", ".join(group) + ".",
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
            examples=[ExactExample(summary=code, value=problem_example(code)) for code in group],
        )
        for status, group in sorted(by_status.items())
    }


def openapi_config(security_schemes: dict[str, SecurityScheme] | None = None) -> OpenAPIConfig:
    """The document's configuration; ``security_schemes`` (the sessions' bearer tokens) go into its components."""
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
    )
