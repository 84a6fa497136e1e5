"""A rows event's row changes → Kafka records in one step each (the fused row path, issue 27).

Built once per rows event by `Dispatcher.fused_rows` when every record of the event can go straight from the
table version's renderer (connector/events/row_renderer.py) to the sender: JSON text on both sides, no
transform for data records or tombstones, no encode workers. Per row change it renders the images, takes the
event's position (`EventPositions.next_event`, which also counts the row in the transaction metadata), joins the
envelope with the event's source block, split once around its row number, and adds the change event (and a
delete's tombstone) to the event's group: the records `Dispatcher.row_change` sends, without its per-row objects.
The group goes to Kafka with one sequence number, one delivery callback and the offset of its last record
(`RecordSender.send_group`): that offset commits only once Kafka acknowledged every record of the group, so a
restart after a crash repeats at most the rows of the events in flight, never skips one. A row the renderer
declines goes through `Dispatcher.row_change` instead, after the group so far (the streaming handler does that).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from connector.binlog.position import SourceOffset
from connector.dispatch.sender import DispatchCounters
from connector.events.envelope import TX_BLOCK_SCHEMA
from connector.events.row_renderer import RowRenderer
from connector.events.source_info import SourceInfo
from connector.events.table_schema import TableSchema
from connector.kafka.writer import OutRecord
from connector.streaming.handler import EventPositions

__all__ = ["EventRows", "FusedRowEmitter", "FusedRows", "GroupSend", "RowCheck"]

# (records, the offset the last of them carries) → sent and tracked as one group (RecordSender.send_group)
GroupSend = Callable[[Sequence[OutRecord], "dict[str, Any] | None"], None]
# (before image, after image, row index in the event, positions) → False when the row must take the general path
FusedRowEmitter = Callable[[Sequence[Any] | None, Sequence[Any] | None, int, EventPositions], bool]

# (before, after, row, the transaction block and offset the row took, its time, its records with their offsets)
RowCheck = Callable[[Sequence[Any] | None, Sequence[Any] | None, int, "tuple[str, int, int] | None", SourceOffset, int,
                     "list[tuple[OutRecord, dict[str, Any] | None]]"], None]


@dataclass(frozen=True)
class EventRows:
    """What every record of one rows event shares."""

    table: TableSchema
    render: RowRenderer
    topic: str
    data_collection: str  # `db.table`, the transaction metadata's key
    op: str  # c, u or d
    source: SourceInfo  # the event's block at its first row
    tombstone: bool  # a delete is followed by its tombstone (tombstones.on.delete)
    context_headers: list[tuple[str, bytes]]

    def emitter(self, send_group: GroupSend, counters: DispatchCounters, clock_ns: Callable[[], int] = time.time_ns,
                check: RowCheck | None = None) -> "FusedRows":
        """The event's row function and its flush. Records wait in the event's group until `flush`, which sends
        them with the offset of the last (the streaming handler flushes before a row of the general path and at
        the end of the event). `check`, when given, sees every row's records as the general path would send them
        one by one (the differential test)."""
        table, render, topic, collection, op = self.table, self.render, self.topic, self.data_collection, self.op
        envelope = table.envelope_text
        source_head, source_tail = self.source.json_around_row()
        context = self.context_headers
        tombstone = self.tombstone
        tx_writer = TX_BLOCK_SCHEMA.writer
        group: list[OutRecord] = []
        last: list[SourceOffset | None] = [None]  # the offset of the group's last record

        def row(before: Sequence[Any] | None, after: Sequence[Any] | None, index: int,
                positions: EventPositions) -> bool:
            rendered = render(before, after)
            if rendered is None:
                return False
            key, before_text, after_text = rendered
            counters.data_events += 1
            tx_block, offset = positions.next_event(collection)
            now_ns = clock_ns()
            value = envelope(op, before_text, after_text, f"{source_head}{index}{source_tail}",
                             "null" if tx_block is None else tx_writer(tx_block), now_ns).encode("utf-8")
            headers = list(context)
            if check is not None:
                offset_map = offset.to_map()
                records = [(OutRecord(topic, key, value, headers), None if tombstone else offset_map)]
                if tombstone:
                    records.append((OutRecord(topic, key, None, headers), offset_map))
                check(before, after, index, tx_block, offset, now_ns, records)
            group.append(OutRecord(topic, key, value, headers))
            if tombstone:
                group.append(OutRecord(topic, key, None, headers))
            last[0] = offset
            return True

        def flush() -> None:
            if group:
                offset = last[0]
                assert offset is not None
                send_group(group.copy(), offset.to_map())
                group.clear()

        return FusedRows(row, flush)


@dataclass(frozen=True)
class FusedRows:
    """A rows event's fused emission (`EventRows.emitter`)."""

    row: FusedRowEmitter
    flush: Callable[[], None]
