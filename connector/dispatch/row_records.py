"""One binlog row change → the records it becomes, in the dispatcher's process or in an encode worker.

The steps every row change of a table version takes, wherever it is rendered: the images checked against the
schema history's column count and converted to Connect values (`row_values`); the records planned (a change
event; a delete's tombstone; an update that changes the key: a delete, its tombstone and a create) with their
key headers (`planned_rows`, `event_headers`). The dispatcher interleaves them with offsets and transaction
blocks (dispatcher.py); a worker renders a whole rows event at once (encode_pool.py).
"""

from __future__ import annotations

from typing import Any, Sequence

from connector.config.modes import Operation
from connector.errors import SchemaError, Where
from connector.events import records
from connector.events.envelope import PlannedEvent, plan_row
from connector.events.row_errors import row_value_error
from connector.events.table_schema import TableSchema

__all__ = ["VALUE_FAILURES", "event_headers", "failed_row", "planned_rows", "row_values"]

# What a converter or writer raises on a value it was not built for (bytes for a string, DataError for a
# required null). Caught per row and turned into a RowValueError naming table, column and position; Kafka and
# our own typed errors are not among them and pass through unchanged.
VALUE_FAILURES = (TypeError, ValueError, AttributeError, ArithmeticError, LookupError)


def row_values(ts: TableSchema, before: list | None, after: list | None, expected: int, file: str, pos: int,
               dotted: str) -> tuple[list | None, list | None]:
    """The binlog images (table column order) as Connect values; SchemaError when an image does not have the
    `expected` columns, RowValueError (naming the column) when a value does not convert."""
    for image in (before, after):
        if image is not None and len(image) != expected:
            raise SchemaError(
                f"row event has {len(image)} columns but the schema history says {expected}",
                where=Where(file, pos, dotted),
                fix="the last DDL applied to this table does not match the binlog: restore the schema history "
                    "or rebuild it with snapshot.mode=recovery")
    try:
        return (ts.convert_binlog_row(before) if before is not None else None,
                ts.convert_binlog_row(after) if after is not None else None)
    except VALUE_FAILURES as exc:
        raise failed_row(ts, before, after, exc, file, pos) from exc


def failed_row(ts: TableSchema, before: list | None, after: list | None, exc: Exception, file: str,
               pos: int) -> Exception:
    # replayed from the decoded images: the after image names the column unless only the before fails
    return row_value_error(ts, after, "binlog", exc, file, pos, alternative=before)


def planned_rows(ts: TableSchema, op: Operation, before: Sequence[Any] | None, after: Sequence[Any] | None,
                 tombstones_on_delete: bool) -> list[PlannedEvent]:
    if op is Operation.UPDATE:  # only an update can change the key (and become a delete and a create)
        old_key = ts.key_values(before) if before is not None else None
        new_key = ts.key_values(after) if after is not None else None
        return plan_row(op, before, after, old_key, new_key, tombstones_on_delete)
    return plan_row(op, before, after, tombstones_on_delete=tombstones_on_delete)


def event_headers(ts: TableSchema, event: PlannedEvent, context: list[tuple[str, bytes]],
                  header_format: records.HeaderFormat) -> list[tuple[str, bytes]]:
    """The headers of a planned event: its key headers (a key change's), then the context headers. A new list:
    a delete and its tombstone share it, as Debezium's two records share one ConnectHeaders."""
    if not event.headers or ts.key_schema is None:
        return list(context)
    return [records.key_header(name, ts.key_schema, key, header_format) for name, key in event.headers] + context
