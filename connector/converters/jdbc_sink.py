"""Debezium's `JdbcSinkDataTypesConverter` values (rules: connector/config/custom_converters.py).

* boolean → INT16 1/0: a Boolean as is, a number > 0 (the binlog's signed byte for TINYINT), a string
  parsed as an int > 0, else as `Boolean.parseBoolean`;
* real → FLOAT64 (`Number.doubleValue`, so a FLOAT widens exactly) or, with `treat.real.as.double=false`,
  FLOAT32;
* string → STRING with the parameter `__debezium.source.column.character_set`; numbers by `toString`.
A NOT NULL column that yields null takes the converted default (the types' fallback 0 / 0.0 / "" without).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from connector.converters.base import Kind
from connector.java.text import java_double, to_float32
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column

__all__ = ["jdbc_sink_kind"]

_INT = re.compile(r"[+-]?[0-9]+")


def _signed_byte_if_tinyint(column: Column, value: int) -> int:
    if column.type_name.upper().startswith("TINYINT"):
        byte = value & 0xFF
        return byte if byte < 128 else byte - 256
    return value


def _boolean(column: Column, snapshot: bool) -> Callable[[Any], Any]:
    bit = column.type_name.upper() == "BIT"

    def convert(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, bool):
            return int(value)
        if bit:
            # from the binlog Debezium hands over a BitSet it cannot convert (a warning, then the fallback 0);
            # from Connector/J a BIT(1) is a Boolean, a wider BIT a byte[] (the fallback again)
            return int(any(bytes(value))) if snapshot and column.length == 1 and isinstance(
                value, (bytes, bytearray)) else (int(bool(value)) if snapshot and column.length == 1 else 0)
        if isinstance(value, (bytes, bytearray)):
            return 0
        if isinstance(value, str):
            return int(int(value) > 0) if _INT.fullmatch(value) else int(value.lower() == "true")
        number = int(value)
        if snapshot and column.length == 1 and column.type_name.upper().startswith("TINYINT"):
            return int(number == -1 or number > 0)  # Connector/J's Boolean for TINYINT(1)
        return int((number if snapshot else _signed_byte_if_tinyint(column, number)) > 0)
    return convert


def _string(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value)
    return str(value)


def jdbc_sink_kind(column: Column, target: str) -> Kind:
    if target == "boolean":
        def default(expr: str, c: Column) -> Any:
            text = expr.strip().strip("'")
            return None if text.upper() in ("", "NULL") else _boolean(c, True)(text)
        return Kind(ConnectSchema(Type.INT16), _boolean(column, False), _boolean(column, True), default, fallback=0)
    if target in ("real_double", "real_float"):
        double = target == "real_double"
        fn: Callable[[Any], Any] = (lambda v: None if v is None else float(v)) if double else (
            lambda v: None if v is None else to_float32(float(v)))

        def real_default(expr: str, c: Column) -> Any:
            text = expr.strip().strip("'")
            return None if text.upper() in ("", "NULL") else fn(text)
        return Kind(ConnectSchema(Type.FLOAT64 if double else Type.FLOAT32), fn, fn, real_default, fallback=0.0)
    parameters = (("__debezium.source.column.character_set", column.charset_name),)  # None for a non-string column

    def string_default(expr: str, c: Column) -> Any:
        text = expr.strip()
        if text.upper() == "NULL":
            return None
        return text[1:-1].replace("''", "'") if len(text) >= 2 and text[0] == text[-1] == "'" else text
    return Kind(ConnectSchema(Type.STRING, parameters=parameters), _string, _string, string_default, fallback="")

