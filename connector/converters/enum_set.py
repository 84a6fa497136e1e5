"""ENUM → `io.debezium.data.Enum`, SET → `io.debezium.data.EnumSet` (string; `allowed` lists the values).

python-mysql-replication gives a SET as a Python `set` (order lost) and an empty SET as None with
`none_sources` 'empty set' (B10); the row code maps that None back to `""`. Values are joined in
definition order, as Debezium's bitmask conversion does.
"""

from __future__ import annotations

from typing import Any

from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column


def enum_literals(column: Column) -> list[str]:
    """`("'small'", "'it''s'")` → `['small', "it's"]`."""
    out = []
    for literal in column.enum_values:
        text = literal
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1].replace(text[0] * 2, text[0])
        out.append(text)
    return out


def _default(expr: str, column: Column) -> Any:
    if expr.upper() == "NULL":
        return None
    if len(expr) >= 2 and expr[0] == expr[-1] == "'":
        return expr[1:-1].replace("''", "'")
    return expr


def enum(column: Column, settings: ValueSettings) -> Kind:
    values = enum_literals(column)
    schema = ConnectSchema(Type.STRING, name="io.debezium.data.Enum", version=1, parameters=(("allowed", ",".join(values)),))
    by_index = ("", *values)  # index 0: the invalid value '' of a non-strict insert

    def from_binlog(value: Any) -> str:
        # the binlog decoder passes the 1-based index when the TABLE_MAP had no usable member names
        if isinstance(value, int):
            return by_index[value] if value < len(by_index) else ""
        return value

    return Kind(schema, from_binlog, None, _default)


def set_(column: Column, settings: ValueSettings) -> Kind:
    values = enum_literals(column)
    schema = ConnectSchema(Type.STRING, name="io.debezium.data.EnumSet", version=1, parameters=(("allowed", ",".join(values)),))
    order = {v: i for i, v in enumerate(values)}

    def from_binlog(value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, int):  # the bit mask, when the TABLE_MAP had no usable member names
            return ",".join(v for i, v in enumerate(values) if value >> i & 1)
        return ",".join(sorted(value, key=lambda v: order.get(v, len(order))))

    return Kind(schema, from_binlog, None, _default)
