"""Kafka Connect's `Cast$Key|$Value`: struct fields (`field:type,...`) or a whole primitive key/value
(`type`) cast to int8/int16/int32/int64/float32/float64/boolean/string.

As Kafka 4.3's: a null key/value passes; a cast field loses its logical name, keeps optionality and gets
its default cast; other fields are kept and read with `Struct.get` (`replace.null.with.default`). Numbers
narrow as Java's `Number.xxxValue()` (wrap-around for integers from integers, saturation from floating
point), booleans are 1/0, strings parse as `Integer.parseInt`/`Double.parseDouble`/`Boolean.parseBoolean`;
to string: Java's `toString` (decimals as `BigDecimal.toString`), bytes as base64. A value Kafka cannot
cast stops the run with one line naming the field and value.
"""

from __future__ import annotations

import base64
import math
import re
from decimal import Decimal
from typing import Any

from connector.events.kinds import ConnectRecord
from connector.java.text import java_double, java_float, to_float32
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.transforms.fields import Side
from connector.transforms.structs import PerSchema, as_row, with_default_for_null

__all__ = ["CAST_TYPES", "Cast", "cast_value", "parse_spec"]

CAST_TYPES = {"int8": Type.INT8, "int16": Type.INT16, "int32": Type.INT32, "int64": Type.INT64,
              "float32": Type.FLOAT32, "float64": Type.FLOAT64, "boolean": Type.BOOLEAN, "string": Type.STRING}
_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_INPUT = (*CAST_TYPES.values(), Type.BYTES)
_CONNECT_TEMPORAL = ("org.apache.kafka.connect.data.Date", "org.apache.kafka.connect.data.Time",
                     "org.apache.kafka.connect.data.Timestamp")
_JAVA_INT = re.compile(r"[+-]?[0-9]+")
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)[fFdD]?)")


class CastError(ValueError):
    pass


def _wrap(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _integer(value: Any, kind: Type) -> int:
    bits = _BITS[kind]
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        # (int)/(long) of a double saturates (NaN is 0); byte/short then wrap the int
        wide = 64 if bits == 64 else 32
        if math.isnan(value):
            n = 0
        else:
            n = max(-(1 << (wide - 1)), min((1 << (wide - 1)) - 1, int(value)))
        return _wrap(n, bits)
    if isinstance(value, (int, Decimal)):
        return _wrap(int(value), bits)  # BigDecimal: integer part, then the low bits
    if isinstance(value, str):
        if not _JAVA_INT.fullmatch(value) or not -(1 << (bits - 1)) <= int(value) < 1 << (bits - 1):
            raise CastError(f"For input string: {value!r}")
        return int(value)
    raise CastError(f"Unexpected type in Cast transformation: {type(value).__name__}")


def _floating(value: Any) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float, Decimal)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not _JAVA_DOUBLE.fullmatch(text):
            raise CastError(f"For input string: {value!r}")
        return float(text.rstrip("fFdD").replace("Infinity", "inf"))
    raise CastError(f"Unexpected type in Cast transformation: {type(value).__name__}")


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, Decimal)):
        return int(value) != 0  # Number.longValue() != 0
    if isinstance(value, str):
        return value.lower() == "true"
    raise CastError(f"Unexpected type in Cast transformation: {type(value).__name__}")


def _string(value: Any, schema: ConnectSchema | None) -> str:
    if schema is not None and schema.name in _CONNECT_TEMPORAL:
        raise CastError(f"casting a {schema.name} to string (Values.dateFormatFor) is not implemented")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, float):
        return java_float(value) if schema is not None and schema.type is Type.FLOAT32 else java_double(value)
    if isinstance(value, Decimal):
        return str(value)  # the same to-scientific-string rule as BigDecimal.toString
    return str(value)


def cast_value(schema: ConnectSchema | None, value: Any, target: Type) -> Any:
    if value is None:
        return None
    if schema is not None and schema.type not in _INPUT:
        raise CastError(f"Cast transformation does not support casting from {schema.type.value}")
    if isinstance(value, (bytes, bytearray, memoryview)) and target is not Type.STRING:
        raise CastError(f"Unexpected type in Cast transformation: bytes (cast to {target.value})")
    if target in _BITS:
        return _integer(value, target)
    if target is Type.FLOAT64:
        return _floating(value)
    if target is Type.FLOAT32:
        return to_float32(_floating(value))
    if target is Type.BOOLEAN:
        return _boolean(value)
    return _string(value, schema)


class Cast:
    def __init__(self, side: Side, casts: dict[str, Type] | None, whole: Type | None,
                 replace_null_with_default: bool = True) -> None:
        self._side, self._casts, self._whole = side, casts or {}, whole
        self._replace_null = replace_null_with_default
        self._plans = PerSchema(self._plan)

    def _cast_schema(self, schema: ConnectSchema, target: Type) -> ConnectSchema:
        default = schema.default
        if schema.has_default:
            default = cast_value(schema, schema.default, target)
        return ConnectSchema(target, optional=schema.optional, default=default)

    def _plan(self, schema: ConnectSchema | None) -> tuple[ConnectSchema, tuple[tuple[int, Type], ...]]:
        assert schema is not None
        if self._whole is not None:
            # copySchemaBasics(valueSchema, <target builder>): the whole value keeps its name, version, doc
            cast = self._cast_schema(schema, self._whole)
            return ConnectSchema(cast.type, optional=cast.optional, name=schema.name, version=schema.version,
                                 doc=schema.doc, parameters=schema.parameters, default=cast.default), ()
        if schema.type is not Type.STRUCT:
            raise CastError(f"Cast with a field spec needs a struct, not {schema.type.value}")
        fields, casts = [], []
        for i, f in enumerate(schema.fields):
            target = self._casts.get(f.name)
            if target is None:
                fields.append(f)
            else:
                fields.append(Field(f.name, self._cast_schema(f.schema, target)))
                casts.append((i, target))
        return ConnectSchema(Type.STRUCT, optional=schema.optional, name=schema.name, version=schema.version,
                             doc=schema.doc, parameters=schema.parameters, fields=tuple(fields)), tuple(casts)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._side.get(record)
        if value is None:
            return record
        if schema is None:
            raise ValueError(f"Cast needs a schema on {record.topic}")
        try:
            new_schema, casts = self._plans(schema)
            if self._whole is not None:
                return self._side.put(record, new_schema, cast_value(schema, value, self._whole))
            row = as_row(schema, value)
            row = with_default_for_null(schema, row) if self._replace_null else list(row)
            for i, target in casts:
                row[i] = cast_value(schema.fields[i].schema, row[i], target)
        except CastError as exc:
            raise ValueError(f"Cast on {record.topic}: {exc}") from None
        return self._side.put(record, new_schema, row)


Spec = tuple[dict[str, Type] | None, Type | None]


def parse_spec(text: str) -> Spec:
    """`field:type,...` or a single `type` (the whole key/value)."""
    items = [p.strip() for p in text.split(",") if p.strip()]
    if not items:
        raise ValueError("spec: Must specify at least one field to cast.")
    casts: dict[str, Type] = {}
    whole: Type | None = None
    for item in items:
        name, sep, kind = item.rpartition(":")
        target = CAST_TYPES.get(kind.strip().lower())
        if target is None:
            raise ValueError(f"spec: invalid type {kind.strip()!r}; valid types are {', '.join(CAST_TYPES)}")
        if not sep:
            if len(items) > 1:
                raise ValueError("spec: Cast transformations that specify a type to cast the entire value to may "
                                 "only specify a single cast in their spec")
            whole = target
        else:
            casts[name.strip()] = target
    return (None, whole) if whole is not None else (casts, None)

