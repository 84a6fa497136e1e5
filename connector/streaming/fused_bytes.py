"""A rows event's row changes straight from its row images' bytes (the fused row path, issue 27).

For a rows event the reader decoded itself whose images are all full (binlog_row_image=FULL), the streaming handler
hands each image to the table version's bytes → text function (connector/dispatch/image_text.py) and each row's texts
to the fused emission (`FusedRowsEvent.rendered`), with no decoded values in between. A row either declines is
decoded here (`RowPlan.full_row`) and takes `row_change`, after the group so far, as every row did before.
"""

from __future__ import annotations

from typing import Callable, Protocol

from connector.binlog.rows_decoder import RowPlan
from connector.binlog.wire_events import WireRows
from connector.config.modes import Operation
from connector.events.changes import EventPositions, EventSource, RowChange
from connector.streaming.emitter import FusedRowsEvent
from schema_history.model import TableId

__all__ = ["RowCounters", "rows_from_bytes"]


class RowCounters(Protocol):
    """The counters of the streaming state (handler.py's `StreamingState`) each emitted row moves: `rows` (the
    offset's row count within the event) and `last_row` (the source row a later DDL names)."""

    rows: int
    last_row: int


def rows_from_bytes(ev: WireRows, fused: FusedRowsEvent, texts: Callable[[bytes, int], tuple | None],
                    full: tuple[RowPlan, int], first: int, st: RowCounters, positions: EventPositions,
                    row_change: Callable[[RowChange, EventSource, EventPositions], None], table_id: TableId,
                    op: Operation, template: EventSource) -> int:
    """Emits the rows of `ev` from `first` on and answers how many rows it has (the rows before `first`, emitted
    before a restart, are only read past). `st` follows each row emitted; a declined row goes to `row_change` as
    a `RowChange` of `table_id` and `op`, its source `template` at the row."""
    plan, pos = full
    data, end, kind = ev.data, ev.end, ev.kind
    assert data is not None
    rendered, checking = fused.rendered, fused.checking
    before_text = after_text = "null"
    before_key = after_key = None
    index = 0
    while pos < end:
        at = pos
        if kind == "w":
            image = texts(data, pos)
            if image is not None:
                after_text, after_key, pos = image
        elif kind == "d":
            image = texts(data, pos)
            if image is not None:
                before_text, before_key, pos = image
        else:
            image = texts(data, pos)
            if image is not None:
                before_text, before_key, _ = image
                image = texts(data, image[2])
                if image is not None:
                    after_text, after_key, pos = image
        if index >= first:
            st.rows = index + 1
            st.last_row = index
            row = None
            if image is None or checking:
                row, pos = plan.full_row(data, at, kind)
            if image is None or not rendered(before_text, before_key, after_text, after_key, index, positions, row):
                if row is None:
                    row, pos = plan.full_row(data, at, kind)
                fused.flush()
                row_change(RowChange(table_id, op, row[0], row[1]), template.at_row(index), positions)
        elif image is None:
            pos = plan.full_row(data, at, kind)[1]
        index += 1
    fused.flush()
    return index
