"""Type edge cases found by the types-extra / types-mariadb / time-mode goldens (values from real Debezium 3.6.3).

The goldens check them end to end on real servers; these pin each rule next to the code that implements it.
"""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from pymysqlreplication.constants import FIELD_TYPE

from connector.binlog.value_decoders import column_decoder
from connector.config.modes import TimePrecisionMode
from connector.converters import ValueSettings, resolve
from connector.serde.connect_schema import Type
from schema_history.model import Column

DEFAULT = ValueSettings()
NO_ADJUST = ValueSettings(enable_time_adjuster=False)
NANOS = ValueSettings(time_precision_mode=TimePrecisionMode.NANOSECONDS)


def col(type_name: str, jdbc: int = 12, **kw) -> Column:
    return Column(name="c", position=1, jdbc_type=jdbc, type_name=type_name, type_expression=type_name.split()[0], **kw)


def snapshot(column: Column, value, settings: ValueSettings = DEFAULT):
    conv = resolve(column, settings)
    return value if conv.from_snapshot is None else conv.from_snapshot(value)


def binlog(column: Column, value, settings: ValueSettings = DEFAULT):
    conv = resolve(column, settings)
    return value if conv.from_binlog is None else conv.from_binlog(value)


def test_nanosecond_timestamps_outside_a_java_long_are_null() -> None:
    dt0 = col("DATETIME", 93)
    assert snapshot(dt0, "1000-01-01 00:00:00", NANOS) is None
    assert binlog(dt0, dt.datetime(9999, 12, 31, 23, 59, 59), NANOS) is None
    assert snapshot(dt0, "2024-02-29 23:59:59", NANOS) == 1709251199_000_000_000


def test_float_with_scale_is_a_widened_float32_double() -> None:
    float_md = resolve(col("FLOAT", 6, length=7, scale=3), DEFAULT)
    assert float_md.schema.type == Type.FLOAT64
    assert float_md.from_snapshot(1234.567) == 1234.5670166015625
    assert resolve(col("FLOAT", 6, length=24), DEFAULT).schema.type == Type.FLOAT32
    assert resolve(col("FLOAT", 6, length=30), DEFAULT).schema.type == Type.FLOAT64


@pytest.mark.parametrize(("settings", "text", "days"), [
    (DEFAULT, "0000-01-01", 10957),        # year 0 → 2000 by the adjuster
    (NO_ADJUST, "0000-01-01", -719528),     # proleptic year 0, which Python's date lacks
    (NO_ADJUST, "0069-05-06", -694200),
])
def test_snapshot_dates_of_year_zero(settings: ValueSettings, text: str, days: int) -> None:
    assert snapshot(col("DATE", 91), text, settings) == days


def test_snapshot_datetime_year_zero_reads_as_year_one() -> None:
    dt6 = col("DATETIME", 93, length=6)
    assert snapshot(dt6, "0000-12-31 00:00:00", DEFAULT) == 1009756800000000  # 2001-12-31
    assert snapshot(dt6, "0000-12-31 00:00:00", NO_ADJUST) == -62104147200000000  # 0001-12-31


@pytest.mark.parametrize("settings", [DEFAULT, NO_ADJUST])
def test_year_two_digit_rule_ignores_the_adjuster(settings: ValueSettings) -> None:
    y2 = col("YEAR", 4, length=2)
    assert [snapshot(y2, v, settings) for v in (69, 70, 0, 1999)] == [2069, 1970, 2000, 1999]
    assert resolve(col("YEAR", 4, length=2, default_value_expression="69"), settings).schema.default == 2069
    assert resolve(col("YEAR", 4, length=4, default_value_expression="0000"), settings).schema.default == 2000


@pytest.mark.parametrize(("type_name", "jdbc", "expected"), [
    ("DATE", 91, 0),
    ("DATETIME", 93, 0),
])
def test_zero_defaults_of_not_null_columns_are_the_epoch(type_name: str, jdbc: int, expected: int) -> None:
    zero = "0000-00-00" if type_name == "DATE" else "0000-00-00 00:00:00"
    assert resolve(col(type_name, jdbc, optional=False, default_value_expression=zero), DEFAULT).schema.default == expected
    assert not resolve(col(type_name, jdbc, optional=True, default_value_expression=zero), DEFAULT).schema.has_default


def test_enum_and_set_from_index_and_mask() -> None:
    # the binlog decoder hands over the raw index / bit mask when the TABLE_MAP names are unusable
    enum = col("ENUM", 1, enum_values=("'é'", "'ü'", "'x'"))
    assert [binlog(enum, i) for i in (0, 1, 2, 3)] == ["", "é", "ü", "x"]
    set_col = col("SET", 1, enum_values=("'A'", "'a'", "'b'"))
    assert binlog(set_col, 0b101) == "A,b"
    assert binlog(set_col, 0) == ""


def _decode(column: SimpleNamespace, raw: bytes) -> object:
    value, end = column_decoder(column)(raw, 0)
    assert end == len(raw)
    return value


def test_decoder_passes_index_when_enum_names_are_missing_or_undecodable() -> None:
    meta = {"unsigned": False, "character_set_name": None}
    latin1 = SimpleNamespace(type=FIELD_TYPE.ENUM, size=1, enum_values=["", "", "", "x"], **meta)  # pmr: 'é' → ''
    assert _decode(latin1, b"\x02") == 2
    minimal = SimpleNamespace(type=FIELD_TYPE.ENUM, size=2, enum_values=None, **meta)  # binlog_row_metadata=MINIMAL
    assert _decode(minimal, b"\x01\x00") == 1
    good = SimpleNamespace(type=FIELD_TYPE.ENUM, size=1, enum_values=["", "a", "b"], **meta)
    assert _decode(good, b"\x02") == "b"
    set_latin1 = SimpleNamespace(type=FIELD_TYPE.SET, size=1, set_values=["", "y"], **meta)
    assert _decode(set_latin1, b"\x03") == 3


@pytest.mark.parametrize("type_name", ["GEOMETRY", "POLYGON", "GEOMETRYCOLLECTION"])
def test_not_null_geometry_is_an_optional_field_but_point_is_not(type_name: str) -> None:
    # Debezium's Geometry.builder() is optional(), Point.builder() is not (golden realworld: sakila address.location)
    assert resolve(col(type_name, 1111, optional=False), DEFAULT).schema.optional
    assert not resolve(col("POINT", 1111, optional=False), DEFAULT).schema.optional
