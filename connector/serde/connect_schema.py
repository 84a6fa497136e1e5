"""Kafka Connect schemas (`org.apache.kafka.connect.data.Schema`) and their JsonConverter JSON form.

A `ConnectSchema` is immutable and renders its JSON once (`json` is cached on the instance), so a
table's key/value schema text costs nothing per record. Key order is JsonConverter's `asJsonSchema`
(debezium-contract.md §d1): `type`, `fields`/`items`/`keys`+`values`, `optional`, `name`, `version`,
`doc`, `parameters`, `default`; a struct field appends `"field":"<name>"` last.

Struct values are passed around as sequences in field order (fast path) or as dicts by field name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any, Callable

from connector.java.text import jackson_string

__all__ = [
    "Type",
    "Field",
    "ConnectSchema",
    "NO_DEFAULT",
    "struct",
    "optional",
    "DECIMAL_NAME",
]

DECIMAL_NAME = "org.apache.kafka.connect.data.Decimal"


class Type(str, Enum):
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float"
    FLOAT64 = "double"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"


class _NoDefault:
    """Marker for 'no default' (None is a legal Connect default value only in name)."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True)
class Field:
    name: str
    schema: "ConnectSchema"


@dataclass(frozen=True, eq=True)
class ConnectSchema:
    type: Type
    optional: bool = False
    name: str | None = None
    version: int | None = None
    doc: str | None = None
    parameters: tuple[tuple[str, str | None], ...] = ()
    default: Any = field(default=NO_DEFAULT, compare=True)
    fields: tuple[Field, ...] = ()
    items: "ConnectSchema | None" = None
    keys: "ConnectSchema | None" = None
    values: "ConnectSchema | None" = None

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT and self.default is not None

    def parameter(self, key: str) -> str | None:
        for k, v in self.parameters:
            if k == key:
                return v
        return None

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    @cached_property
    def json(self) -> str:
        """The schema's JsonConverter JSON text (computed once per instance)."""
        return self._render(None)

    def field_json(self, field_name: str) -> str:
        """The schema as it appears inside a parent struct's `fields` list."""
        return self._render(field_name)

    @cached_property
    def writer(self) -> Callable[[Any], str]:
        """Payload writer for a value of this schema, null/default handling included (compiled once)."""
        from connector.serde.json_values import compile_writer

        return compile_writer(self)

    def _render(self, field_name: str | None) -> str:
        parts = [f'{{"type":"{self.type.value}"']
        if self.type is Type.STRUCT:
            parts.append(',"fields":[' + ",".join(f.schema.field_json(f.name) for f in self.fields) + "]")
        elif self.type is Type.ARRAY:
            assert self.items is not None
            parts.append(',"items":' + self.items.json)
        elif self.type is Type.MAP:
            assert self.keys is not None and self.values is not None
            parts.append(',"keys":' + self.keys.json + ',"values":' + self.values.json)
        parts.append(',"optional":true' if self.optional else ',"optional":false')
        if self.name is not None:
            parts.append(',"name":' + jackson_string(self.name))
        if self.version is not None:
            parts.append(f',"version":{self.version}')
        if self.doc is not None:
            parts.append(',"doc":' + jackson_string(self.doc))
        if self.parameters:
            # a null parameter value exists: JdbcSinkDataTypesConverter's character set of a non-string column
            params = ",".join(jackson_string(k) + ":" + ("null" if v is None else jackson_string(v))
                              for k, v in self.parameters)
            parts.append(',"parameters":{' + params + "}")
        if self.has_default:
            from connector.serde.json_values import value_writer

            parts.append(',"default":' + value_writer(self)(self.default))
        if field_name is not None:
            parts.append(',"field":' + jackson_string(field_name))
        parts.append("}")
        return "".join(parts)


def struct(name: str | None, fields: list[tuple[str, ConnectSchema]], *, optional: bool = False,
           version: int | None = None, doc: str | None = None) -> ConnectSchema:
    """Shorthand for a struct schema from (field name, schema) pairs."""
    return ConnectSchema(
        Type.STRUCT,
        optional=optional,
        name=name,
        version=version,
        doc=doc,
        fields=tuple(Field(n, s) for n, s in fields),
    )


def optional(schema: ConnectSchema) -> ConnectSchema:
    """The same schema, optional."""
    from dataclasses import replace

    return replace(schema, optional=True)
