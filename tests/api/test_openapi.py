"""The committed OpenAPI document is exactly what the app serves, and it documents every body and problem."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .helpers import Client

ROOT = Path(__file__).resolve().parents[2]
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


def test_every_operation_is_named_documented_and_exemplified(served: dict[str, Any]) -> None:
    assert served["openapi"].startswith("3.1")
    ops = _operations(served)
    assert {op["operationId"] for _, _, op in ops} == {
        "getRules", "createGame", "viewGame", "legalMoves", "validateMove", "applyMove"}
    for path, method, op in ops:
        assert path.startswith("/v1/"), path
        assert op.get("summary") and op.get("description"), (path, method)
        if "requestBody" in op:
            content = op["requestBody"]["content"]["application/json"]
            assert content["schema"].get("examples"), (path, "request body examples")
        success = [code for code in op["responses"] if code.startswith("2")]
        assert len(success) == 1, (path, success)
        for code, response in op["responses"].items():
            (media_type, content), = response["content"].items()
            assert content.get("examples"), (path, code, "response examples")
            if code.startswith("2"):
                assert media_type == "application/json"
            else:
                assert media_type == "application/problem+json", (path, code)
                problem = served["components"]["schemas"][content["schema"]["$ref"].rsplit("/", 1)[1]]
                assert {"type", "title", "status", "code", "detail"} <= set(problem["required"]), problem
                assert 400 <= int(code) < 500


def test_every_problem_code_is_documented(served: dict[str, Any]) -> None:
    from service.openapi import PROBLEM_EXAMPLES

    documented = {example["value"]["code"] for _, _, op in _operations(served)
                  for code, response in op["responses"].items() if not code.startswith("2")
                  for example in response["content"]["application/problem+json"]["examples"].values()}
    assert documented == set(PROBLEM_EXAMPLES)
    apply_codes = {example["value"]["code"] for response in served["paths"]["/v1/games/apply"]["post"][
        "responses"].values() for example in response["content"].get("application/problem+json", {}).get(
        "examples", {}).values()}
    assert {"ILLEGAL_MOVE", "MALFORMED_MOVE", "SNAPSHOT_TAMPERED", "SNAPSHOT_CORRUPT"} <= apply_codes


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:openapi", resource)
    wrapped = {"$ref": "urn:openapi#/components/schemas/" + schema["$ref"].rsplit("/", 1)[1]} \
        if "$ref" in schema else {"allOf": [{"$ref": "urn:openapi#/components/schemas/" +
                                             s["$ref"].rsplit("/", 1)[1]} for s in schema["allOf"]]}
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
            for content in response["content"].values():
                for name, example in content["examples"].items():
                    errors = list(_validator(served, content["schema"]).iter_errors(example["value"]))
                    assert not errors, (path, code, name, [e.message for e in errors[:3]])
                    checked += 1
    assert checked > 30


def test_array_like_structs_are_documented_as_arrays(served: dict[str, Any]) -> None:
    auction = served["components"]["schemas"]["SeatView"]["properties"]["auction"]["items"]
    assert auction["type"] == "array" and len(auction["prefixItems"]) == 3 and auction["title"] == "Call"
