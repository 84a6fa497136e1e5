"""The initial consistent snapshot.

Steps follow Debezium 3.6's `BinlogSnapshotChangeEventSource` (debezium-contract.md §d12); the lock
taken and released in steps 2, 6 and 9 depends on `snapshot.locking.mode` (snapshot/locking.py):
  1. session settings: REPEATABLE READ, lock wait timeouts from `snapshot.lock.timeout.ms`
  2. global lock (FLUSH TABLES WITH READ LOCK / LOCK TABLES FOR BACKUP), unless mode `none`
  3. START TRANSACTION WITH CONSISTENT SNAPSHOT *while the lock is held* (DBZ-9006), so the
     transaction's view and the binlog position in step 4 describe the same instant
  3b. global lock refused: list the tables, then lock the captured ones (table locks, held to step 9)
  4. binlog position (+ executed GTID set)
  5. schema: SET character_set_server, DROP TABLE IF EXISTS per table, then per database DROP/CREATE
     DATABASE, USE, SHOW CREATE TABLE per table — recorded in the schema history as Debezium does
     (with table locks only the locked tables can be shown: the others are recorded after step 9)
  6. minimal modes: release the global lock (writers waited only for steps 2–5)
  7. SELECT from each table of the plan (snapshot/plan.py) inside the transaction, emitting op=r events
     whose offsets all carry the step-4 position; the last record's offset has no `snapshot` key
  8. COMMIT
  9. release what is still held (extended mode, table locks); delayed schema of unlocked tables

Which tables are read, with which statement and in which order: snapshot/plan.py. Each data record's
offset also records how far the snapshot got, so that an interrupted snapshot resumes instead of
starting over: snapshot/resume.py, which also gives the consistency argument.

Mode `none` takes no lock. Debezium then reads the position, schema and rows without any snapshot
transaction; here the position is read *before* `START TRANSACTION WITH CONSISTENT SNAPSHOT`, so a
write racing the start is at worst read by the snapshot and streamed again (duplicate), never lost.
On MariaDB without GTIDs the exact position of the transaction's view is known
(`binlog_snapshot_file/position`) and is used instead: no duplicates either. DDL during a lock-free
snapshot is still unsafe, as in Debezium.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Callable, Protocol

import pymysql
import pymysql.cursors

from connector.binlog.connection import binlog_status
from connector.binlog.position import SNAPSHOT_INITIAL, SourceOffset
from connector.config.modes import SnapshotLockingMode
from connector.dispatch.filters import TableFilter
from connector.events.snapshot_text import Decoder
from connector.streaming.handler import EventSource
from schema_history.model import TableId
from connector.java.collection_order import hash_map_order, hash_set_order
from snapshot.locking import SnapshotLocks, strategy_for
from snapshot.markers import MARKER_FIRST, MARKER_FIRST_IN_TABLE, MARKER_LAST, MARKER_LAST_IN_TABLE, MARKER_TRUE
from snapshot.metrics import SnapshotMetrics
from snapshot.parallel import close_all, open_readers, read_parallel
from snapshot.plan import SnapshotQueries, TableRead, plan_reads, quote, quoted_table
from snapshot.raw_rows import column_decoders, decode, fetch_raw
from snapshot.resume import ResumeOffsets, ResumePoint, encode_key

log = logging.getLogger(__name__)

DEFAULT_FETCH_SIZE = 2000

__all__ = ["InitialSnapshot", "SnapshotEmitter", "SnapshotResult", "marker", "quote", "quoted_table"]


class SnapshotEmitter(Protocol):
    def schema_statement(self, database: str, ddl: str, source: EventSource, offset: SourceOffset) -> None: ...

    def snapshot_row(self, table_id: TableId, values: tuple, source: EventSource, offset: SourceOffset) -> None: ...

    def snapshot_text_rows(self, table_id: TableId, decoders: list[Decoder]
                           ) -> Callable[[list, EventSource, Any], None] | None:
        """`snapshot_row` for one table's raw text-protocol rows (snapshot/raw_rows.py), or None."""
        ...

    def table_known(self, table_id: TableId) -> bool: ...

    def table_columns(self, table_id: TableId) -> tuple[list[str], tuple[str, ...]]:
        """(column names, primary key column names) of the table in the schema history."""
        ...


class ResumeInvalid(Exception):
    """The interrupted snapshot cannot be resumed safely: take a new one."""


@dataclass(frozen=True)
class SnapshotResult:
    offset: SourceOffset
    tables: list[TableId]
    rows: int


@dataclass(frozen=True)
class TableLists:
    all: list[TableId]       # every base table of the included databases (schema is recorded for these)
    captured: list[TableId]  # those the table filters capture


class DataSources:
    """The `source` of snapshot data records: one EventSource per table, marker and batch clock, so that the
    dispatcher renders each source block once (it caches the JSON per EventSource object)."""

    def __init__(self, offset: SourceOffset) -> None:
        self._offset = offset
        self._cache: dict[tuple[TableId, str], EventSource] = {}

    def get(self, table_id: TableId, mark: str, ts_ms: int) -> EventSource:
        source = self._cache.get((table_id, mark))
        if source is None or source.ts_ms != ts_ms:
            offset = self._offset
            source = self._cache[(table_id, mark)] = EventSource(
                ts_ms=ts_ms, db=table_id.database, table=table_id.table, server_id=0, gtid=None, file=offset.file,
                pos=offset.pos, row=0, thread=None, snapshot=mark)
        return source


def marker(table_index: int, table_count: int, row_index: int, is_last_row: bool) -> str:
    """Debezium's SnapshotMarkerResolver: first/last of the whole snapshot win over per-table markers, and
    "last" wins over "first" (a single-row table in the middle is last_in_data_collection)."""
    first_table = table_index == 0
    last_table = table_index == table_count - 1
    if last_table and is_last_row:
        return MARKER_LAST
    if first_table and row_index == 0:
        return MARKER_FIRST
    if is_last_row:
        return MARKER_LAST_IN_TABLE
    if row_index == 0:
        return MARKER_FIRST_IN_TABLE
    return MARKER_TRUE


class InitialSnapshot:
    def __init__(self, connect: Callable[[], pymysql.connections.Connection], table_filter: TableFilter,
                 emitter: SnapshotEmitter, *, lock_timeout_ms: int, use_gtids: bool, with_data: bool = True,
                 recovery_offset: SourceOffset | None = None, progress_interval_s: float = 10.0,
                 should_stop: Callable[[], bool] = lambda: False,
                 locking_mode: SnapshotLockingMode = SnapshotLockingMode.MINIMAL,
                 queries: SnapshotQueries | None = None, metrics: SnapshotMetrics | None = None,
                 resumable: bool = False, resume: ResumePoint | None = None,
                 resume_offset: SourceOffset | None = None, max_threads: int = 1) -> None:
        self._connect = connect
        self._filter = table_filter
        self._emitter = emitter
        self._lock_timeout_s = max(1, lock_timeout_ms // 1000)
        self._use_gtids = use_gtids
        self._with_data = with_data
        # snapshot.mode=recovery: schema only, recorded at the stored offset, no lock, no data.
        self._recovery_offset = recovery_offset
        self._progress_interval_s = progress_interval_s
        self._should_stop = should_stop
        self._strategy = strategy_for(locking_mode)
        self._queries = queries or SnapshotQueries()
        self.metrics = metrics or SnapshotMetrics()
        # Record where the snapshot got to in each offset (snapshot/resume.py), and where to resume from.
        self._resumable = resumable and self._queries.order_by_row_count == "disabled"
        self._resume = resume
        self._resume_offset = resume_offset
        # snapshot.max.threads > 1 (snapshot/parallel.py): extra reader connections, opened under the lock. Tables
        # are then read in no fixed order, which a resumable offset needs: a parallel snapshot restarts from zero,
        # and an interrupted one-reader snapshot is resumed with one reader.
        self._extra_readers = max(0, max_threads - 1) if with_data and recovery_offset is None and resume is None else 0
        if self._extra_readers:
            self._resumable = False
        self._readers: list[pymysql.connections.Connection] = []

    def run(self) -> SnapshotResult:
        conn = self._connect()
        self.metrics.started()
        try:
            result = self._run(conn)
        except BaseException:
            self.metrics.finished(aborted=True)
            raise
        finally:
            close_all(self._readers)
            conn.close()
        self.metrics.finished()
        return result

    def _run(self, conn: pymysql.connections.Connection) -> SnapshotResult:
        started = time.monotonic()
        cur = conn.cursor()
        if self._recovery_offset is not None:
            log.info("Recovery snapshot: reading the current schema into the history at %s",
                     self._recovery_offset.position())
            lists = self._list_tables(cur)
            self._read_schema(cur, self._recovery_offset, lists, lists.all)
            return SnapshotResult(self._recovery_offset, lists.captured, 0)
        log.info("Snapshot step 1 - Preparing: REPEATABLE READ, lock_wait_timeout=%ss, snapshot.locking.mode=%s",
                 self._lock_timeout_s, self._strategy.mode.value)
        cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cur.execute(f"SET SESSION lock_wait_timeout={self._lock_timeout_s}")
        try:
            cur.execute(f"SET SESSION innodb_lock_wait_timeout={self._lock_timeout_s}")
        except pymysql.err.MySQLError as exc:
            log.warning("Unable to set innodb_lock_wait_timeout: %s", exc)

        locks = SnapshotLocks(self._strategy, cur, self.metrics.lock_changed)
        try:
            offset, lists, delayed = self._lock_and_read_schema(conn, cur, locks)
            if self._resume is not None:
                assert self._resume_offset is not None
                log.info("Resuming the interrupted snapshot at table %s after key %s; its rows come from this new "
                         "snapshot, streaming starts at the interrupted snapshot's position %s (snapshot/resume.py)",
                         self._resume.table.dotted(), self._resume.key, self._resume_offset.position())
                offset, delayed = self._resume_offset, []
            locks.release_after_schema()
            reads = self._plan(conn, lists.captured) if self._with_data else []
            self.metrics.tables([r.table_id for r in reads])
            rows, finish = 0, None
            if self._with_data and self._readers:
                log.info("Snapshot step 7 - Snapshotting data of %d table(s) with %d reader(s)", len(reads),
                         len(self._readers) + 1)
                rows, finish = self._read_data_parallel([conn, *self._readers], reads, offset)
            elif self._with_data:
                log.info("Snapshot step 7 - Snapshotting data of %d table(s)", len(reads))
                rows, finish = self._read_data(conn, reads, offset)
            else:
                log.info("Snapshot step 7 - Skipping data (snapshot.mode without data)")
            cur.execute("COMMIT")
        except BaseException:
            if locks.holding:  # best effort: closing the connection releases them anyway
                try:
                    locks.release_after_data()
                except pymysql.err.MySQLError:
                    pass
            raise
        if locks.holding:
            locks.release_after_data()
        if delayed:
            # As Debezium: the delayed schema comes after the data but before the held last record, with
            # the snapshot's "last" marker in its source.
            log.info("Reading the schema of %d table(s) that were not locked", len(delayed))
            self._show_create(cur, offset, hash_set_order(delayed, len(lists.all)), MARKER_LAST)
        if finish is not None:
            finish()
        log.info("Snapshot step 8 - Completed: %d row(s) from %d table(s) in %.1f s", rows, len(lists.captured),
                 time.monotonic() - started)
        return SnapshotResult(offset.with_(snapshot=None), lists.captured, rows)

    def _lock_and_read_schema(self, conn: pymysql.connections.Connection, cur: pymysql.cursors.Cursor,
                              locks: SnapshotLocks) -> tuple[SourceOffset, TableLists, list[TableId]]:
        strategy = self._strategy
        if strategy.locking:
            locks.acquire_global()
            if strategy.resets_isolation:
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            log.info("Snapshot step 3 - Start consistent snapshot transaction while holding the lock")
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            lists = self._list_tables(cur)
            if locks.needs_table_locks():
                locks.lock_tables(lists.captured)
            self._open_readers()  # under the global lock or the table locks: the same view as the position
            offset = self._position(conn)
        else:
            lists = self._list_tables(cur)
            offset = self._position(conn)
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            offset = self._snapshot_view_position(cur, offset)
            self._open_readers()  # views at or after the position: duplicates at worst (snapshot/parallel.py)
        if self._resume is not None:
            return offset, lists, []  # the interrupted snapshot's schema is in the history already
        log.info("Snapshot step 5 - Read schema")
        # Table locks only allow the locked tables to be read: the others wait until the locks are gone.
        if locks.tables_locked:
            captured = set(lists.captured)
            now = [t for t in lists.all if t in captured]
            delayed = [t for t in lists.all if t not in captured]
        else:
            now, delayed = lists.all, []
        self._read_schema(cur, offset, lists, now)
        return offset, lists, delayed

    def _open_readers(self) -> None:
        if not self._extra_readers:
            return
        log.info("Snapshot step 3c - Opening %d more reader connection(s) with consistent snapshots "
                 "(snapshot.max.threads=%d)", self._extra_readers, self._extra_readers + 1)
        self._readers = open_readers(self._connect, self._extra_readers)

    def _position(self, conn: pymysql.connections.Connection) -> SourceOffset:
        log.info("Snapshot step 4 - Read binlog position")
        status = binlog_status(conn)
        offset = SourceOffset(file=status.position.file, pos=status.position.pos,
                              gtids=status.executed_gtid_set if self._use_gtids else None,
                              ts_sec=int(time.time()), snapshot=SNAPSHOT_INITIAL)
        log.info("Snapshot binlog position: %s gtids=%s", status.position, offset.gtids or "-")
        return offset

    def _snapshot_view_position(self, cur: pymysql.cursors.Cursor, offset: SourceOffset) -> SourceOffset:
        """MariaDB: the binlog position matching this transaction's view, exact without any lock."""
        if self._use_gtids:
            return offset
        cur.execute("SHOW STATUS LIKE 'binlog_snapshot_%'")
        status = {str(k).lower(): str(v) for k, v in cur.fetchall()}
        file, pos = status.get("binlog_snapshot_file"), status.get("binlog_snapshot_position")
        if not file or not pos:
            return offset
        log.info("Lock-free snapshot: the consistent view starts at binlog position %s:%s", file, pos)
        return offset.with_(file=file, pos=int(pos))

    # ---------------------------------------------------------------- schema
    def _schema_source(self, database: str, table: str | None, offset: SourceOffset,
                       mark: str = MARKER_TRUE) -> EventSource:
        return EventSource(ts_ms=int(time.time() * 1000), db=database, table=table, server_id=0, gtid=None,
                           file=offset.file, pos=offset.pos, row=0, thread=None, snapshot=mark)

    def _list_tables(self, cur: pymysql.cursors.Cursor) -> TableLists:
        cur.execute("SHOW DATABASES")
        databases = [str(r[0]) for r in cur.fetchall()]
        all_tables: list[TableId] = []
        for db in sorted(d for d in databases if self._filter.database_included(d)):
            cur.execute(f"SHOW FULL TABLES IN {quote(db)} WHERE Table_type = 'BASE TABLE'")
            all_tables += [TableId(db, str(r[0])) for r in cur.fetchall()]
        all_tables.sort()
        return TableLists(all_tables, [t for t in all_tables if self._filter.table_included(t)])

    def _read_schema(self, cur: pymysql.cursors.Cursor, offset: SourceOffset, lists: TableLists,
                     shown: list[TableId]) -> None:
        cur.execute("SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')")
        variables = sorted((str(r[0]), str(r[1])) for r in cur.fetchall())
        set_stmt = "SET " + ", ".join(f"{name}={value}" for name, value in variables)
        self._emitter.schema_statement("", set_stmt, self._schema_source("", None, offset), offset)
        for table_id in lists.all:
            self._emitter.schema_statement(table_id.database, f"DROP TABLE IF EXISTS {quoted_table(table_id)}",
                                           self._schema_source(table_id.database, table_id.table, offset), offset)
        cur.execute("SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA")
        locales = {str(r[0]): (r[1], r[2]) for r in cur.fetchall()}
        by_db: dict[str, list[TableId]] = {}
        for table_id in lists.all:
            by_db.setdefault(table_id.database, [])
        for table_id in shown:
            by_db[table_id.database].append(table_id)
        for db, db_tables in by_db.items():
            self._emitter.schema_statement(db, f"DROP DATABASE IF EXISTS {quote(db)}",
                                           self._schema_source(db, None, offset), offset)
            create = f"CREATE DATABASE {quote(db)}"
            charset, collation = locales.get(db, (None, None))
            if charset:
                create += f" CHARSET {charset}"
            if collation:
                create += f" COLLATE {collation}"
            self._emitter.schema_statement(db, create, self._schema_source(db, None, offset), offset)
            self._emitter.schema_statement(db, f"USE {quote(db)}", self._schema_source(db, None, offset), offset)
            # Without locks Debezium reads these through a worker pool into a HashMap: same order here.
            self._show_create(cur, offset, db_tables if self._strategy.locking else hash_map_order(db_tables))

    def _show_create(self, cur: pymysql.cursors.Cursor, offset: SourceOffset, tables: list[TableId],
                     mark: str = MARKER_TRUE) -> None:
        for table_id in tables:
            cur.execute(f"SHOW CREATE TABLE {quoted_table(table_id)}")
            ddl = cur.fetchone()[1]
            self._emitter.schema_statement(table_id.database, ddl,
                                           self._schema_source(table_id.database, table_id.table, offset, mark),
                                           offset)

    # ---------------------------------------------------------------- data
    def _plan(self, conn: pymysql.connections.Connection, captured: list[TableId]) -> list[TableRead]:
        known = []
        for table_id in captured:
            if self._emitter.table_known(table_id):
                known.append(table_id)
            else:
                log.warning("table %s has no schema in the history; skipped", table_id.dotted())
        reads = plan_reads(known, self._queries, lambda t: self._estimate_rows(conn, t))
        if self._resumable:
            reads = [self._in_key_order(r) for r in reads]
        if self._resume is not None:
            reads = self._remaining(conn, reads)
        for r in reads:
            log.info("For table '%s' using select statement: '%s' (~%s rows, %s)", r.table_id.dotted(), r.select,
                     "?" if r.estimate is None else r.estimate, "streamed" if r.streaming else "buffered")
        return reads

    def _in_key_order(self, read: TableRead) -> TableRead:
        """Resumable reads go in primary-key order (InnoDB's scan order anyway: no sort, same rows)."""
        _, key = self._emitter.table_columns(read.table_id)
        if not key or read.select != f"SELECT * FROM {quoted_table(read.table_id)}":
            return read
        order = ", ".join(quote(c) for c in key)
        return TableRead(read.table_id, f"{read.select} ORDER BY {order}", read.estimate, read.streaming, key)

    def _with_column_list(self, read: TableRead) -> str:
        """`SELECT *` leaves out INVISIBLE columns (MySQL 8.0.23+, MariaDB 10.3+) that the schema and the
        binlog have: name every column of the schema instead, as Debezium's snapshot select does."""
        star = f"SELECT * FROM {quoted_table(read.table_id)}"
        columns, _ = self._emitter.table_columns(read.table_id)
        if not columns or not read.select.startswith(star):
            return read.select
        return f"SELECT {', '.join(quote(c) for c in columns)} FROM" + read.select[len("SELECT * FROM"):]

    def _remaining(self, conn: pymysql.connections.Connection, reads: list[TableRead]) -> list[TableRead]:
        point = self._resume
        assert point is not None
        names = [r.table_id for r in reads]
        if point.table not in names:
            raise ResumeInvalid(f"table {point.table.dotted()} is no longer part of the snapshot")
        remaining = reads[names.index(point.table):]
        for r in remaining:
            columns, _ = self._emitter.table_columns(r.table_id)
            with conn.cursor() as cur:
                cur.execute(f"SELECT * FROM {quoted_table(r.table_id)} LIMIT 0")
                now = [d[0] for d in cur.description]
            if [c.lower() for c in now] != [c.lower() for c in columns]:
                raise ResumeInvalid(f"the columns of {r.table_id.dotted()} changed since the snapshot was interrupted")
        first = remaining[0]
        if point.key is not None and first.key_columns and len(point.key) == len(first.key_columns):
            cols = ", ".join(quote(c) for c in first.key_columns)
            literals = ", ".join(conn.escape(v) for v in point.key)
            select = (f"SELECT * FROM {quoted_table(first.table_id)} WHERE ({cols}) > ({literals}) "
                      f"ORDER BY {cols}")
            remaining[0] = TableRead(first.table_id, select, first.estimate, True, first.key_columns)
            log.info("Resumed read of %s: %s", first.table_id.dotted(), select)
        return remaining

    def _read_data(self, conn: pymysql.connections.Connection, reads: list[TableRead], offset: SourceOffset
                   ) -> tuple[int, Callable[[], None] | None]:
        """Emits every row but the last; returns the row count and what emits the last one (with the
        completed offset), so that anything Debezium writes before it can still come first."""
        total = 0
        count = len(reads)
        fetch_size = self._queries.fetch_size or DEFAULT_FETCH_SIZE
        emit = self._emitter.snapshot_row
        metrics = self.metrics
        in_progress = offset
        in_progress_map = ResumeOffsets(in_progress)
        done = offset.with_(snapshot=None)
        # The snapshot's last record is only known once the next row (or table) has been looked at,
        # so each row is emitted one step late: (emit for its table, table, row, table index, row index).
        # (+ the row's offset once its table is done: taken before the next table's key columns replace its own)
        pending: tuple[Callable[[Any, EventSource, Any], None], TableId, Any, int, int, Any] | None = None
        ts_ms = int(time.time()) * 1000

        resumable = self._resumable
        key_index: list[int] = []
        key_decoders: list[Decoder] | None = None  # raw rows: PyMySQL's decoding of the key columns
        table_name = ""

        def progress(values: Any) -> Any:
            """The in-progress offset, with where the snapshot got to when resumable."""
            if not resumable:
                return in_progress
            if not key_index:
                return in_progress_map.at(table_name, None)
            if key_decoders is None:
                return in_progress_map.at(table_name, encode_key([values[i] for i in key_index]))
            return in_progress_map.at(table_name, encode_key([decode(values[i], d)
                                                              for i, d in zip(key_index, key_decoders)]))

        source_for = DataSources(offset).get

        def flush(is_last_row: bool, final: bool) -> None:
            emit_p, table_id, values, t_index, r_index, row_offset = pending  # type: ignore[misc]
            # The snapshot's last record is `last` even when the tables after its own were empty (Debezium
            # marks the record it buffered when the snapshot completes; reference run longtail)
            mark = MARKER_LAST if final else marker(t_index, count, r_index, is_last_row)
            source = source_for(table_id, mark, ts_ms)
            emit_p(values, source, done if final else row_offset if row_offset is not None else progress(values))

        for t_index, read in enumerate(reads):
            if self._should_stop():
                raise InterruptedError("snapshot interrupted by shutdown")
            table_id = read.table_id
            estimate = read.estimate or 0
            started = time.monotonic()
            last_log = started
            metrics.table_started(table_id, estimate)
            log.info("Exporting data from table '%s' (%d of %d tables, ~%d rows)", table_id.dotted(),
                     t_index + 1, count, estimate)
            if pending is not None and pending[5] is None:
                # the previous table's last row waits for the next row actually read: when only empty tables
                # follow, it is the snapshot's last record
                pending = pending[:5] + (progress(pending[2]),)
            cur = conn.cursor(pymysql.cursors.SSCursor if read.streaming else pymysql.cursors.Cursor)
            cur.execute(self._with_column_list(read))
            # Streamed rows go raw to the emitter's per-table text writer when it has one (snapshot/raw_rows.py:
            # no PyMySQL decoding, same bytes); otherwise as PyMySQL's tuples to `snapshot_row`.
            decoders = column_decoders(cur) if read.streaming else []
            emit_table = self._emitter.snapshot_text_rows(table_id, decoders) if read.streaming else None
            raw = emit_table is not None
            if raw:
                fetch: Callable[[int], Any] = partial(fetch_raw, cur)
            else:
                emit_table, fetch = partial(emit, table_id), cur.fetchmany
            if resumable:
                names = [d[0].lower() for d in cur.description]
                wanted = [c.lower() for c in read.key_columns]
                key_index = [names.index(c) for c in wanted] if all(c in names for c in wanted) else []
                key_decoders = [decoders[i] for i in key_index] if raw else None
                table_name = table_id.identifier()
            r_index = 0
            while True:
                batch = fetch(fetch_size)
                if not batch:
                    break
                ts_ms = int(time.time()) * 1000
                for values in batch:
                    if pending is not None:  # flush(is_last_row=False, final=False), inlined: once per row
                        emit_p, table_p, values_p, t_p, r_p, offset_p = pending
                        if offset_p is None:
                            emit_p(values_p, source_for(table_p, marker(t_p, count, r_p, False), ts_ms),
                                   progress(values_p))
                        else:  # an earlier table's last row
                            emit_p(values_p, source_for(table_p, marker(t_p, count, r_p, True), ts_ms), offset_p)
                    pending = (emit_table, table_id, values, t_index, r_index, None)
                    r_index += 1
                total += len(batch)
                metrics.rows(table_id, r_index)
                now = time.monotonic()
                if now - last_log >= self._progress_interval_s:
                    rate = r_index / max(now - started, 1e-6)
                    eta = max(estimate - r_index, 0) / rate if rate else 0
                    log.info("Exported %d of ~%d rows from '%s' (%.0f rows/s, ETA %.0f s)", r_index, estimate,
                             table_id.dotted(), rate, eta)
                    last_log = now
                    if self._should_stop():
                        cur.close()
                        raise InterruptedError("snapshot interrupted by shutdown")
            cur.close()
            metrics.table_completed(table_id, r_index)
            elapsed = time.monotonic() - started
            log.info("Finished exporting %d records for table '%s' (%d of %d tables); total duration %.3f s "
                     "(%.0f rows/s)", r_index, table_id.dotted(), t_index + 1, count, elapsed,
                     r_index / max(elapsed, 1e-6))
        if pending is None:
            return total, None
        return total, lambda: flush(is_last_row=True, final=True)

    def _read_data_parallel(self, connections: list[pymysql.connections.Connection], reads: list[TableRead],
                            offset: SourceOffset) -> tuple[int, Callable[[], None] | None]:
        """As `_read_data`, with the tables spread over several readers (snapshot/parallel.py)."""
        done = offset.with_(snapshot=None)

        source_for = DataSources(offset).get

        def open_table(table_id: TableId, decoders: list[Decoder] | None) -> Callable[[Any, str, int, bool], None]:
            emit_row = self._row_emitter(table_id, decoders)

            def write(values: Any, mark: str, ts_ms: int, final: bool) -> None:
                emit_row(values, source_for(table_id, mark, ts_ms), done if final else offset)
            return write

        reads = [replace(r, select=self._with_column_list(r)) for r in reads]
        return read_parallel(connections, reads, open_table, self.metrics,
                             fetch_size=self._queries.fetch_size or DEFAULT_FETCH_SIZE,
                             should_stop=self._should_stop, progress_interval_s=self._progress_interval_s)

    def _row_emitter(self, table_id: TableId, decoders: list[Decoder] | None
                     ) -> Callable[[Any, EventSource, Any], None]:
        """Rows of one table → the emitter: PyMySQL tuples, or raw rows through its text writer, or raw rows
        decoded as PyMySQL would when it has none."""
        if decoders is None:
            return partial(self._emitter.snapshot_row, table_id)
        fast = self._emitter.snapshot_text_rows(table_id, decoders)
        if fast is not None:
            return fast
        emit = self._emitter.snapshot_row

        def decoded(raw: Any, source: EventSource, offset: Any) -> None:
            emit(table_id, tuple(decode(v, d) for v, d in zip(raw, decoders)), source, offset)
        return decoded

    def _estimate_rows(self, conn: pymysql.connections.Connection, table_id: TableId) -> int | None:
        """Debezium's estimate: `SHOW TABLE STATUS` (the Rows column), None when unavailable."""
        escaped = table_id.table.replace("\\", "\\\\").replace("'", "''").replace("_", "\\_").replace("%", "\\%")
        try:
            with conn.cursor() as cur:
                cur.execute(f"SHOW TABLE STATUS IN {quote(table_id.database)} LIKE '{escaped}'")
                row = cur.fetchone()
        except pymysql.err.MySQLError as exc:
            log.debug("no row estimate for %s: %s", table_id.dotted(), exc)
            return None
        return int(row[4] or 0) if row else None
