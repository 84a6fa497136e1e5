"""Encoded records → the Kafka writer, each tracked with the source offset it carries.

A record's offset becomes committable once Kafka acknowledged it and every record before it
(connector/offsets/tracker.py). Records produced for one source event (a delete and its tombstone)
share one offset, which only the last of them carries. A record a transform dropped is never sent;
its offset counts as acknowledged at once, so it does not hold back the records after it.
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


class RecordSender:
    def __init__(self, encoder: RecordEncoder, sink: RecordSink, tracker: OffsetTracker,
                 counters: DispatchCounters) -> None:
        self.encoder = encoder
        self._sink = sink
        self._tracker = tracker
        self._counters = counters
        self._group_sink = sink if isinstance(sink, GroupSink) else None

    def emit(self, record: LogicalRecord, offset: dict[str, Any] | None) -> None:
        """Encode `record` and send it; `offset` (None: carried by a later record) commits once it is acked."""
        out = self.encoder.encode(record)
        if out is None:
            self._tracker.ack(self._tracker.track(offset))
            return
        self.send(out, offset)

    def send(self, record: OutRecord, offset: dict[str, Any] | None) -> None:
        """Send a record the encoder already produced (`RecordEncoder.rendered`)."""
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
        tracker, counters, count = self._tracker, self._counters, len(records)
        # the map only when a commit takes this offset (offsets/tracker.py OffsetSource), not per rows event
        seq = tracker.track_source(offset if offset is None or not isinstance(offset, dict) else dict(offset))
        counters.records_sent += count

        def acked() -> None:
            counters.records_acked += count
            tracker.ack(seq)

        group_sink.send_group(records, acked)
