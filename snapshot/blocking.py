"""Blocking snapshots (Debezium's `execute-snapshot` with `"type": "blocking"`), run while streaming is paused.

Streaming pauses before the binlog event that follows the signal (connector/streaming/handler.py) and hands
this module that event's source and the position streaming resumes from. As Debezium's blocking snapshot
(ChangeEventSourceCoordinator.doBlockingSnapshot over RelationalSnapshotChangeEventSource):
* the captured tables matching `data-collections` (regular expressions, whole name, any case) are read in
  the initial snapshot's table order;
* first the initial snapshot's schema records of those tables go out again, unchanged (connector/dispatch/
  schema_changes.py `replay`);
* then every row, op=r, with the initial snapshot's markers (first ... last), the paused event's `source`
  (file, pos, server_id, gtid, thread; row 0) and the paused position as offset, `snapshot: BLOCKING` on all
  but the last record;
* an `additional-conditions` filter is, for a blocking snapshot, the table's whole SELECT statement (Debezium
  puts it where `snapshot.select.statement.overrides` go). It is checked with sqlglot first (one SELECT of
  that table alone); one that is not is logged and ends the snapshot's data step, where Debezium's query
  fails ("Snapshot was not completed successfully"), and streaming resumes.
Nothing here stops the connector: a failure is logged with the signal's id and streaming resumes.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from typing import Any, Callable, Protocol, Sequence

import pymysql
import sqlglot
from sqlglot import exp

from connector.offsets.position import BLOCKING, SourceOffset
from connector.signals.actions import ExecuteSnapshot
from connector.events.changes import EventSource
from schema_history.model import TableId
from snapshot.chunks import ChunkReader
from snapshot.emitter import SnapshotEmitter
from snapshot.initial import InitialProgress
from snapshot.metrics import SnapshotMetrics
from snapshot.plan import SnapshotQueries, TableRead, plan_snapshot
from snapshot.scan import marker, row_writer

__all__ = ["BlockingEmitter", "BlockingSnapshot", "checked_statement"]

log = logging.getLogger(__name__)
DIALECT = "mysql"
_FORBIDDEN = (exp.Subquery, exp.Union, exp.Command, exp.DDL, exp.DML, exp.Parameter, exp.Placeholder,
              exp.SessionParameter, exp.Into, exp.Lock)


class BlockingEmitter(SnapshotEmitter, Protocol):
    """The dispatcher as a blocking snapshot needs it."""

    def wants_table(self, table_id: TableId) -> bool: ...

    def replay_snapshot_schema(self, tables: Sequence[TableId]) -> None: ...


class StatementRejected(ValueError):
    pass


def checked_statement(text: str, table_id: TableId) -> str:
    """A blocking snapshot's filter as the SELECT sqlglot re-renders, or StatementRejected saying why it is not
    one SELECT reading `table_id` alone."""
    if "--" in text or "/*" in text or "#" in text:
        raise StatementRejected("comments are not allowed")
    try:
        parsed = [p for p in sqlglot.parse(text, read=DIALECT) if p is not None]
    except sqlglot.errors.SqlglotError as exc:
        raise StatementRejected(f"not valid SQL ({str(exc).splitlines()[0]})") from None
    if len(parsed) != 1 or not isinstance(parsed[0], exp.Select):
        raise StatementRejected("a blocking snapshot's filter is the table's whole statement: one SELECT (for "
                                f"example SELECT * FROM {table_id.dotted()} WHERE ...)")
    tree = parsed[0]
    for node in tree.walk():
        if isinstance(node, _FORBIDDEN) or (node is not tree and isinstance(node, exp.Select)):
            raise StatementRejected(f"{type(node).__name__} is not allowed")
        if isinstance(node, exp.Table):
            db = node.db or table_id.database
            if (db.lower(), node.name.lower()) != (table_id.database.lower(), table_id.table.lower()):
                raise StatementRejected(f"it reads {node.sql(dialect=DIALECT)}, not {table_id.dotted()}")
    if not any(isinstance(n, exp.Table) for n in tree.walk()):
        raise StatementRejected(f"it does not read {table_id.dotted()}")
    return tree.sql(dialect=DIALECT)


class BlockingSnapshot:
    def __init__(self, connect: Callable[[], pymysql.connections.Connection], emitter: BlockingEmitter,
                 tables: Callable[[], list[TableId]], queries: SnapshotQueries, fetch_size: int = 2000,
                 should_stop: Callable[[], bool] = lambda: False, metrics: SnapshotMetrics | None = None,
                 progress: InitialProgress | None = None) -> None:
        self._connect = connect
        self._emitter = emitter
        self._tables = tables
        self._queries = queries
        self._fetch_size = fetch_size
        self._should_stop = should_stop
        self._metrics = metrics if metrics is not None else SnapshotMetrics()
        # Debezium runs a blocking snapshot through its initial snapshot's code: the same "Initial Snapshot"
        # notifications (STARTED even when no table matches, per table, COMPLETED or ABORTED)
        self._progress = progress
        self._current: TableId | None = None  # the table being read, named by a SQL_EXCEPTION notification

    def tables_for(self, action: ExecuteSnapshot) -> list[TableId]:
        patterns = [re.compile(p, re.IGNORECASE) for p in action.data_collections]
        return [t for t in self._tables()
                if self._emitter.wants_table(t) and any(p.fullmatch(t.dotted()) for p in patterns)]

    def run(self, action: ExecuteSnapshot, source: EventSource, offset: SourceOffset) -> None:
        tables = self.tables_for(action)
        log.info("signal '%s': blocking snapshot of %s; streaming paused at %s:%d", action.id,
                 ", ".join(t.dotted() for t in tables) or "no captured table", offset.file, offset.pos)
        progress = self._progress
        if progress is not None:
            progress.started()
        if not tables:
            if progress is not None:
                progress.finished(aborted=False)
            return
        self._emitter.replay_snapshot_schema(tables)
        metrics = self._metrics
        metrics.started()
        metrics.tables(tables)
        if progress is not None:
            progress.tables(tables, tables)
            metrics.progress = progress
        try:
            self._run(action, tables, source, offset)
        finally:
            metrics.progress = None

    def _run(self, action: ExecuteSnapshot, tables: list[TableId], source: EventSource, offset: SourceOffset
             ) -> None:
        started = time.monotonic()
        try:
            conn = self._connect()
        except pymysql.err.MySQLError as exc:
            self._finished(aborted=True)
            log.warning("signal '%s': blocking snapshot not completed (%s); streaming resumes", action.id, exc)
            return
        try:
            rows = self._read(conn, action, tables, source, offset)
            self._finished(aborted=False)
            log.info("signal '%s': blocking snapshot completed, %d rows in %.1f s; streaming resumes", action.id,
                     rows, time.monotonic() - started)
        except InterruptedError:
            self._finished(aborted=True)
            log.warning("signal '%s': blocking snapshot interrupted by shutdown; as in Debezium it is not resumed "
                        "at the next start: send the signal again", action.id)
        except (StatementRejected, pymysql.err.MySQLError, ValueError) as exc:
            sql_failure = isinstance(exc, (StatementRejected, pymysql.err.MySQLError))  # not a value's error
            if sql_failure and self._current is not None and self._progress is not None:
                self._progress.table_failed(self._current)
            self._finished(aborted=True)
            log.warning("signal '%s': blocking snapshot not completed (%s); streaming resumes", action.id, exc)
        finally:
            self._current = None
            try:
                conn.close()
            except pymysql.err.Error:
                pass

    def _finished(self, aborted: bool) -> None:
        self._metrics.finished(aborted=aborted)
        if self._progress is not None:
            self._progress.finished(aborted=aborted)

    def _reads(self, conn: pymysql.connections.Connection, action: ExecuteSnapshot,
               tables: list[TableId]) -> list[tuple[TableRead, StatementRejected | None]]:
        """The planned reads, each with why its additional-conditions statement is refused (or None)."""
        planned: list[tuple[TableRead, StatementRejected | None]] = []
        for read in plan_snapshot(conn, tables, self._queries, self._emitter, key_order=False):
            condition = next((c for c in action.additional_conditions
                              if c.data_collection.fullmatch(read.table_id.dotted())), None)
            refused = None
            if condition is not None:
                try:
                    statement = checked_statement(condition.filter, read.table_id)
                    read = replace(read, scan=replace(read.scan, override=statement), streaming=True)
                except StatementRejected as exc:
                    refused = StatementRejected(f"additional-conditions of {read.table_id.dotted()} "
                                                f"'{condition.filter}': {exc}")
            planned.append((read, refused))
        return planned

    def _read(self, conn: pymysql.connections.Connection, action: ExecuteSnapshot, tables: list[TableId],
              paused: EventSource, offset: SourceOffset) -> int:
        """Every row of `tables`; each emitted one step late, so that the last one can be marked `last`."""
        with conn.cursor() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        reads = self._reads(conn, action, tables)
        in_progress, done = offset.with_(snapshot=BLOCKING), offset
        sources: dict[tuple[TableId, str], EventSource] = {}

        def source_for(table_id: TableId, mark: str) -> EventSource:
            es = sources.get((table_id, mark))
            if es is None:  # one object per table and marker: the dispatcher caches its rendering
                es = sources[(table_id, mark)] = replace(paused, db=table_id.database, table=table_id.table,
                                                         snapshot=mark)
            return es

        # writer, table, row, table index, row index, whether it is its table's last row
        pending: tuple[Any, TableId, Any, int, int, bool] | None = None
        count, total = len(reads), 0
        for t_index, (read, refused) in enumerate(reads):
            if refused is not None:
                # where Debezium's query fails: the tables before it were sent, this one is named in progress
                if self._progress is not None:
                    self._progress.table_started(read.table_id)
                self._current = read.table_id
                raise refused
            log.info("Exporting data from table '%s' (%d of %d tables)", read.table_id.dotted(), t_index + 1, count)
            reader = ChunkReader(conn, read.scan, self._fetch_size, read.streaming)
            self._metrics.table_started(read.table_id, read.estimate or 0)
            self._current = read.table_id
            try:
                emit_table = row_writer(self._emitter, read.table_id, reader.open())
                r_index = 0
                for batch in reader:
                    for values in batch:
                        if pending is not None:
                            emit_p, table_p, values_p, t_p, r_p, last_p = pending
                            emit_p(values_p, source_for(table_p, marker(t_p, count, r_p, last_p)), in_progress)
                        pending = (emit_table, read.table_id, values, t_index, r_index, False)
                        r_index += 1
                    self._metrics.rows(read.table_id, r_index)
                    if self._should_stop():
                        raise InterruptedError("blocking snapshot interrupted by shutdown")
                if pending is not None:
                    pending = pending[:5] + (True,)
                self._current = None
                self._metrics.table_completed(read.table_id, r_index)
                total += r_index
            finally:
                reader.close()
        conn.commit()
        if pending is not None:  # the snapshot's last record, even when only empty tables followed its own
            pending[0](pending[2], source_for(pending[1], "last"), done)
        return total
