"""`RecordSender` with rows events rendered by encode worker processes (`encode.workers` > 0).

Rows events (`rows_event`) are collected into batches and handed to the workers round robin
(connector/dispatch/encode_pool.py); every other record (schema changes, heartbeats, notifications, TRUNCATE,
snapshot rows) is encoded here. Either way a record joins one queue, in the order it was emitted, and leaves
it for Kafka only when every record before it has: a batch when its worker answered, a record encoded here at
once. A record's offset is tracked when it is sent, so offsets are committed in the same order as without
workers, and only for records Kafka acknowledged.

When batches go: at `batch_rows` row images, when the reader is about to wait for the server (`idle`: the
binlog has nothing more to read right now, so holding records back would only add latency), at housekeeping
(every few ms while events flow) and when asked to drain (offset commits at shutdown and after the snapshot).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

from connector.offsets.position import SourceOffset
from connector.binlog.rows_decoder import RawRows
from connector.config.modes import Operation
from connector.dispatch.encode_pool import Answer, EncodePool, Failure, RowsJob
from connector.dispatch.encoder import RecordEncoder
from connector.dispatch.sender import DispatchCounters, RecordSender, RecordSink
from connector.events.kinds import LogicalRecord, RecordKind
from connector.events.source_info import SourceInfo
from connector.events.table_schema import TableSchema
from connector.kafka.writer import OutRecord
from connector.offsets.parts import debezium_entries
from connector.offsets.tracker import OffsetTracker
from schema_history.model import Table

__all__ = ["PipelinedSender"]

log = logging.getLogger(__name__)

Offset = dict[str, Any] | None
_MAX_KEYS = 4096  # table versions and TABLE_MAP tables remembered (a binlog rotation brings new TABLE_MAP tables)


@dataclass(slots=True)
class _Rows:
    """What the connector's process keeps of a rows event in a worker: where its records go and its offset."""

    topic: str
    offset: SourceOffset  # the event's (row 0); each record's is at its row
    context_headers: list[tuple[str, bytes]]
    first: int


@dataclass(slots=True)
class _Queued:
    """Records in emission order: a worker's batch of rows events (`worker` set), or records encoded here."""

    worker: int | None
    events: list[_Rows] | None = None
    outs: list[tuple[OutRecord | None, Offset]] | None = None


class PipelinedSender(RecordSender):
    def __init__(self, encoder: RecordEncoder, sink: RecordSink, tracker: OffsetTracker, counters: DispatchCounters,
                 pool: EncodePool, *, batch_rows: int = 1000, batches_per_worker: int = 2) -> None:
        super().__init__(encoder, sink, tracker, counters)
        self._pool = pool
        # the rows' offset entries, for a transform that counts them (EnforceRecordSize): only when rows are transformed
        self._sizes_needed = not encoder.direct(RecordKind.DATA)
        self._batch_bytes = batch_rows * 64  # row images are tens to hundreds of bytes: batches by size
        self._window = batches_per_worker
        self._queue: deque[_Queued] = deque()
        self._jobs: list[RowsJob] = []
        self._events: list[_Rows] = []
        self._bytes = 0
        self._tables: dict[int, Table] = {}  # the current batch's table versions and TABLE_MAP tables, by key
        self._maps: dict[int, Any] = {}
        # id(object) -> (object, key); holding the object keeps its id from being reused for another one
        self._keys: dict[int, tuple[Any, int]] = {}
        self._last_key = 0
        # the index of the last row of the last rows event answered that had rows (the source of a DDL names it)
        self.last_row: int | None = None
        self._rows_events = 0  # handed to the workers, and records they rendered (the log says at the end)
        self._records_out = 0
        self._next_worker = 0

    # ------------------------------------------------------------ RecordSender
    def emit(self, record: LogicalRecord, offset: Offset) -> None:
        if not self._queue and not self._jobs:
            super().emit(record, offset)
            return
        self._submit()
        self._queue.append(_Queued(None, outs=[(self.encoder.encode(record), offset)]))
        self.pump()

    def send(self, record: OutRecord, offset: Offset) -> None:
        if not self._queue and not self._jobs:
            super().send(record, offset)
            return
        self._submit()
        last = self._queue[-1] if self._queue else None
        if last is not None and last.outs is not None:
            last.outs.append((record, offset))
        else:
            self._queue.append(_Queued(None, outs=[(record, offset)]))

    def rows_event(self, ts: TableSchema, topic: str, columns: int, op: Operation, raw: RawRows,
                   source: SourceInfo, first: int, offset: SourceOffset, ts_ns: int,
                   context_headers: list[tuple[str, bytes]]) -> None:
        """A rows event's rows from `first` on, for a worker; `source` is row `first`'s block."""
        table_key = self._key(ts)
        plan_key = self._key(raw.table)
        self._tables[table_key] = ts.table
        self._maps[plan_key] = raw.table
        self._jobs.append(RowsJob(table_key, plan_key, topic, columns, op.value, raw.data, raw.present, raw.present2,
                                  raw.kind, raw.errors, source, first, ts_ns, context_headers,
                                  debezium_entries(offset.to_map()) if self._sizes_needed else None))
        self._events.append(_Rows(topic, offset, context_headers, first))
        self._rows_events += 1
        self._bytes += len(raw.data)
        if self._bytes >= self._batch_bytes:
            self._submit()
            self.pump()

    # ------------------------------------------------------------ flow
    @property
    def holding(self) -> bool:
        """Records may wait in the workers' batches at any time: the reader asks the server before `idle`."""
        return True

    def idle(self, server: Any = None) -> None:
        """The reader is about to wait for the server (`server`: its socket, when known): the rows events
        collected go to a worker, and the answers are sent as they come until the server has more to read
        (then reading goes on, and the rest is sent later) or none are left."""
        self._submit()
        pool = self._pool
        while True:
            self.pump()
            if not self._queue:
                return
            head = self._queue[0].worker
            assert head is not None  # pump() stops only at an unanswered batch
            if pool.wait(head, server):
                return

    def pump(self) -> None:
        """Send the queue's head records that are ready, without waiting."""
        queue, pool = self._queue, self._pool
        while queue:
            head = queue[0]
            if head.worker is not None and not pool.ready(head.worker):
                return
            self._send_head()

    def flush_batch(self) -> None:
        """Hand the rows events collected so far to a worker, and send what is ready."""
        self._submit()
        self.pump()

    def drain(self) -> None:
        """Every record emitted so far is handed to the sink (waiting for the workers)."""
        self._submit()
        while self._queue:
            self._send_head()

    def _submit(self) -> None:
        if not self._jobs:
            return
        pool = self._pool
        worker = self._next_worker
        self._next_worker = (worker + 1) % pool.size
        while pool.in_flight(worker) >= self._window:
            self._send_head()  # round robin: this worker's oldest batch is the queue's head or comes before it
        pool.submit(worker, self._tables, self._maps, self._jobs)
        self._queue.append(_Queued(worker, events=self._events))
        self._jobs, self._events, self._tables, self._maps, self._bytes = [], [], {}, {}, 0

    def _send_head(self) -> None:
        head = self._queue.popleft()
        if head.outs is not None:
            for out, offset in head.outs:
                self._send_out(out, offset)
            return
        assert head.worker is not None and head.events is not None
        answers = self._pool.receive(head.worker)
        for event, answer in zip(head.events, answers):
            self._send_rows(event, answer)

    def _send_rows(self, event: _Rows, answer: Answer) -> None:
        if type(answer) is Failure:
            raise answer.error()
        direct = self.encoder.direct(RecordKind.DATA) and self.encoder.direct(RecordKind.TOMBSTONE)
        counters = self._counters
        offset: SourceOffset | None = None
        total, records = answer
        if total > event.first:
            self.last_row = total - 1
        self._records_out += len(records)
        for record in records:
            index, kind, carries = record[0], record[1], record[2]
            if kind == "c":
                counters.data_events += 1
            offset_map = None
            if carries:
                # the record's offset: the event's at its row, as streaming hands it out row by row
                offset = event.offset.with_(row=index + 1) if offset is None else offset.at_row(index + 1)
                offset_map = offset.to_map()
            if direct:
                headers = record[5] if record[5] is not None else event.context_headers
                self._send_out(OutRecord(event.topic, record[3], record[4], headers), offset_map)
            else:
                fields = record[3]
                self._send_out(None if fields is None else OutRecord(*fields), offset_map)

    def _send_out(self, out: OutRecord | None, offset: Offset) -> None:
        if out is None:  # a transform dropped it: its offset is done at once
            self._tracker.ack(self._tracker.track(offset))
        else:
            RecordSender.send(self, out, offset)

    def _key(self, obj: Any) -> int:
        known = self._keys.get(id(obj))
        if known is None:
            if len(self._keys) >= _MAX_KEYS:  # old table versions; the ones in use get new keys
                self._keys.clear()
            self._last_key += 1
            known = self._keys[id(obj)] = (obj, self._last_key)
        return known[1]

    def close(self) -> None:
        log.info("encode workers rendered %d rows events into %d records", self._rows_events, self._records_out)
        self._pool.close()
