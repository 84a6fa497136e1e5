"""Character columns → Connect string. Values arrive decoded (str) from both paths; bytes only when
python-mysql-replication did not know the charset, which we then read as UTF-8."""

from __future__ import annotations

from typing import Any

from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column

STRING = ConnectSchema(Type.STRING)


def _as_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    return bytes(value).decode("utf-8", errors="replace")


def _default(expr: str, column: Column) -> Any:
    # the history keeps string defaults unquoted (Debezium strips the quotes when parsing)
    if expr.upper() == "NULL":
        return None
    if len(expr) >= 2 and expr[0] == expr[-1] == "'":
        return expr[1:-1].replace("''", "'")
    return expr


def string(column: Column, settings: ValueSettings) -> Kind:
    return Kind(STRING, _as_str, _as_str, _default)
