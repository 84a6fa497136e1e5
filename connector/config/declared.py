"""Settings fields that are properties: each names its property once, and takes its default from the property's
declaration (fields.py), so a dataclass default can never drift from the documented one.

    decimal_handling_mode: modes.DecimalHandlingMode = prop("decimal.handling.mode")

`read_declared(EventSettings, reader, column_mappers=...)` reads every such field through the `PropertyReader`
(problems collected, not raised) and takes the rest from the keyword arguments: the values a builder computes
from several properties or checks against each other.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, TypeVar

from connector.config.fields import BY_NAME
from connector.config.reader import PropertyReader

__all__ = ["declared_properties", "prop", "read_declared"]

T = TypeVar("T")
_PROPERTY = "property"
_EMPTY = "empty"  # what a missing or empty value becomes (the builders' `value or empty`)
_NO_EMPTY = object()


def prop(name: str, empty: Any = _NO_EMPTY) -> Any:
    """A dataclass field read from property `name`; its default is the property's declared default."""
    fld = BY_NAME[name]  # a KeyError here names a property nobody declared
    default = fld.parse(name, fld.default) if fld.default is not None else None
    if empty is not _NO_EMPTY and not default:
        default = empty
    if isinstance(default, (dict, list, set)):
        return dataclasses.field(default_factory=lambda: type(default)(default),
                                 metadata={_PROPERTY: name, _EMPTY: empty})
    return dataclasses.field(default=default, metadata={_PROPERTY: name, _EMPTY: empty})


def read_declared(cls: type[T], reader: PropertyReader, **given: Any) -> T:
    """An instance of `cls`: its `prop` fields read from the properties, every other field from `given`."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = f.metadata.get(_PROPERTY)
        if f.name in given or name is None:
            continue
        value = reader.get(name)
        empty = f.metadata[_EMPTY]
        values[f.name] = value if empty is _NO_EMPTY else (value or empty)
    return cls(**values, **given)


def declared_properties(cls: type) -> dict[str, str]:
    """Property name -> `Class.field` for every `prop` field of `cls` and of the settings classes it nests."""
    out: dict[str, str] = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        name = f.metadata.get(_PROPERTY)
        if name is not None:
            out[name] = f"{cls.__name__}.{f.name}"
        nested = hints.get(f.name)
        if isinstance(nested, type) and dataclasses.is_dataclass(nested):
            out.update(declared_properties(nested))
    return out
