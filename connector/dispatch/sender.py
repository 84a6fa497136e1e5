"""Encoded records → the Kafka writer, each tracked with the source offset it carries.

A record's offset becomes committable once Kafka acknowledged it and every record before it
(connector/offsets/tracker.py). Records produced for one source event (a delete and its tombstone)
share one offset, which only the last of them carries. A record a transform dropped is never sent;
its offset counts as acknowledged at once, so it does not hold back the records after it.

Small groups (a single-row rows event's change event and tombstone) are held and sent together with the
groups after them, as one group carrying the offset of the last (`hold_groups`): the per-group work (a
sequence number, a delivery callback, the writer's bookkeeping) is then paid per several rows events, which
matters for single-row transactions (issue 27). Holding never reorders: any other record sends what is held
first, and the caller sends what is held when the reader is about to wait, every few milliseconds
(housekeeping) and before offsets are committed (`flush_held`). An offset is committed only once every record
before it was acknowledged, so holding can delay a commit, never advance one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from connector.dispatch.encoder import RecordEncoder
from connector.events.kinds import LogicalRecord
from connector.kafka.writer import OutRecord
from connector.offsets.tracker import OffsetSource, OffsetTracker

__all__ = ["DispatchCounters", "GroupSink", "RecordSender", "RecordSink"]


class RecordSink(Protocol):
    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None: ...


@runtime_checkable
class GroupSink(Protocol):
    """A sink that sends records as one group: `on_ack()` once Kafka acknowledged every one of them."""

    def send_group(self, records: Sequence[OutRecord], on_ack: Callable[[], None]) -> None: ...


@dataclass
class DispatchCounters:
    records_sent: int = 0
    records_acked: int = 0
    data_events: int = 0


HELD_RECORDS = 64  # a held group is sent once it has this many records
HELD_BYTES = 1 << 20  # or this many bytes of keys and values (a row with a large text value is not held long)


class RecordSender:
    def __init__(self, encoder: RecordEncoder, sink: RecordSink, tracker: OffsetTracker,
                 counters: DispatchCounters, *, hold_groups: bool = False) -> None:
        self.encoder = encoder
        self._sink = sink
        self._tracker = tracker
        self._counters = counters
        self._group_sink = sink if isinstance(sink, GroupSink) else None
        self._hold = hold_groups and self._group_sink is not None
        self._held: list[OutRecord] = []
        self._held_offset: "dict[str, Any] | OffsetSource | None" = None
        self._held_bytes = 0

    @property
    def holding(self) -> bool:
        """Whether records wait in the held group (`flush_held` sends them)."""
        return bool(self._held)

    def emit(self, record: LogicalRecord, offset: dict[str, Any] | None) -> None:
        """Encode `record` and send it; `offset` (None: carried by a later record) commits once it is acked."""
        if self._held:
            self.flush_held()
        out = self.encoder.encode(record)
        if out is None:
            self._tracker.ack(self._tracker.track(offset))
            return
        self.send(out, offset)

    def send(self, record: OutRecord, offset: dict[str, Any] | None) -> None:
        """Send a record the encoder already produced (`RecordEncoder.rendered`)."""
        if self._held:
            self.flush_held()
        tracker, counters = self._tracker, self._counters
        seq = tracker.track(offset)
        counters.records_sent += 1

        def acked() -> None:
            counters.records_acked += 1
            tracker.ack(seq)

        self._sink.send(record, acked)

    def send_group(self, records: Sequence[OutRecord], offset: "dict[str, Any] | OffsetSource | None") -> None:
        """Send records of which only the last carries an offset (a rows event's: its last row's), committable once
        Kafka acknowledged all of them. A sink sending groups (the Kafka writer) gets one sequence number and one
        acknowledgement for the group instead of one per record; any other gets them one by one."""
        group_sink = self._group_sink
        if group_sink is None:
            last, offset_map = len(records) - 1, None if offset is None or isinstance(offset, dict) else offset.to_map()
            for index, record in enumerate(records):
                self.send(record, (offset if offset_map is None else offset_map) if index == last else None)
            return
        if isinstance(offset, dict):
            offset = dict(offset)  # the caller may reuse its map
        if self._hold and len(records) < HELD_RECORDS:
            held = self._held
            held += records
            if offset is not None:  # None: carried by a later record, so the earlier offset still holds
                self._held_offset = offset
            size = self._held_bytes
            for record in records:
                size += (len(record.key) if record.key else 0) + (len(record.value) if record.value else 0)
            self._held_bytes = size
            if len(held) >= HELD_RECORDS or size >= HELD_BYTES:
                self.flush_held()
            return
        if self._held:
            self.flush_held()
        self._send_group(group_sink, records, offset)

    # -- when held records go (PipelinedSender overrides these for the rows events it batches for its workers) --
    def idle(self, server: Any = None) -> None:
        """The reader is about to wait for the server (`server`: its socket): what is held goes now."""
        self.flush_held()

    def flush_batch(self) -> None:
        """Housekeeping, every few milliseconds: what is held goes now."""
        self.flush_held()

    def drain(self) -> None:
        """Before offsets are committed: every record emitted so far reaches the sink."""
        self.flush_held()

    def flush_held(self) -> None:
        """Send the held records as one group, carrying the offset of the last held group that had one."""
        records = self._held
        if not records:
            return
        offset = self._held_offset
        self._held, self._held_offset, self._held_bytes = [], None, 0
        assert self._group_sink is not None
        self._send_group(self._group_sink, records, offset)

    def _send_group(self, group_sink: GroupSink, records: Sequence[OutRecord],
                    offset: "dict[str, Any] | OffsetSource | None") -> None:
        tracker, counters, count = self._tracker, self._counters, len(records)
        # the map only when a commit takes this offset (offsets/tracker.py OffsetSource), not per rows event
        seq = tracker.track_source(offset)
        counters.records_sent += count

        def acked() -> None:
            counters.records_acked += count
            tracker.ack(seq)

        group_sink.send_group(records, acked)
