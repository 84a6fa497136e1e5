"""TinyIntOneToBooleanConverter: which columns convert, and the value rules the goldens tinyint_bool(-mysql)
do not reach (snapshot values of signed TINYINT(1), defaults)."""
from __future__ import annotations

from connector.config.custom_converters import custom_converters
from connector.converters.tinyint_bool import boolean_kind
from schema_history.model import Column

TYPE = "io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter"


def col(name: str, type_name: str = "TINYINT", length: int | None = 1) -> Column:
    return Column(name, 1, -6, type_name, type_name, length=length)


def test_selector_length_checker_and_type_decide() -> None:
    problems: list[str] = []
    (checked,) = custom_converters({"converters": "b", "b.type": TYPE, "b.selector": r"db\.t\.(a|b)"}, problems)
    assert problems == []
    assert checked.matches("db.t", col("a")) and checked.matches("DB.T", col("b", "TINYINT UNSIGNED"))
    assert not checked.matches("db.t", col("c")) and not checked.matches("db.t", col("a", length=2))
    assert not checked.matches("db.t", col("a", "SMALLINT"))
    (unchecked,) = custom_converters({"converters": "b", "b.type": TYPE, "b.length.checker": "false"}, problems)
    assert unchecked.matches("any.table", col("x", length=None))


def test_values_binlog_signed_byte_snapshot_as_connector_j() -> None:
    kind = boolean_kind(col("a"))
    assert [kind.from_binlog(v) for v in (1, 0, -1, 255, 2, None)] == [True, False, False, False, True, None]
    assert [kind.from_snapshot(v) for v in (1, 0, -1, -2, None)] == [True, False, True, False, None]
    wide = boolean_kind(col("y", "TINYINT UNSIGNED", 3))
    assert wide.from_snapshot(200) is True and wide.from_binlog(200) is False
    assert [kind.parse_default(e, col("a")) for e in ("1", "'0'", "NULL", "TRUE")] == [True, False, None, True]
