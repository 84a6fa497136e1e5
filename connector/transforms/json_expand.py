"""A JSON text → Connect schema + value, as Debezium's outbox `JsonSchemaData` infers them
(`table.expand.json.payload`).

Jackson's tree model decides the types: an integer literal that fits 32 bits is INT32, 64 bits INT64, a
literal with a fraction or exponent FLOAT64; every inferred schema is optional; an object becomes a struct
named after its path (`payload`, `payload.address`); a null member is left out (or becomes optional bytes
with `table.json.payload.null.behavior=optional_bytes`), as is an empty array. Arrays take the schema of
their first non-null element; objects in an array are merged field by field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from connector.serde.connect_schema import ConnectSchema, Field, Type

__all__ = ["ExpandError", "JsonExpander"]

_INT32 = ConnectSchema(Type.INT32, optional=True)
_INT64 = ConnectSchema(Type.INT64, optional=True)
_FLOAT64 = ConnectSchema(Type.FLOAT64, optional=True)
_STRING = ConnectSchema(Type.STRING, optional=True)
_BOOLEAN = ConnectSchema(Type.BOOLEAN, optional=True)
_BYTES = ConnectSchema(Type.BYTES, optional=True)


class ExpandError(ValueError):
    """The text is not JSON the expansion accepts; Debezium logs a warning and keeps the string."""


class _Double(float):
    """A JSON number written with a fraction or exponent (Jackson's DoubleNode, even for `1e3`)."""


class _Big(int):
    """An integer beyond 64 bits (Jackson's BigIntegerNode): a FLOAT64 schema that its value cannot fill."""


def _constant(text: str) -> Any:
    raise ExpandError(f"{text} is not JSON")  # Jackson refuses NaN/Infinity by default


def _int(text: str) -> int:
    value = int(text)
    return value if -2**63 <= value < 2**63 else _Big(value)


_DECODER = json.JSONDecoder(parse_float=_Double, parse_int=_int, parse_constant=_constant)


def _number_schema(value: int | float) -> ConnectSchema:
    if isinstance(value, float) or isinstance(value, _Big):
        return _FLOAT64
    return _INT32 if -2**31 <= value < 2**31 else _INT64


@dataclass(frozen=True)
class JsonExpander:
    null_as_bytes: bool  # table.json.payload.null.behavior=optional_bytes

    def expand(self, name: str, text: str) -> tuple[ConnectSchema, Any]:
        """(schema, struct value) of `text`, a JSON object; ExpandError where Debezium keeps the string."""
        if not text.startswith(("{", "[")):
            raise ExpandError(f"Unable to parse payload starting with {text[:1]!r}")
        try:
            # Jackson's readTree reads the first value and ignores what follows it
            doc, _ = _DECODER.raw_decode(text)
        except ValueError as exc:
            raise ExpandError(str(exc)) from None
        schema = self._schema(name, doc)
        if schema is None or schema.type is not Type.STRUCT:
            # Debezium then fails putting the string into the inferred non-struct schema and stops
            raise ValueError(f"the JSON payload is a {'empty ' if schema is None else ''}array, not an object; "
                             "the outbox router can expand only objects")
        return schema, self._value(doc, schema)

    def _schema(self, key: str | None, node: Any) -> ConnectSchema | None:
        if isinstance(node, bool):
            return _BOOLEAN
        if isinstance(node, str):
            return _STRING
        if isinstance(node, (int, float)):
            return _number_schema(node)
        if isinstance(node, list):
            if not node:
                return None
            return ConnectSchema(Type.ARRAY, optional=True, items=self._items(key, node))
        if isinstance(node, dict):
            fields: list[Field] = []
            for member, value in node.items():
                schema = self._schema(member if not key else f"{key}.{member}", value)
                if schema is not None and all(f.name != member for f in fields):
                    fields.append(Field(member, schema))
            return ConnectSchema(Type.STRUCT, optional=True, name=key, fields=tuple(fields))
        return _BYTES if self.null_as_bytes else None

    def _items(self, key: str | None, array: list[Any]) -> ConnectSchema:
        sample = None
        sample_schema = None
        for element in array:
            if element is None:
                continue
            if sample is None:
                sample = element
            if _kind(element) != _kind(sample):
                raise ExpandError(f"Field is not a homogenous array ({sample} x {element})")
            if isinstance(sample, (int, float)) and not isinstance(sample, bool):
                sample_schema = sample_schema or _number_schema(sample)
                if _number_schema(element) is not sample_schema:
                    raise ExpandError(f"Field is not a homogenous array ({sample} x {element}), different number "
                                      "types")
        if isinstance(sample, dict):
            # Debezium merges the distinct element schemas of a HashSet, in an order Java's hash codes decide;
            # binlog-cdc merges them in order of first appearance
            distinct: list[ConnectSchema] = []
            for element in array:
                if isinstance(element, dict):
                    schema = self._schema(key, element)
                    if schema is not None and schema not in distinct:
                        distinct.append(schema)
            merged: ConnectSchema | None = None
            for schema in distinct:
                merged = schema if merged is None else _merge(merged, schema)
            assert merged is not None
            return merged
        schema = self._schema(None, sample)
        if schema is None:
            raise ExpandError(f"Array {array} has unrecognized member schema.")
        return schema

    def _value(self, node: Any, schema: ConnectSchema) -> Any:
        if isinstance(node, dict):
            return [self._value(node[f.name], f.schema) if f.name in node else None for f in schema.fields]
        if isinstance(node, list):
            assert schema.items is not None
            return [self._value(e, schema.items) for e in node]
        if isinstance(node, _Big):
            raise ValueError(f"the JSON number {int(node)} does not fit 64 bits; Debezium's outbox expansion "
                             "cannot put it into the inferred FLOAT64 field")
        if isinstance(node, _Double):
            return float(node)
        return node


def _kind(node: Any) -> str:
    if isinstance(node, bool):
        return "boolean"
    if isinstance(node, (int, float)):
        return "number"
    return type(node).__name__


def _merge(left: ConnectSchema, right: ConnectSchema) -> ConnectSchema:
    # SchemaUtil.copySchemaBasics(left): name, version, doc, parameters, but required (a new SchemaBuilder)
    fields = {f.name: f for f in left.fields}
    for f in right.fields:
        old = fields.get(f.name)
        if old is None or (old.schema != f.schema and old.schema.type is Type.BYTES and f.schema.type is not Type.BYTES):
            fields[f.name] = f
    return ConnectSchema(Type.STRUCT, optional=False, name=left.name, version=left.version, doc=left.doc,
                         parameters=left.parameters, fields=tuple(fields.values()))
