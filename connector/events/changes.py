"""What a source says happened, before it becomes records: the per-event `source` facts (`EventSource`), one row
change (`RowChange`), and where each data event's transaction block and offset come from (`EventPositions`).

Streaming (connector/streaming/handler.py) and the snapshot (snapshot/) build them; the dispatcher
(connector/dispatch/) and the signal processor (connector/signals/) read them. They live here, below all of
those, so that none of them imports another for its types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from connector.offsets.position import SourceOffset
from connector.config.modes import Operation
from schema_history.model import TableId

__all__ = ["EventPositions", "EventSource", "RowChange"]


# Not frozen, like the other per-row objects: one is built per row change (`at_row`), and a frozen dataclass sets
# each field through object.__setattr__ (three times slower). Never changed once built.
@dataclass(slots=True, unsafe_hash=True)
class EventSource:
    """The per-event part of Debezium's `source` block (the rest is constant per connector)."""

    ts_ms: int
    db: str
    table: str | None
    server_id: int
    gtid: str | None
    file: str
    pos: int
    row: int
    thread: int | None
    query: str | None = None
    snapshot: str | None = None
    # µs precision source time when known (MySQL GTID events' original_commit_timestamp); wins over ts_ms.
    ts_us: int | None = None
    # The source of the rows event this one is a row of (`at_row`), the same object for all its rows: the
    # dispatcher renders a rows event's source block once through it (connector/dispatch/tables.py). None for a
    # source built directly (`dataclasses.replace` too builds one afresh).
    template: EventSource | None = field(default=None, init=False, repr=False, compare=False)

    def at_row(self, row: int) -> EventSource:
        """This source for another row of the same rows event."""
        copy = EventSource(self.ts_ms, self.db, self.table, self.server_id, self.gtid, self.file, self.pos, row,
                           self.thread, self.query, self.snapshot, self.ts_us)
        template = self.template
        copy.template = self if template is None else template
        return copy


# Not frozen: one is built per row change, and a frozen dataclass sets each field through object.__setattr__.
@dataclass(slots=True)
class RowChange:
    table_id: TableId
    op: Operation
    before: list | None
    after: list | None


class EventPositions(Protocol):
    """Hands out, per data event emitted, its `transaction` block and offset.

    One row change can become several data events (a primary-key change is a delete and a create),
    and each counts in the transaction's orders, so the emitter asks once per event it keeps.
    """

    def next_event(self, data_collection: str) -> tuple[tuple[str, int, int] | None, SourceOffset]: ...
