"""The one place the service uses a private part of Litestar, and the public shapes it relies on.

Litestar offers no public base for a schema plugin that *extends* its own schema of a msgspec Struct, so
:class:`StructSchemaPlugin` (``litestar._openapi.schema_generation.plugins.struct``) is imported here and
nowhere else. If a Litestar release moves or changes it, importing this module fails with an error naming the
symbol, and ``tests/api/test_litestar_compat.py`` says what changed; everything else uses Litestar's public API.

:class:`SchemaCreator` is the public face of the schema factory Litestar hands to schema plugins and DTOs
("a factory for creating schemas, with a ``for_field_definition()`` method", as Litestar documents it): a
protocol, so that no private class is named even in annotations.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from litestar.openapi.spec import Reference, Schema
    from litestar.typing import FieldDefinition


class SchemaCreator(Protocol):
    """What Litestar passes as ``schema_creator`` to ``OpenAPISchemaPlugin.to_openapi_schema`` and
    ``AbstractDTO.create_openapi_schema``."""

    def for_field_definition(self, field_definition: FieldDefinition) -> Schema | Reference: ...


#: Every private Litestar symbol the service uses: (module, name, attributes it relies on).
PRIVATE_SYMBOLS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("litestar._openapi.schema_generation.plugins.struct", "StructSchemaPlugin",
     ("is_plugin_supported_field", "to_openapi_schema")),
)


def private_symbol(module: str, name: str) -> type:
    """``module.name``, or an ImportError naming it and this module."""
    try:
        found: type = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ImportError(f"{module}.{name} is not in this Litestar release: service/web/litestar_compat.py "
                          f"must be adapted to it ({exc})") from exc
    return found


if TYPE_CHECKING:
    from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
else:
    StructSchemaPlugin = private_symbol(*PRIVATE_SYMBOLS[0][:2])

__all__ = ["PRIVATE_SYMBOLS", "SchemaCreator", "StructSchemaPlugin", "private_symbol"]
