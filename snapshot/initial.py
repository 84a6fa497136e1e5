"""The initial consistent snapshot (`snapshot.mode=initial`, `snapshot.locking.mode=minimal`).

Steps follow Debezium 3.6's `BinlogSnapshotChangeEventSource` (debezium-contract.md §d12):
  1. session settings: REPEATABLE READ, lock wait timeouts from `snapshot.lock.timeout.ms`
  2. FLUSH TABLES WITH READ LOCK
  3. START TRANSACTION WITH CONSISTENT SNAPSHOT *while the lock is held* (DBZ-9006), so the
     transaction's view and the binlog position in step 4 describe the same instant
  4. binlog position (+ executed GTID set)
  5. schema: SET character_set_server, DROP TABLE IF EXISTS per table, then per database DROP/CREATE
     DATABASE, USE, SHOW CREATE TABLE per table — recorded in the schema history as Debezium does
  6. UNLOCK TABLES (minimal mode: writers wait only for steps 2–5)
  7. SELECT * FROM each captured table inside the transaction, emitting op=r events whose offsets
     all carry the step-4 position; the last record's offset has no `snapshot` key (= completed)
  8. COMMIT
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import pymysql
import pymysql.cursors

from connector.binlog.connection import binlog_status
from connector.binlog.position import SNAPSHOT_INITIAL, SourceOffset
from connector.errors import ServerSetupError
from connector.filters import TableFilter
from connector.streaming import EventSource
from schema_history.model import TableId

log = logging.getLogger(__name__)

MARKER_FIRST = "first"
MARKER_FIRST_IN_TABLE = "first_in_data_collection"
MARKER_LAST_IN_TABLE = "last_in_data_collection"
MARKER_LAST = "last"
MARKER_TRUE = "true"


class SnapshotEmitter(Protocol):
    def schema_statement(self, database: str, ddl: str, source: EventSource, offset: SourceOffset) -> None: ...

    def snapshot_row(self, table_id: TableId, values: tuple, source: EventSource, offset: SourceOffset) -> None: ...

    def table_known(self, table_id: TableId) -> bool: ...


@dataclass(frozen=True)
class SnapshotResult:
    offset: SourceOffset
    tables: list[TableId]
    rows: int


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def quoted_table(table_id: TableId) -> str:
    return f"{quote(table_id.database)}.{quote(table_id.table)}"


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
                 should_stop: Callable[[], bool] = lambda: False) -> None:
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

    def run(self) -> SnapshotResult:
        conn = self._connect()
        try:
            return self._run(conn)
        finally:
            conn.close()

    def _run(self, conn: pymysql.connections.Connection) -> SnapshotResult:
        started = time.monotonic()
        cur = conn.cursor()
        if self._recovery_offset is not None:
            log.info("Recovery snapshot: reading the current schema into the history at %s",
                     self._recovery_offset.position())
            tables = self._read_schema(cur, self._recovery_offset)
            return SnapshotResult(self._recovery_offset, tables, 0)
        log.info("Snapshot step 1 - Preparing: REPEATABLE READ, lock_wait_timeout=%ss", self._lock_timeout_s)
        cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cur.execute(f"SET SESSION lock_wait_timeout={self._lock_timeout_s}")
        cur.execute(f"SET SESSION innodb_lock_wait_timeout={self._lock_timeout_s}")

        log.info("Snapshot step 2 - Flush and obtain global read lock to prevent writes to database")
        try:
            cur.execute("FLUSH TABLES WITH READ LOCK")
        except pymysql.err.OperationalError as exc:
            raise ServerSetupError(
                f"FLUSH TABLES WITH READ LOCK failed ({exc.args[-1]}): grant RELOAD to the connector user, or set "
                f"snapshot.locking.mode=none if no writes can happen during the snapshot") from None
        lock_start = time.monotonic()
        try:
            log.info("Snapshot step 3 - Start consistent snapshot transaction while holding the lock")
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")

            log.info("Snapshot step 4 - Read binlog position")
            status = binlog_status(conn)
            ts_sec = int(time.time())
            offset = SourceOffset(
                file=status.position.file, pos=status.position.pos,
                gtids=status.executed_gtid_set if self._use_gtids else None,
                ts_sec=ts_sec, snapshot=SNAPSHOT_INITIAL)
            log.info("Snapshot binlog position: %s gtids=%s", status.position, offset.gtids or "-")

            log.info("Snapshot step 5 - Read schema")
            tables = self._read_schema(cur, offset)
        finally:
            log.info("Snapshot step 6 - Releasing global read lock to enable MySQL writes")
            cur.execute("UNLOCK TABLES")
            log.info("Writes to MySQL tables prevented for a total of %.3f s", time.monotonic() - lock_start)

        rows = 0
        if self._with_data:
            log.info("Snapshot step 7 - Snapshotting data of %d table(s)", len(tables))
            rows = self._read_data(conn, tables, offset)
        else:
            log.info("Snapshot step 7 - Skipping data (snapshot.mode without data)")
        cur.execute("COMMIT")
        log.info("Snapshot step 8 - Completed: %d row(s) from %d table(s) in %.1f s", rows, len(tables),
                 time.monotonic() - started)
        return SnapshotResult(offset.with_(snapshot=None), tables, rows)

    # ---------------------------------------------------------------- schema
    def _schema_source(self, database: str, table: str | None, offset: SourceOffset) -> EventSource:
        return EventSource(ts_ms=int(time.time() * 1000), db=database, table=table, server_id=0, gtid=None,
                           file=offset.file, pos=offset.pos, row=0, thread=None, snapshot=MARKER_TRUE)

    def _read_schema(self, cur: pymysql.cursors.Cursor, offset: SourceOffset) -> list[TableId]:
        cur.execute("SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')")
        variables = sorted((str(r[0]), str(r[1])) for r in cur.fetchall())
        cur.execute("SHOW DATABASES")
        databases = [str(r[0]) for r in cur.fetchall()]
        all_tables: list[TableId] = []
        for db in sorted(d for d in databases if self._filter.database_included(d)):
            cur.execute(f"SHOW FULL TABLES IN {quote(db)} WHERE Table_type = 'BASE TABLE'")
            all_tables += [TableId(db, str(r[0])) for r in cur.fetchall()]
        all_tables.sort()
        captured = [t for t in all_tables if self._filter.table_included(t)]

        set_stmt = "SET " + ", ".join(f"{name}={value}" for name, value in variables)
        self._emitter.schema_statement("", set_stmt, self._schema_source("", None, offset), offset)
        for table_id in all_tables:
            self._emitter.schema_statement(table_id.database, f"DROP TABLE IF EXISTS {quoted_table(table_id)}",
                                           self._schema_source(table_id.database, table_id.table, offset), offset)
        cur.execute("SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA")
        locales = {str(r[0]): (r[1], r[2]) for r in cur.fetchall()}
        by_db: dict[str, list[TableId]] = {}
        for table_id in all_tables:
            by_db.setdefault(table_id.database, []).append(table_id)
        for db, db_tables in by_db.items():
            source = self._schema_source(db, None, offset)
            self._emitter.schema_statement(db, f"DROP DATABASE IF EXISTS {quote(db)}", source, offset)
            create = f"CREATE DATABASE {quote(db)}"
            charset, collation = locales.get(db, (None, None))
            if charset:
                create += f" CHARSET {charset}"
            if collation:
                create += f" COLLATE {collation}"
            self._emitter.schema_statement(db, create, self._schema_source(db, None, offset), offset)
            self._emitter.schema_statement(db, f"USE {quote(db)}", self._schema_source(db, None, offset), offset)
            for table_id in db_tables:
                cur.execute(f"SHOW CREATE TABLE {quoted_table(table_id)}")
                ddl = cur.fetchone()[1]
                self._emitter.schema_statement(db, ddl, self._schema_source(db, table_id.table, offset), offset)
        return captured

    # ---------------------------------------------------------------- data
    def _read_data(self, conn: pymysql.connections.Connection, tables: list[TableId], offset: SourceOffset) -> int:
        total = 0
        count = len(tables)
        # The snapshot's last record is only known once the next row (or table) has been looked at,
        # so each row is emitted one step late.
        pending: tuple[TableId, tuple, int, int] | None = None

        def flush(is_last_row: bool, completes: bool) -> None:
            nonlocal pending
            assert pending is not None
            table_id, values, t_index, r_index = pending
            mark = marker(t_index, count, r_index, is_last_row)
            source = EventSource(ts_ms=int(time.time()) * 1000, db=table_id.database, table=table_id.table,
                                 server_id=0, gtid=None, file=offset.file, pos=offset.pos, row=0, thread=None,
                                 snapshot=mark)
            record_offset = offset.with_(snapshot=None) if completes else offset
            self._emitter.snapshot_row(table_id, values, source, record_offset)
            pending = None

        for t_index, table_id in enumerate(tables):
            if self._should_stop():
                raise InterruptedError("snapshot interrupted by shutdown")
            if not self._emitter.table_known(table_id):
                log.warning("table %s has no schema in the history; skipped", table_id.dotted())
                continue
            estimate = self._estimate_rows(conn, table_id)
            started = time.monotonic()
            last_log = started
            log.info("Exporting data from table '%s' (%d of %d tables, ~%d rows)", table_id.dotted(),
                     t_index + 1, count, estimate)
            if pending is not None:
                flush(is_last_row=True, completes=False)
            cur = conn.cursor(pymysql.cursors.SSCursor)
            cur.execute(f"SELECT * FROM {quoted_table(table_id)}")
            r_index = 0
            for values in cur:
                if pending is not None:
                    flush(is_last_row=False, completes=False)
                pending = (table_id, values, t_index, r_index)
                r_index += 1
                total += 1
                now = time.monotonic()
                if now - last_log >= self._progress_interval_s:
                    rate = r_index / max(now - started, 1e-6)
                    eta = max(estimate - r_index, 0) / rate if rate else 0
                    log.info("Exported %d of ~%d rows from '%s' (%.0f rows/s, ETA %.0f s)", r_index, estimate,
                             table_id.dotted(), rate, eta)
                    last_log = now
            cur.close()
            log.info("Finished exporting %d records for table '%s'; total duration %.3f s", r_index,
                     table_id.dotted(), time.monotonic() - started)
        if pending is not None:
            flush(is_last_row=True, completes=True)
        return total

    def _estimate_rows(self, conn: pymysql.connections.Connection, table_id: TableId) -> int:
        with conn.cursor() as cur:
            cur.execute("SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s",
                        (table_id.database, table_id.table))
            row = cur.fetchone()
        return int(row[0] or 0) if row else 0
