"""Column → converter, resolved once per column of a table version (style.md §2.3).

`resolve(column, settings)` picks the type family from Debezium's type name (the table below, not an
if-chain), then builds a `ColumnConverter`: the Connect field schema (semantic type of
debezium-contract.md §d5, `optional` from nullability, `default` from the DDL default converted the
way `MySqlDefaultValueConverter` does, `doc` from the comment when include.schema.comments) and two
value functions, `from_binlog` (values as python-mysql-replication 1.0.17 decodes them) and
`from_snapshot` (values as PyMySQL returns them with `snapshot_conv.pymysql_conversions()`).
Both functions receive non-None values only; None stays None (the row code skips the call).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from connector.converters import (
    binary,
    bits,
    decimal,
    enum_set,
    json_type,
    numeric,
    spatial,
    temporal,
    text,
    vector,
)
import logging
from decimal import InvalidOperation

from connector.converters.base import (
    ColumnConverter,
    DefaultValueError,
    Kind,
    UnsupportedColumnType,
    ValueSettings,
    base_type_name,
)
from connector.config.custom_converters import converter_target
from connector.converters.jdbc_sink import jdbc_sink_kind
from connector.converters.tinyint_bool import boolean_kind
from connector.converters.zero_date import zero_date_kind
from schema_history.model import Column, Table

__all__ = ["resolve", "unusable_column", "ColumnConverter", "ValueSettings", "UnsupportedColumnType",
           "DefaultValueError", "base_type_name"]

log = logging.getLogger(__name__)

# What a default parser raises on text it does not understand (int('x'), Decimal('x'), a bad date).
_DEFAULT_FAILURES = (ValueError, ArithmeticError, InvalidOperation, IndexError, TypeError, OverflowError)

Factory = Callable[[Column, ValueSettings], Kind]

# Debezium type name without UNSIGNED/ZEROFILL → family factory.
_FAMILIES: dict[str, Factory] = {
    **{name: numeric.integer for name in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT",
                                           "INT1", "INT2", "INT3", "INT4", "INT8", "MIDDLEINT", "SERIAL")},
    "BOOLEAN": numeric.boolean,
    "BOOL": numeric.boolean,
    "FLOAT": numeric.floating,
    "FLOAT4": numeric.floating,
    "DOUBLE": numeric.floating,
    "DOUBLE PRECISION": numeric.floating,
    "FLOAT8": numeric.floating,
    "REAL": numeric.floating,
    "DECIMAL": decimal.decimal,
    "NUMERIC": decimal.decimal,
    "DEC": decimal.decimal,
    "FIXED": decimal.decimal,
    "BIT": bits.bit,
    **{name: text.string for name in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "NCHAR",
                                       "NVARCHAR", "NATIONAL CHAR", "NATIONAL VARCHAR", "CHARACTER",
                                       "CHARACTER VARYING", "LONG", "LONG VARCHAR", "INET4", "INET6", "UUID",
                                       # every national spelling the DDL parser keeps (schema_history/ddl/type_names.py)
                                       "NATIONAL CHARACTER", "NCHAR VARCHAR", "NCHAR VARYING", "CHAR VARYING",
                                       "NATIONAL CHAR VARYING", "NATIONAL CHARACTER VARYING")},
    **{name: binary.binary for name in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB",
                                         "LONG VARBINARY")},
    "DATE": temporal.date,
    "TIME": temporal.time,
    "DATETIME": temporal.datetime_,
    "TIMESTAMP": temporal.timestamp,
    "YEAR": temporal.year,
    "JSON": json_type.json_,
    "ENUM": enum_set.enum,
    "SET": enum_set.set_,
    **{name: spatial.geometry for name in ("GEOMETRY", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING",
                                            "MULTIPOLYGON", "GEOMETRYCOLLECTION", "GEOMCOLLECTION")},
    "POINT": spatial.point,
    "VECTOR": vector.vector,
}


def resolve(column: Column, settings: ValueSettings, lenient_defaults: bool = False,
            table: str | None = None) -> ColumnConverter:
    """The column's converter. A DDL default its type cannot take raises `DefaultValueError`, or with
    `lenient_defaults` leaves the field without a default (the schema tracker has already warned: the
    row path must never fail on a table the history accepted)."""
    factory = _FAMILIES.get(base_type_name(column))
    target = converter_target(settings.custom_converters, table, column) if settings.custom_converters else None
    zero_date_fallback = None
    if target is not None:  # converters=...: Debezium's custom converters take the column over
        if target.startswith("zero_date:"):
            rule = next(r for r in settings.custom_converters if r.target(table, column) == target)
            text = rule.fallback_text(table, column)
            factory = lambda c, s: zero_date_kind(c, s, target.split(":")[1], text)  # noqa: E731
            zero_date_fallback = True
        else:
            factory = (lambda c, s: boolean_kind(c)) if target == "tinyint_boolean" else (  # noqa: E731
                lambda c, s: jdbc_sink_kind(c, target))
    if factory is None:
        raise UnsupportedColumnType(
            f"column {column.name!r}: type {column.type_name!r} has no converter; "
            "exclude the column (column.exclude.list) or report the type"
        )
    kind = factory(column, settings)
    schema = replace(kind.schema, optional=column.optional or kind.always_optional)
    if settings.include_schema_comments and column.comment:
        schema = replace(schema, doc=column.comment)
    if column.default_value_expression is not None and kind.parse_default is not None:
        try:
            default = kind.parse_default(column.default_value_expression, column)
        except _DEFAULT_FAILURES as exc:
            if not lenient_defaults:
                raise DefaultValueError(column.name, column.default_value_expression, exc) from exc
            log.debug("column %r: default %r dropped (%s)", column.name, column.default_value_expression, exc)
            default = None
        if default is not None:
            schema = replace(schema, default=default)
    fallback = None
    if not column.optional:
        fallback = schema.default if schema.has_default else kind.fallback
    if zero_date_fallback:
        # ZeroDateFallbackConverter: every null becomes the fallback, in nullable columns too; the field is
        # optional when the column is nullable or there is no fallback
        fallback = kind.fallback
        schema = replace(schema, optional=column.optional or kind.fallback is None)
    return ColumnConverter(column.name, schema, kind.from_binlog, kind.from_snapshot, fallback, kind.from_epoch_us)


def unusable_column(table: Table, settings: ValueSettings) -> str | None:
    """Why a column of `table` cannot be converted as declared (unknown type, unconvertible default), or None."""
    for column in table.columns:
        try:
            resolve(column, settings, table=f"{table.id.database}.{table.id.table}")
        except (DefaultValueError, UnsupportedColumnType) as exc:
            return str(exc)
    return None
