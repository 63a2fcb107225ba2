"""The request shapes the documentation shows, found and typed for each generated client.

A *request shape* is a JSON object written in the README, in docs/ or in a client package's README that is a
valid body of one of the contract's operations (validated against the operation's request schema, which refuses
unknown members, so a response or a move alone is never taken for one), together with the contract's own
request examples and the shapes the issue of defaults was found with: a session of ``{"players": 4, "seed": 1,
"first_dealer": 3}`` and a session bid without ``sans_kitty``. Each is compiled against each client generated
with its generator's default settings (tests/clients/test_defaults.py), so that a field the service fills in
is optional in every client, and the docs show requests that compile.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .tooling import CONTRACT, ROOT

#: Where the documentation's request shapes are read from.
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "clients").glob("*/README.md"))]
#: Shapes that must compile whatever the docs say: those the optional-defaults problem was found with.
PINNED: list[tuple[str, dict[str, Any]]] = [
    ("CreateSessionRequest", {"players": 4, "seed": 1, "first_dealer": 3}),
    ("MoveRequest", {"move": {"type": "bid", "bid": "7H"}}),
    ("CreateSessionRequest", {"players": 4, "bots": {"1": "expert"}, "clock": {"move_seconds": 30}}),
]
_REF = "#/components/schemas/"


@dataclass(frozen=True)
class Shape:
    schema: str  # the request body's component, e.g. CreateSessionRequest
    value: dict[str, Any]
    where: str  # the file it was read from (or "contract example", "pinned")


@cache
def contract() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(CONTRACT.read_text())
    return document


def request_bodies() -> dict[str, list[str]]:
    """Each request body's component, with the operations that take it."""
    out: dict[str, list[str]] = {}
    for item in contract()["paths"].values():
        for op in item.values():
            if isinstance(op, dict) and "requestBody" in op:
                schema = op["requestBody"]["content"]["application/json"]["schema"]
                (ref,) = [s["$ref"] for s in schema.get("allOf", [schema])]
                out.setdefault(ref.removeprefix(_REF), []).append(op["operationId"])
    return out


@cache
def _registry() -> Registry[Any]:
    return Registry().with_resource("urn:openapi", Resource.from_contents(contract(),
                                                                          default_specification=DRAFT202012))


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator of ``schema`` (which may ``$ref`` the contract's components)."""
    text = json.dumps(schema).replace(f'"{_REF}', f'"urn:openapi{_REF}')
    return jsonschema.Draft202012Validator(json.loads(text), registry=_registry())


def _json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object written in ``text`` (code blocks, inline code, curl's ``-d '…'``), outermost first."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    for start in (m.start() for m in re.finditer(r"\{", text)):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict) and value:
            found.append(value)
    return found


def request_shapes() -> list[Shape]:
    """The documentation's request shapes, the contract's request examples and the pinned shapes, each once
    per request schema it is a valid body of."""
    bodies = {name: validator({"$ref": _REF + name}) for name in request_bodies()}
    candidates: list[tuple[str, dict[str, Any]]] = []
    for document in DOCUMENTS:
        candidates += [(str(document.relative_to(ROOT)), value) for value in _json_objects(document.read_text())]
    for item in contract()["paths"].values():
        for op in item.values():
            if isinstance(op, dict) and "requestBody" in op:
                schema = op["requestBody"]["content"]["application/json"]["schema"]
                candidates += [(f"contract example ({op['operationId']})", value)
                               for value in schema.get("examples", []) if isinstance(value, dict) and value]
    shapes: dict[tuple[str, str], Shape] = {}
    for where, value in candidates:
        for name, check in bodies.items():
            if check.is_valid(value):
                shapes.setdefault((name, json.dumps(value, sort_keys=True)), Shape(name, value, where))
    for name, value in PINNED:
        assert bodies[name].is_valid(value), (name, value)
        shapes.setdefault((name, json.dumps(value, sort_keys=True)), Shape(name, value, "pinned"))
    return list(shapes.values())


# ---------------------------------------------------------------------------------------------- TypeScript


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = contract()["components"]["schemas"][schema["$ref"].removeprefix(_REF)]
    if len(schema.get("allOf", [])) == 1:
        return _resolve(schema["allOf"][0])
    return schema


def _branch(schema: dict[str, Any], value: Any) -> dict[str, Any]:
    """The member of a ``oneOf``/``anyOf`` that ``value`` is (the only one it validates against)."""
    schema = _resolve(schema)
    members = schema.get("oneOf") or schema.get("anyOf")
    if not members:
        return schema
    matching = [m for m in members if validator(m).is_valid(value)]
    assert len(matching) == 1, (value, matching)
    return _branch(matching[0], value)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def typescript_literal(value: Any, schema: dict[str, Any], camel: bool = False) -> str:
    """``value`` as a TypeScript literal; with ``camel``, each property named as openapi-generator's
    typescript-fetch names it by default (``first_dealer`` is ``firstDealer``; a map's keys are data, kept)."""
    if not camel:
        return json.dumps(value, ensure_ascii=False)
    schema = _branch(schema, value)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        items = []
        for key, item in value.items():
            if key in properties:
                items.append(f"{_camel(key)}: {typescript_literal(item, properties[key], camel)}")
            else:
                extra = schema.get("additionalProperties", {})
                items.append(f"{json.dumps(key)}: {typescript_literal(item, extra, camel)}")
        return "{ " + ", ".join(items) + " }"
    if isinstance(value, list):
        prefix = schema.get("prefixItems", [])
        return "[" + ", ".join(typescript_literal(item, prefix[i] if i < len(prefix) else schema.get("items", {}),
                                                  camel) for i, item in enumerate(value)) + "]"
    return json.dumps(value, ensure_ascii=False)


def typescript_module(shapes: list[Shape], header: str, type_of: str, camel: bool = False) -> str:
    """A module declaring each shape as a constant of its request type (``type_of`` formats the type from the
    component's name)."""
    lines = [header, ""]
    for i, shape in enumerate(shapes):
        literal = typescript_literal(shape.value, {"$ref": _REF + shape.schema}, camel)
        lines += [f"// {shape.where}", f"export const shape_{i}: {type_of.format(shape.schema)} = {literal};"]
    return "\n".join(lines) + "\n"
