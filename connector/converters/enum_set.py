"""ENUM → `io.debezium.data.Enum`, SET → `io.debezium.data.EnumSet` (string; `allowed` lists the values).

python-mysql-replication gives a SET as a Python `set` (order lost) and an empty SET as None with
`none_sources` 'empty set' (B10); the row code maps that None back to `""`. Values are joined in
definition order, as Debezium's bitmask conversion does.
"""

from __future__ import annotations

import logging
from typing import Any

from connector.config.modes import EventConvertingFailureHandlingMode
from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column


def _without_quotes(literal: str) -> str:
    if len(literal) >= 2 and literal[0] == literal[-1] and literal[0] in "'\"":
        return literal[1:-1]
    return literal


def enum_options(column: Column) -> list[str]:
    """The members as Debezium lists them (`MySqlAntlrDdlParser.extractEnumAndSetOptions`): quotes stripped,
    `,` escaped as `\\,`, `\\'` and `''` read as `'`, every other backslash kept as written. These are
    also the values of streamed rows (Debezium maps the binlog's index to this list); snapshot rows carry the
    server's own text."""
    return [_without_quotes(lit).replace(",", "\\,").replace("\\'", "'").replace("''", "'")
            for lit in column.enum_values]


_MYSQL_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


def _stored_text(literal: str) -> str:
    """What the server stores for a member literal: `''` → `'`, backslash escapes resolved."""
    quote = literal[0] if len(literal) >= 2 and literal[0] == literal[-1] and literal[0] in "'\"" else ""
    body = _without_quotes(literal)
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(_MYSQL_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        elif quote and c == quote and body[i + 1:i + 2] == quote:
            out.append(quote)
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _binlog_names(column: Column) -> tuple[list[str], dict[str, str]]:
    options = enum_options(column)
    return options, {_stored_text(lit): option for lit, option in zip(column.enum_values, options)}


log = logging.getLogger(__name__)


def _from_snapshot(column: Column, mode: EventConvertingFailureHandlingMode) -> Any:
    """The snapshot's value: the server's text, except for a member of a binary character set (an ENUM in a
    `CHARSET=binary` table, MediaWiki's `cl_type`), which the driver hands over as bytes. Debezium's binlog
    connectors take only a string there: `handleUnknownData` throws (BinlogValueConverters, nullable columns
    too), and TableSchemaBuilder applies event.converting.failure.handling.mode: fail stops; warn and skip leave
    the field unset, so the record carries the column's default, null without one (or fails as a required null),
    and log the failure at WARN or DEBUG (goldens realworld-mysql for warn, converting_failure-skip). Streamed rows
    carry the member's index and are not affected."""
    warned = [False]
    failure = f"Failed to properly convert data value for '{column.name}' of type {column.type_name}"

    def convert(value: Any) -> Any:
        if isinstance(value, str):
            return value
        if mode is EventConvertingFailureHandlingMode.FAIL:
            # a ValueError: the dispatcher names table, column and binlog position in one line and stops
            raise ValueError(f"{failure} (a member of a binary character set, class={type(value).__name__}); "
                             "event.converting.failure.handling.mode=fail")
        if mode is EventConvertingFailureHandlingMode.SKIP:
            log.debug("%s: written as its default or null", failure)
        elif not warned[0]:  # once per table version: a big table would log every row
            warned[0] = True
            log.warning("%s (a member of a binary character set, class=%s): written as its default or null, as "
                        "Debezium does", failure, type(value).__name__)
        return None

    return convert


def _default(expr: str, column: Column) -> Any:
    if expr.upper() == "NULL":
        return None
    if len(expr) >= 2 and expr[0] == expr[-1] == "'":
        return expr[1:-1].replace("''", "'")
    return expr


def enum(column: Column, settings: ValueSettings) -> Kind:
    values, by_name = _binlog_names(column)
    schema = ConnectSchema(Type.STRING, name="io.debezium.data.Enum", version=1, parameters=(("allowed", ",".join(values)),))
    by_index = ("", *values)  # index 0: the invalid value '' of a non-strict insert

    def from_binlog(value: Any) -> str:
        # the binlog decoder passes the 1-based index when the TABLE_MAP had no usable member names
        if isinstance(value, int):
            return by_index[value] if value < len(by_index) else ""
        return by_name.get(value, value)

    return Kind(schema, from_binlog, _from_snapshot(column, settings.converting_failure_mode), _default)


def set_(column: Column, settings: ValueSettings) -> Kind:
    values, by_name = _binlog_names(column)
    schema = ConnectSchema(Type.STRING, name="io.debezium.data.EnumSet", version=1, parameters=(("allowed", ",".join(values)),))
    order = {v: i for i, v in enumerate(by_name)}

    def from_binlog(value: Any) -> str:
        if isinstance(value, str):
            return ",".join(by_name.get(v, v) for v in value.split(",")) if value else value
        if isinstance(value, int):  # the bit mask, when the TABLE_MAP had no usable member names
            return ",".join(v for i, v in enumerate(values) if value >> i & 1)
        return ",".join(by_name.get(v, v) for v in sorted(value, key=lambda v: order.get(v, len(order))))

    return Kind(schema, from_binlog, _from_snapshot(column, settings.converting_failure_mode), _default)
