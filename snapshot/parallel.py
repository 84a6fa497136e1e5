"""`snapshot.max.threads` > 1: several tables read at once, each reader on its own consistent snapshot.

Consistency. Every reader connection runs `SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ` and
`START TRANSACTION WITH CONSISTENT SNAPSHOT` while the snapshot's lock is held (the global read lock, or the
captured tables' read locks): nothing commits to the captured tables in that interval, so every reader's view
is the same state, the one at the binlog position of snapshot step 4. Without a lock (`snapshot.locking.mode=
none`) the readers' views are taken after the position was read, so a write racing the start is at worst read
by the snapshot and streamed again (a duplicate that the full row image makes harmless), never lost: the same
at-least-once contract as the single-reader lock-free snapshot.

Distribution. Tables go to readers largest first (row estimate), each to the reader with the fewest
estimated rows so far; each reader reads its tables one after the other, whole, in the planned statement's
order. Readers are threads that only fetch rows (streamed results split into raw values, snapshot/raw_rows.py,
as the one-reader snapshot reads them); the calling thread receives their batches through a bounded queue and
emits them, so the dispatcher, the Kafka writer and the metrics stay single-threaded.

Order and markers. Records of different tables interleave; within a table they keep the reader's order.
`SnapshotMarkers` gives each record the `snapshot` value Debezium's would have in this emission order:
`first` on the first record emitted, `last_in_data_collection`/`first_in_data_collection` on a table's last/first
record, `last` on the very last record emitted. A table's last row is only known when its reader reports the
table done, and the snapshot's last row only when every reader is done: each table's newest row is held back
until the next row of that table arrives (it is then not its table's last), and a finished table's last row is
held back until another table finishes (it is then not the snapshot's last: the other table's row is emitted
after it). What is still held when all readers are done is therefore the last record emitted, and it is the
one that gets `last` and the completed offset.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import pymysql

from connector.offsets.position import SourceOffset
from connector.events.snapshot_text import Decoder
from schema_history.model import TableId
from snapshot.chunks import ChunkReader
from snapshot.markers import MARKER_FIRST, MARKER_FIRST_IN_TABLE, MARKER_LAST, MARKER_LAST_IN_TABLE, MARKER_TRUE
from snapshot.plan import TableRead
from snapshot.scan import DataSources, DataStep, Finish, row_writer

log = logging.getLogger(__name__)

GIL_SWITCH_INTERVAL_S = 0.05
READER_SESSION = ("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                  "START TRANSACTION WITH CONSISTENT SNAPSHOT")


def open_readers(connect: Callable[[], pymysql.connections.Connection], count: int
                 ) -> list[pymysql.connections.Connection]:
    """`count` extra connections, each inside its own consistent-snapshot transaction (call under the lock)."""
    readers: list[pymysql.connections.Connection] = []
    try:
        for _ in range(count):
            conn = connect()
            readers.append(conn)
            with conn.cursor() as cur:
                for statement in READER_SESSION:
                    cur.execute(statement)
    except BaseException:
        close_all(readers)
        raise
    return readers


def close_all(connections: Sequence[pymysql.connections.Connection]) -> None:
    for conn in connections:
        try:
            conn.close()
        except (pymysql.err.Error, OSError):  # already gone: closing only releases the snapshot
            pass


def assign(reads: Sequence[TableRead], workers: int) -> list[list[TableRead]]:
    """Largest first, each to the least-loaded reader (ties: the lowest reader index)."""
    loads = [0] * workers
    plan: list[list[TableRead]] = [[] for _ in range(workers)]
    for read in sorted(reads, key=lambda r: -(r.estimate or 0)):  # stable: equal estimates keep plan order
        target = loads.index(min(loads))
        plan[target].append(read)
        loads[target] += max(read.estimate or 0, 1)
    return plan


# ---------------------------------------------------------------- readers -> calling thread
@dataclass(frozen=True)
class TableStarted:
    read: TableRead
    decoders: list[Decoder] | None  # streamed reads: rows come raw (snapshot/raw_rows.py), decoded like this


@dataclass(frozen=True)
class Rows:
    read: TableRead
    batch: list  # PyMySQL tuples, or raw rows when the table's TableStarted has decoders


@dataclass(frozen=True)
class TableDone:
    read: TableRead
    rows: int


Message = TableStarted | Rows | TableDone


class ParallelReads:
    """Reader threads, one per connection and table list; iterate to receive their messages in this thread.

    Iteration ends when every reader is done; a reader's error is raised here. `close()` (also on any error
    of the consumer) stops the readers and joins them.
    """

    _EXIT = object()

    def __init__(self, connections: Sequence[pymysql.connections.Connection], plan: Sequence[Sequence[TableRead]],
                 fetch_size: int, should_stop: Callable[[], bool] = lambda: False, queue_batches: int = 4) -> None:
        self._fetch_size = fetch_size
        self._should_stop = should_stop
        self._stop = threading.Event()
        self._queue: queue.Queue = queue.Queue(maxsize=max(2, queue_batches * len(plan)))
        self._error: BaseException | None = None
        self._switch_interval: float | None = None
        self._threads = [threading.Thread(target=self._run, args=(conn, list(reads)), name=f"snapshot-reader-{i}",
                                          daemon=True)
                         for i, (conn, reads) in enumerate(zip(connections, plan))]

    def __iter__(self) -> Iterator[Message]:
        # The readers and this thread share the GIL. With the default 5 ms switch interval a reader waking
        # from the socket takes the GIL from the busy consumer every few ms: on 2 cores that cost 10-20% of
        # the throughput (bench/snapshot_parallel.py). A longer interval for the data step only; close()
        # restores it.
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        for thread in self._threads:
            thread.start()
        running = len(self._threads)
        while running:
            try:
                item = self._queue.get(timeout=0.5)
            except queue.Empty:
                if self._should_stop():
                    self.close()
                    raise InterruptedError("snapshot interrupted by shutdown") from None
                continue
            if item is self._EXIT:
                running -= 1
                if self._error is not None:
                    self.close()
                    raise self._error
                continue
            if self._should_stop():
                self.close()
                raise InterruptedError("snapshot interrupted by shutdown")
            yield item

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout=30)
        if self._switch_interval is not None:
            sys.setswitchinterval(self._switch_interval)
            self._switch_interval = None

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, conn: pymysql.connections.Connection, reads: list[TableRead]) -> None:
        try:
            for read in reads:
                if self._stop.is_set():
                    return
                # Streamed results are split into raw values only: decoding them is the consumer's business.
                reader = ChunkReader(conn, read.scan, self._fetch_size, read.streaming)
                if not self._put(TableStarted(read, reader.open())):
                    return
                count = 0
                for batch in reader:
                    count += len(batch)
                    if not self._put(Rows(read, batch)):
                        return  # stopped: the connection is closed by the owner, unread rows with it
                reader.close()
                if not self._put(TableDone(read, count)):
                    return
        except BaseException as exc:  # handed to the consuming thread, which raises it
            self._error = self._error or exc
        finally:
            # The exit mark must arrive even when the queue is full and nobody stops us.
            while True:
                try:
                    self._queue.put(self._EXIT, timeout=0.2)
                    break
                except queue.Full:
                    if self._stop.is_set():
                        break


# ---------------------------------------------------------------- markers for interleaved tables
Held = tuple[TableId, Any, int]  # table, row values, index of the row in its table


class SnapshotMarkers:
    """Turns rows arriving table-interleaved into (table, values, marker) in emission order (module docstring)."""

    def __init__(self) -> None:
        self._newest: dict[TableId, Held] = {}
        self._finished: Held | None = None
        self._emitted = 0

    def row(self, table_id: TableId, values: Any, index: int) -> list[tuple[TableId, Any, str]]:
        out = []
        previous = self._newest.get(table_id)
        if previous is not None:
            out.append(self._mark(previous, last_in_table=False))
        self._newest[table_id] = (table_id, values, index)
        return out

    def table_done(self, table_id: TableId) -> list[tuple[TableId, Any, str]]:
        last = self._newest.pop(table_id, None)
        if last is None:
            return []  # empty table
        out = []
        if self._finished is not None:
            out.append(self._mark(self._finished, last_in_table=True))
        self._finished = last
        return out

    def final(self) -> tuple[TableId, Any, str] | None:
        """The snapshot's last record, once every table is done."""
        assert not self._newest, "final() before every table is done"
        if self._finished is None:
            return None
        table_id, values, _ = self._finished
        self._finished = None
        self._emitted += 1
        return table_id, values, MARKER_LAST

    def _mark(self, held: Held, last_in_table: bool) -> tuple[TableId, Any, str]:
        table_id, values, index = held
        if self._emitted == 0:
            mark = MARKER_FIRST
        elif last_in_table:
            mark = MARKER_LAST_IN_TABLE
        elif index == 0:
            mark = MARKER_FIRST_IN_TABLE
        else:
            mark = MARKER_TRUE
        self._emitted += 1
        return table_id, values, mark


# ---------------------------------------------------------------- the data step
# write(values, marker, ts_ms, final): emit one record of a table; final: the snapshot's last (completed offset).
Write = Callable[[Any, str, int, bool], None]


def _table_writers(offset: SourceOffset, step: DataStep) -> Callable[[TableId, "list[Decoder] | None"], Write]:
    """open_table(table, decoders) -> the table's writer; decoders: its rows are raw (TableStarted.decoders)."""
    done = offset.with_(snapshot=None)
    source_for = DataSources(offset).get

    def open_table(table_id: TableId, decoders: list[Decoder] | None) -> Write:
        emit_row = row_writer(step.emitter, table_id, decoders)

        def write(values: Any, mark: str, ts_ms: int, final: bool) -> None:
            emit_row(values, source_for(table_id, mark, ts_ms), done if final else offset)
        return write
    return open_table


def read_parallel(connections: Sequence[pymysql.connections.Connection], reads: Sequence[TableRead],
                  offset: SourceOffset, step: DataStep) -> tuple[int, Finish]:
    """Reads `reads` over `connections`, writing every record but the last; returns the row count and what
    writes the last one (the caller may have records to write before it, as in the one-reader snapshot)."""
    open_table = _table_writers(offset, step)
    metrics, should_stop, progress_interval_s = step.metrics, step.should_stop, step.progress_interval_s
    fetch_size = step.fetch_size
    plan = assign(reads, len(connections))
    for i, tables in enumerate(plan):
        log.info("Reader %d reads %s", i, ", ".join(r.table_id.dotted() for r in tables) or "nothing")
    markers = SnapshotMarkers()
    ts_ms = int(time.time()) * 1000
    writers: dict[TableId, Write] = {}
    counts: dict[TableId, int] = {}
    total = 0
    started = last_log = time.monotonic()
    readers = ParallelReads(connections, plan, fetch_size, should_stop)
    try:
        for message in readers:
            if type(message) is Rows:
                table_id = message.read.table_id
                index = counts[table_id]
                ts_ms = int(time.time()) * 1000
                for values in message.batch:
                    for table, row, mark in markers.row(table_id, values, index):
                        writers[table](row, mark, ts_ms, False)
                    index += 1
                counts[table_id] = index
                total += len(message.batch)
                metrics.rows(table_id, index)
                now = time.monotonic()
                if now - last_log >= progress_interval_s:
                    log.info("Exported %d rows so far, %d of %d table(s) started (%.0f rows/s)", total, len(counts),
                             len(reads), total / max(now - started, 1e-6))
                    last_log = now
            elif type(message) is TableStarted:
                counts[message.read.table_id] = 0
                writers[message.read.table_id] = open_table(message.read.table_id, message.decoders)
                metrics.table_started(message.read.table_id, message.read.estimate or 0)
                log.info("Exporting data from table '%s' (~%d rows)", message.read.table_id.dotted(),
                         message.read.estimate or 0)
            elif type(message) is TableDone:
                for table, row, mark in markers.table_done(message.read.table_id):
                    writers[table](row, mark, ts_ms, False)
                metrics.table_completed(message.read.table_id, message.rows)
                log.info("Finished exporting %d records for table '%s'", message.rows, message.read.table_id.dotted())
    finally:
        readers.close()
    last = markers.final()
    if last is None:
        return total, None
    table, row, mark = last
    final_ts = ts_ms
    return total, lambda: writers[table](row, mark, final_ts, True)
