"""Connect schema → Avro schema text, exactly as Confluent's AvroConverter 7.0 (`AvroData.fromConnectSchema`,
`connect.meta.data=true`, default settings) builds it and Avro 1.11's `Schema.toString()` writes it.

The text matters byte for byte: it is what gets registered, so it decides the schema ids a fresh
registry hands out and whether a second connector's registration is "the same schema".

What AvroData does, as data:
- int8/int16 → `int` + `connect.type`; int32 `int`; int64 `long`; float32 `float`; float64 `double`.
- Decimal → `bytes` with `scale` and `precision` props first (precision from `connect.decimal.precision`,
  else 64) and `logicalType: decimal` last; Connect Date/Time/Timestamp get `date`/`time-millis`/
  `timestamp-millis` as the last prop.
- struct → record named by splitting the Connect name at its last dot (namespace, name).
- Props, in insertion order: `connect.doc`, `connect.version`, `connect.parameters`, `connect.default`,
  `connect.name`, `connect.type`, then `logicalType`.
- Optional → union: `["null", X]` (field default null), or `[X, "null"]` when the schema has a default
  (field default = that default). Avro field defaults go through Jackson → Java object → Jackson, so a
  float default is written as a double.
- A named record already written in this schema text is referenced by name (short when in the current
  namespace), as Avro's `Names` does.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from typing import Any

from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.java.text import jackson_string, java_double, java_float, to_float32
from connector.serde.json_values import decimal_unscaled_bytes

__all__ = ["avro_schema_text", "AvroSchemaError"]

DATE_NAME = "org.apache.kafka.connect.data.Date"
TIME_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_NAME = "org.apache.kafka.connect.data.Timestamp"
_LOGICAL = {DATE_NAME: "date", TIME_NAME: "time-millis", TIMESTAMP_NAME: "timestamp-millis"}
_DEFAULT_NAMESPACE = "io.confluent.connect.avro"
_DEFAULT_NAME = "ConnectDefault"
_DECIMAL_PRECISION = "connect.decimal.precision"
_DECIMAL_PRECISION_DEFAULT = 64

_PRIMITIVE = {
    Type.INT8: "int", Type.INT16: "int", Type.INT32: "int", Type.INT64: "long", Type.FLOAT32: "float",
    Type.FLOAT64: "double", Type.BOOLEAN: "boolean", Type.STRING: "string", Type.BYTES: "bytes",
}
_CONNECT_TYPE = {Type.INT8: "int8", Type.INT16: "int16"}


class AvroSchemaError(ValueError):
    """The Connect schema has no Avro form (AvroConverter would throw `SchemaParseException`)."""


def _split_name(full: str) -> tuple[str | None, str]:
    space, dot, name = full.rpartition(".")
    return (space, name) if dot else (None, full)


def _check_name(name: str) -> None:
    # Avro names: [A-Za-z_][A-Za-z0-9_]*; AvroConverter fails on anything else (scrub.invalid.names=false)
    if not name or not (name[0].isascii() and (name[0].isalpha() or name[0] == "_")) or not all(
            c.isascii() and (c.isalnum() or c == "_") for c in name):
        raise AvroSchemaError(f"Illegal character in: {name}")


# ---------------------------------------------------------------- default values as Jackson JSON
def _default_json(schema: ConnectSchema, value: Any, *, as_field_default: bool) -> str:
    """`defaultValueFromConnect` rendered. As an Avro field default the node makes a round trip
    through `JacksonUtils.toObject`/`toJsonNode`, which turns a float into a double."""
    if schema.name == DECIMAL_NAME:
        scale = int(schema.parameter("scale") or 0)
        raw = value if isinstance(value, (bytes, bytearray)) else decimal_unscaled_bytes(value, scale)
        return jackson_string(bytes(raw).decode("latin-1"))
    t = schema.type
    if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        return str(int(value))
    if t is Type.FLOAT32:
        return java_double(to_float32(float(value))) if as_field_default else java_float(float(value))
    if t is Type.FLOAT64:
        return java_double(float(value))
    if t is Type.BOOLEAN:
        return "true" if value else "false"
    if t is Type.STRING:
        return jackson_string(str(value))
    if t is Type.BYTES:
        raw = base64.b64decode(value) if isinstance(value, str) else bytes(value)
        return jackson_string(raw.decode("latin-1"))
    if t is Type.ARRAY:
        assert schema.items is not None
        return "[" + ",".join(_default_json(schema.items, v, as_field_default=as_field_default) for v in value) + "]"
    if t is Type.MAP:
        assert schema.keys is not None and schema.values is not None
        return "{" + ",".join(jackson_string(str(k)) + ":" + _default_json(schema.values, v,
                                                                           as_field_default=as_field_default)
                              for k, v in value.items()) + "}"
    if t is Type.STRUCT:
        items = value.items() if isinstance(value, dict) else zip(schema.field_names(), value)
        by_name = dict(items)
        return "{" + ",".join(jackson_string(f.name) + ":" + _default_json(f.schema, by_name.get(f.name),
                                                                           as_field_default=as_field_default)
                              for f in schema.fields) + "}"
    raise AvroSchemaError(f"no Avro default for {t}")


# ---------------------------------------------------------------- Avro schema model
class _Writer:
    """Avro 1.11 `Schema.toJson` with its `Names` state: the namespace in scope and the named
    types already written."""

    def __init__(self) -> None:
        self.space: str | None = None
        self.defined: set[str] = set()

    def schema(self, s: ConnectSchema, ignore_optional: bool = False) -> str:
        if s.type is Type.STRUCT and s.optional and not ignore_optional:
            return '["null",' + self.schema(s, ignore_optional=True) + "]"
        base = self._base(s)
        if s.optional and not ignore_optional:
            return ("[" + base + ',"null"]') if s.has_default else ('["null",' + base + "]")
        return base

    def _props(self, s: ConnectSchema) -> list[str]:
        props: list[str] = []
        if s.name == DECIMAL_NAME:
            precision = s.parameter(_DECIMAL_PRECISION)
            props.append(f'"scale":{int(s.parameter("scale") or 0)}')
            props.append(f'"precision":{int(precision) if precision is not None else _DECIMAL_PRECISION_DEFAULT}')
        if s.doc is not None:
            props.append('"connect.doc":' + jackson_string(s.doc))
        if s.version is not None:
            props.append(f'"connect.version":{s.version}')
        params = [(k, v) for k, v in s.parameters if k != "io.confluent.connect.avro.field.default"]
        if params:
            props.append('"connect.parameters":{' + ",".join(jackson_string(k) + ":" + jackson_string(v)
                                                           for k, v in params) + "}")
        if s.has_default:
            props.append('"connect.default":' + _default_json(s, s.default, as_field_default=False))
        if s.name is not None:
            props.append('"connect.name":' + jackson_string(s.name))
        if s.type in _CONNECT_TYPE:
            props.append('"connect.type":"' + _CONNECT_TYPE[s.type] + '"')
        if s.name == DECIMAL_NAME:
            props.append('"logicalType":"decimal"')
        elif s.name in _LOGICAL:
            props.append('"logicalType":"' + _LOGICAL[s.name] + '"')
        for k, v in s.parameters:
            if k.startswith("avro"):
                props.append(jackson_string(k) + ":" + jackson_string(v))
        return props

    def _base(self, s: ConnectSchema) -> str:
        props = self._props(s)
        tail = "".join("," + p for p in props) + "}"
        if s.type is Type.STRUCT:
            return self._record(s, tail)
        if s.type is Type.ARRAY:
            assert s.items is not None
            return '{"type":"array","items":' + self.schema(s.items) + tail
        if s.type is Type.MAP:
            assert s.keys is not None and s.values is not None
            if s.keys.type is not Type.STRING or s.keys.optional:
                raise AvroSchemaError("maps with non-string keys are not produced by this connector")
            return '{"type":"map","values":' + self.schema(s.values) + tail
        primitive = _PRIMITIVE[s.type]
        return '{"type":"' + primitive + '"' + tail if props else '"' + primitive + '"'

    def _record(self, s: ConnectSchema, tail: str) -> str:
        space, name = _split_name(s.name) if s.name is not None else (_DEFAULT_NAMESPACE, _DEFAULT_NAME)
        _check_name(name)
        full = f"{space}.{name}" if space else name
        if full in self.defined:
            return jackson_string(name if (space is None or space == self.space) else full)
        self.defined.add(full)
        parts = ['{"type":"record","name":', jackson_string(name)]
        if space is not None:
            if space != self.space:
                parts.append(',"namespace":' + jackson_string(space))
        elif self.space is not None:
            parts.append(',"namespace":""')
        saved, self.space = self.space, space
        fields = []
        for f in s.fields:
            _check_name(f.name)
            text = '{"name":' + jackson_string(f.name) + ',"type":' + self.schema(f.schema)
            if f.schema.has_default:
                text += ',"default":' + _default_json(f.schema, f.schema.default, as_field_default=True)
            elif f.schema.optional:
                text += ',"default":null'
            fields.append(text + "}")
        self.space = saved
        parts.append(',"fields":[' + ",".join(fields) + "]")
        return "".join(parts) + tail


@lru_cache(maxsize=4096)
def _cached_text(schema: ConnectSchema) -> str:
    return _Writer().schema(schema)


def avro_schema_text(schema: ConnectSchema) -> str:
    """The registered schema string (`AvroSchema.canonicalString()`) for a key or value schema."""
    try:
        return _cached_text(schema)
    except TypeError:  # an unhashable default value: no caching
        return _Writer().schema(schema)
