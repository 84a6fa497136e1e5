"""Which column of a row could not become part of a record, for the one-line error that stops the connector.

Converters and JSON writers run in loops compiled per table that know no column names, and a value of a type
nobody expected (bytes where a string was meant) fails deep inside them, e.g. in `jackson_string`. The
dispatcher catches such a failure per row and calls `row_value_error`, which replays the row column by
column, off the hot path, to name the column, its type and the Python type of the value; the result is a
`RowValueError` naming table and binlog position, never a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from connector.errors import RowValueError, Where
from connector.events.snapshot_text import Decoder, decode
from connector.serde.json_values import compile_writer

if TYPE_CHECKING:
    from connector.events.table_schema import TableSchema

__all__ = ["RowSide", "explain_row", "row_value_error"]

# which converter the row's values still have to go through: "binlog", "snapshot" or None (already converted)
RowSide = str | None

_FIX = ("exclude the column (column.exclude.list) or the table (table.exclude.list) to carry on; if the value "
        "is valid in the database, report this line: binlog-cdc does not expect it for this column")


def _converter(ts: TableSchema, index: int, side: RowSide) -> Callable[[Any], Any] | None:
    conv = ts.converters[index]
    return conv.from_binlog if side == "binlog" else conv.from_snapshot if side == "snapshot" else None


def explain_row(ts: TableSchema, values: Sequence[Any], side: RowSide,
                decoders: Sequence[Decoder] | None = None) -> str | None:
    """`column <name> (<TYPE>, <python type> value): <error>` for the first column whose value fails its
    converter or its field's writer, or None when every column passes on its own. With `decoders` the values
    are a raw text-protocol row, first decoded as PyMySQL would."""
    for index, column in enumerate(ts.table.columns):
        if index >= len(values):
            break
        raw = values[index]
        try:
            value = raw if decoders is None else decode(raw, decoders[index])
            fn = _converter(ts, index, side)
            value = value if value is None or fn is None else fn(value)
            if value is None:
                value = ts.converters[index].fallback
            compile_writer(ts.converters[index].schema)(value)
        except Exception as exc:  # noqa: BLE001 - any failure of this column is what is being located
            return (f"column {column.name} ({column.type_name}, {type(raw).__name__} value): "
                    f"{type(exc).__name__}: {' '.join(str(exc).split())}")
    return None


def row_value_error(ts: TableSchema, values: Sequence[Any] | None, side: RowSide, exc: Exception,
                    file: str | None, pos: int | None, alternative: Sequence[Any] | None = None,
                    decoders: Sequence[Decoder] | None = None) -> RowValueError:
    """The terminal error for a row of `ts` that failed with `exc`: `values` (or, when every column of it
    passes, `alternative`: an update's before image) are the row before `side`'s converters (and before
    `decoders`, for a raw snapshot row)."""
    located = None
    for image in (values, alternative):
        if located is None and image is not None:
            located = explain_row(ts, image, side, decoders)
    cause = located or f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return RowValueError(f"a row value cannot be written: {cause}",
                         where=Where(file, pos, ts.table.id.dotted()), fix=_FIX)
