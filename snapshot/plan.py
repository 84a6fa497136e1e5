"""Which captured tables the snapshot reads, with which statement, in which order, and how.

Debezium's `RelationalSnapshotChangeEventSource#createDataEvents` and `BinlogSnapshotChangeEventSource`:
* tables are read in name order or, with `table.include.list`, pattern by pattern in that list's order
  (a pattern picks the tables it *finds* in `db.table`, as Java's `Pattern.asPredicate`);
* `snapshot.include.collection.list` narrows the captured tables whose *data* is read (their schema
  is recorded anyway);
* `snapshot.select.statement.overrides` (a list of `db.table`) with one
  `snapshot.select.statement.overrides.<db.table>` property each replaces `SELECT * FROM` for that table;
* the row estimate comes from `SHOW TABLE STATUS` (none for an overridden table: its statement may
  select anything); `snapshot.tables.order.by.row.count` sorts by it (stable, no estimate = 0);
* tables estimated above `min.row.count.to.stream.results` are read with a streaming result set, the
  others are fetched whole (0 turns streaming off, as in Debezium).
Beyond Debezium, `plan_snapshot` names every column of the schema (`SELECT *` leaves out INVISIBLE columns
that the schema and the binlog have) and, for a resumable snapshot, reads each table in primary-key order
(InnoDB's scan order anyway: no sort, same rows) so that a record's key says how far the read got. Not when
the server would read `SELECT *` through another index (a secondary index that covers every column, as
employees' `departments (dept_no PK, dept_name UNIQUE)`: dept_name order, golden realworld): Debezium's
records come in the server's order, so such a table is read as one unordered scan (it restarts from its
first row on resume). How a table is read (columns, key order, chunks, bounds, override) is a `TableScan`
(snapshot/chunks.py).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Mapping, Sequence

import pymysql

from connector.errors import ConfigError
from schema_history.model import TableId
from snapshot.chunks import TableScan
from snapshot.emitter import TableSchemas

log = logging.getLogger(__name__)

ORDER_DISABLED = "disabled"
# order name -> sort factor
ROW_COUNT_ORDERS: dict[str, int] = {"ascending": 1, "descending": -1}


@dataclass(frozen=True)
class SnapshotQueries:
    include: tuple[str, ...] = ()
    overrides: Mapping[str, str] = field(default_factory=dict)  # db.table -> SELECT
    order_by_row_count: str = ORDER_DISABLED
    min_rows_to_stream: int = 1000
    fetch_size: int | None = None
    table_include_order: tuple[str, ...] = ()  # table.include.list

    def __post_init__(self) -> None:
        if self.order_by_row_count not in ROW_COUNT_ORDERS and self.order_by_row_count != ORDER_DISABLED:
            raise ConfigError([f"snapshot.tables.order.by.row.count={self.order_by_row_count!r}: use ascending, "
                               f"descending or disabled"])


@dataclass(frozen=True)
class TableRead:
    table_id: TableId
    scan: TableScan
    estimate: int | None
    streaming: bool

    @property
    def select(self) -> str:
        """The (first) statement the read runs."""
        return self.scan.query()


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def quoted_table(table_id: TableId) -> str:
    return f"{quote(table_id.database)}.{quote(table_id.table)}"


def include_list_order(tables: Sequence[TableId], table_include: Sequence[str]) -> list[TableId]:
    """Debezium's `RelationalSnapshotChangeEventSource#sort`: per pattern of table.include.list, in order, the
    tables it finds (sorted), each table once; without the list, sorted."""
    if not table_include:
        return sorted(tables)
    ordered: dict[TableId, None] = {}
    for pattern in (re.compile(p, re.IGNORECASE) for p in table_include):
        for table_id in sorted(t for t in tables if pattern.search(t.dotted())):
            ordered.setdefault(table_id, None)
    return list(ordered)


def plan_reads(captured: Sequence[TableId], queries: SnapshotQueries,
               estimate: Callable[[TableId], int | None]) -> list[TableRead]:
    patterns = [re.compile(p, re.IGNORECASE) for p in queries.include]
    reads: list[TableRead] = []
    for table_id in include_list_order(captured, queries.table_include_order):
        name = table_id.dotted()
        if patterns and not any(p.fullmatch(name) for p in patterns):
            continue
        override = queries.overrides.get(name)
        rows = None if override is not None else estimate(table_id)
        # An override's size is unknown: stream it (Debezium buffers it; streaming keeps memory flat).
        large = override is not None or (rows is not None and queries.min_rows_to_stream > 0
                                         and rows > queries.min_rows_to_stream)
        reads.append(TableRead(table_id, TableScan(table_id, override=override), rows, large))
    factor = ROW_COUNT_ORDERS.get(queries.order_by_row_count)
    if factor is not None:
        reads.sort(key=lambda r: factor * (r.estimate or 0))
    return reads


def estimate_rows(conn: pymysql.connections.Connection, table_id: TableId) -> int | None:
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


def plan_snapshot(conn: pymysql.connections.Connection, captured: Sequence[TableId], queries: SnapshotQueries,
                  schemas: TableSchemas, key_order: bool) -> list[TableRead]:
    """The reads of the snapshot's data step: tables with a schema in the history, each naming its columns
    and, with `key_order`, in primary-key order."""
    known = []
    for table_id in captured:
        if schemas.table_known(table_id):
            known.append(table_id)
        else:
            log.warning("table %s has no schema in the history; skipped", table_id.dotted())
    reads = []
    for read in plan_reads(known, queries, partial(estimate_rows, conn)):
        columns, key = schemas.table_columns(read.table_id)
        keyed = key_order and bool(key) and scan_index(conn, read.table_id) in (None, "PRIMARY")
        scan = replace(read.scan, columns=tuple(columns), key=tuple(key) if keyed else ())
        reads.append(replace(read, scan=scan))
    return reads


def scan_index(conn: pymysql.connections.Connection, table_id: TableId) -> str | None:
    """The index the server reads `SELECT * FROM table` through (EXPLAIN's `key`), None for a table scan or
    when EXPLAIN fails; Debezium's rows come in that index's order."""
    select = f"SELECT * FROM {quoted_table(table_id)}"
    try:
        with conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute(f"EXPLAIN {select}")
            row = cur.fetchone() or {}
            if "key" not in row:  # MySQL 9 prints a tree by default (explain_format=TREE); MariaDB has no FORMAT=
                cur.execute(f"EXPLAIN FORMAT=TRADITIONAL {select}")
                row = cur.fetchone() or {}
    except pymysql.err.MySQLError as exc:
        log.debug("no plan for %s: %s", table_id.dotted(), exc)
        return None
    return row.get("key")
