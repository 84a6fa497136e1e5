"""The initial consistent snapshot: numbered steps, each done by a small collaborator.

Steps follow Debezium 3.6's `BinlogSnapshotChangeEventSource` (debezium-contract.md §d12); the lock
taken and released in steps 2, 6 and 9 depends on `snapshot.locking.mode` (snapshot/locking.py):
  1. session settings: REPEATABLE READ, lock wait timeouts from `snapshot.lock.timeout.ms`
  2. global lock (FLUSH TABLES WITH READ LOCK / LOCK TABLES FOR BACKUP), unless mode `none`
  3. START TRANSACTION WITH CONSISTENT SNAPSHOT *while the lock is held* (DBZ-9006), so the
     transaction's view and the binlog position in step 4 describe the same instant
  3b. global lock refused: list the tables, then lock the captured ones (table locks, held to step 9)
  3c. snapshot.max.threads > 1: more reader connections, each in its own consistent snapshot (snapshot/parallel.py)
  4. binlog position (+ executed GTID set) (snapshot/position.py)
  5. schema: SET character_set_server, DROP TABLE IF EXISTS per table, then per database DROP/CREATE
     DATABASE, USE, SHOW CREATE TABLE per table — recorded in the schema history as Debezium does
     (snapshot/schema_read.py; with table locks only the locked tables can be shown: the others are
     recorded after step 9)
  6. minimal modes: release the global lock (writers waited only for steps 2–5)
  7. plan (snapshot/plan.py) and SELECT from each table inside the transaction (snapshot/scan.py, or
     snapshot/parallel.py), each table through the chunk reader (snapshot/chunks.py), emitting op=r events
     whose offsets all carry the step-4 position; the last record's offset has no `snapshot` key
  8. COMMIT
  9. release what is still held (extended mode, table locks); delayed schema of unlocked tables

Each data record's offset also records how far the snapshot got, so that a restart reads only the rest of an
interrupted snapshot, beside streaming: snapshot/resume.py (the offsets) and snapshot/remainder.py.

Mode `none` takes no lock. Debezium then reads the position, schema and rows without any snapshot
transaction; here the position is read *before* `START TRANSACTION WITH CONSISTENT SNAPSHOT`, so a
write racing the start is at worst read by the snapshot and streamed again (duplicate), never lost.
On MariaDB without GTIDs the exact position of the transaction's view is known
(`binlog_snapshot_file/position`) and is used instead: no duplicates either. DDL during a lock-free
snapshot is still unsafe, as in Debezium.

Entry point: `InitialSnapshot(source, emitter, options, start, metrics).run(should_stop) -> SnapshotResult`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence, cast

import pymysql

from connector.offsets.position import SourceOffset
from connector.config.modes import SnapshotLockingMode
from connector.config.table_filter import TableFilter
from connector.java.collection_order import hash_set_order
from schema_history.model import TableId
from snapshot.emitter import SnapshotEmitter
from snapshot.ghost_rows import GhostSweep, SweepEmitter
from snapshot.locking import SnapshotLocks, strategy_for
from snapshot.markers import MARKER_LAST
from snapshot.metrics import SnapshotMetrics
from snapshot.parallel import close_all, open_readers, read_parallel
from snapshot.plan import ORDER_DISABLED, SnapshotQueries, TableRead, plan_snapshot
from snapshot.position import read_position, view_position
from snapshot.scan import DEFAULT_FETCH_SIZE, DataStep, Finish, read_serially
from snapshot.schema_read import SchemaReader, TableLists, list_tables

log = logging.getLogger(__name__)

__all__ = ["InitialSnapshot", "SnapshotOptions", "SnapshotResult", "SnapshotSource",
           "SnapshotStart"]

Connect = Callable[[], pymysql.connections.Connection]


@dataclass(frozen=True)
class SnapshotSource:
    """Where the snapshot reads: new connections (autocommit off, UTC), which tables, GTIDs in offsets or not."""

    connect: Connect
    table_filter: TableFilter
    use_gtids: bool


@dataclass(frozen=True)
class SnapshotOptions:
    """How it reads (the `snapshot.*` settings)."""

    locking_mode: SnapshotLockingMode = SnapshotLockingMode.MINIMAL
    lock_timeout_ms: int = 10_000
    queries: SnapshotQueries = field(default_factory=SnapshotQueries)
    max_threads: int = 1  # snapshot.max.threads
    resumable: bool = False  # snapshot.resume.enabled: record how far the snapshot got in each offset
    with_data: bool = True  # false: schema only (snapshot modes without data)
    progress_interval_s: float = 10.0


@dataclass(frozen=True)
class SnapshotStart:
    """What the run continues: nothing (a new snapshot) or a stored offset whose schema is read again
    (snapshot.mode=recovery: schema only, recorded at that offset, no lock, no data). An interrupted snapshot's
    remainder is no snapshot run: streaming reads it (snapshot/remainder.py)."""

    recovery_offset: SourceOffset | None = None
    # An interrupted snapshot taken again rather than resumed: deletes for the rows its earlier attempts sent that
    # are gone now, before the first row is read (snapshot/ghost_rows.py)
    ghosts: GhostSweep | None = None


@dataclass(frozen=True)
class SnapshotResult:
    offset: SourceOffset
    tables: list[TableId]
    rows: int


class InitialProgress(Protocol):
    """Told what the snapshot does, as Debezium's InitialSnapshotNotificationService is
    (connector/notifications/service.py: InitialNotifications); per table through `SnapshotMetrics.progress`."""

    def started(self) -> None: ...
    def tables(self, captured: Sequence[TableId], snapshotted: Sequence[TableId]) -> None: ...
    def table_started(self, table_id: TableId) -> None: ...
    def table_completed(self, table_id: TableId, rows: int) -> None: ...
    def table_failed(self, table_id: TableId) -> None: ...
    def finished(self, aborted: bool) -> None: ...


class InitialSnapshot:
    def __init__(self, source: SnapshotSource, emitter: SnapshotEmitter, options: SnapshotOptions = SnapshotOptions(),
                 start: SnapshotStart = SnapshotStart(), metrics: SnapshotMetrics | None = None,
                 progress: InitialProgress | None = None) -> None:
        self._source = source
        self._emitter = emitter
        self._options = options
        self._start = start
        self.metrics = metrics or SnapshotMetrics()
        self._progress = progress

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> SnapshotResult:
        """Takes the snapshot; InterruptedError when `should_stop` turns true."""
        conn = self._source.connect()
        self.metrics.started()
        progress = self._progress
        if progress is not None:
            progress.started()
            self.metrics.progress = progress
        run = _Run(self._source, self._emitter, self._options, self._start, self.metrics, should_stop, conn,
                   progress)
        try:
            result = run.recovery() if self._start.recovery_offset is not None else run.snapshot()
        except BaseException as exc:
            reading = self.metrics.reading()
            # Debezium names the table whose SELECT failed (SQL_EXCEPTION) before ABORTED; with parallel readers
            # only one failed table is named (the others were read beside it)
            if progress is not None and isinstance(exc, pymysql.err.MySQLError) and len(reading) == 1:
                progress.table_failed(reading[0])
            self.metrics.finished(aborted=True)
            if progress is not None:
                progress.finished(aborted=True)
            raise
        finally:
            self.metrics.progress = None
            close_all(run.readers)
            conn.close()
        self.metrics.finished()
        if progress is not None:
            progress.finished(aborted=False)
        return result


class _Run:
    """One snapshot run on one connection: the steps, in order."""

    def __init__(self, source: SnapshotSource, emitter: SnapshotEmitter, options: SnapshotOptions,
                 start: SnapshotStart, metrics: SnapshotMetrics, should_stop: Callable[[], bool],
                 conn: pymysql.connections.Connection, progress: InitialProgress | None = None) -> None:
        self.source, self.emitter, self.options, self.start = source, emitter, options, start
        self.metrics = metrics
        self.progress = progress
        self.conn = conn
        self.cur = conn.cursor()
        self.schema = SchemaReader(self.cur, emitter)
        self.strategy = strategy_for(options.locking_mode)
        self.lock_timeout_s = max(1, options.lock_timeout_ms // 1000)
        self.step = DataStep(emitter, metrics, should_stop, options.queries.fetch_size or DEFAULT_FETCH_SIZE,
                             options.progress_interval_s)
        # Extra readers read tables in no fixed order, which a resumable offset needs: a parallel snapshot
        # restarts from zero.
        self.extra_readers = max(0, options.max_threads - 1) if options.with_data else 0
        self.resumable = (options.resumable and options.queries.order_by_row_count == ORDER_DISABLED
                          and not self.extra_readers)
        self.readers: list[pymysql.connections.Connection] = []

    def recovery(self) -> SnapshotResult:
        offset = self.start.recovery_offset
        assert offset is not None
        log.info("Recovery snapshot: reading the current schema into the history at %s", offset.position())
        lists = list_tables(self.cur, self.source.table_filter)
        self.schema.record(offset, lists, lists.all, locked=self.strategy.locking)
        return SnapshotResult(offset, lists.captured, 0)

    def snapshot(self) -> SnapshotResult:
        started = time.monotonic()
        self.prepare_session()
        locks = SnapshotLocks(self.strategy, self.cur, self.metrics.lock_changed)
        try:
            offset, lists, delayed = self.lock_and_read_schema(locks)
            locks.release_after_schema()
            rows, finish = self.read_data(lists.captured, offset)
            self.cur.execute("COMMIT")
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
            self.schema.show_create(offset, hash_set_order(delayed, len(lists.all)), MARKER_LAST)
        if finish is not None:
            finish()
        log.info("Snapshot step 8 - Completed: %d row(s) from %d table(s) in %.1f s", rows, len(lists.captured),
                 time.monotonic() - started)
        return SnapshotResult(offset.with_(snapshot=None), lists.captured, rows)

    def prepare_session(self) -> None:
        log.info("Snapshot step 1 - Preparing: REPEATABLE READ, lock_wait_timeout=%ss, snapshot.locking.mode=%s",
                 self.lock_timeout_s, self.strategy.mode.value)
        self.cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        self.cur.execute(f"SET SESSION lock_wait_timeout={self.lock_timeout_s}")
        try:
            self.cur.execute(f"SET SESSION innodb_lock_wait_timeout={self.lock_timeout_s}")
        except pymysql.err.MySQLError as exc:
            log.warning("Unable to set innodb_lock_wait_timeout: %s", exc)

    def lock_and_read_schema(self, locks: SnapshotLocks) -> tuple[SourceOffset, TableLists, list[TableId]]:
        """Steps 2-5: the position and the schema, under the lock; the tables whose schema waits for step 9."""
        cur, use_gtids = self.cur, self.source.use_gtids
        if self.strategy.locking:
            locks.acquire_global()
            if self.strategy.resets_isolation:
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            log.info("Snapshot step 3 - Start consistent snapshot transaction while holding the lock")
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            lists = list_tables(cur, self.source.table_filter)
            if locks.needs_table_locks():
                locks.lock_tables(lists.captured)
            self.open_readers()  # under the global lock or the table locks: the same view as the position
            offset = read_position(self.conn, use_gtids)
        else:
            lists = list_tables(cur, self.source.table_filter)
            offset = read_position(self.conn, use_gtids)
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            offset = view_position(cur, offset, use_gtids)
            self.open_readers()  # views at or after the position: duplicates at worst (snapshot/parallel.py)
        log.info("Snapshot step 5 - Read schema")
        # Table locks only allow the locked tables to be read: the others wait until the locks are gone.
        if locks.tables_locked:
            captured = set(lists.captured)
            now = [t for t in lists.all if t in captured]
            delayed = [t for t in lists.all if t not in captured]
        else:
            now, delayed = lists.all, []
        self.schema.record(offset, lists, now, locked=self.strategy.locking)
        return offset, lists, delayed

    def open_readers(self) -> None:
        if not self.extra_readers:
            return
        log.info("Snapshot step 3c - Opening %d more reader connection(s) with consistent snapshots "
                 "(snapshot.max.threads=%d)", self.extra_readers, self.extra_readers + 1)
        self.readers = open_readers(self.source.connect, self.extra_readers)

    def read_data(self, captured: list[TableId], offset: SourceOffset) -> tuple[int, Finish]:
        """Step 7: plan the reads, then read them with one reader or several."""
        if not self.options.with_data:
            self.metrics.tables([])
            log.info("Snapshot step 7 - Skipping data (snapshot.mode without data)")
            return 0, None
        reads = self.plan(captured)
        if self.start.ghosts is not None:
            log.info("Snapshot step 7a - Deleting rows earlier attempts sent that are gone now")
            self.start.ghosts.sweep(self.cur, [r.table_id for r in reads], offset, cast(SweepEmitter, self.emitter))
        self.metrics.tables([r.table_id for r in reads])
        if self.progress is not None:
            self.progress.tables(captured, [r.table_id for r in reads])
        if self.readers:
            log.info("Snapshot step 7 - Snapshotting data of %d table(s) with %d reader(s)", len(reads),
                     len(self.readers) + 1)
            return read_parallel([self.conn, *self.readers], reads, offset, self.step)
        log.info("Snapshot step 7 - Snapshotting data of %d table(s)", len(reads))
        return read_serially(self.conn, reads, offset, self.step, self.resumable)

    def plan(self, captured: list[TableId]) -> list[TableRead]:
        reads = plan_snapshot(self.conn, captured, self.options.queries, self.emitter, key_order=self.resumable)
        for r in reads:
            log.info("For table '%s' using select statement: '%s' (~%s rows, %s)", r.table_id.dotted(), r.select,
                     "?" if r.estimate is None else r.estimate, "streamed" if r.streaming else "buffered")
        return reads
