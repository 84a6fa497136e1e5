"""Per table version: a decoded binlog row change → its key bytes and row-image texts, with no per-row objects.

The general path builds, per row change, a `RowChange`, two `EventSource`/`SourceInfo` copies, a
`PlannedEvent`, a `DataChange`, an offset map and a header list before any JSON is written (issue 27:
~30 µs of ~110 µs per row change). A row change that becomes exactly one change event (an insert, a delete,
an update that keeps its key) needs none of them: the images are converted and written by the table
version's own compiled converter and struct writer (the same functions the general path calls), and the
envelope is joined by `TableSchema.envelope_text`, which the general path uses as well.

`render` answers None for every row the general path must take, which then builds the record (or raises the
error naming the column) as before: an image of another column count than the schema history's, a value a
converter or writer refuses, an update that changes the key (a delete, its tombstone and a create with key
headers), a BLOB-sized value (written straight into bytes, serde/big_bytes.py). Tables whose value images are
projected or masked (column.include/exclude.list, column mappers) have no renderer.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Sequence

from connector.events.table_schema import TableSchema

__all__ = ["RENDER_FAILURES", "RenderedRow", "RowRenderer", "row_renderer"]

# What a converter or writer raises on a value it was not built for (as connector/dispatch/row_records.py's
# VALUE_FAILURES): the row is handed to the general path, which raises the error naming the column.
RENDER_FAILURES = (TypeError, ValueError, AttributeError, ArithmeticError, LookupError)

# (key bytes or None, before image's JSON text, after image's JSON text); "null" for a missing image
RenderedRow = tuple["bytes | None", str, str]
# (before image or None, after image or None) in table column order → the rendered row, or None
RowRenderer = Callable[[Sequence[Any] | None, Sequence[Any] | None], "RenderedRow | None"]


def row_renderer(ts: TableSchema) -> RowRenderer | None:
    """The table version's renderer of binlog row changes, or None when its value images are not its row images."""
    if not ts.value_images_are_rows:
        return None
    count = len(ts.table.columns)
    convert = ts.convert_binlog_row
    write = ts.value_schema.writer
    key_bytes = ts.key_bytes
    big = ts.big_rows
    holds_big = big.holds_big if big is not None else None
    key_of: Callable[[Sequence[Any]], Any] | None = (
        itemgetter(*ts.key_indexes) if ts.key_schema is not None and ts.key_indexes else None)

    def render(before: Sequence[Any] | None, after: Sequence[Any] | None) -> RenderedRow | None:
        try:
            if before is not None:
                if len(before) != count:
                    return None
                before = convert(before)
            if after is not None:
                if len(after) != count:
                    return None
                after = convert(after)
                if before is not None and key_of is not None and key_of(before) != key_of(after):
                    return None  # a key change: delete, tombstone, create
            if holds_big is not None and (holds_big(before) or holds_big(after)):
                return None
            key_row = after if after is not None else before
            assert key_row is not None
            return (key_bytes(key_row), "null" if before is None else write(before),
                    "null" if after is None else write(after))
        except RENDER_FAILURES:
            return None

    return render
