"""Incremental snapshots while streaming (DBLog), as Debezium's SignalBasedIncrementalSnapshotChangeEventSource.

A chunk is read between two watermarks written to the signal table: an `<chunk>-open` row, the chunk query
(`incremental.snapshot.chunk.size` rows in key order after the last key sent, up to the table's maximum key
read when the table started, with its `additional-conditions` filter), then a `<chunk>-close` row. The
chunk's rows wait in the window. Streaming sees the open watermark (from then on, a binlog change of a key in
the window removes that row from it: the binlog has a newer value), then the close watermark: the rows left
are emitted, op=r, `source.snapshot=incremental`, with the offset of the close event, and the next chunk is
read. Everything runs on the streaming thread, while the signal row's own record waits (Debezium's order).

Failures never stop streaming: a table without a key, an unknown table, a refused filter or an SQL error is
logged with the signal's id and that table skipped.
"""

from __future__ import annotations

import logging
import re
import time
from collections import deque
from dataclasses import replace
from typing import Any, Callable, Protocol, Sequence

import pymysql
from sqlglot import exp

from connector.offsets.position import INCREMENTAL, SourceOffset
from connector.offsets.parts import IncrementalSnapshotSlot
from connector.signals.actions import ExecuteSnapshot, SignalRejected
from connector.signals.filters import FilterRejected, checked_filter
from connector.events.changes import EventSource
from schema_history.model import Table, TableId
from snapshot.chunks import DIALECT, ChunkReader, TableScan, key_after, table_expression
from snapshot.incremental.context import Collection, IncrementalContext, java_key_type
from snapshot.incremental.read_only import GtidWatermarks, Watermarks
from snapshot.incremental.schema_check import ResultColumnsChanged, check_chunk_columns, schema_verified
from snapshot.metrics import SnapshotMetrics

__all__ = ["IncrementalSnapshot", "RowSink", "Tables"]

log = logging.getLogger(__name__)


class Tables(Protocol):
    """The schema tracker: the tables known now."""

    def table_ids(self) -> list[TableId]: ...

    def table(self, table_id: TableId) -> Table | None: ...


class RowSink(Protocol):
    """The dispatcher as the incremental snapshot needs it."""

    def snapshot_row(self, table_id: TableId, values: tuple, source: EventSource, offset: SourceOffset) -> None: ...


class Progress(Protocol):
    """Told what the snapshot does, as Debezium's IncrementalSnapshotNotificationService is
    (connector/notifications/service.py: IncrementalNotifications)."""

    def started(self, context: IncrementalContext) -> None: ...
    def paused(self, context: IncrementalContext) -> None: ...
    def resumed(self, context: IncrementalContext) -> None: ...
    def aborted(self, context: IncrementalContext, stopped: Sequence[str]) -> None: ...
    def in_progress(self, context: IncrementalContext) -> None: ...
    def table_scan_completed(self, context: IncrementalContext, rows: int, status: str) -> None: ...
    def completed(self, context: IncrementalContext, correlation_id: str | None) -> None: ...


class IncrementalSnapshot:
    def __init__(self, connect: Callable[[], pymysql.connections.Connection], signal_table: TableId | None,
                 tables: Tables, sink: RowSink, chunk_size: int, context: IncrementalContext | None = None,
                 clock_ns: Callable[[], int] = time.time_ns, *, read_only: bool = False,
                 watermarks: Watermarks | None = None,
                 metrics: SnapshotMetrics | None = None,
                 on_skip: Callable[[str | None, TableId, Exception], None] = lambda _id, _table, _exc: None,
                 progress: Progress | None = None, allow_schema_changes: bool = False) -> None:
        self._connect = connect
        self._conn: pymysql.connections.Connection | None = None
        self._signal_table = signal_table
        self._tables = tables
        self._sink = sink
        self._chunk_size = chunk_size
        self._clock_ns = clock_ns
        # Watermarks that write nothing (read_only.py): GTID sets with read.only=true, or what the caller gives
        # (an interrupted initial snapshot's remainder without a signal table); None: rows in the signal table
        self._gtid_marks: Watermarks | None = watermarks or (GtidWatermarks() if read_only else None)
        if self._gtid_marks is None and signal_table is None:
            raise ValueError("an incremental snapshot needs a signal table or watermarks that write nothing")
        # Told before a table is skipped; raising stops streaming instead (a resumed initial snapshot must not
        # lose a table: snapshot/remainder.py).
        self._on_skip = on_skip
        self._opened = ""
        self.context = context if context is not None else IncrementalContext()
        self._window: dict[tuple, tuple] = {}
        self._key_index: list[int] = []
        self.rows_scanned = 0
        self._metrics = metrics if metrics is not None else SnapshotMetrics()
        self._progress = progress
        # how the current table's reading ended (Debezium's TableScanCompletionStatus), set where it is known
        self._status = "SUCCEEDED"
        # incremental.snapshot.allow.schema.changes: read a chunk only once the table's result columns were the
        # same in two windows in a row, and drop a chunk whose columns differ from them (schema_check.py)
        self._allow_schema_changes = allow_schema_changes

    # ------------------------------------------------------------ offsets
    def slot(self) -> IncrementalSnapshotSlot | None:
        return self.context.slot()

    # ------------------------------------------------------------ signals
    def execute(self, action: ExecuteSnapshot) -> None:
        context = self.context
        was_running = context.running
        known = [t.dotted() for t in self._tables.table_ids()]
        names: list[str] = []
        for pattern in action.data_collections:
            matched = [t for t in known if re.fullmatch(pattern, t)]
            for name in matched or [pattern]:  # an unmatched name is kept: it fails (and is skipped) when read
                if name not in names:
                    names.append(name)
        collections = []
        for name in names:
            condition = next((c.filter for c in action.additional_conditions if c.data_collection.fullmatch(name)),
                             None)
            collections.append(Collection(TableId.parse_identifier(name), condition or None, action.surrogate_key))
        log.info("signal '%s': incremental snapshot of %s", action.id, ", ".join(names))
        context.add(action.id, collections)
        if not was_running:
            self._metrics.started()
            if self._progress is not None:
                self._progress.started(context)
        self._metrics.tables([c.table for c in context.collections])
        if not was_running:
            self.read_chunk()

    def continue_running(self) -> None:
        """At start, when the stored offset says a snapshot is running: as Debezium's init, it counts as started
        (SnapshotRunning, the status file's snapshot block) and continues with its next chunk."""
        if not self.context.running:
            return
        self._metrics.started()
        self._metrics.tables([c.table for c in self.context.collections])
        self.read_chunk()

    def open_window(self, signal_id: str) -> None:
        if self.context.expects(signal_id):
            self.context.window_open = True

    def close_window(self, signal_id: str, source: EventSource, offset: SourceOffset) -> None:
        """The close watermark: emit the window's rows at `offset`, read the next chunk."""
        context = self.context
        if self._gtid_marks is not None or not context.expects(signal_id):
            return
        context.window_open = False
        self._emit_window(source, offset)
        self.read_chunk()

    def _emit_window(self, source: EventSource, offset: SourceOffset) -> None:
        """The window's rows, op=r, at the event that closed it."""
        context = self.context
        current = context.current
        if current is not None and self._window:
            row_source = EventSource(
                ts_ms=0, db=current.table.database, table=current.table.table, server_id=source.server_id,
                gtid=source.gtid, file=source.file, pos=source.pos, row=source.row, thread=source.thread,
                snapshot="incremental", ts_us=0)
            for key, row in self._window.items():
                context.last_sent = key
                now_us = self._clock_ns() // 1000
                at = offset.with_(snapshot=INCREMENTAL, parts=_with_slot(offset.parts, context.slot()))
                self._sink.snapshot_row(current.table, row, _at_time(row_source, now_us), at)
            self._window.clear()

    # ------------------------------------------------------------ read-only (GTID) windows
    def committed(self, source: EventSource, offset: SourceOffset) -> None:
        """A transaction committed (or, idle, a heartbeat): read-only windows whose high watermark it reached go
        out, and the next chunks are read (several when nothing happened meanwhile)."""
        marks = self._gtid_marks
        while marks is not None and marks.active and marks.reached_high_watermark(source, offset):
            self._emit_window(source, offset)
            marks.close()
            self.read_chunk()

    def _gtid_window(self, source: EventSource, offset: SourceOffset) -> tuple[bool, bool]:
        """Before a change of a captured table: whether its key may be in an open read-only window, and whether
        the window closed (went out) before it."""
        marks = self._gtid_marks
        assert marks is not None
        if not marks.active:
            return False, False
        if marks.update_window_state(source, offset):
            self._emit_window(source, offset)
            self.read_chunk()
            return False, True
        return marks.window_opened, False

    def stop(self, data_collections: Sequence[str]) -> None:
        """stop-snapshot: as Debezium, only asked for here; the tables (regular expressions; none: all) leave the
        snapshot when the next chunk would be read, so a window already read still goes out at its close."""
        context = self.context
        if not context.running:
            log.warning("stop-snapshot: no incremental snapshot is running, stop ignored")
            return
        context.stop_requested.extend(data_collections or [c.table.dotted() for c in context.collections])

    def _process_stop(self) -> None:
        """Debezium's checkAndProcessStopFlag: other tables are removed first, then the current one."""
        context = self.context
        requested, context.stop_requested = context.stop_requested, []
        if not requested or not context.running:
            return
        known = [t.dotted() for t in self._tables.table_ids()]
        names: list[str] = []
        for pattern in requested:
            for name in [t for t in known if re.fullmatch(pattern, t)] or [pattern]:
                if name not in names:
                    names.append(name)
        current = context.current
        stopped = []
        for name in names:
            if current is not None and current.table.dotted() == name:
                continue
            kept = deque(c for c in context.collections if c.table.dotted() != name or c is current)
            if len(kept) == len(context.collections):
                log.warning("stop-snapshot: '%s' is not part of the incremental snapshot", name)
            else:
                stopped.append(name)
            context.collections = kept
        if current is not None and current.table.dotted() in names:
            self._window.clear()
            context.window_open = False
            self._next_table(aborted=True)  # resets the current table's keys
            stopped.append(current.table.dotted())
        if self._progress is not None:
            self._progress.aborted(context, stopped)
        if not context.running:
            context.correlation_id = None
            log.info("incremental snapshot stopped")
        log.info("stop-snapshot: removed %s from the incremental snapshot", ", ".join(stopped) or "nothing")

    def pause(self) -> None:
        if self.context.running and not self.context.paused:
            log.info("incremental snapshot paused")
            self.context.paused = True
            self._metrics.paused_changed(True)
            if self._progress is not None:
                self._progress.paused(self.context)

    def resume(self) -> None:
        if self.context.running and self.context.paused:
            log.info("incremental snapshot resumed")
            self.context.paused = False
            self._metrics.paused_changed(False)
            if self._progress is not None:
                self._progress.resumed(self.context)
            self.read_chunk()

    def process_change(self, table_id: TableId, images: Sequence[Sequence[Any] | None], source: EventSource,
                       offset: SourceOffset) -> bool:
        """A binlog change: while the window is open, its keys leave the window (the binlog is newer). True when
        a read-only window went out before the change: the offset part moved on, and the change's own record must
        carry the new one (else a restart from that record's offset would read the window's rows again)."""
        current = self.context.current
        closed = False
        if self._gtid_marks is not None:
            window_open, closed = self._gtid_window(source, offset)
        else:
            window_open = self.context.window_open
        if not self._window or not window_open or current is None or current.table != table_id:
            return closed
        for image in images:
            if image is not None:
                self._window.pop(tuple(image[i] for i in self._key_index), None)
        return closed

    def needs_rows(self, table_id: TableId) -> bool:
        current = self.context.current
        return current is not None and current.table == table_id

    def schema_changed(self, database: str) -> None:
        """DDL in the current table's database while a chunk waits for its close watermark: its rows may have been
        read with the other schema, and its keys located with it; read the chunk again (Debezium's rereadChunk)."""
        current = self.context.current
        if current is None or current.table.database != database or not (self._window or self.context.window_open):
            return
        log.info("incremental snapshot: schema change in %s while a chunk of %s was open; reading it again",
                 database, current.table.dotted())
        self._window.clear()
        self.context.revert_chunk()
        self.read_chunk()

    # ------------------------------------------------------------ chunks
    def read_chunk(self) -> None:
        context = self.context
        self._process_stop()
        if not context.running or context.paused:
            return
        try:
            conn = self._connection()
            context.start_chunk()
            self._watermark(conn, "open", "snapshot-window-open")
            while context.running:
                collection = context.current
                assert collection is not None
                try:
                    self._status = "SUCCEEDED"
                    if self._allow_schema_changes and not schema_verified(conn, context, collection.table):
                        break  # this window closes empty; the next one verifies again
                    if self._read_table_chunk(conn, collection):
                        if self._progress is not None:
                            self._progress.in_progress(context)
                        break
                    self._scan_completed(self._status)
                except ResultColumnsChanged:
                    break  # the chunk was read with other columns than verified: closed empty, verified again
                except (SignalRejected, FilterRejected, TypeError, pymysql.err.MySQLError) as exc:
                    self._on_skip(context.correlation_id, collection.table, exc)
                    self._scan_completed(self._status if isinstance(exc, SignalRejected) else "SQL_EXCEPTION")
                    log.warning("incremental snapshot (signal '%s') skips table %s: %s", context.correlation_id,
                                collection.table.dotted(), exc)
                    if isinstance(exc, pymysql.err.OperationalError):
                        self._close()
                self._next_table()
            self._watermark(conn, "close", "snapshot-window-close")
        except pymysql.err.MySQLError as exc:
            if context.current is not None:
                self._on_skip(context.correlation_id, context.current.table, exc)
            log.warning("incremental snapshot (signal '%s'): %s; skipping the table and continuing streaming",
                        context.correlation_id, exc)
            self._close()
            if context.running:
                self._scan_completed("SQL_EXCEPTION")
                self._next_table()

    def _scan_completed(self, status: str) -> None:
        if self._progress is not None and self.context.current is not None:
            self._progress.table_scan_completed(self.context, self.rows_scanned, status)

    def _next_table(self, aborted: bool = False) -> None:
        """The current table is done (or skipped, or stopped): on to the next, and the snapshot metrics."""
        context = self.context
        current = context.current
        if current is not None:
            self._metrics.table_completed(current.table, self.rows_scanned)
        self.rows_scanned = 0
        correlation_id = context.correlation_id
        context.next_collection()
        if not context.running:
            self._metrics.finished(aborted=aborted)
            if self._progress is not None:
                self._progress.completed(context, correlation_id)

    def _read_table_chunk(self, conn: pymysql.connections.Connection, collection: Collection) -> bool:
        """Fill the window with the next chunk of `collection`; False when the table is done (or empty)."""
        context = self.context
        table = self._tables.table(collection.table)
        if table is None:
            self._status = "UNKNOWN_SCHEMA"
            raise SignalRejected(context.correlation_id or "", f"table {collection.table.dotted()} is not captured")
        key = (collection.surrogate_key,) if collection.surrogate_key else tuple(table.primary_key_column_names)
        if not key or any(table.column(k) is None for k in key):
            self._status = "NO_PRIMARY_KEY"
            raise SignalRejected(context.correlation_id or "",
                                 f"table {collection.table.dotted()} has no primary key: name a surrogate-key")
        context.key_types = tuple(java_key_type(table.column(k)) for k in key)  # type: ignore[arg-type]
        columns = table.column_names()
        self._key_index = [[c.lower() for c in columns].index(k.lower()) for k in key]
        where = checked_filter(collection.filter, columns) if collection.filter else None
        if context.maximum_key is None:
            context.maximum_key = self._maximum_key(conn, collection.table, key, where)
            if context.maximum_key is None:
                self._status = "EMPTY"
                log.info("incremental snapshot: table %s is empty", collection.table.dotted())
                return False
        base = exp.select(exp.Star()).from_(table_expression(collection.table))
        if where is not None:
            base = base.where(exp.Paren(this=where.copy()), copy=False)
        base = base.where(exp.not_(key_after(key, context.maximum_key)), copy=False)
        scan = TableScan(collection.table, key=key, chunk_size=self._chunk_size, after=context.chunk_end,
                         override=base.sql(dialect=DIALECT))
        reader = ChunkReader(conn, scan, fetch_size=self._chunk_size, streaming=False)
        try:
            if self._gtid_marks is not None:
                self._gtid_marks.before_query(conn)
            reader.open()
            if self._allow_schema_changes:
                check_chunk_columns(context, reader.description, collection.table)
            for batch in reader.chunk():
                for row in batch:  # keyed by the result's own columns (the schema may lag behind the table)
                    self._window[tuple(row[i] for i in reader.key_index)] = tuple(row)
        finally:
            reader.close()
        conn.commit()
        if not self._window:
            log.info("incremental snapshot of %s done (%d rows)", collection.table.dotted(), self.rows_scanned)
            return False
        self.rows_scanned += len(self._window)
        self._metrics.rows(collection.table, self.rows_scanned)
        # Debezium's currentChunk: the table's bounds (first key read, maximum key) with its first chunk only
        first = next(iter(self._window))
        if context.chunk_end is None:
            self._metrics.current_chunk(context.chunk_id, first, reader.last_key, table_to=context.maximum_key)
        else:
            self._metrics.current_chunk(context.chunk_id, first, reader.last_key)
        context.chunk_end = reader.last_key
        return True

    def _maximum_key(self, conn: pymysql.connections.Connection, table_id: TableId, key: Sequence[str],
                     where: exp.Expression | None) -> tuple | None:
        select = exp.select(*(exp.column(k, quoted=True) for k in key)).from_(table_expression(table_id))
        if where is not None:
            select = select.where(where.copy(), copy=False)
        select = select.order_by(*(exp.Ordered(this=exp.column(k, quoted=True), desc=True) for k in key))
        with conn.cursor() as cur:
            cur.execute(select.limit(1).sql(dialect=DIALECT))
            row = cur.fetchone()
        conn.commit()
        return tuple(row) if row else None

    def _watermark(self, conn: pymysql.connections.Connection, suffix: str, kind: str) -> None:
        """An open/close row in the signal table, committed at once (insert_insert); read-only: the executed
        GTID set."""
        if self._gtid_marks is not None:
            (self._gtid_marks.read_low if suffix == "open" else self._gtid_marks.read_high)(conn)
            return
        assert self._signal_table is not None
        row = exp.Tuple(expressions=[exp.Literal.string(f"{self.context.chunk_id}-{suffix}"), exp.Literal.string(kind),
                                     exp.Literal.string(self._window_data(suffix))])
        insert = exp.Insert(this=table_expression(self._signal_table), expression=exp.Values(expressions=[row]))
        with conn.cursor() as cur:
            cur.execute(insert.sql(dialect=DIALECT))
        conn.commit()

    def _window_data(self, suffix: str) -> str:
        """Debezium's SignalMetadata text (`"k": "v", ...`): the open time, and the close time when closing."""
        ns = self._clock_ns()
        # The text's length moves every later binlog position. Debezium's JVM clock has nanoseconds, so its text
        # has 9 fraction digits except when they end in 000 (1 time in 1000, shortened as Instant.toString does):
        # always 9 here, so that positions match a recorded run rather than flip 3 bytes now and then.
        if ns % 1000 == 0:
            ns += 1
        now = _instant(ns)
        if suffix == "open":
            self._opened = now
            return f'{{"openWindowTimestamp": "{now}"}}'
        return f'{{"openWindowTimestamp": "{self._opened or now}", "closeWindowTimestamp": "{now}"}}'

    def connect(self) -> None:
        """Open the connection now; a failure is retried when the first chunk is read."""
        try:
            self._connection()
        except pymysql.err.MySQLError as exc:
            log.warning("incremental snapshot connection: %s", exc)

    def _connection(self) -> pymysql.connections.Connection:
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except pymysql.err.Error:
                pass
            self._conn = None


def _instant(ns: int) -> str:
    """Java's Instant.toString: ISO-8601 UTC, the fraction in groups of 3 digits, none when zero."""
    seconds, frac = divmod(ns, 1_000_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    if frac:
        digits = f"{frac:09d}"
        while digits.endswith("000"):
            digits = digits[:-3]
        text += "." + digits
    return text + "Z"


def _with_slot(parts: tuple, slot: IncrementalSnapshotSlot | None) -> tuple:
    rest = tuple(p for p in parts if not isinstance(p, IncrementalSnapshotSlot))
    return rest + ((slot,) if slot is not None else ())


def _at_time(source: EventSource, now_us: int) -> EventSource:
    return replace(source, ts_ms=now_us // 1000, ts_us=now_us)
