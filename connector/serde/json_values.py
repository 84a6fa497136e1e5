"""Payload values → JSON text exactly as Kafka's `JsonConverter.convertToJson` + Jackson write them.

`compile_writer(schema)` returns one closure per schema (built once, cached on the schema by
`ConnectSchema.writer`) that also applies JsonConverter's null rule: a null value is written as the
schema default when there is one (`replace.null.with.default=true`), as `null` when the schema is
optional, and is an error otherwise. Structs are written from precomputed `{"name":` prefixes.

Value representations (what converters hand over): ints for int8..int64, float for float32/64,
bool, str, bytes-like for BYTES, `decimal.Decimal` (or int) for `org.apache.kafka.connect.data.Decimal`,
sequences in field order or dicts for structs, sequences for arrays, dicts for maps.
"""

from __future__ import annotations

import binascii
from decimal import Decimal
from typing import Any, Callable, Mapping

from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.java.text import jackson_string, java_double, java_float
from connector.serde.struct_compiler import StructField, compile_struct_writer

__all__ = ["compile_writer", "value_writer", "decimal_unscaled_bytes", "DataError", "INT_WRITER", "BOOL_WRITER",
           "struct_fields"]

Writer = Callable[[Any], str]


class DataError(ValueError):
    """A value does not fit its Connect schema (JsonConverter's `DataException`)."""


def decimal_unscaled_bytes(value: Decimal | int, scale: int) -> bytes:
    """`BigDecimal.unscaledValue().toByteArray()` for `value` at `scale`: minimal big-endian two's complement."""
    if isinstance(value, int):
        unscaled = value * 10**scale
    else:
        if not value.is_finite():
            raise DataError(f"not a finite decimal: {value}")
        # value * 10**scale truncated toward zero, from the exact ratio (a quarter of the cost of joining the
        # digit tuple into an int; every DECIMAL value of every row goes through here)
        numerator, denominator = value.as_integer_ratio()
        unscaled, remainder = divmod(numerator * 10**scale, denominator)
        if remainder and unscaled < 0:
            unscaled += 1
    bits = unscaled.bit_length() if unscaled >= 0 else (~unscaled).bit_length()
    return unscaled.to_bytes(bits // 8 + 1, "big", signed=True)


def _b64(value: bytes) -> str:
    return '"' + binascii.b2a_base64(value, newline=False).decode("ascii") + '"'


def _int(value: Any) -> str:
    # bool is an int subclass; anything else that is not an int (e.g. a numeric string) goes through int()
    return str(value) if type(value) is int else str(int(value))


def _bool(value: Any) -> str:
    return "true" if value else "false"


# the writers a compiled struct writer inlines (struct_compiler.py, connector/events/image_writer.py)
INT_WRITER: Writer = _int
BOOL_WRITER: Writer = _bool


def _bytes(value: Any) -> str:
    return _b64(bytes(value)) if not isinstance(value, bytes) else _b64(value)


def _decimal_writer(schema: ConnectSchema) -> Writer:
    scale = int(schema.parameter("scale") or 0)

    def write(value: Any) -> str:
        if isinstance(value, (bytes, bytearray)):  # already unscaled bytes
            return _b64(bytes(value))
        return _b64(decimal_unscaled_bytes(value, scale))

    return write


def struct_fields(schema: ConnectSchema) -> list[StructField]:
    """Per field of a struct schema: (`{"name":` or `,"name":`, writer of a non-null value, the text of a null
    (its default, `null`, or None when null is an error), that error's message), as its writer joins them."""
    fields: list[StructField] = []
    for i, f in enumerate(schema.fields):
        prefix = ("{" if i == 0 else ",") + jackson_string(f.name) + ":"
        write = value_writer(f.schema)
        if f.schema.has_default:
            null_text: str | None = write(f.schema.default)
        elif f.schema.optional:
            null_text = "null"
        else:
            null_text = None
        fs = f.schema
        fields.append((prefix, write, null_text,
                       f"null value for a required field of type {fs.type.value} ({fs.name or ''})"))
    return fields


def _struct_writer(schema: ConnectSchema) -> Writer:
    names = [f.name for f in schema.fields]
    if not names:
        return lambda value: "{}"
    # Null handling is inlined here rather than wrapped around each field writer: this loop runs for
    # every column of every row, and one call per field instead of three is most of its cost.
    fields = struct_fields(schema)

    def generic(value: Any) -> str:
        # Rows and Connect values are lists and tuples: testing for them first spares the ABC `Mapping` check
        # (issue 17: ~2.5 s of a 410k-record run).
        if type(value) is not list and type(value) is not tuple and isinstance(value, Mapping):
            value = [value.get(n) for n in names]
        parts = []
        append = parts.append
        for (prefix, w, null_text, message), v in zip(fields, value):
            append(prefix)
            if v is None:
                if null_text is None:
                    raise DataError(message)
                append(null_text)
            else:
                append(w(v))
        append("}")
        return "".join(parts)

    return compile_struct_writer(fields, generic, int_writer=_int, bool_writer=_bool, error=DataError)


def _array_writer(schema: ConnectSchema) -> Writer:
    assert schema.items is not None
    item = schema.items.writer
    return lambda value: "[" + ",".join(item(v) for v in value) + "]"


def _map_writer(schema: ConnectSchema) -> Writer:
    assert schema.keys is not None and schema.values is not None
    key_w, val_w = schema.keys.writer, schema.values.writer
    if schema.keys.type is Type.STRING:  # JsonConverter: object when keys are strings
        return lambda value: "{" + ",".join(key_w(k) + ":" + val_w(v) for k, v in value.items()) + "}"
    return lambda value: "[" + ",".join("[" + key_w(k) + "," + val_w(v) + "]" for k, v in value.items()) + "]"


_PRIMITIVE: dict[Type, Writer] = {
    Type.INT8: _int,
    Type.INT16: _int,
    Type.INT32: _int,
    Type.INT64: _int,
    Type.FLOAT32: java_float,
    Type.FLOAT64: java_double,
    Type.BOOLEAN: _bool,
    Type.STRING: jackson_string,
    Type.BYTES: _bytes,
}

_COMPOSITE: dict[Type, Callable[[ConnectSchema], Writer]] = {
    Type.STRUCT: _struct_writer,
    Type.ARRAY: _array_writer,
    Type.MAP: _map_writer,
}


def value_writer(schema: ConnectSchema) -> Writer:
    """Writer for a non-null value of `schema` (no null handling)."""
    if schema.name == DECIMAL_NAME:
        return _decimal_writer(schema)
    primitive = _PRIMITIVE.get(schema.type)
    if primitive is not None:
        return primitive
    return _COMPOSITE[schema.type](schema)


def compile_writer(schema: ConnectSchema) -> Writer:
    """Writer for any value of `schema`, applying JsonConverter's null → default → null/error rule."""
    write = value_writer(schema)
    if schema.has_default:
        default_text = write(schema.default)
        return lambda value: default_text if value is None else write(value)
    if schema.optional:
        return lambda value: "null" if value is None else write(value)

    def required(value: Any) -> str:
        if value is None:
            raise DataError(f"null value for a required field of type {schema.type.value} ({schema.name or ''})")
        return write(value)

    return required
