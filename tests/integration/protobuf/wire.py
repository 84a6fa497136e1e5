"""Test helper: a protobuf decoder written from the encoding spec (varints, zigzag-free proto3 scalars, packed
repeated numbers, length-delimited strings, bytes and messages), to read ProtobufConverter records back.

`decode_message` reads a message of the model protobuf_schema built; `expected_values` maps a Connect value to
what a proto3 reader gets for it: a null scalar reads as the zero value, a null or empty array as [], a Decimal
as a Decimal at its scale, Date/Time/Timestamp as epoch days / millis (dates before 1582-10-15 read through the
Julian calendar, as java.util.Calendar wrote them).
"""
from __future__ import annotations

import datetime
import struct
from decimal import Decimal
from typing import Any

from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.serde.protobuf_schema import DATE_NAME, TIME_NAME, TIMESTAMP_NAME, ProtoMessage

__all__ = ["decode_message", "expected_values"]

_ZERO = {Type.INT8: 0, Type.INT16: 0, Type.INT32: 0, Type.INT64: 0, Type.FLOAT32: 0.0, Type.FLOAT64: 0.0,
         Type.BOOLEAN: False, Type.STRING: "", Type.BYTES: b""}
_LOGICAL = (DECIMAL_NAME, DATE_NAME, TIME_NAME, TIMESTAMP_NAME)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def _signed(n: int, bits: int) -> int:
    n &= (1 << bits) - 1
    return n - (1 << bits) if n >> (bits - 1) else n


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """(number, wire type, raw value) in order; every byte must be used."""
    out, pos = [], 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos:pos + size], pos + size
        else:
            raise ValueError(f"wire type {wire}")
        out.append((number, wire, value))
    assert pos == len(data), "trailing bytes"
    return out


def _julian_day(year: int, month: int, day: int) -> int:
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - 32083 - 2440588


def _scalar(schema: ConnectSchema, wire: int, raw: Any) -> Any:
    t = schema.type
    if t in (Type.INT8, Type.INT16, Type.INT32):
        return _signed(raw, 32)
    if t is Type.INT64:
        return _signed(raw, 64)
    if t is Type.BOOLEAN:
        return bool(raw)
    if t is Type.FLOAT32:
        return struct.unpack("<f", raw)[0]
    if t is Type.FLOAT64:
        return struct.unpack("<d", raw)[0]
    return raw.decode("utf-8") if t is Type.STRING else bytes(raw)


def _logical(schema: ConnectSchema, raw: bytes) -> Any:
    f = {n: v for n, _, v in _fields(raw)}
    if schema.name == DECIMAL_NAME:
        unscaled = int.from_bytes(f[1], "big", signed=True)
        assert f.get(2) == len(str(abs(unscaled)))  # precision
        return Decimal(f"{unscaled}E-{_signed(f.get(3, 0), 32)}")
    if schema.name == DATE_NAME:
        year, month, day = f.get(1, 0), f.get(2, 0), f.get(3, 0)
        if (year, month, day) >= (1582, 10, 15):
            return datetime.date(year, month, day).toordinal() - 719163
        return _julian_day(year, month, day)
    if schema.name == TIME_NAME:
        return f.get(1, 0) * 3_600_000 + f.get(2, 0) * 60_000 + f.get(3, 0) * 1000 + f.get(4, 0) // 1_000_000
    return _signed(f.get(1, 0), 64) * 1000 + f.get(2, 0) // 1_000_000


def decode_message(message: ProtoMessage, schema: ConnectSchema, data: bytes) -> dict[str, Any]:
    by_number = {pf.number: (pf, cf.schema) for pf, cf in zip(message.fields, schema.fields)}
    out: dict[str, Any] = {}
    for pf, cf in zip(message.fields, schema.fields):
        s = cf.schema
        out[pf.name] = [] if pf.repeated else (_ZERO.get(s.type) if s.type is not Type.STRUCT and s.name not in
                                               _LOGICAL else None)
    for number, wire, raw in _fields(data):
        pf, s = by_number[number]
        element = s.items if pf.repeated else s
        assert element is not None
        if element.name in _LOGICAL:
            value: Any = _logical(element, raw)
        elif pf.message is not None:
            value = decode_message(pf.message, element, raw)
        elif pf.repeated and wire == 2 and element.type not in (Type.STRING, Type.BYTES):
            value = _packed(element, raw)
        else:
            value = _scalar(element, wire, raw)
        if pf.repeated:
            out[pf.name] += value if isinstance(value, list) else [value]
        else:
            out[pf.name] = value
    return out


def _packed(schema: ConnectSchema, raw: bytes) -> list[Any]:
    out, pos = [], 0
    size = {Type.FLOAT32: 4, Type.FLOAT64: 8}.get(schema.type)
    while pos < len(raw):
        if size:
            out.append(_scalar(schema, 5 if size == 4 else 1, raw[pos:pos + size]))
            pos += size
        else:
            n, pos = _varint(raw, pos)
            out.append(_scalar(schema, 0, n))
    return out


def expected_values(schema: ConnectSchema, value: Any) -> Any:
    """A Connect struct value (dict) as decode_message reads it back."""
    if value is None and schema.has_default:
        value = schema.default
    if schema.type is Type.ARRAY:
        assert schema.items is not None
        return [expected_values(schema.items, v) for v in value or []]
    if schema.type is Type.STRUCT and schema.name not in _LOGICAL:
        if value is None:
            return None
        return {f.name: expected_values(f.schema, value.get(f.name)) for f in schema.fields}
    if value is None:
        return _ZERO.get(schema.type) if schema.name not in _LOGICAL else None
    if schema.type is Type.FLOAT32:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    if schema.name == DECIMAL_NAME:
        return Decimal(value)
    return value
