"""The committed OpenAPI document is exactly what the app serves, and it documents every body and problem."""

from __future__ import annotations

import importlib.util
import json
import re
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support import ROOT

from .helpers import Client

COMMITTED = ROOT / "openapi" / "openapi.json"
REGENERATE = "  .venv/bin/python openapi/regenerate.py"


def _regenerate_module() -> Any:
    spec = importlib.util.spec_from_file_location("openapi_regenerate", ROOT / "openapi" / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def served(client: Client) -> dict[str, Any]:
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def test_committed_document_is_what_the_app_serves(served: dict[str, Any]) -> None:
    committed = json.loads(COMMITTED.read_text())
    assert committed == served, (
        f"{COMMITTED.relative_to(ROOT)} differs from what the app serves at /schema/openapi.json; regenerate it "
        f"with\n{REGENERATE}\nand commit the result")
    assert COMMITTED.read_text() == _regenerate_module().render(served), (
        f"{COMMITTED.relative_to(ROOT)} is not formatted as regenerate.py writes it; run\n{REGENERATE}")


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in document["paths"].items() for method, op in item.items()]


OPERATIONAL_PATHS = {"/healthz", "/readyz", "/metrics"}
#: Success responses that are not JSON.
SUCCESS_MEDIA_TYPES = {"streamSessionEvents": "text/event-stream",
                       "getMetrics": "text/plain; version=0.0.4; charset=utf-8"}


def test_every_operation_is_named_documented_and_exemplified(served: dict[str, Any]) -> None:
    assert served["openapi"].startswith("3.1")
    ops = _operations(served)
    assert {op["operationId"] for _, _, op in ops} == {
        "getRules", "createGame", "viewGame", "legalMoves", "validateMove", "applyMove", "suggestMove",
        "createSession", "getSession", "getSessionLegalMoves", "applySessionMove", "exportSessionSnapshot",
        "deleteSession", "streamSessionEvents", "getHealth", "getReadiness", "getMetrics", "verifyRecord",
        "getSessionRecord", "validateSessionMove", "suggestSessionMove", "createSpectatorToken", "joinSession",
        "leaveSession", "reissueSeatToken", "handSeatToBot", "inviteToSeat", "catchUpSessionEvents", "nameSeat",
        "revokeSpectatorToken", "analyseRecords", "rematchSession", "previewInvitation", "startSession", "pauseSession",
        "resumeSession", "callOffSession", "abandonSession", "getSessionAnalysis", "registerWebhook", "listWebhooks",
        "removeWebhook"}
    assert all(re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", op["operationId"]) for _, _, op in ops)  # camelCase
    problem_schemas = set()
    for path, method, op in ops:
        assert path.startswith("/v1/") or path in OPERATIONAL_PATHS, path
        assert op.get("summary") and op.get("description"), (path, method)
        if "requestBody" in op:
            content = op["requestBody"]["content"]["application/json"]
            assert content["schema"].get("examples"), (path, "request body examples")
        success = [code for code in op["responses"] if code.startswith("2")]
        # One success response; the event stream also has its 204 "stop reconnecting" (the game is over).
        assert len(success) == 1 or (op["operationId"] == "streamSessionEvents" and success == ["200", "204"]), (
            path, success)
        for code, response in op["responses"].items():
            if code == "204":
                assert "content" not in response, (path, code)
                continue
            (media_type, content), = response["content"].items()
            assert content.get("examples"), (path, code, "response examples")
            if code.startswith("2"):
                assert media_type == SUCCESS_MEDIA_TYPES.get(op["operationId"], "application/json"), (path, code)
            else:
                assert media_type == "application/problem+json", (path, code)
                problem_schemas.add(content["schema"]["$ref"])
                problem = served["components"]["schemas"][content["schema"]["$ref"].rsplit("/", 1)[1]]
                assert {"type", "title", "status", "code", "detail"} <= set(problem["required"]), problem
                assert 400 <= int(code) < 500 or int(code) == 503, (path, code)
    assert problem_schemas == {"#/components/schemas/ProblemDetails"}  # one problem schema for every error


def _codes(op: dict[str, Any]) -> dict[str, int]:
    """Each problem code an operation documents, with its status."""
    return {example["value"]["code"]: int(status) for status, response in op["responses"].items()
            for example in response.get("content", {}).get("application/problem+json", {}).get(
                "examples", {}).values()}


def test_every_problem_code_is_documented(served: dict[str, Any]) -> None:
    from service.web.openapi import PROBLEM_EXAMPLES

    documented = {code for _, _, op in _operations(served) for code in _codes(op)}
    assert documented == set(PROBLEM_EXAMPLES)
    apply_codes = _codes(served["paths"]["/v1/games/apply"]["post"])
    assert {"ILLEGAL_MOVE", "MALFORMED_MOVE", "SNAPSHOT_TAMPERED", "SNAPSHOT_CORRUPT"} <= set(apply_codes)


def test_session_and_ops_problem_codes_are_documented_per_operation(served: dict[str, Any]) -> None:
    paths = served["paths"]
    session = "/v1/sessions/{session_id}"
    gateway = {"API_KEY_REQUIRED": 401, "API_KEY_INVALID": 401, "RATE_LIMITED": 429}
    for path, method, op in _operations(served):
        if path.startswith("/v1/"):  # behind the API keys and the rate limit when they are configured
            assert gateway.items() <= _codes(op).items(), (path, method)
        else:  # probes and the scrape endpoint never are
            assert not gateway.keys() & _codes(op).keys(), (path, method)
    reads = {"UNAUTHORIZED": 401, "FORBIDDEN": 403, "SESSION_NOT_FOUND": 404, "STORE_UNAVAILABLE": 503}
    for path, method in ((session, "get"), (session + "/legal-moves", "get"), (session + "/snapshot", "get"),
                         (session, "delete")):
        assert reads.items() <= _codes(paths[path][method]).items(), (path, method)
    assert {"UNAUTHORIZED": 401, "FORBIDDEN": 403, "WRONG_SEAT": 403, "SESSION_NOT_FOUND": 404,
            "VERSION_CONFLICT": 409, "IDEMPOTENCY_KEY_REUSED": 422, "ILLEGAL_MOVE": 422, "INVALID_IF_MATCH": 400,
            "INVALID_IDEMPOTENCY_KEY": 400, "STORE_UNAVAILABLE": 503}.items() \
        <= _codes(paths[session + "/moves"]["post"]).items()
    assert {"INVALID_LAST_EVENT_ID": 400, "UNAUTHORIZED": 401, "SESSION_NOT_FOUND": 404,
            "STORE_UNAVAILABLE": 503}.items() <= _codes(paths[session + "/events"]["get"]).items()
    assert {"INVALID_OPTIONS": 400, "SNAPSHOT_TAMPERED": 400, "SNAPSHOT_CORRUPT": 422,
            "STORE_UNAVAILABLE": 503}.items() <= _codes(paths["/v1/sessions"]["post"]).items()
    assert _codes(paths["/readyz"]["get"]) == {"NOT_READY": 503}
    conflict = paths[session + "/moves"]["post"]["responses"]["409"]["content"]["application/problem+json"]
    assert next(iter(conflict["examples"].values()))["value"]["current_version"] == 8
    # A session token, with the API key when the service requires one (formerly the token alone).
    assert paths[session + "/moves"]["post"]["security"] == [{"apiKey": [], "sessionToken": []}, {"sessionToken": []}]
    assert paths["/v1/games"]["post"]["security"] == [{"apiKey": []}, {}]
    assert paths["/healthz"]["get"]["security"] == []
    assert served["components"]["securitySchemes"]["apiKey"]["name"] == "X-API-Key"
    for op, status, header in (("/v1/sessions", "201", "Location"), ("/v1/sessions", "201", "ETag"),
                               (session + "/moves", "200", "Idempotent-Replayed"), (session + "/moves", "409", "ETag"),
                               (session + "/moves", "503", "Retry-After"), (session, "200", "X-Request-ID")):
        method = "post" if op.endswith(("sessions", "moves")) else "get"
        assert paths[op][method]["responses"][status]["headers"][header] == {
            "$ref": f"#/components/headers/{header}"}, (op, status, header)
    assert served["components"]["securitySchemes"]["sessionToken"] == {
        "type": "http", "scheme": "bearer", "description": served["components"]["securitySchemes"][
            "sessionToken"]["description"]}


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:openapi", resource)
    if "$ref" in schema:
        wrapped = {"$ref": "urn:openapi#/components/schemas/" + schema["$ref"].rsplit("/", 1)[1]}
    elif "allOf" in schema or "oneOf" in schema:
        kind = "allOf" if "allOf" in schema else "oneOf"
        wrapped = {kind: [{"$ref": "urn:openapi#/components/schemas/" + s["$ref"].rsplit("/", 1)[1]}
                          for s in schema[kind]]}
    else:  # an inline schema (the event stream and the metrics are text)
        assert "$ref" not in json.dumps(schema), schema
        wrapped = schema
    return jsonschema.Draft202012Validator(wrapped, registry=registry)


def test_every_example_matches_its_schema(served: dict[str, Any]) -> None:
    checked = 0
    for path, _, op in _operations(served):
        if "requestBody" in op:
            schema = op["requestBody"]["content"]["application/json"]["schema"]
            for example in schema["examples"]:
                _validator(served, schema).validate(example)
                checked += 1
        for code, response in op["responses"].items():
            for content in response.get("content", {}).values():
                for name, example in content["examples"].items():
                    errors = list(_validator(served, content["schema"]).iter_errors(example["value"]))
                    assert not errors, (path, code, name, [e.message for e in errors[:3]])
                    checked += 1
    assert checked > 60


def test_calls_the_high_bid_and_cut_draws_are_named_objects(served: dict[str, Any]) -> None:
    # Formerly positional arrays ([seat, bid, sans_kitty], [seat, card]); now objects with named fields.
    schemas = served["components"]["schemas"]
    assert schemas["SeatView"]["properties"]["auction"]["items"] == {"$ref": "#/components/schemas/CallView"}
    assert {"$ref": "#/components/schemas/CallView"} in schemas["SeatView"]["properties"]["high_bid"]["oneOf"]
    assert schemas["CallView"]["type"] == "object" and set(schemas["CallView"]["required"]) == {"seat", "bid"}
    assert schemas["DealerCut"]["properties"]["draws"]["items"] == {"$ref": "#/components/schemas/CutDraw"}
    assert set(schemas["CutDraw"]["properties"]) == {"seat", "card"}
    assert "prefixItems" not in json.dumps(served)  # no tuple anywhere


def _alternatives(node: Any, path: str = "") -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    """Every ``oneOf``/``anyOf``: where it is, its alternatives, and the schema holding it."""
    found: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = []
    if isinstance(node, dict):
        for key in ("oneOf", "anyOf"):
            if key in node:
                found.append((path, node[key], node))
        for key, value in node.items():
            found += _alternatives(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _alternatives(value, f"{path}[{i}]")
    return found


def test_every_value_has_one_json_type(served: dict[str, Any]) -> None:
    """No mixed-type or single-member ``oneOf``: a value is one type, or nullable, or a tagged union of objects
    with a discriminator (generated clients choke on anything else)."""
    for path, alternatives, _ in _alternatives(served):
        assert len(alternatives) > 1, path
        concrete = [a for a in alternatives if a.get("type") != "null"]
        if len(concrete) == 1:
            continue  # X or null
        assert not any(a.get("type") == "null" for a in alternatives), path
        assert all("$ref" in a for a in concrete), (path, concrete)
    for path, alternatives, holder in _alternatives(served):
        if len([a for a in alternatives if a.get("type") != "null"]) > 1:
            assert holder["discriminator"]["propertyName"] == "type", path
    options = served["components"]["schemas"]["ResolvedOptions"]["properties"]

    def typed(schema: dict[str, Any]) -> dict[str, Any]:  # the option's type, without its description
        assert schema["description"]  # each option is documented (tests/api/test_option_descriptions.py)
        return {k: v for k, v in schema.items() if k != "description"}

    assert typed(options["pass_is_final"]) == {"type": "string", "enum": ["always", "never", "reopen_on_suit_change"]}
    assert typed(options["defender_trick_cap"]) == {"type": "string", "enum": ["none", "490", "480"]}
    overrides = served["components"]["schemas"]["OptionOverrides"]["properties"]
    assert overrides["pass_is_final"] == options["pass_is_final"]


def test_indexed_arrays_say_by_seat_or_by_side(served: dict[str, Any]) -> None:
    view = served["components"]["schemas"]["SeatView"]["properties"]
    for field in ("hand_sizes", "looked", "tricks_won"):
        assert "Indexed by seat" in view[field]["description"], field
    assert "Indexed by side" in view["scores"]["description"]
    scored = served["components"]["schemas"]["HandScored"]["properties"]
    assert "Indexed by side" in scored["deltas"]["description"] and "by seat" in scored["tricks_won"]["description"]


def test_no_request_field_carries_a_default_keyword(served: dict[str, Any]) -> None:
    """A request field the service fills in is optional, and stays so in a client generated with its generator's
    default settings (openapi-typescript's ``defaultNonNullable`` makes a property with a ``default`` required):
    its default is said in its description instead. Responses may keep ``default``."""
    from service.web.openapi import request_schemas

    reached = request_schemas(served)
    assert {"CreateSessionRequest", "SessionBid", "Bid", "ClockOptions", "SessionSuggestRequest"} <= reached

    def defaults(node: Any, where: str) -> list[str]:
        if isinstance(node, dict):
            found = [f"{where}.{name}" for name, prop in (node.get("properties") or {}).items()
                     if isinstance(prop, dict) and "default" in prop]
            return found + [f for key, value in node.items() for f in defaults(value, f"{where}/{key}")]
        if isinstance(node, list):
            return [f for value in node for f in defaults(value, where)]
        return []

    schemas = served["components"]["schemas"]
    found = [f for name in sorted(reached) for f in defaults(schemas[name], name)]
    found += [f for path, method, op in _operations(served) for f in defaults(op.get("requestBody", {}), path)]
    assert not found, found
    hints = schemas["CreateSessionRequest"]["properties"]["hints"]
    assert hints["description"].endswith("Default: `true`.") and "hints" not in schemas["CreateSessionRequest"].get(
        "required", [])
