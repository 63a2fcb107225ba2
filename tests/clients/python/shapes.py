"""Write request shapes (JSON bodies) as Python source that builds them with an openapi-python-client package's
own model classes, for mypy to check: ``shape_0: m.CreateSessionRequest = m.CreateSessionRequest(players=4, …)``.

    python shapes.py <package> <shapes.json>   # [{"schema": "CreateSessionRequest", "value": {...}}, …]

Run by tests/clients/test_defaults.py with the generators' interpreter, the generated package on its path. Each
object becomes a call of the model its field is typed with (found by reading the package's own type hints, so
nothing of the generator's naming is restated here); a field left out of the JSON is left out of the call, so
mypy says whether the generated model lets it be left out. A map (``additionalProperties``) is built with its
model's ``from_dict``; a string in an enumeration's place, with that enumeration's class.
"""

from __future__ import annotations

import enum
import importlib
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

import attrs


def _alternatives(hint: Any) -> list[Any]:
    """The members of a union (``X | None | Unset`` and ``Union[…]``), or the hint itself."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return list(typing.get_args(hint))
    return [hint]


def _field_name(cls: type, key: str) -> str:
    """The attribute the JSON member ``key`` is held in (``type`` is ``type_``, ``firstDealer`` …)."""
    names = {f.name for f in attrs.fields(cls)}
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
    for candidate in (key, f"{key}_", snake, f"{snake}_"):
        if candidate in names:
            return candidate
    raise KeyError(f"{cls.__name__} has no field for {key!r} (fields: {sorted(names)})")


class Writer:
    def __init__(self, package: str) -> None:
        self.models = importlib.import_module(f"{package}.models")
        self.types = importlib.import_module(f"{package}.types")
        self.namespace = {**vars(self.types), **vars(self.models)}

    def hints(self, cls: type) -> dict[str, Any]:
        return typing.get_type_hints(cls, globalns=self.namespace)

    def model(self, cls: type, value: dict[str, Any]) -> str:
        fields = {f.name for f in attrs.fields(cls) if f.init}
        if "additional_properties" in {f.name for f in attrs.fields(cls)} and not fields:
            return f"m.{cls.__name__}.from_dict({value!r})"  # a map: its keys are data, not fields
        hints = self.hints(cls)
        args = [f"{name}={self.value(hints[name], item)}" for key, item in value.items()
                for name in [_field_name(cls, key)]]
        return f"m.{cls.__name__}({', '.join(args)})"

    def value(self, hint: Any, value: Any) -> str:
        options = [h for h in _alternatives(hint) if h is not self.types.Unset and h is not type(None)]
        if value is None:
            return "None"
        if isinstance(value, dict):
            classes = [h for h in options if attrs.has(h)]
            tagged = [c for c in classes if "type" in value and self._tag(c) == value["type"]]
            chosen = tagged or classes
            if len(chosen) != 1:
                raise TypeError(f"no one model for {value!r} among {options}")
            return self.model(chosen[0], value)
        if isinstance(value, list):
            items = [typing.get_args(h)[0] for h in options if typing.get_origin(h) is list]
            if not items:
                raise TypeError(f"no list type for {value!r} among {options}")
            return "[" + ", ".join(self.value(items[0], v) for v in value) + "]"
        if isinstance(value, str):
            enums = [h for h in options if isinstance(h, type) and issubclass(h, enum.Enum)
                     and value in {e.value for e in h}]
            if enums and str not in options:
                return f"m.{enums[0].__name__}({value!r})"
        return repr(value)

    def _tag(self, cls: type) -> Any:
        hint = self.hints(cls).get("type_", self.hints(cls).get("type"))
        args = typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else ()
        if args:
            return args[0]
        if isinstance(hint, type) and issubclass(hint, enum.Enum) and len(hint) == 1:
            return next(iter(hint)).value
        return None


def main() -> None:
    package, shapes_file = sys.argv[1], sys.argv[2]
    writer = Writer(package)
    lines = [f"import {package}.models as m", ""]
    for i, shape in enumerate(json.loads(Path(shapes_file).read_text())):
        cls = getattr(writer.models, shape["schema"])
        lines.append(f"# {shape['where']}")
        lines.append(f"shape_{i}: m.{cls.__name__} = {writer.model(cls, shape['value'])}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
