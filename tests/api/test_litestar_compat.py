"""The service's one use of a private Litestar API (``service/web/litestar_compat.py``) and the public hooks
around it: when a Litestar release moves or changes what the adapter relies on, these fail naming the symbol."""

from __future__ import annotations

import importlib
import inspect
import json
from importlib.metadata import version
from typing import Any

import msgspec
import pytest
from litestar.typing import FieldDefinition

from service.web.litestar_compat import PRIVATE_SYMBOLS, StructSchemaPlugin, private_symbol
from service.web.openapi import ExactStructSchemaPlugin

from .helpers import Client

LITESTAR = version("litestar")


@pytest.mark.parametrize(("module", "name", "attributes"), PRIVATE_SYMBOLS, ids=lambda v: str(v))
def test_each_private_symbol_is_where_the_adapter_expects_it(module: str, name: str,
                                                             attributes: tuple[str, ...]) -> None:
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"Litestar {LITESTAR}: {module}.{name} is gone ({exc}); adapt service/web/litestar_compat.py")
    for attribute in attributes:
        assert callable(getattr(found, attribute, None)), (
            f"Litestar {LITESTAR}: {module}.{name}.{attribute} is gone; adapt service/web/litestar_compat.py")


def test_the_struct_plugin_takes_what_the_service_passes() -> None:
    parameters = list(inspect.signature(StructSchemaPlugin.to_openapi_schema).parameters)
    assert parameters == ["self", "field_definition", "schema_creator"], (
        f"Litestar {LITESTAR}: StructSchemaPlugin.to_openapi_schema{parameters} changed; adapt "
        "service/web/litestar_compat.py and ExactStructSchemaPlugin")
    assert issubclass(ExactStructSchemaPlugin, StructSchemaPlugin)


def test_a_moved_symbol_fails_at_import_naming_it() -> None:
    with pytest.raises(ImportError, match=r"litestar\._openapi\.moved\.Gone .*service/web/litestar_compat\.py"):
        private_symbol("litestar._openapi.moved", "Gone")
    with pytest.raises(ImportError, match=r"litestar\.openapi\.NotThere"):
        private_symbol("litestar.openapi", "NotThere")


class Strict(msgspec.Struct, forbid_unknown_fields=True):
    seat: int


class Loose(msgspec.Struct):
    seat: int


class Pair(msgspec.Struct, array_like=True):
    """A pair."""

    seat: int
    note: str = ""


class RecordingCreator:
    """A schema creator with only the public method (``for_field_definition``): all the plugin may use for the
    Structs it writes itself."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    def for_field_definition(self, field_definition: FieldDefinition) -> Any:
        self.asked.append(field_definition.annotation)
        return {"type": field_definition.annotation.__name__}


def test_array_like_structs_are_tuples_built_through_the_public_creator_only() -> None:
    creator = RecordingCreator()
    schema = ExactStructSchemaPlugin().to_openapi_schema(FieldDefinition.from_annotation(Pair), creator)
    assert creator.asked == [int, str]
    assert (schema.min_items, schema.max_items, schema.prefix_items) == (1, 2, [{"type": "int"}, {"type": "str"}])
    assert schema.description == "A pair. Sent as an array: [seat, note]."


def test_the_plugin_takes_every_struct_and_the_document_says_which_refuse_unknown_fields(client: Client) -> None:
    plugin = ExactStructSchemaPlugin()
    assert plugin.is_plugin_supported_field(FieldDefinition.from_annotation(Strict))
    assert plugin.is_plugin_supported_field(FieldDefinition.from_annotation(Loose))
    schemas = client.get("/schema/openapi.json").json()["components"]["schemas"]
    assert schemas["ApplyRequest"]["additionalProperties"] is False  # a request body: forbid_unknown_fields
    assert "additionalProperties" not in schemas["ApplyResponse"]


def test_swagger_ui_and_the_json_document_show_the_finished_document(client: Client) -> None:
    """Both render plugins serve finish_document's output (here: its discriminators and enum meanings), the same
    object each time."""
    document = client.get("/schema/openapi.json").json()
    assert "x-enum-descriptions" in document["components"]["schemas"]["Reason"]
    assert any("discriminator" in json.dumps(s) for s in document["components"]["schemas"].values())
    page = client.get("/schema/swagger").text
    assert "x-enum-descriptions" in page
    assert client.get("/schema/openapi.json").json() == document
