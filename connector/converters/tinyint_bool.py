"""Debezium's `TinyIntOneToBooleanConverter` values: TINYINT columns a rule selects
(connector/config/custom_converters.py) as Connect BOOLEAN.

A binlog value is true when it is > 0 read as a signed byte (TINYINT UNSIGNED 200 is false from the
binlog); a snapshot value comes from Connector/J as a Boolean for TINYINT(1) (true when -1 or > 0) and as
an Integer otherwise (true when > 0, 200 included). The DDL default goes through the same rule.
"""

from __future__ import annotations

from connector.converters.base import Kind
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column

__all__ = ["boolean_kind"]


def _from_binlog(value: object) -> object:
    if value is None or isinstance(value, bool):
        return value
    # the binlog holds one byte; Debezium sees it signed (TINYINT UNSIGNED 255 is -1, hence false)
    byte = int(value) & 0xFF  # type: ignore[call-overload]
    return (byte if byte < 128 else byte - 256) > 0


def _snapshot_fn(column: Column):  # type: ignore[no-untyped-def]
    # Connector/J hands a TINYINT(1) over as a Boolean, wider TINYINTs as integers
    if column.length == 1:
        # BooleanValueFactory.createFromLong: -1 or > 0 (ODBC compatibility), so -2 is false
        return lambda v: v if v is None or isinstance(v, bool) else (int(v) == -1 or int(v) > 0)
    return lambda v: v if v is None or isinstance(v, bool) else int(v) > 0  # an Integer: unsigned stays unsigned


def _default(expr: str, column: Column) -> object:
    text = expr.strip().strip("'")
    if text.upper() in ("", "NULL"):
        return None
    if text.upper() in ("TRUE", "FALSE"):
        return text.upper() == "TRUE"
    return int(float(text)) > 0


def boolean_kind(column: Column) -> Kind:
    return Kind(ConnectSchema(Type.BOOLEAN), _from_binlog, _snapshot_fn(column), _default)
