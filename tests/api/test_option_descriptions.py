"""Each option's description lives on its field of :class:`engine.Options`, and every place that documents the
option reads it from there: the rules catalogue (and so docs/RULES.md section 3, ``tests/test_docs.py``) and the
contract's option schemas, for requests and responses alike."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import msgspec

from engine import Options, option_catalogue

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_every_option_field_carries_its_description() -> None:
    hints = typing.get_type_hints(Options, include_extras=True)
    catalogue = {o["name"]: o["description"] for o in option_catalogue()}
    for name in Options.__struct_fields__:
        metas = [m for m in typing.get_args(hints[name])[1:] if isinstance(m, msgspec.Meta)]
        described = [m.description for m in metas if m.description]
        assert described == [catalogue[name]], name
        assert catalogue[name].strip() and "\n" not in catalogue[name]


def test_the_contract_documents_each_option() -> None:
    schemas = json.loads(CONTRACT.read_text())["components"]["schemas"]
    catalogue = {o["name"]: o["description"] for o in option_catalogue()}
    shapes = [name for name in ("OptionOverrides", "ResolvedOptions") if name in schemas]
    assert shapes == ["OptionOverrides", "ResolvedOptions"]
    for shape in shapes:
        properties = schemas[shape]["properties"]
        assert set(properties) == set(catalogue), shape
        for name, description in catalogue.items():
            assert properties[name].get("description") == description, (shape, name)
