"""Request bodies decoded straight from bytes into their msgspec Struct, strictly, by a decoder built once.

Litestar's default path for a ``data: SomeStruct`` parameter decodes the JSON into Python builtins and then
converts them to the Struct in lax mode (``"42"`` would become ``42``), on every request. This DTO does one
strict, typed ``msgspec.json.Decoder(SomeStruct).decode(body)`` instead: the body is accepted exactly as the
OpenAPI schema describes it, and the hot path (``POST /v1/games/apply``) skips a whole conversion pass.

Use it per handler: ``@post(..., dto=StructDTO[ApplyRequest], return_dto=None)``. Validation errors become
Litestar's :class:`~litestar.exceptions.ValidationException` with the same ``extra`` shape Litestar uses
(message, key, source), so the app's exception handler answers them as it answers every malformed request.
"""

from __future__ import annotations

from collections.abc import Collection, Generator
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from litestar.dto import AbstractDTO
from litestar.exceptions import ClientException, ValidationException
from litestar.typing import FieldDefinition

if TYPE_CHECKING:
    from litestar.dto.data_structures import DTOFieldDefinition
    from litestar.openapi.spec import Reference, Schema
    from litestar.types.serialization import LitestarEncodableType

    from service.web.litestar_compat import SchemaCreator

T = TypeVar("T")

__all__ = ["StructDTO", "decode_request", "struct_decoder", "validation_exception"]


def validation_exception(exc: msgspec.ValidationError) -> ValidationException:
    message, _, path = str(exc).partition(" - at `")
    key = path.rstrip("`").removeprefix("$").removeprefix(".")
    return ValidationException(detail="Validation failed", extra=[{"message": message, "key": key or "data",
                                                                    "source": "body"}])


_DECODERS: dict[type[Any], msgspec.json.Decoder[Any]] = {}


def struct_decoder(model_type: type[Any]) -> msgspec.json.Decoder[Any]:
    """The one strict JSON decoder of a request Struct (built once)."""
    decoder = _DECODERS.get(model_type)
    if decoder is None:
        decoder = _DECODERS[model_type] = msgspec.json.Decoder(model_type)
    return decoder


def decode_request(model_type: type[T], body: bytes) -> T:
    """``body`` decoded as ``model_type``, strictly; the framework's errors for a body that does not decode
    (:class:`ValidationException` naming the field, :class:`ClientException` for a body that is not JSON), which
    the app's exception handlers answer."""
    decoder = _DECODERS.get(model_type) or struct_decoder(model_type)  # (a call less on every request)
    try:
        decoded: T = decoder.decode(body)
    except msgspec.ValidationError as exc:
        raise validation_exception(exc) from None
    except msgspec.DecodeError as exc:
        raise ClientException(detail=str(exc)) from None
    except RecursionError:  # msgspec counts nesting against the interpreter's limit, which the call stack shares
        raise ClientException(detail="JSON nested too deeply") from None
    return decoded


class StructDTO(AbstractDTO[T]):
    """Decode ``data`` with a strict msgspec decoder for the Struct (no transfer model, no lax conversion)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if isinstance(getattr(cls, "model_type", None), type):
            struct_decoder(cls.model_type)  # built at import, not on the first request

    def decode_bytes(self, value: bytes) -> Any:
        return decode_request(self.model_type, value)

    def decode_builtins(self, value: dict[str, Any]) -> Any:
        try:
            return msgspec.convert(value, self.model_type)
        except msgspec.ValidationError as exc:
            raise validation_exception(exc) from None

    def data_to_encodable_type(self, data: T | Collection[T]) -> LitestarEncodableType:
        return data  # Structs are encoded by Litestar's msgspec encoder as they are

    @classmethod
    def generate_field_definitions(cls, model_type: type[Any]) -> Generator[DTOFieldDefinition, None, None]:
        yield from ()  # no transfer model: the Struct is decoded as it is

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        return False

    @classmethod
    def create_for_field_definition(cls, field_definition: FieldDefinition, handler_id: str,
                                    backend_cls: Any = None) -> None:
        """No backend to build: :meth:`decode_bytes` needs only the decoder."""

    @classmethod
    def create_openapi_schema(cls, field_definition: FieldDefinition, handler_id: str,
                              schema_creator: SchemaCreator) -> Reference | Schema:
        """The Struct's own schema, exactly as without a DTO (same component, same examples)."""
        return schema_creator.for_field_definition(
            FieldDefinition.from_annotation(field_definition.annotation,
                                            kwarg_definition=field_definition.kwarg_definition))
