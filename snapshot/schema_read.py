"""Snapshot step 5: the captured databases' schema, recorded in the schema history as Debezium records it.

Order (debezium-contract.md §d7): `SET character_set_server=.., collation_server=..`, `DROP TABLE IF EXISTS`
for every table, then per database `DROP DATABASE IF EXISTS`, `CREATE DATABASE .. [CHARSET ..] [COLLATE ..]`,
`USE`, and `SHOW CREATE TABLE` per table. The statements are Debezium's text, so they are written as
Debezium writes them (backquoted names), not generated.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pymysql

from connector.offsets.position import SourceOffset
from connector.config.table_filter import TableFilter
from connector.java.collection_order import hash_map_order
from connector.events.changes import EventSource
from schema_history.model import TableId
from snapshot.emitter import SnapshotEmitter
from snapshot.markers import MARKER_TRUE
from snapshot.plan import quote, quoted_table

__all__ = ["SchemaReader", "TableLists", "list_tables"]


@dataclass(frozen=True)
class TableLists:
    all: list[TableId]       # every base table of the included databases (schema is recorded for these)
    captured: list[TableId]  # those the table filters capture


def list_tables(cur: pymysql.cursors.Cursor, table_filter: TableFilter) -> TableLists:
    cur.execute("SHOW DATABASES")
    databases = [str(r[0]) for r in cur.fetchall()]
    all_tables: list[TableId] = []
    for db in sorted(d for d in databases if table_filter.database_included(d)):
        cur.execute(f"SHOW FULL TABLES IN {quote(db)} WHERE Table_type = 'BASE TABLE'")
        all_tables += [TableId(db, str(r[0])) for r in cur.fetchall()]
    all_tables.sort()
    return TableLists(all_tables, [t for t in all_tables if table_filter.table_included(t)])


def schema_source(database: str, table: str | None, offset: SourceOffset, mark: str = MARKER_TRUE) -> EventSource:
    return EventSource(ts_ms=int(time.time() * 1000), db=database, table=table, server_id=0, gtid=None,
                       file=offset.file, pos=offset.pos, row=0, thread=None, snapshot=mark)


class SchemaReader:
    """Reads table definitions on the snapshot connection and hands them to the emitter as history records."""

    def __init__(self, cur: pymysql.cursors.Cursor, emitter: SnapshotEmitter) -> None:
        self._cur = cur
        self._emitter = emitter

    def record(self, offset: SourceOffset, lists: TableLists, shown: list[TableId], locked: bool) -> None:
        """Every database of `lists` with the `shown` tables' definitions; `locked`: the tables are in name
        order (without locks Debezium reads them through a worker pool into a HashMap: that order)."""
        cur, emit = self._cur, self._emitter.schema_statement
        cur.execute("SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')")
        variables = sorted((str(r[0]), str(r[1])) for r in cur.fetchall())
        emit("", "SET " + ", ".join(f"{name}={value}" for name, value in variables),
             schema_source("", None, offset), offset)
        for table_id in lists.all:
            emit(table_id.database, f"DROP TABLE IF EXISTS {quoted_table(table_id)}",
                 schema_source(table_id.database, table_id.table, offset), offset)
        cur.execute("SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME "
                    "FROM information_schema.SCHEMATA")
        locales = {str(r[0]): (r[1], r[2]) for r in cur.fetchall()}
        by_db: dict[str, list[TableId]] = {t.database: [] for t in lists.all}
        for table_id in shown:
            by_db[table_id.database].append(table_id)
        for db, db_tables in by_db.items():
            emit(db, f"DROP DATABASE IF EXISTS {quote(db)}", schema_source(db, None, offset), offset)
            create = f"CREATE DATABASE {quote(db)}"
            charset, collation = locales.get(db, (None, None))
            if charset:
                create += f" CHARSET {charset}"
            if collation:
                create += f" COLLATE {collation}"
            emit(db, create, schema_source(db, None, offset), offset)
            emit(db, f"USE {quote(db)}", schema_source(db, None, offset), offset)
            self.show_create(offset, db_tables if locked else hash_map_order(db_tables))

    def show_create(self, offset: SourceOffset, tables: list[TableId], mark: str = MARKER_TRUE) -> None:
        for table_id in tables:
            self._cur.execute(f"SHOW CREATE TABLE {quoted_table(table_id)}")
            ddl = self._cur.fetchone()[1]
            self._emitter.schema_statement(table_id.database, ddl,
                                           schema_source(table_id.database, table_id.table, offset, mark), offset)
