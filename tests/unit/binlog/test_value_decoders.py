"""Column decoders on hand-made row-image bytes (vectors from MySQL's decimal.cc / my_time.cc comments).

The differential integration tests compare whole binlogs with python-mysql-replication; these pin the
formats whose corner cases are easy to get wrong, without a server.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from types import SimpleNamespace

import pytest
from pymysqlreplication.constants import FIELD_TYPE

from connector.binlog.rows_decoder import RowPlan
from connector.binlog.value_decoders import column_decoder


def col(type_: int, **meta) -> SimpleNamespace:
    return SimpleNamespace(**{"type": type_, "unsigned": False, "character_set_name": None, **meta})


def decode(column: SimpleNamespace, raw: bytes) -> object:
    value, end = column_decoder(column)(b"\xee" + raw + b"\xee", 1)
    assert end == 1 + len(raw)
    return value


@pytest.mark.parametrize("raw,expected", [
    ("810DFB38D204D2", "1234567890.1234"),   # decimal.cc's example, DECIMAL(14,4)
    ("7EF204C72DFB2D", "-1234567890.1234"),
    ("80000000000000", "0.0000"),
])
def test_decimal(raw: str, expected: str) -> None:
    value = decode(col(FIELD_TYPE.NEWDECIMAL, precision=14, decimals=4), bytes.fromhex(raw))
    assert value == Decimal(expected) and value.as_tuple().exponent == -4


@pytest.mark.parametrize("fsp,raw,expected_us", [
    (6, "7FFFFFFFFFFF", -1),                    # -00:00:00.000001 (python-mysql-replication: -0.999999, B6)
    (1, "7FFFFFF6", -100_000),                  # -00:00:00.1: int part borrows 1, fraction 0x100 - 10
    (3, "7FFFFFFC18", -100_000),                # -00:00:00.100 with a 2-byte fraction (0x10000 - 1000)
    (6, "800000000001", 1),
    (0, "7FEF7F", -(1 * 3600 + 2 * 60 + 1) * 1_000_000),  # -01:02:01
])
def test_time2(fsp: int, raw: str, expected_us: int) -> None:
    assert decode(col(FIELD_TYPE.TIME2, fsp=fsp), bytes.fromhex(raw)) == datetime.timedelta(microseconds=expected_us)


def test_bit_and_set_and_enum() -> None:
    assert decode(col(FIELD_TYPE.BIT, bits=12, bytes=2), bytes.fromhex("0801")) == "100000000001"
    assert decode(col(FIELD_TYPE.SET, size=1, set_values=["a", "b", "c"]), b"\x05") == {"a", "c"}
    assert decode(col(FIELD_TYPE.SET, size=1, set_values=["a", "b", "c"]), b"\x00") == set()
    assert decode(col(FIELD_TYPE.ENUM, size=2, enum_values=["", "x", "y"]), b"\x02\x00") == "y"


def test_charsets() -> None:
    utf16 = col(FIELD_TYPE.VARCHAR, max_length=40, character_set_name="utf16")
    assert decode(utf16, b"\x06" + "hé☃".encode("utf-16-be")) == "hé☃"  # B8: pmr decodes little-endian
    binary = col(FIELD_TYPE.VARCHAR, max_length=10, character_set_name="binary")
    assert decode(binary, b"\x02\x00\x01") == b"\x00\x01"
    assert decode(binary, b"\x00") == ""  # pmr's empty binary value is a str (B7), kept for the converters


def test_partial_image_uses_null_bits_of_present_columns_only() -> None:
    plan = RowPlan(tuple(column_decoder(col(FIELD_TYPE.TINY)) for _ in range(4)))
    # columns 0 and 2 present; null bitmap (over present columns): second present column (2) is NULL
    values, end = plan.image(b"\x02\x07", 0, present=0b0101)
    assert (values, end) == ([7, None, None, None], 2)
    values, end = plan.image(b"\x00\x01\x02\x03\x04", 0, present=0b1111)
    assert (values, end) == ([1, 2, 3, 4], 5)


def test_compiled_full_image_equals_the_generic_loop() -> None:
    from connector.binlog.image_compiler import compile_full_image

    columns = [col(FIELD_TYPE.LONG), col(FIELD_TYPE.VARCHAR, max_length=40, character_set_name="utf8"),
               col(FIELD_TYPE.VARCHAR, max_length=400, character_set_name="utf8"), col(FIELD_TYPE.YEAR),
               col(FIELD_TYPE.DOUBLE)]
    decoders = tuple(column_decoder(c) for c in columns)
    loop, compiled = RowPlan(decoders), RowPlan(decoders, compile_full_image(decoders))
    one, text, long_text, year = b"\x07\x00\x00\x00", b"\x03h\xc3\xa9", b"\x03\x00abc", b"\x7c"
    double = b"\x00" * 6 + b"\xf0?"
    assert loop.image(b"\x00" + one + text + long_text + year + double, 0, 0b11111)[0] == [7, "hé", "abc", 2024, 1.0]
    for nulls, image in [(0, one + text + long_text + year + double), (0b01010, one + long_text + double)]:
        data = bytes([nulls]) + image
        expected = loop.image(data, 0, present=0b11111)
        assert compiled.image(data, 0, present=0b11111) == expected
        assert expected[1] == len(data)
    assert expected[0] == [7, None, "abc", None, 1.0]
