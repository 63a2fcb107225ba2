"""Every refusal reason and every problem code comes from one enumeration, which the contract and the rules
catalogue publish with a meaning each.

The source scan is the oracle: it finds every reason string the engine (and the service's token checks) can
put into a :class:`engine.Rejection`, and every code the service can put into a problem, and checks that each is
a member of :class:`engine.reasons.Reason` / :class:`service.web.codes.ProblemCode`.
"""

from __future__ import annotations

import ast

import pytest

from engine.reasons import MALFORMED_REASONS, REASON_INFO, Reason
from service.web.codes import PROBLEM_CODE_INFO, ProblemCode
from service.web.problems import Problem
from tests.support import ROOT

from .helpers import Client

SOURCES = sorted([*(ROOT / "engine").rglob("*.py"), *(ROOT / "service").rglob("*.py"),
                  *((ROOT / "bots").rglob("*.py") if (ROOT / "bots").is_dir() else [])])


def _name(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _constant(node: ast.expr, enum: str) -> str:
    """The string a code argument denotes: a literal, or a member of the enumeration ``enum``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == enum:
        return node.attr
    raise AssertionError(f"not a literal or {enum} member: {ast.unparse(node)}")


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[position] if len(call.args) > position else None


def _scan(callee: str, position: int, keyword: str, enum: str) -> dict[str, list[str]]:
    """Every string passed as argument ``position`` (or ``keyword``) of a call to ``callee``, with where."""
    found: dict[str, list[str]] = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and _name(node.func) == callee:
                arg = _argument(node, position, keyword)
                if arg is None or isinstance(arg, ast.Name) or (
                        isinstance(arg, ast.Attribute) and not (isinstance(arg.value, ast.Name)
                                                                and arg.value.id == enum)):
                    continue  # forwarding a code made elsewhere (``exc.code``, a parameter): scanned there
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                try:
                    found.setdefault(_constant(arg, enum), []).append(where)
                except AssertionError as exc:
                    raise AssertionError(f"{where}: {exc}") from None
    return found


def test_every_reason_the_engine_emits_is_enumerated() -> None:
    emitted = _scan("Rejection", 0, "reason", "Reason")
    assert len(emitted) >= 37, sorted(emitted)  # the engine's refusals today; more may come
    unknown = {r: where for r, where in emitted.items() if r not in Reason.__members__}
    assert not unknown, f"reasons missing from engine/reasons.py: {unknown}"
    # And no member is dead: each is a reason something can emit.
    assert set(Reason) == set(emitted), sorted(set(Reason) - set(emitted))


def test_every_problem_code_the_service_answers_is_enumerated() -> None:
    codes: dict[str, list[str]] = {}
    for callee, position in (("Problem", 0), ("_forbidden", 99), ("SnapshotError", 0), ("GameSetupError", 0),
                             ("make_problem", 99)):
        for code, where in _scan(callee, position, "code", "ProblemCode").items():
            codes.setdefault(code, []).extend(where)
    unknown = {c: where for c, where in codes.items() if c not in ProblemCode.__members__}
    assert not unknown, f"codes missing from service/web/codes.py: {unknown}"
    assert {"ILLEGAL_MOVE", "SNAPSHOT_TAMPERED", "API_KEY_REQUIRED", "RATE_LIMITED", "INVALID_SEED"} <= set(codes)


def test_every_member_has_a_kind_status_and_meaning() -> None:
    assert list(REASON_INFO) == list(Reason)
    assert list(PROBLEM_CODE_INFO) == list(ProblemCode)
    assert {r.value for r in MALFORMED_REASONS} == {"UNKNOWN_CARD", "UNKNOWN_BID", "UNKNOWN_SUIT", "NO_SUCH_SEAT"}
    for reason in Reason:
        assert reason.value == reason.name and reason.kind in ("malformed", "illegal")
        assert reason.meaning.endswith(".") and "\n" not in reason.meaning
    for code in ProblemCode:
        assert code.value == code.name and 400 <= code.status <= 599
        assert code.meaning.endswith(".") and "\n" not in code.meaning


def test_a_problem_refuses_a_code_that_is_not_enumerated() -> None:
    with pytest.raises(ValueError):
        Problem("SOMETHING_ELSE", "nope")


def test_the_rules_catalogue_lists_every_reason_and_code(client: Client) -> None:
    body = client.get("/v1/rules").json()
    assert body["reasons"] == [{"reason": r.value, "kind": r.kind, "meaning": r.meaning} for r in Reason]
    assert body["problem_codes"] == [{"code": c.value, "status": c.status, "meaning": c.meaning}
                                     for c in ProblemCode]


def test_the_contract_enumerates_every_reason_and_code(client: Client) -> None:
    document = client.get("/schema/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert schemas["Reason"]["enum"] == [r.value for r in Reason]
    assert schemas["ProblemCode"]["enum"] == [c.value for c in ProblemCode]
    for reason in Reason:  # the meanings travel with the enumeration
        assert f"`{reason.value}`" in schemas["Reason"]["description"]
    assert schemas["Reason"]["x-enum-descriptions"] == [f"({r.kind}) {r.meaning}" for r in Reason]
    assert schemas["ProblemCode"]["x-enum-descriptions"] == [f"({c.status}) {c.meaning}" for c in ProblemCode]
    problem = schemas["ProblemDetails"]["properties"]
    assert problem["code"] == {"$ref": "#/components/schemas/ProblemCode"}
