"""Partial JSON updates (`binlog_row_value_options=PARTIAL_JSON`): MySQL logs an UPDATE that changes a JSON
document in place (JSON_SET / JSON_REPLACE / JSON_REMOVE) as a PARTIAL_UPDATE_ROWS_EVENT whose after image holds,
for such a column, only the changes. Debezium 3.6 drops these events (no record at all); binlog-cdc applies the
changes to the before image's document, so the after image is the full document, as without the option.

Row image layout (sql/rpl_record.cc, log_event.cc `print_verbose`): the before image as in UPDATE_ROWS_EVENT; the
after image starts with `value_options` (length-encoded integer, bit 0 PARTIAL_JSON_UPDATES) and, when set, one
bit per JSON column of the table (table order, present or not): 1 = that column holds a diff vector. A diff vector
(sql/json_diff.cc `Json_diff_vector::read_binary`) is a 4-byte length, then diffs: operation (1 byte: 0 REPLACE,
1 INSERT, 2 REMOVE), path (length-encoded length + text, MySQL's JSON path syntax), and for REPLACE/INSERT the new
value (length-encoded length + binary JSON).

Documents are changed in their rendered text (json_binary.py's, Debezium's spelling): parsed keeping each number's
digits, changed, and rendered again with object keys in MySQL's binary order (shorter keys first, then by bytes),
which is the order a full image of the changed document has.
"""

from __future__ import annotations

import json
import re
import struct
from decimal import Decimal
from typing import Any

from connector.binlog.json_binary import _string, render_json_binary
from connector.binlog.table_map_cache import _length_coded as _length_encoded

__all__ = ["JsonDiffError", "apply_json_diffs", "read_json_diffs"]

REPLACE, INSERT, REMOVE = 0, 1, 2
PARTIAL_JSON_UPDATES = 1


class JsonDiffError(ValueError):
    """A diff vector that does not decode, or does not apply to the before image's document."""


def read_json_diffs(data: bytes) -> list[tuple[int, str, str | None]]:
    """The diffs of one diff vector's body (after its 4-byte length): (operation, path, new value's text)."""
    diffs: list[tuple[int, str, str | None]] = []
    pos = 0
    try:
        while pos < len(data):
            operation = data[pos]
            if operation > REMOVE:
                raise JsonDiffError(f"unknown JSON diff operation {operation}")
            length, pos = _length_encoded(data, pos + 1)
            path = data[pos:pos + length].decode("utf-8")
            pos += length
            value = None
            if operation != REMOVE:
                length, pos = _length_encoded(data, pos)
                if pos + length > len(data):
                    raise JsonDiffError(f"value of {length} bytes overruns the diff vector")
                value = render_json_binary(data[pos:pos + length])
                pos += length
            diffs.append((operation, path, value))
    except (IndexError, KeyError, UnicodeDecodeError, struct.error, ValueError) as exc:
        if isinstance(exc, JsonDiffError):
            raise
        raise JsonDiffError(f"truncated or corrupt diff vector ({exc})") from None
    return diffs


_LEG = re.compile(r'\.(?:([A-Za-z_$][\w$]*)|("(?:[^"\\]|\\.)*"))|\[(\d+)\]')


def _path_legs(path: str) -> list[str | int]:
    """`$.a."b c"[2]` -> ["a", "b c", 2] (MySQL writes diff paths with concrete keys and indexes only)."""
    if not path.startswith("$"):
        raise JsonDiffError(f"JSON path {path!r} does not start with $")
    legs: list[str | int] = []
    pos = 1
    while pos < len(path):
        m = _LEG.match(path, pos)
        if not m:
            raise JsonDiffError(f"unsupported JSON path {path!r} at {path[pos:]!r}")
        key, quoted, index = m.groups()
        legs.append(int(index) if index is not None else key if key is not None else json.loads(quoted))
        pos = m.end()
    return legs


def _parse(text: str) -> Any:
    # Numbers as Decimal: `format(d, "f")` (render_binary_json) gives back the text json_binary wrote, "100.0" and
    # "-3" alike (json_binary never writes an exponent).
    return json.loads(text, parse_int=Decimal, parse_float=Decimal, object_pairs_hook=dict)


def _key_order(key: str) -> tuple[int, bytes]:
    raw = key.encode("utf-8")
    return len(raw), raw  # MySQL's binary JSON object order


def _apply(doc: Any, operation: int, legs: list[str | int], value: Any) -> Any:
    if not legs:
        if operation == REMOVE:
            raise JsonDiffError("cannot remove the whole document")
        return value
    parent = doc
    for leg in legs[:-1]:
        try:
            parent = parent[leg]
        except (KeyError, IndexError, TypeError):
            raise JsonDiffError(f"path leg {leg!r} is not in the before image's document") from None
    last = legs[-1]
    if isinstance(parent, dict) and isinstance(last, str):
        if operation == REMOVE:
            parent.pop(last, None)
        else:
            parent[last] = value
            if operation == INSERT:
                ordered = sorted(parent.items(), key=lambda kv: _key_order(kv[0]))
                parent.clear()
                parent.update(ordered)
    elif isinstance(parent, list) and isinstance(last, int):
        if operation == REMOVE:
            del parent[last]
        elif operation == INSERT or last >= len(parent):
            parent.insert(last, value)
        else:
            parent[last] = value
    else:
        raise JsonDiffError(f"path leg {last!r} does not fit a {type(parent).__name__}")
    return doc


def _render(value: Any) -> str:
    """json_binary's spelling of a parsed document. (connector/converters/json_type.py renders python-mysql-
    replication's objects the same way, but connector.binlog may not import connector.converters.)"""
    if isinstance(value, dict):
        return "{" + ",".join(_string(k) + ":" + _render(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_render(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, str):
        return _string(value)
    return "null" if value is None else "true" if value is True else "false"


def apply_json_diffs(before: str | None, diffs: list[tuple[int, str, str | None]]) -> str:
    """The document after the diffs, in json_binary's spelling. `before` is the before image's rendered document."""
    if before is None:
        raise JsonDiffError("the before image has no value for the column (binlog_row_image is not FULL for this "
                            "session?), so the partial JSON update cannot be applied")
    doc = _parse(before)
    for operation, path, value in diffs:
        doc = _apply(doc, operation, _path_legs(path), None if value is None else _parse(value))
    return _render(doc)
