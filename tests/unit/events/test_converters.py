"""Column converters: schemas per type and mode, binlog/snapshot values, DDL defaults, edge values."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from connector.config.modes import (
    BigIntUnsignedHandlingMode,
    BinaryHandlingMode,
    DecimalHandlingMode,
    TimePrecisionMode,
)
from connector.converters import UnsupportedColumnType, ValueSettings, resolve
from connector.converters.json_type import render_binary_json
from schema_history.model import Column

DEFAULT = ValueSettings()


def col(type_name: str, jdbc: int = 12, **kw) -> Column:
    return Column(name=kw.pop("name", "c"), position=1, jdbc_type=jdbc, type_name=type_name,
                  type_expression=type_name.split()[0], **kw)


def binlog(column: Column, value, settings: ValueSettings = DEFAULT):
    conv = resolve(column, settings)
    return value if conv.from_binlog is None else conv.from_binlog(value)


def snapshot(column: Column, value, settings: ValueSettings = DEFAULT):
    conv = resolve(column, settings)
    return value if conv.from_snapshot is None else conv.from_snapshot(value)


# ------------------------------------------------------------------ temporal
@pytest.mark.parametrize(
    ("text", "micros"),
    [
        ("00:00:00", 0),
        ("-838:59:59.000", -3020399000000),
        ("838:59:59", 3020399000000),
        ("-00:00:00.000001", -1),
        ("-01:02:03.456", -3723456000),
        ("12:34:56.789", 45296789000),
    ],
)
def test_time_text_to_micros(text: str, micros: int) -> None:
    assert snapshot(col("TIME", 92, length=6), text) == micros


@pytest.mark.parametrize(
    ("library_value", "micros"),
    [
        # python-mysql-replication B6: negative fractional TIME comes back with the fraction complemented
        (-dt.timedelta(seconds=0, microseconds=999999), -1),
        (-dt.timedelta(hours=1, minutes=2, seconds=3, microseconds=544000), -3723456000),
        (-dt.timedelta(hours=838, minutes=59, seconds=58, microseconds=1), -3020398999999),
        (-dt.timedelta(seconds=1), -1000000),  # whole seconds are right
        (dt.timedelta(hours=23, minutes=59, seconds=59, microseconds=999000), 86399999000),
    ],
)
def test_time_binlog_b6_fix(library_value: dt.timedelta, micros: int) -> None:
    pmr = ValueSettings(binlog_negative_time_fraction_complemented=True)
    assert binlog(col("TIME", 92, length=6), library_value, pmr) == micros


def test_time_binlog_from_a_correct_decoder_is_taken_as_is() -> None:
    value = -dt.timedelta(hours=1, minutes=2, seconds=3, microseconds=456000)
    assert binlog(col("TIME", 92, length=6), value) == -3723456000


def test_dates_and_two_digit_year_adjuster() -> None:
    date = col("DATE", 91)
    assert snapshot(date, "1970-01-01") == 0
    assert snapshot(date, "1000-01-01") == -354285
    assert snapshot(date, "0001-01-01") == 11323  # enable.time.adjuster: year 1 → 2001
    assert binlog(date, dt.date(1, 1, 1)) == 11323
    assert snapshot(date, "0001-01-01", ValueSettings(enable_time_adjuster=False)) == -719162
    assert snapshot(date, "0000-00-00") is None  # zero date


def test_datetime_precision_and_range() -> None:
    dt3 = col("DATETIME", 93, length=3)
    dt6 = col("DATETIME", 93, length=6)
    assert resolve(dt3, DEFAULT).schema.name == "io.debezium.time.Timestamp"
    assert resolve(dt6, DEFAULT).schema.name == "io.debezium.time.MicroTimestamp"
    assert snapshot(dt6, "9999-12-31 23:59:59.999999") == 253402300799999999
    assert binlog(dt6, dt.datetime(9999, 12, 31, 23, 59, 59, 999999)) == 253402300799999999
    assert snapshot(dt3, "1969-12-31 23:59:59.999") == -1
    assert snapshot(dt3, "0000-00-00 00:00:00") is None


def test_timestamp_text_snapshot_vs_binlog() -> None:
    ts6 = col("TIMESTAMP", 2014, length=6)
    assert snapshot(ts6, "2001-02-03 04:05:06.789000") == "2001-02-03T04:05:06.789Z"
    assert binlog(ts6, dt.datetime(2001, 2, 3, 4, 5, 6, 789000)) == "2001-02-03T04:05:06.789000Z"
    assert binlog(ts6, dt.datetime(1970, 1, 1)) is None  # B9: zero TIMESTAMP arrives as the epoch
    ts0 = col("TIMESTAMP", 2014)
    assert snapshot(ts0, "2038-01-19 03:14:07") == "2038-01-19T03:14:07Z"


def test_time_precision_modes() -> None:
    connect = ValueSettings(time_precision_mode=TimePrecisionMode.CONNECT)
    iso = ValueSettings(time_precision_mode=TimePrecisionMode.ISOSTRING)
    time6 = col("TIME", 92, length=6)
    assert resolve(time6, connect).schema.name == "org.apache.kafka.connect.data.Time"
    assert snapshot(time6, "01:00:00", connect) == 3600000
    assert snapshot(time6, "-00:00:01", connect) is None  # not a time of day
    assert snapshot(time6, "01:00:00.5", iso) == "01:00:00.5Z"
    assert snapshot(col("DATE", 91), "2001-01-01", iso) == "2001-01-01Z"
    assert snapshot(col("DATETIME", 93, length=3), "2024-02-29 23:59:59.999", iso) == "2024-02-29T23:59:59.999Z"
    nanos = ValueSettings(time_precision_mode=TimePrecisionMode.NANOSECONDS)
    assert snapshot(col("DATETIME", 93), "1970-01-01 00:00:01", nanos) == 1_000_000_000


# ------------------------------------------------------------------ numbers
def test_integer_widths_and_unsigned_bigint_modes() -> None:
    types = {"TINYINT UNSIGNED": "int16", "SMALLINT": "int16", "SMALLINT UNSIGNED": "int32",
             "MEDIUMINT UNSIGNED": "int32", "INT": "int32", "INT UNSIGNED": "int64", "BIGINT": "int64"}
    for name, connect in types.items():
        assert resolve(col(name, 4), DEFAULT).schema.type.value == connect, name
    bigu = col("BIGINT UNSIGNED", -5)
    assert binlog(bigu, 18446744073709551615) == -1  # long mode wraps like Java
    precise = ValueSettings(bigint_unsigned_mode=BigIntUnsignedHandlingMode.PRECISE)
    assert resolve(bigu, precise).schema.name == "org.apache.kafka.connect.data.Decimal"
    assert binlog(bigu, 18446744073709551615, precise) == Decimal(18446744073709551615)


def test_decimal_modes() -> None:
    dec = col("DECIMAL", 3, length=10, scale=3)
    schema = resolve(dec, DEFAULT).schema
    assert schema.parameters == (("scale", "3"), ("connect.decimal.precision", "10"))
    as_string = ValueSettings(decimal_mode=DecimalHandlingMode.STRING)
    assert snapshot(dec, Decimal("-0.001"), as_string) == "-0.001"
    assert binlog(dec, Decimal("1E-30"), as_string) == "0.000000000000000000000000000001"
    as_double = ValueSettings(decimal_mode=DecimalHandlingMode.DOUBLE)
    assert binlog(dec, Decimal("1.5"), as_double) == 1.5


def test_bits_and_boolean() -> None:
    bit3 = col("BIT", -7, length=3)
    assert binlog(bit3, "101") == b"\x05"
    assert snapshot(bit3, b"\x07") == b"\x07"
    bit16 = col("BIT", -7, length=16)
    assert binlog(bit16, "1000000000000001") == b"\x01\x80"  # little-endian
    assert snapshot(bit16, b"\x80\x01") == b"\x01\x80"
    bit1 = col("BIT", -7, length=1)
    assert resolve(bit1, DEFAULT).schema.type.value == "boolean"
    assert binlog(bit1, "1") is True and snapshot(bit1, b"\x00") is False


# ------------------------------------------------------------------ strings, binary, enum/set, json
def test_binary_padding_and_modes() -> None:
    b4 = col("BINARY", -2, length=4)
    assert binlog(b4, b"ab") == b"ab\x00\x00"  # B7: the library strips the pad bytes
    assert binlog(b4, "") == b"\x00\x00\x00\x00"  # and returns '' (a str) for all-zero values
    blob = col("BLOB", 2004)
    assert binlog(blob, "") == b""
    assert binlog(blob, b"\xff\x00", ValueSettings(binary_mode=BinaryHandlingMode.HEX)) == "ff00"
    assert binlog(blob, b"\xff\x00", ValueSettings(binary_mode=BinaryHandlingMode.BASE64)) == "/wA="


def test_enum_and_set() -> None:
    enum = col("ENUM", 1, enum_values=("'a'", "'it''s'", "'c'"))
    assert resolve(enum, DEFAULT).schema.parameters == (("allowed", "a,it's,c"),)
    set_col = col("SET", 1, enum_values=("'x'", "'y'", "'z'"))
    assert binlog(set_col, {"z", "x"}) == "x,z"  # definition order, not Python's set order
    assert snapshot(set_col, "x,z") == "x,z"


def test_binary_json_rendering_like_debezium() -> None:
    value = {b"d": 1.5e300, b"f": 0.1, b"s": b'a"b\\c\x01\xc3\xa9', b"arr": [1.0, 2, True, None], b"o": {}}
    text = render_binary_json(value)
    assert text.startswith('{"d":1500000000000000078757140382806630373056702871662238732373781173')
    assert text.endswith('"f":0.1,"s":"a\\"b\\\\c\\u0001é","arr":[1.0,2,true,null],"o":{}}')
    assert render_binary_json([]) == "[]"


# ------------------------------------------------------------------ DDL defaults (reference-verified)
@pytest.mark.parametrize(
    ("column", "default"),
    [
        (col("INT", 4, default_value_expression="5"), 5),
        (col("BIGINT UNSIGNED", -5, default_value_expression="18446744073709551615"), 9223372036854775807),
        (col("DECIMAL", 3, length=10, scale=3, default_value_expression="1.500"), Decimal("1.500")),
        (col("VARCHAR", 12, default_value_expression="it''s"), "it''s"),
        (col("TIME", 92, length=2, default_value_expression="-01:02:03.45"), -3723450000),
        (col("DATETIME", 93, length=3, optional=False, default_value_expression="1970-01-01 00:00:00"), 0),
        (col("TIMESTAMP", 2014, optional=False, default_value_expression="1970-01-01 00:00:00"), "1970-01-01T00:00:00Z"),
        (col("TIMESTAMP", 2014, length=6, default_value_expression="2001-02-03 04:05:06.789000"), "2001-02-03T04:05:06.789000Z"),
        (col("BIT", -7, length=5, default_value_expression="10101"), b"\x15"),
        (col("BIT", -7, length=1, default_value_expression="1"), True),
        (col("BINARY", -2, length=3, default_value_expression="ab\\0"), b"ab\\0"),
        (col("FLOAT", 6, default_value_expression="1.1"), 1.1),
    ],
)
def test_ddl_defaults(column: Column, default) -> None:
    assert resolve(column, DEFAULT).schema.default == default


def test_nullable_timestamp_epoch_default_is_no_default() -> None:
    column = col("TIMESTAMP", 2014, optional=True, default_value_expression="1970-01-01 00:00:00")
    assert not resolve(column, DEFAULT).schema.has_default


def test_comment_becomes_doc_only_when_enabled() -> None:
    column = col("INT", 4, comment="the id")
    assert resolve(column, DEFAULT).schema.doc is None
    assert resolve(column, ValueSettings(include_schema_comments=True)).schema.doc == "the id"


def test_unknown_type_is_reported() -> None:
    with pytest.raises(UnsupportedColumnType, match="ROW"):
        resolve(col("ROW", 1111), DEFAULT)


def test_vector_is_a_float32_array() -> None:
    import struct

    vec = col("VECTOR", 1111, length=3)
    assert resolve(vec, DEFAULT).schema.json == (
        '{"type":"array","items":{"type":"float","optional":false},"optional":true,'
        '"name":"io.debezium.data.FloatVector","version":1}')
    raw = struct.pack("<3f", 1.5, -2.25, 0.1)
    value = snapshot(vec, raw)
    assert resolve(vec, DEFAULT).schema.writer(value) == "[1.5,-2.25,0.1]"
