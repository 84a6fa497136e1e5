"""Confluent ProtobufConverter output: Connect (schema, value) → magic byte, schema id, message indexes, message.

The schema (protobuf_schema.proto_file) is registered once per (subject, text) under TopicNameStrategy with
`schemaType: PROTOBUF`; its imports are well-known files, which `skip.known.types=true` (the default) leaves out
of the registration, so no references are registered. The record is always the file's first top-level message:
its message-index list is [0], which the serializer writes as the single byte 0.

The message follows ProtobufData.fromConnectData and protobuf-java's DynamicMessage: fields in number order; a
null field is left out (after Connect's Struct.get put in the field's default); a proto3 scalar equal to its
zero value (0, 0.0 but not -0.0, false, "", empty bytes) is left out too, as DynamicMessage.setField clears it;
an empty array is left out; a nested message is written even when empty. Repeated numbers are packed (proto3).
Decimal is confluent.type.Decimal {unscaled two's-complement bytes, precision, scale}; Connect Date, Time and
Timestamp are google.type.Date, google.type.TimeOfDay and google.protobuf.Timestamp, with java.util.Calendar's
fields (Julian calendar before 1582-10-15, as GregorianCalendar has it).
"""

from __future__ import annotations

import math
import struct as _binary
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from connector.java.calendar import gregorian_calendar_fields
from connector.java.text import to_float32
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.serde.json_values import DataError, decimal_unscaled_bytes
from connector.serde.registered_side import RegisteredSide, SchemaRegistry
from connector.serde.protobuf_schema import DATE_NAME, TIME_NAME, TIMESTAMP_NAME, ProtoField, ProtoMessage, proto_file

__all__ = ["ProtobufSide", "message_encoder"]

Encode = Callable[[Any], bytes]


# ---------------------------------------------------------------- wire primitives
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int32/int64 are sign-extended to ten bytes
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _delimited(number: int, payload: bytes) -> bytes:
    return _key(number, 2) + _varint(len(payload)) + payload


def _int32(value: Any) -> int:
    v = int(value) & 0xFFFFFFFF  # Number.intValue(): the low 32 bits
    return v - (1 << 32) if v & 0x80000000 else v


def _int64(value: Any) -> int:
    v = int(value) & 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v & 0x8000000000000000 else v


# ---------------------------------------------------------------- well-known messages
def _decimal(schema: ConnectSchema) -> Callable[[Any], bytes]:
    scale = int(schema.parameter("scale") or 0)

    def encode(value: Any) -> bytes:
        unscaled = bytes(value) if isinstance(value, (bytes, bytearray)) else decimal_unscaled_bytes(value, scale)
        digits = len(str(abs(int.from_bytes(unscaled, "big", signed=True))))  # BigDecimal.precision()
        return _delimited(1, unscaled) + _key(2, 0) + _varint(digits) + (_key(3, 0) + _varint(scale) if scale else b"")

    return encode


def _scalar_fields(*pairs: tuple[int, int]) -> bytes:
    return b"".join(_key(n, 0) + _varint(v) for n, v in pairs if v)


def _date(days: Any) -> bytes:
    year, month, day = gregorian_calendar_fields(int(days))
    return _scalar_fields((1, year), (2, month), (3, day))


def _time(millis: Any) -> bytes:
    ms = int(millis)
    if ms < 0 or ms > 86_400_000:
        raise DataError("Time values must use number of millis greater than 0 and less than 86400000")
    return _scalar_fields((1, ms // 3_600_000 % 24), (2, ms // 60_000 % 60), (3, ms // 1000 % 60),
                          (4, ms % 1000 * 1_000_000))


def _timestamp(millis: Any) -> bytes:
    seconds, ms = divmod(int(millis), 1000)
    if not -62135596800 <= seconds <= 253402300799:  # Timestamps.fromMillis: years 1 to 9999 only
        raise DataError(f"Timestamp is not valid (seconds {seconds}): outside 0001-01-01 to 9999-12-31")
    return _scalar_fields((1, seconds), (2, ms * 1_000_000))


# ---------------------------------------------------------------- fields
def _scalar(schema: ConnectSchema) -> tuple[int, Callable[[Any], bytes | None]]:
    """(wire type, value → payload or None for the zero value) of a scalar field."""
    t = schema.type
    if t in (Type.INT8, Type.INT16, Type.INT32):
        return 0, lambda v: _varint(_int32(v)) if _int32(v) else None
    if t is Type.INT64:
        return 0, lambda v: _varint(_int64(v)) if _int64(v) else None
    if t is Type.BOOLEAN:
        return 0, lambda v: b"\x01" if v else None
    if t is Type.FLOAT32:
        return 5, lambda v: None if _positive_zero(v) else _binary.pack("<f", to_float32(float(v)))
    if t is Type.FLOAT64:
        return 1, lambda v: None if _positive_zero(v) else _binary.pack("<d", float(v))
    if t is Type.STRING:
        # protobuf-java writes an unpaired surrogate as String.getBytes(UTF_8) does: "?"
        return 2, lambda v: (str(v).encode("utf-8", "replace") or None)
    return 2, lambda v: (bytes(v) or None)


def _positive_zero(v: Any) -> bool:
    f = float(v)
    return f == 0.0 and math.copysign(1.0, f) > 0  # Float.equals: -0.0 is not the default


def _field_encoder(f: ProtoField) -> Callable[[Any], bytes]:
    schema = f.schema
    message: Callable[[Any], bytes] | None = None
    if schema.name == DECIMAL_NAME:
        message = _decimal(schema)
    elif schema.name == DATE_NAME:
        message = _date
    elif schema.name == TIME_NAME:
        message = _time
    elif schema.name == TIMESTAMP_NAME:
        message = _timestamp
    elif f.message is not None:
        message = message_encoder(f.message, schema)
    number = f.number
    if message is not None:
        one = message
        if f.repeated:
            return lambda values: b"".join(_delimited(number, one(_present(v, f))) for v in values)
        return lambda value: _delimited(number, one(value))
    wire, payload = _scalar(schema)
    if not f.repeated:
        key = _key(number, wire)
        if wire == 2:
            return lambda value: b"" if (p := payload(value)) is None else key + _varint(len(p)) + p
        return lambda value: b"" if (p := payload(value)) is None else key + p
    if wire == 2:  # strings and bytes are never packed; an empty element is still written
        return lambda values: b"".join(_delimited(number, payload(_present(v, f)) or b"") for v in values)
    zero = b"\x00" if wire == 0 else (b"\x00" * (4 if wire == 5 else 8))
    return lambda values: _delimited(number, b"".join(payload(_present(v, f)) or zero for v in values))


def _present(value: Any, f: ProtoField) -> Any:
    if value is None:
        raise DataError(f"null element in array field {f.name}: ProtobufConverter cannot write it")
    return value


def message_encoder(message: ProtoMessage, schema: ConnectSchema) -> Callable[[Any], bytes]:
    """Connect struct value (dict by field name, or a sequence in field order) → the message's bytes."""
    names = [f.name for f in schema.fields]
    parts = [(f.name, _field_encoder(pf), f.schema) for f, pf in zip(schema.fields, message.fields)]

    def encode(value: Any) -> bytes:
        if isinstance(value, Mapping):
            value = [value.get(n) for n in names]
        out = []
        for (name, enc, fs), v in zip(parts, value):
            if v is None:
                if not fs.has_default:  # Struct.get: the default stands in for null; else the field is absent
                    if not fs.optional:
                        raise DataError(f"null value for required field {name}")
                    continue
                v = fs.default
            if fs.type is Type.ARRAY and not v:
                continue  # an empty list converts to null
            out.append(enc(v))
        return b"".join(out)

    return encode


@dataclass(frozen=True)
class _Encoder:
    text: str
    message: Callable[[Any], bytes]

    def encode(self, schema_id: int, value: Any) -> bytes:
        # magic byte, schema id, message indexes [0] (written as the single varint 0), the message
        return b"\x00" + schema_id.to_bytes(4, "big") + b"\x00" + self.message(value)


def _encoder(schema: ConnectSchema) -> _Encoder:
    proto = proto_file(schema)
    return _Encoder(proto.text, message_encoder(proto.root, schema))


class ProtobufSide(RegisteredSide):
    """One side's ProtobufConverter: TopicNameStrategy subjects `<topic>-key` / `<topic>-value`, schemaType PROTOBUF."""

    def __init__(self, registry: SchemaRegistry, is_key: bool) -> None:
        super().__init__(registry, is_key, _encoder, "PROTOBUF")
