"""The seam between the snapshot and the dispatcher: what the snapshot hands on, and what it asks about tables."""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from connector.offsets.position import SourceOffset
from connector.events.snapshot_text import Decoder
from connector.events.changes import EventSource
from schema_history.model import TableId

__all__ = ["GroupRowWriter", "RowWriter", "SnapshotEmitter", "TableSchemas"]

# One table's rows → records: (row values, source block, offset).
RowWriter = Callable[[Any, EventSource, Any], None]


@runtime_checkable
class GroupRowWriter(Protocol):
    """A `RowWriter` that also takes consecutive rows of a batch at once: the first row with source `first`, the
    rest with `source`, only the last carrying `offset` (committed once Kafka acknowledged all of them)."""

    def __call__(self, row: Any, source: EventSource, offset: Any) -> None: ...

    def group(self, rows: Sequence[Any], first: EventSource, source: EventSource, offset: SourceOffset) -> None: ...


class TableSchemas(Protocol):
    """What the planner needs to know of the tables in the schema history."""

    def table_known(self, table_id: TableId) -> bool: ...

    def table_columns(self, table_id: TableId) -> tuple[list[str], tuple[str, ...]]:
        """(column names, primary key column names) of the table in the schema history."""
        ...


class SnapshotEmitter(TableSchemas, Protocol):
    def schema_statement(self, database: str, ddl: str, source: EventSource, offset: SourceOffset) -> None: ...

    def snapshot_row(self, table_id: TableId, values: tuple, source: EventSource, offset: SourceOffset) -> None: ...

    def snapshot_text_rows(self, table_id: TableId, decoders: list[Decoder]) -> RowWriter | None:
        """`snapshot_row` for one table's raw text-protocol rows (snapshot/raw_rows.py), or None; it may be a
        `GroupRowWriter`."""
        ...

    def checkpoint(self, offset: SourceOffset) -> None:
        """An offset reached without a record: committed once the records before it are acknowledged."""
        ...
