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
from litestar.openapi.spec import Example, Schema, Tag
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

Every error is `application/problem+json` (RFC 9457) with a stable machine `code`; illegal moves add a
stable `reason` (e.g. `MUST_FOLLOW_SUIT`) and the legal moves. Malformed input is 400, a well-formed but
illegal move 422.
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

#: Each problem code the stateless API answers with: (status, title of the example, detail of the example,
#: extra members of the example body).
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
}

_STATUS_DESCRIPTIONS = {
    400: "Malformed input: the body or a token in it is not understood, or the snapshot is not one this "
         "service sealed (altered, truncated, or under an unknown key).",
    413: "The request body is larger than the configured limit (MAX_BODY_BYTES).",
    422: "Well-formed but not acceptable: an illegal move (with the reason and the legal moves), or a "
         "snapshot that opens but whose state is inconsistent.",
}

#: The problem codes each kind of operation can answer with.
SNAPSHOT_CODES = ("SNAPSHOT_MALFORMED", "SNAPSHOT_VERSION_UNSUPPORTED", "SNAPSHOT_UNKNOWN_KEY",
                  "SNAPSHOT_TAMPERED", "SNAPSHOT_CORRUPT")


def problem_example(code: str) -> dict[str, Any]:
    status, detail, extra = PROBLEM_EXAMPLES[code]
    body = Problem(status, code, detail, **extra).body()
    return typing.cast("dict[str, Any]", msgspec.to_builtins(body))


def problem_responses(*codes: str) -> dict[int, ResponseSpec]:
    """One problem+json response per status that ``codes`` use, with an example of each code."""
    by_status: dict[int, list[str]] = {}
    for code in codes:
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


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Five Hundred referee",
        version=API_VERSION,
        description=API_DESCRIPTION,
        tags=[
            Tag(name="rules", description="The rules catalogue: options, presets, bid ladder, score table."),
            Tag(name="games", description="Stateless games: snapshot in, snapshot out."),
        ],
        create_examples=False,
        use_handler_docstrings=False,
    )
