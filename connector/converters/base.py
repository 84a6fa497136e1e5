"""Shared types of the converter families: settings, the per-family result and the per-column result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from connector.config.modes import (
    BigIntUnsignedHandlingMode,
    BinaryHandlingMode,
    DecimalHandlingMode,
    EventConvertingFailureHandlingMode,
    TimePrecisionMode,
)
from connector.serde.connect_schema import ConnectSchema
from schema_history.model import Column

__all__ = ["ValueSettings", "Kind", "ColumnConverter", "UnsupportedColumnType", "DefaultValueError", "ValueFn", "DefaultFn", "unsigned",
           "base_type_name", "numeric_default_text"]

ValueFn = Callable[[Any], Any]
DefaultFn = Callable[[str, Column], Any]


class UnsupportedColumnType(ValueError):
    """A column type no converter family handles (Terminal: configuration or code must change)."""


class DefaultValueError(ValueError):
    """A column's DDL default that its converter cannot turn into a value of the column's type."""

    def __init__(self, column: str, expression: str, cause: Exception) -> None:
        self.column = column
        self.expression = expression
        super().__init__(f"column {column!r}: default {expression!r} cannot be converted "
                         f"({type(cause).__name__}: {cause})")


@dataclass(frozen=True)
class ValueSettings:
    """The Debezium properties that change how column values are represented."""

    decimal_mode: DecimalHandlingMode = DecimalHandlingMode.PRECISE
    time_precision_mode: TimePrecisionMode = TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS
    bigint_unsigned_mode: BigIntUnsignedHandlingMode = BigIntUnsignedHandlingMode.LONG
    binary_mode: BinaryHandlingMode = BinaryHandlingMode.BYTES
    include_schema_comments: bool = False
    # enable.time.adjuster: 2-digit YEAR values 0-69 → 2000-2069, 70-99 → 1970-1999
    enable_time_adjuster: bool = True
    # True when binlog values come from python-mysql-replication 1.0.17's own decoder, whose negative
    # TIME(n) fractions are complemented (python-mysql-replication.md B6) and must be undone here;
    # False for connector/binlog/value_decoders.py, which decodes them correctly.
    binlog_negative_time_fraction_complemented: bool = False
    # event.converting.failure.handling.mode: what a value Debezium's converter throws on becomes
    converting_failure_mode: EventConvertingFailureHandlingMode = EventConvertingFailureHandlingMode.WARN
    # converters=... rules (connector/config/custom_converters.py)
    custom_converters: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Kind:
    """What a type family decides for one column: base schema (not yet optional/default/doc) + functions.

    A function of None means identity (the decoded value already is the Connect value).
    """

    schema: ConnectSchema
    from_binlog: ValueFn | None
    from_snapshot: ValueFn | None
    parse_default: DefaultFn | None
    # the value Debezium substitutes when a NOT NULL column yields null (zero dates): the epoch
    fallback: Any = None
    # the schema is optional whatever the column says: Debezium's `Geometry.builder()` calls `.optional()`, so a
    # NOT NULL GEOMETRY field is optional in the record (golden realworld: sakila's `address.location`)
    always_optional: bool = False
    # DATETIME: what `from_binlog` makes of a value of year 100 or later, from its epoch microseconds (the fused row
    # path reads those straight from the binlog's bytes, connector/dispatch/image_text.py); None: no such shortcut
    from_epoch_us: ValueFn | None = None


@dataclass(frozen=True)
class ColumnConverter:
    """Per column: field schema and value functions; `fallback` replaces a null in a NOT NULL column
    (Debezium's `convertValue`: the schema default if any, else the type's fallback), or is None."""

    name: str
    schema: ConnectSchema
    from_binlog: ValueFn | None
    from_snapshot: ValueFn | None
    fallback: Any = None
    from_epoch_us: ValueFn | None = None  # Kind.from_epoch_us


def unsigned(column: Column) -> bool:
    return " UNSIGNED" in column.type_name.upper()


def base_type_name(column: Column) -> str:
    """`BIGINT UNSIGNED ZEROFILL` → `BIGINT`; `VARCHAR BINARY` (a binary collation, still text) → `VARCHAR`."""
    name = column.type_name.upper()
    for suffix in (" BINARY", " ZEROFILL", " UNSIGNED", " SIGNED"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def numeric_default_text(expr: str) -> str | None:
    """A numeric column's DEFAULT as a number literal, None for NULL or none.

    MySQL takes TRUE/FALSE as 1/0 in any numeric column (`TINYINT(1) DEFAULT TRUE`), and so does
    Debezium's BinlogDefaultValueConverter.convert for every numeric JDBC type; quotes are the server's."""
    text = expr.strip().strip("'").strip()
    if not text or text.upper() == "NULL":
        return None
    upper = text.upper()
    return "1" if upper == "TRUE" else "0" if upper == "FALSE" else text
