"""A rows event's row changes → Kafka records in one step each (the fused row path, issue 27).

Built by `Dispatcher.fused_rows` when every record of the event can go straight from the table version's
renderer (connector/events/row_renderer.py) to the sender: JSON text on both sides, no transform for data
records or tombstones, no encode workers. What a table version's events of one operation share is a
`FusedTable`, built once; per rows event only the source block's text (split around the row number) and the
event's group are new (`FusedRows`). Per row change it renders the images, takes the event's position
(`EventPositions.next_event`, which also counts the row in the transaction metadata), joins the envelope and
adds the change event (and a delete's tombstone) to the event's group: the records `Dispatcher.row_change`
sends, without its per-row objects.
The group goes to Kafka with one sequence number, one delivery callback and the offset of its last record
(`RecordSender.send_group`): that offset commits only once Kafka acknowledged every record of the group, so a
restart after a crash repeats at most the rows of the events in flight, never skips one. A row the renderer
declines goes through `Dispatcher.row_change` instead, after the group so far (the streaming handler does that).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from connector.offsets.position import SourceOffset
from connector.dispatch.sender import DispatchCounters
from connector.events.envelope import TX_BLOCK_SCHEMA
from connector.events.row_renderer import RowRenderer
from connector.events.table_schema import TableSchema
from connector.kafka.writer import OutRecord
from connector.events.changes import EventPositions

__all__ = ["FusedRowEmitter", "FusedRows", "FusedTable", "GroupSend", "RowCheck"]

# (records, the offset the last of them carries) → sent and tracked as one group (RecordSender.send_group)
GroupSend = Callable[[Sequence[OutRecord], "SourceOffset | None"], None]
# (before image, after image, row index in the event, positions) → False when the row must take the general path
FusedRowEmitter = Callable[[Sequence[Any] | None, Sequence[Any] | None, int, EventPositions], bool]

# (before, after, row, the transaction block and offset the row took, its time, its records with their offsets)
_TX_WRITER = TX_BLOCK_SCHEMA.writer

RowCheck = Callable[[Sequence[Any] | None, Sequence[Any] | None, int, "tuple[str, int, int] | None", SourceOffset, int,
                     "list[tuple[OutRecord, dict[str, Any] | None]]"], None]


@dataclass(frozen=True)
class FusedTable:
    """What every record of a table version's rows events of one operation shares (built once, cached by the
    dispatcher per table version and operation; 18.6 µs of set-up per rows event when it was built per event)."""

    table: TableSchema
    render: RowRenderer
    topic: str
    data_collection: str  # `db.table`, the transaction metadata's key
    op: str  # c, u or d
    tombstone: bool  # a delete is followed by its tombstone (tombstones.on.delete)
    context_headers: list[tuple[str, bytes]]

    def event(self, source_json: tuple[str, str], send_group: GroupSend, counters: DispatchCounters,
              clock_ns: Callable[[], int] = time.time_ns, check: RowCheck | None = None) -> "FusedRows":
        """One rows event's emission; `source_json` is its source block split around the row number."""
        return FusedRows(self, source_json[0], source_json[1], send_group, counters, clock_ns, check)


@dataclass(slots=True)
class FusedRows:
    """A rows event's fused emission: `row` per row change, `flush` before a row of the general path and at the
    end of the event. Records wait in the event's group until `flush`, which sends them with the offset of the
    last. `check`, when given, sees every row's records as the general path would send them one by one (the
    differential test)."""

    table: FusedTable
    source_head: str
    source_tail: str
    send_group: GroupSend
    counters: DispatchCounters
    clock_ns: Callable[[], int]
    check: RowCheck | None
    group: list[OutRecord] = field(default_factory=list)
    last: SourceOffset | None = None  # the offset of the group's last record

    def row(self, before: Sequence[Any] | None, after: Sequence[Any] | None, index: int,
            positions: EventPositions) -> bool:
        """Emits one row change; False when it must take the general path (nothing was emitted)."""
        fused = self.table
        rendered = fused.render(before, after)
        if rendered is None:
            return False
        key, before_text, after_text = rendered
        self.counters.data_events += 1
        tx_block, offset = positions.next_event(fused.data_collection)
        now_ns = self.clock_ns()
        value = fused.table.envelope_text(fused.op, before_text, after_text,
                                          f"{self.source_head}{index}{self.source_tail}",
                                          "null" if tx_block is None else _TX_WRITER(tx_block), now_ns).encode("utf-8")
        headers = list(fused.context_headers)
        topic = fused.topic
        if self.check is not None:
            offset_map = offset.to_map()
            records = [(OutRecord(topic, key, value, headers), None if fused.tombstone else offset_map)]
            if fused.tombstone:
                records.append((OutRecord(topic, key, None, headers), offset_map))
            self.check(before, after, index, tx_block, offset, now_ns, records)
        group = self.group
        group.append(OutRecord(topic, key, value, headers))
        if fused.tombstone:
            group.append(OutRecord(topic, key, None, headers))
        self.last = offset
        return True

    def flush(self) -> None:
        """Sends the records so far as one group, tracked with the offset of the last."""
        if self.group:
            offset = self.last
            assert offset is not None
            self.send_group(self.group, offset)
            self.group = []
