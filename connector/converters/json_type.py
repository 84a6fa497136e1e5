"""JSON columns → `io.debezium.data.Json` strings.

* Snapshot (and MariaDB, whose JSON is LONGTEXT): the server's text, unchanged.
* MySQL binlog: binary JSON that python-mysql-replication decodes to Python objects (object keys and
  strings as bytes). Debezium renders it with mysql-binlog-connector-java's `JsonStringFormatter`:
  compact (`{"k":[1,2,3]}`), keys in stored order, strings escaped like Jackson but with non-ASCII
  kept raw, doubles via `Double.toString` unless that has an exponent, in which case the exact
  `new BigDecimal(double).toPlainString()`.
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal
from typing import Any

from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from connector.java.text import java_double
from schema_history.model import Column

JSON = ConnectSchema(Type.STRING, name="io.debezium.data.Json", version=1)

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\f": "\\f", "\n": "\\n", "\r": "\\r"}


def _string(text: str) -> str:
    if not any(ch in _SHORT or ch < " " for ch in text):
        return '"' + text + '"'
    out = []
    for ch in text:
        esc = _SHORT.get(ch)
        out.append(esc if esc is not None else (f"\\u{ord(ch):04X}" if ch < " " else ch))
    return '"' + "".join(out) + '"'


def _text(value: Any) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, (bytes, bytearray)) else str(value)


def _double(value: float) -> str:
    text = java_double(value)
    return format(Decimal(value), "f") if "E" in text else text


def render_binary_json(value: Any) -> str:
    """Python objects from python-mysql-replication's binary-JSON parser → Debezium's JSON text."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, dict):
        return "{" + ",".join(_string(_text(k)) + ":" + render_binary_json(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render_binary_json(v) for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray, str)):
        return _string(_text(value))
    if isinstance(value, (_dt.date, _dt.time, _dt.timedelta)):
        return '"' + str(value) + '"'
    return _string(str(value))


def _from_binlog(value: Any) -> str:
    if isinstance(value, str):  # MariaDB: the text as written
        return value
    return render_binary_json(value)


def _from_snapshot(value: Any) -> str:
    return value if isinstance(value, str) else _text(value)


def _default(expr: str, column: Column) -> Any:
    if expr.upper() == "NULL":
        return None
    if len(expr) >= 2 and expr[0] == expr[-1] == "'":
        return expr[1:-1]
    return expr


def json_(column: Column, settings: ValueSettings) -> Kind:
    return Kind(JSON, _from_binlog, _from_snapshot, _default)
