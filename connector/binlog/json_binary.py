"""MySQL binary JSON (a JSON column in a rows event) → the text Debezium emits for it.

Debezium reads the column with mysql-binlog-connector-java (`JsonBinary` + `JsonStringFormatter`): compact
JSON, object keys in stored order, strings escaped like Jackson with non-ASCII kept raw, doubles as
`Double.toString` unless that has an exponent. Scalars MySQL stores as "opaque" values keep their
connector-specific spelling (reference run longtail_json-mysql):

* DATETIME/TIMESTAMP → `"2015-01-15 23:24:25.12"` (fraction without trailing zeros, none when zero),
  DATE → `"2015-01-15"`, TIME → `"10:11:12.5"`; a negative TIME goes through Java's signed remainders
  (`-01:02:03` → `"02:0-3:0-3"`), which is what Debezium prints;
* DECIMAL → `BigDecimal.toPlainString()` (scale kept: `1.50`);
* any other opaque value (a BLOB cast to JSON) → base64 of its bytes;
* a top-level JSON `null` is the text `null` (not an SQL NULL).

The project's own reader: python-mysql-replication's `parse_json` turns DATEs into datetimes, drops
negative TIMEs and decodes BLOBs as text, so it cannot give these bytes back.
"""

from __future__ import annotations

import base64
import struct
from decimal import Decimal
from types import SimpleNamespace

from pymysqlreplication.constants import FIELD_TYPE

from connector.java.text import java_double

__all__ = ["render_json_binary"]

_SMALL_OBJECT, _LARGE_OBJECT, _SMALL_ARRAY, _LARGE_ARRAY, _LITERAL = 0x0, 0x1, 0x2, 0x3, 0x4
_INT16, _UINT16, _INT32, _UINT32, _INT64, _UINT64, _DOUBLE, _STRING, _OPAQUE = (
    0x5, 0x6, 0x7, 0x8, 0x9, 0xA, 0xB, 0xC, 0xF)
_SCALARS = {_INT16: "<h", _UINT16: "<H", _INT32: "<i", _UINT32: "<I", _INT64: "<q", _UINT64: "<Q"}
_LITERALS = {0: "null", 1: "true", 2: "false"}
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
_DATETIMES = (FIELD_TYPE.DATETIME, FIELD_TYPE.DATETIME2, FIELD_TYPE.TIMESTAMP, FIELD_TYPE.TIMESTAMP2)


def _string(text: str) -> str:
    if not any(ch in _ESCAPES or ch < " " for ch in text):
        return '"' + text + '"'
    return '"' + "".join(_ESCAPES.get(ch) or (f"\\u{ord(ch):04X}" if ch < " " else ch) for ch in text) + '"'


def _double(value: float) -> str:
    text = java_double(value)
    return format(Decimal(value), "f") if "E" in text else text


def _variable_length(data: bytes, pos: int) -> tuple[int, int]:
    """MySQL's 7-bits-per-byte length prefix → (length, position after it)."""
    length = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return length, pos


def _java_rem(a: int, b: int) -> int:
    """Java's `%` on ints: the remainder takes the dividend's sign."""
    r = abs(a) % b
    return -r if a < 0 else r


def _two(value: int) -> str:
    # JsonStringFormatter.appendTwoDigitUnsignedInt: "0" before anything below 10, negatives included
    return "0" + str(value) if value < 10 else str(value)


def _fraction(micros: int) -> str:
    """appendSixDigitUnsignedInt(micros, trimTrailingZeros=true) after a ".", as Java runs it (a negative
    value, from a negative TIME, gets the "00000" prefix of a small number)."""
    if micros == 0:
        return ""
    prefix = next((zeros for limit, zeros in ((10, "00000"), (100, "0000"), (1000, "000"), (10000, "00"),
                                               (100000, "0")) if micros < limit), "")
    for _ in range(6):
        if _java_rem(micros, 10) == 0:
            micros = -(-micros // 10) if micros < 0 else micros // 10
    return "." + prefix + str(micros)


def _date(year: int, month: int, day: int) -> str:
    return ("-" if year < 0 else "") + f"{abs(year):04d}-{_two(month)}-{_two(day)}"


def _packed(data: bytes) -> tuple[int, int]:
    raw = struct.unpack_from("<q", data, 0)[0]
    return raw >> 24, _java_rem(raw, 1 << 24)


def _datetime(data: bytes, with_time: bool) -> str:
    value, micros = _packed(data)
    year_month = _java_rem(value >> 22, 1 << 17)
    text = _date(year_month // 13, year_month % 13, _java_rem(value >> 17, 1 << 5))
    if with_time:
        text += (f" {_two(_java_rem(value >> 12, 1 << 5))}:{_two(_java_rem(value >> 6, 1 << 6))}:"
                 f"{_two(_java_rem(value, 1 << 6))}{_fraction(micros)}")
    return '"' + text + '"'


def _time(data: bytes) -> str:
    value, micros = _packed(data)
    hour = _java_rem(value >> 12, 1 << 10)
    if value < 0:
        hour = -hour
    sign = "-" if hour < 0 else ""
    return (f'"{sign}{_two(abs(hour))}:{_two(_java_rem(value >> 6, 1 << 6))}:{_two(_java_rem(value, 1 << 6))}'
            f'{_fraction(micros)}"')


def _decimal(data: bytes) -> str:
    from connector.binlog.value_decoders import packed_decimal

    precision, scale = data[0], data[1]
    value, _ = packed_decimal(SimpleNamespace(precision=precision, decimals=scale))(data, 2)
    return format(value, "f")


def _opaque(data: bytes, pos: int) -> str:
    field_type = data[pos]
    length, start = _variable_length(data, pos + 1)
    body = data[start:start + length]
    if field_type in (FIELD_TYPE.NEWDECIMAL, FIELD_TYPE.DECIMAL):
        return _decimal(body)
    if field_type in (FIELD_TYPE.TIME, FIELD_TYPE.TIME2):
        return _time(body)
    if field_type in (FIELD_TYPE.DATE, FIELD_TYPE.NEWDATE):
        return _datetime(body, with_time=False)
    if field_type in _DATETIMES:
        return _datetime(body, with_time=True)
    return '"' + base64.b64encode(body).decode("ascii") + '"'


def _container(data: bytes, base: int, large: bool, is_object: bool) -> str:
    word = "<I" if large else "<H"
    size = 4 if large else 2
    count = struct.unpack_from(word, data, base)[0]
    header = base + 2 * size
    keys_at = header
    values_at = header + (count * (size + 2) if is_object else 0)
    parts = []
    for i in range(count):
        entry = values_at + i * (1 + size)
        value_type = data[entry]
        inline = value_type in (_LITERAL, _INT16, _UINT16) or (large and value_type in (_INT32, _UINT32))
        if inline:
            text = _value(value_type, data, entry + 1, inline=True)
        else:
            text = _value(value_type, data, base + struct.unpack_from(word, data, entry + 1)[0])
        if is_object:
            key_offset = struct.unpack_from(word, data, keys_at + i * (size + 2))[0]
            key_length = struct.unpack_from("<H", data, keys_at + i * (size + 2) + size)[0]
            key = data[base + key_offset:base + key_offset + key_length].decode("utf-8", errors="replace")
            text = _string(key) + ":" + text
        parts.append(text)
    return ("{" + ",".join(parts) + "}") if is_object else ("[" + ",".join(parts) + "]")


def _value(value_type: int, data: bytes, pos: int, inline: bool = False) -> str:
    if value_type in (_SMALL_OBJECT, _LARGE_OBJECT, _SMALL_ARRAY, _LARGE_ARRAY):
        return _container(data, pos, value_type in (_LARGE_OBJECT, _LARGE_ARRAY),
                          value_type in (_SMALL_OBJECT, _LARGE_OBJECT))
    if value_type == _LITERAL:
        return _LITERALS.get(data[pos], "null")
    fmt = _SCALARS.get(value_type)
    if fmt is not None:
        return str(struct.unpack_from(fmt, data, pos)[0])
    if value_type == _DOUBLE:
        return _double(struct.unpack_from("<d", data, pos)[0])
    if value_type == _STRING:
        length, start = _variable_length(data, pos)
        return _string(data[start:start + length].decode("utf-8", errors="replace"))
    if value_type == _OPAQUE:
        return _opaque(data, pos)
    raise ValueError(f"unknown binary JSON value type {value_type:#x}")


def render_json_binary(data: bytes) -> str:
    """One JSON column value (type byte + value) as Debezium's JSON text."""
    return _value(data[0], data, 1)
