"""DDL defaults from the long tail (issue 14): each one once crashed the daemon while streaming.

Expected values are real Debezium 3.6.3's (golden longtail / longtail-mysql)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from connector.converters import DefaultValueError, ValueSettings, resolve
from schema_history.model import Column

DEFAULT = ValueSettings()


def col(type_name: str, jdbc: int, default: str, optional: bool = True, **kw) -> Column:
    return Column(name="c", position=1, jdbc_type=jdbc, type_name=type_name, type_expression=type_name.split()[0],
                  optional=optional, has_default_value=True, default_value_expression=default, **kw)


@pytest.mark.parametrize(("type_name", "jdbc", "expr", "expected"), [
    ("TINYINT", -6, "TRUE", 1),
    ("TINYINT", -6, "true", 1),
    ("INT", 4, "TRUE", 1),
    ("SMALLINT", 5, "FALSE", 0),
    ("BIGINT UNSIGNED", -5, "TRUE", 1),
    ("DOUBLE", 8, "TRUE", 1.0),
    ("DECIMAL", 3, "TRUE", Decimal(1)),
])
def test_boolean_literal_in_a_numeric_column(type_name: str, jdbc: int, expr: str, expected: object) -> None:
    assert resolve(col(type_name, jdbc, expr, length=1), DEFAULT).schema.default == expected


@pytest.mark.parametrize(("expr", "micros"), [
    ("'0000-00-00 01:00:00.000'", 3_600_000_000),
    ("'0000-00-00 01:00:00'", 3_600_000_000),
    ("'12:34'", 45_240_000_000),
    ("'-01:02:03.5'", -3_723_500_000),
])
def test_time_default_written_as_a_datetime_or_without_seconds(expr: str, micros: int) -> None:
    assert resolve(col("TIME", 92, expr), DEFAULT).schema.default == micros


def test_an_unconvertible_default_is_a_typed_error_naming_the_column() -> None:
    with pytest.raises(DefaultValueError, match="'c'.*'not a number'"):
        resolve(col("INT", 4, "'not a number'"), DEFAULT)


def test_lenient_resolve_keeps_the_column_without_its_default() -> None:
    conv = resolve(col("INT", 4, "'not a number'", optional=False), DEFAULT, lenient_defaults=True)
    assert not conv.schema.has_default
    assert conv.schema.type.value == "int32"
