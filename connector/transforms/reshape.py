"""Kafka Connect's struct-reshaping transforms: `MaskField`, `SetSchemaMetadata`, `ValueToKey`,
`ExtractField`, `HoistField` (`$Key`/`$Value` through `Side`).

As Kafka's: the new schema is built once per input schema; reading a struct field goes through
`Struct.get`, so a null field with a schema default reads as that default. Records without a schema
(tombstones) are schemaless data to Kafka; binlog-cdc writes no schemaless values, so where Kafka would
build a schemaless map (HoistField, MaskField, ValueToKey on a tombstone) the record stops the run with
the fix: guard the transform with a negated `RecordIsTombstone` predicate.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Field, Type
from connector.transforms.fields import Side
from connector.transforms.structs import PerSchema, as_row, with_default_for_null

__all__ = ["ExtractField", "HoistField", "MaskField", "SetSchemaMetadata", "ValueToKey"]

_GUARD = "guard it with a predicate (RecordIsTombstone, negate=true) or a TopicNameMatches that excludes"
_ZERO: dict[Type, Any] = {Type.INT8: 0, Type.INT16: 0, Type.INT32: 0, Type.INT64: 0, Type.FLOAT32: 0.0,
                          Type.FLOAT64: 0.0, Type.BOOLEAN: False, Type.STRING: "", Type.ARRAY: [], Type.MAP: {}}


def _struct(side: Side, record: ConnectRecord, transform: str) -> tuple[ConnectSchema, Sequence[Any]]:
    """Requirements.requireStruct: a struct key/value with a schema, or one clear error."""
    schema, value = side.get(record)
    if value is None or schema is None or schema.type is not Type.STRUCT:
        what = "key" if side.key else "value"
        raise ValueError(f"{transform} needs a struct {what} with a schema; {record.topic} has "
                         f"{'a null ' + what if value is None else 'a ' + (schema.type.value if schema else 'schemaless')}"
                         f" ({_GUARD} those records)")
    return schema, as_row(schema, value)


class MaskField:
    """`fields` set to their type's empty value (0, false, "", [], {}) or to `replacement` (numbers, strings)."""

    def __init__(self, side: Side, fields: Sequence[str], replacement: str | None,
                 replace_null_with_default: bool = True) -> None:
        self._side = side
        self._replace_null = replace_null_with_default
        self._fields = frozenset(fields)
        self._replacement = replacement
        self._plans = PerSchema(self._plan)

    def _plan(self, schema: ConnectSchema | None) -> tuple[tuple[int, Any], ...]:
        assert schema is not None
        return tuple((i, self._masked(f)) for i, f in enumerate(schema.fields) if f.name in self._fields)

    def _masked(self, field: Field) -> Any:
        schema = field.schema
        if schema.name == DECIMAL_NAME:
            # BigDecimal.ZERO has scale 0; JsonConverter refuses it for a field of another scale
            if self._replacement is None and schema.parameter("scale") in (None, "0"):
                return Decimal(0)
            raise ValueError(f"MaskField cannot mask DECIMAL field {field.name!r} (Kafka fails on its scale); "
                             "remove it from fields")
        if self._replacement is None:
            if schema.type not in _ZERO:
                raise ValueError(f"MaskField cannot mask field {field.name!r} of type {schema.type.value}")
            return _ZERO[schema.type]
        try:
            if schema.type in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
                return int(self._replacement)
            if schema.type in (Type.FLOAT32, Type.FLOAT64):
                return float(self._replacement)
        except ValueError:
            raise ValueError(f"MaskField replacement {self._replacement!r} is not a number for field "
                             f"{field.name!r}") from None
        if schema.type is Type.STRING:
            return self._replacement
        raise ValueError(f"MaskField cannot mask field {field.name!r} of type {schema.type.value} with a "
                         "replacement")

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, row = _struct(self._side, record, "MaskField")
        masks = self._plans(schema)
        out = with_default_for_null(schema, row) if self._replace_null else list(row)
        for i, masked in masks:
            if out[i] is not None:
                out[i] = masked
        return self._side.put(record, schema, out)


class SetSchemaMetadata:
    def __init__(self, side: Side, name: str | None, version: int | None,
                 replace_null_with_default: bool = True) -> None:
        self._side, self._name, self._version = side, name, version
        self._replace_null = replace_null_with_default
        self._plans = PerSchema(self._plan)

    def _plan(self, schema: ConnectSchema | None) -> ConnectSchema:
        assert schema is not None
        return replace(schema, name=self._name if self._name is not None else schema.name,
                       version=self._version if self._version is not None else schema.version)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._side.get(record)
        if schema is None:
            if value is None:
                return record
            raise ValueError(f"SetSchemaMetadata needs a schema on {record.topic}")
        if schema.type is Type.STRUCT and value is not None and self._replace_null:
            value = with_default_for_null(schema, as_row(schema, value))  # updateSchemaIn copies via Struct.get
        return self._side.put(record, self._plans(schema), value)


class ValueToKey:
    """A new key struct (unnamed, required) of value `fields`."""

    def __init__(self, fields: Sequence[str], replace_null_with_default: bool) -> None:
        self._fields = tuple(fields)
        self._replace_null = replace_null_with_default
        self._plans = PerSchema(self._plan)

    def _plan(self, schema: ConnectSchema | None) -> tuple[ConnectSchema, tuple[int, ...]]:
        assert schema is not None
        index = {f.name: i for i, f in enumerate(schema.fields)}
        missing = [f for f in self._fields if f not in index]
        if missing:
            raise ValueError(f"ValueToKey: the value {schema.name} has no field {', '.join(missing)}")
        picked = tuple(index[f] for f in self._fields)
        return ConnectSchema(Type.STRUCT, fields=tuple(Field(schema.fields[i].name, schema.fields[i].schema)
                                                       for i in picked)), picked

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, row = _struct(Side(False), record, "ValueToKey")
        key_schema, picked = self._plans(schema)
        if self._replace_null:
            row = with_default_for_null(schema, row)
        return replace(record, key_schema=key_schema, key=[row[i] for i in picked])


class ExtractField:
    """The key/value becomes one of its fields (`field`, a top-level name); a null key/value stays null."""

    def __init__(self, side: Side, field: str, replace_null_with_default: bool = True) -> None:
        self._side, self._field = side, field
        self._replace_null = replace_null_with_default
        self._plans = PerSchema(self._plan)

    def _plan(self, schema: ConnectSchema | None) -> tuple[int, ConnectSchema]:
        assert schema is not None
        for i, f in enumerate(schema.fields):
            if f.name == self._field:
                return i, f.schema
        raise ValueError(f"ExtractField: Unknown field: {self._field} (in {schema.name})")

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._side.get(record)
        if schema is None:
            if value is None:
                return record
            raise ValueError(f"ExtractField needs a schema on {record.topic}")
        if schema.type is not Type.STRUCT:
            raise ValueError(f"ExtractField needs a struct on {record.topic}, not {schema.type.value}")
        i, field_schema = self._plans(schema)
        if value is None:
            return self._side.put(record, field_schema, None)
        field_value = as_row(schema, value)[i]
        if field_value is None and field_schema.has_default and self._replace_null:
            field_value = field_schema.default
        return self._side.put(record, field_schema, field_value)


class HoistField:
    """The key/value wrapped in a struct (unnamed, required) with one field, `field`."""

    def __init__(self, side: Side, field: str) -> None:
        self._side, self._field = side, field
        self._plans = PerSchema(lambda s: ConnectSchema(Type.STRUCT, fields=(Field(self._field, s),)))  # type: ignore[arg-type]

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._side.get(record)
        if schema is None:
            raise ValueError(f"HoistField: a record without a {'key' if self._side.key else 'value'} schema on "
                             f"{record.topic} would become a schemaless map, which binlog-cdc does not write; "
                             f"{_GUARD} those records")
        return self._side.put(record, self._plans(schema), [value])
