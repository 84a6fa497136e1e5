"""Per table version: a decoded binlog row change → its key bytes and row-image texts, with no per-row objects.

The general path builds, per row change, a `RowChange`, two `EventSource`/`SourceInfo` copies, a
`PlannedEvent`, a `DataChange`, an offset map and a header list before any JSON is written (issue 27:
~30 µs of ~110 µs per row change). A row change that becomes exactly one change event (an insert, a delete,
an update that keeps its key) needs none of them: each image goes through the table version's generated image
writer (image_writer.py: its binlog converters into its value fields' writers, no list of Connect values in
between), the key's columns alone are converted for the key, and the envelope is joined by
`TableSchema.envelope_text`, which the general path uses as well.

`render` answers None for every row the general path must take, which then builds the record (or raises the
error naming the column) as before: an image of another column count than the schema history's, a value a
converter or writer refuses, an update whose decoded key values differ (perhaps a key change: a delete, its
tombstone and a create with key headers), and what the image writer declines (a NULL to substitute or to refuse,
a BLOB-sized value written straight into bytes by serde/big_bytes.py). Tables whose value images are
projected or masked (column.include/exclude.list, column mappers) have no renderer.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Sequence

from connector.events.image_writer import ImageColumn, ImageWriter, compile_image_writer
from connector.events.table_schema import TableSchema
from connector.serde.big_bytes import BIG_BYTES
from connector.serde.json_values import BOOL_WRITER, INT_WRITER, struct_fields

__all__ = ["KeyWriter", "RENDER_FAILURES", "RenderedRow", "RowRenderer", "big_bytes_at", "image_columns", "image_writer",
           "key_writer", "row_renderer"]

# What a converter or writer raises on a value it was not built for (as connector/dispatch/row_records.py's
# VALUE_FAILURES): the row is handed to the general path, which raises the error naming the column.
RENDER_FAILURES = (TypeError, ValueError, AttributeError, ArithmeticError, LookupError)

# (key bytes or None, before image's JSON text, after image's JSON text); "null" for a missing image
RenderedRow = tuple["bytes | None", str, str]
# (before image or None, after image or None) in table column order → the rendered row, or None
RowRenderer = Callable[[Sequence[Any] | None, Sequence[Any] | None], "RenderedRow | None"]
# a row's key column values, in key order → its key bytes (None: the table has no key)
KeyWriter = Callable[[tuple], "bytes | None"]


def row_renderer(ts: TableSchema) -> RowRenderer | None:
    """The table version's renderer of binlog row changes, or None when its value images are not its row images."""
    if not ts.value_images_are_rows or not ts.key_is_columns:  # a strategy's key field: the general path
        return None
    write = image_writer(ts)
    if write is None:
        return None
    key_indexes = ts.key_indexes if ts.key_schema is not None else ()
    key_values: Callable[[Sequence[Any]], tuple] = (
        (lambda image: ()) if not key_indexes else itemgetter(*key_indexes) if len(key_indexes) > 1
        else (lambda image, i=key_indexes[0]: (image[i],)))
    key_for = key_writer(ts)

    def render(before: Sequence[Any] | None, after: Sequence[Any] | None) -> RenderedRow | None:
        try:
            # the decoded key values: equal ones convert to equal keys; unequal ones may be a key change (a
            # delete, its tombstone and a create), which the general path tells from an equal converted key
            if before is not None and after is not None and key_indexes and key_values(before) != key_values(after):
                return None
            key_row = after if after is not None else before
            assert key_row is not None
            return (key_for(key_values(key_row)), "null" if before is None else write(before),
                    "null" if after is None else write(after))
        except RENDER_FAILURES:
            return None

    return render


def key_writer(ts: TableSchema) -> KeyWriter:
    """The key bytes of a row from its key columns' decoded values (in `ts.key_indexes` order): those columns alone
    are converted (the image writer keeps no converted values); None for a table without a key."""
    key_indexes = ts.key_indexes if ts.key_schema is not None else ()
    key_bytes = ts.key_bytes_from_key
    converters = tuple(ts.converters[i].from_binlog for i in key_indexes)
    if not converters:
        return lambda values: None
    if all(convert is None for convert in converters):  # no key column converts its values (an integer key)
        return key_bytes

    def key_for(values: tuple) -> bytes | None:
        return key_bytes(tuple(value if value is None or convert is None else convert(value)
                               for value, convert in zip(values, converters)))

    return key_for


def image_columns(ts: TableSchema) -> list[ImageColumn] | None:
    """Per column of `ts`, what its image writer needs (image_writer.py), or None when its row images are not its
    value images (a column filter or mapper)."""
    big = ts.big_rows
    big_columns = frozenset(big.indexes) if big is not None else frozenset()  # BYTES, not DECIMAL
    columns = [ImageColumn(c.from_binlog, field, c.fallback is not None, i in big_columns)
               for i, (c, field) in enumerate(zip(ts.converters, struct_fields(ts.value_schema)))]
    return columns if len(columns) == len(ts.table.columns) else None


def big_bytes_at(ts: TableSchema) -> int:
    """The size from which a BYTES value is written straight into bytes (serde/big_bytes.py), not as text."""
    big = ts.big_rows
    return big.threshold if big is not None else BIG_BYTES


def image_writer(ts: TableSchema) -> ImageWriter | None:
    """`ts`'s generated image writer (image_writer.py): its row images are its value images (no column filter
    or mapper), converted by its binlog converters and written by its value schema's field writers."""
    columns = image_columns(ts)
    if columns is None:
        return None
    return compile_image_writer(columns, int_writer=INT_WRITER, bool_writer=BOOL_WRITER, big_at=big_bytes_at(ts))
