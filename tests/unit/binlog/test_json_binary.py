"""MySQL binary JSON → Debezium's text; expected strings are real Debezium 3.6.3's (golden longtail_json-mysql)."""

from __future__ import annotations

import struct

import pytest

from connector.binlog.json_binary import render_json_binary

OPAQUE, DATE, TIME, DATETIME, NEWDECIMAL, BLOB = 0x0F, 10, 11, 12, 246, 252


def _opaque(field_type: int, body: bytes) -> bytes:
    return bytes([OPAQUE, field_type, len(body)]) + body


def _datetime(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, us: int = 0) -> bytes:
    return struct.pack("<q", (((y * 13 + mo) << 22 | d << 17 | h << 12 | mi << 6 | s) << 24) | us)


def _time(h: int, mi: int, s: int, us: int = 0, negative: bool = False) -> bytes:
    value = ((h << 12 | mi << 6 | s) << 24) | us
    return struct.pack("<q", -value if negative else value)


@pytest.mark.parametrize(("data", "text"), [
    (_opaque(DATETIME, _datetime(2015, 1, 15, 23, 24, 25, 120000)), '"2015-01-15 23:24:25.12"'),
    (_opaque(DATETIME, _datetime(2015, 1, 15, 23, 24, 25)), '"2015-01-15 23:24:25"'),
    (_opaque(DATETIME, _datetime(2015, 1, 15, 0, 0, 0, 1)), '"2015-01-15 00:00:00.000001"'),
    (_opaque(DATE, _datetime(2015, 1, 15)), '"2015-01-15"'),
    (_opaque(TIME, _time(10, 11, 12, 500000)), '"10:11:12.5"'),
    (_opaque(TIME, _time(1, 2, 3, negative=True)), '"02:0-3:0-3"'),  # Java's signed remainders, as Debezium
    (_opaque(BLOB, b"\xca\xfe"), '"yv4="'),
    (_opaque(NEWDECIMAL, bytes([5, 2]) + bytes([0x80, 0x01, 0x32])), "1.50"),
    (bytes([0x04, 0x00]), "null"),  # the JSON null literal is text, not an SQL NULL
    (bytes([0x0C, 3]) + b'a"\n', '"a\\"\\n"'),
])
def test_scalars(data: bytes, text: str) -> None:
    assert render_json_binary(data) == text


def test_small_object_and_array_keep_stored_order() -> None:
    # {"b": 1, "a": [true, "x"]}: count, size, key entries, value entries, keys, then the array
    array = struct.pack("<HH", 2, 13) + bytes([0x04]) + struct.pack("<H", 1) + bytes([0x0C]) + struct.pack("<H", 10)
    array += bytes([1]) + b"x"
    header = 4 + 2 * 4 + 2 * 3
    keys = b"ba"
    obj = struct.pack("<HH", 2, header + len(keys) + len(array))
    obj += struct.pack("<HH", header, 1) + struct.pack("<HH", header + 1, 1)
    obj += bytes([0x05]) + struct.pack("<h", 1) + bytes([0x02]) + struct.pack("<H", header + 2)
    assert render_json_binary(bytes([0x00]) + obj + keys + array) == '{"b":1,"a":[true,"x"]}'
