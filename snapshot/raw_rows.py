"""A streamed SELECT's rows as the server sent them: one `bytes` (or None for NULL) per column.

PyMySQL decodes every value of a text-protocol row through three method calls and a converter
(`read_length_coded_string`, `decode`, `int`/`Decimal`...), and the connector's converters then
convert the result again. The snapshot's fast path skips that layer: it splits each row packet
here and hands the raw values to a per-table writer compiled from PyMySQL's own per-column
`(encoding, converter)` pairs (`column_decoders`), so every value is decoded exactly as PyMySQL
would, once, straight into its JSON text (connector/events/snapshot_text.py).

Only for `SSCursor` results (unbuffered): rows are read one packet at a time from the socket, as
`SSCursor.fetchmany` does, and the result is left in the state PyMySQL leaves it in at EOF so that
`cursor.close()` works unchanged. Uses PyMySQL 1.2 internals (`_result`, `_read_packet`,
`_check_packet_is_eof`); the version is pinned in pyproject.toml.
"""

from __future__ import annotations

import pymysql.cursors

from connector.events.snapshot_text import Decoder, RawRow, decode

__all__ = ["column_decoders", "decode", "fetch_raw", "split_row"]

# Length-encoded string prefixes: 0xfb is NULL, 0xfc/0xfd/0xfe are followed by a 2/3/8-byte length.
_NULL = 0xFB
_WIDTH = {0xFC: 2, 0xFD: 3, 0xFE: 8}


def column_decoders(cursor: pymysql.cursors.SSCursor) -> list[Decoder]:
    """PyMySQL's per-column decoding of the cursor's current result (what `fetchone` would apply)."""
    return list(cursor._result.converters)


def split_row(data: bytes, count: int) -> RawRow:
    """A text-protocol row packet → its `count` values (PyMySQL's `_read_row_from_packet` minus decoding)."""
    out: RawRow = []
    append = out.append
    pos = 0
    end_of_data = len(data)
    for _ in range(count):
        if pos >= end_of_data:  # PyMySQL too stops at a short row (its PR 434)
            break
        size = data[pos]
        if size < _NULL:
            pos += 1
            append(data[pos:pos + size])
            pos += size
        elif size == _NULL:
            append(None)
            pos += 1
        else:
            start = pos + 1 + _WIDTH[size]
            pos = start + int.from_bytes(data[pos + 1:start], "little")
            append(data[start:pos])
    return out


def fetch_raw(cursor: pymysql.cursors.SSCursor, size: int) -> list[RawRow]:
    """Up to `size` next rows of the cursor's unbuffered result (an empty list at the end)."""
    result = cursor._result
    if result is None or not result.unbuffered_active:
        return []
    conn = result.connection
    count = result.field_count
    rows: list[RawRow] = []
    append = rows.append
    read_packet = conn._read_packet
    for _ in range(size):
        packet = read_packet()
        data = packet.get_all_data()
        if data[0] == 0xFE and len(data) < 9 and result._check_packet_is_eof(packet):
            # as MySQLResult._read_rowdata_packet_unbuffered does at the end of the result
            result.unbuffered_active = False
            result.connection = None
            result.rows = None
            break
        append(split_row(data, count))
    return rows

