"""What the server says now, for the two places where the schema history cannot decide alone.

1. Unparseable shape-changing DDL (beyond Debezium): instead of failing, take the table's shape from
   `SHOW CREATE TABLE` — but only when no later statement in the binlog touches that table, since
   the live definition must be the one right after the failed statement.
2. `snapshot.mode=recovery` rebuilds the history from the *current* tables at the stored offset: that
   is only right when no DDL ran between the stored offset and now, so it refuses otherwise.

Both read `SHOW BINLOG EVENTS` from a position to the end of the newest binlog. Rare operations, each
on a fresh connection (the streaming connection is busy, the control connection is not thread-safe).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

import pymysql

from connector.offsets.position import binlog_file_key
from schema_history.model import TableId
from schema_history.recovery import gtid_set_contained

_NOT_DDL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|XA\b|SET\b|FLUSH\b|#|/\*\s*xid)", re.I)
_USE_PREFIX = re.compile(r"^\s*use\s+`((?:[^`]|``)+)`\s*;\s*", re.I)
_NAME = r"(?:`((?:[^`]|``)+)`|([\w$]+))"
_SHAPE_DDL = re.compile(
    r"^\s*(?:/\*!\d*\s*)?(ALTER|CREATE)\s+(?:OR\s+REPLACE\s+|ONLINE\s+|OFFLINE\s+|IGNORE\s+)*(?:TABLE|SEQUENCE)\s+"
    r"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?" + _NAME + r"(?:\s*\.\s*" + _NAME + r")?", re.I)


# Statements that can change what a table looks like (GRANT, CREATE USER/VIEW/TRIGGER... cannot).
_CHANGES_SHAPE = re.compile(
    r"^\s*(?:/\*!\d*\s*)?(?:(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+|ONLINE\s+|OFFLINE\s+|IGNORE\s+|UNIQUE\s+|"
    r"FULLTEXT\s+|SPATIAL\s+)*(?:TABLE|DATABASE|SCHEMA|INDEX|SEQUENCE)\b|RENAME\s+TABLE\b)", re.I)


_MYSQL_GTID = re.compile(r"GTID_NEXT\s*=\s*'([^']+)'", re.I)
_MARIADB_GTID = re.compile(r"GTID\s+(\d+-\d+-\d+)", re.I)


def _event_gtid(info: str) -> str | None:
    """The GTID a SHOW BINLOG EVENTS `Gtid` row names (MySQL `SET @@SESSION.GTID_NEXT= 'u:n'`, MariaDB
    `BEGIN GTID d-s-n`), None for anonymous transactions."""
    m = _MYSQL_GTID.search(info) or _MARIADB_GTID.search(info)
    return m.group(1) if m and m.group(1).upper() != "ANONYMOUS" else None


def changes_shape(statement: str) -> bool:
    return bool(_CHANGES_SHAPE.match(statement))


@dataclass(frozen=True)
class BinlogQuery:
    file: str
    pos: int
    database: str | None  # the `use` prefix MySQL shows, when there is one
    statement: str


def shape_ddl_table(ddl: str, database: str | None) -> TableId | None:
    """The table an ALTER TABLE / CREATE TABLE statement changes (None for other statements)."""
    m = _SHAPE_DDL.match(ddl)
    if m is None or re.match(r"^\s*CREATE\s+TEMPORARY", ddl, re.I):
        return None
    first = (m.group(2) or "").replace("``", "`") or m.group(3)
    second = (m.group(4) or "").replace("``", "`") or m.group(5)
    if second:
        return TableId(first, second)
    return TableId(database, first) if database else None


class LiveSchema:
    def __init__(self, connect: Callable[[], pymysql.connections.Connection]) -> None:
        self._connect = connect

    def queries_after(self, file: str, pos: int, include_start: bool = False, gtids: str | None = None,
                      server_id: int | None = None) -> Iterator[BinlogQuery]:
        """DDL-like query events from (file, pos) to the end of the binlog (transaction control left out).

        With `gtids` (a GTID offset), transactions inside that set are left out, and the offset's file and
        position count only when they are this server's (same server_id, file still there): after a
        failover they name another server's binlog, so every binlog is read and the GTIDs alone decide.
        (They cannot decide alone on the same server: the offset after a standalone DDL leaves that DDL's
        GTID out, as Debezium's does, although its position is past it.)"""
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW BINARY LOGS")
                names = [row[0] for row in cur.fetchall()]
                cur.execute("SELECT @@server_id")
                same_server = file in names and server_id is not None and int(cur.fetchone()[0]) == server_id
                if gtids is not None and not same_server:
                    files, file = names, ""
                else:
                    files = [name for name in names if binlog_file_key(name) >= binlog_file_key(file)]
                for name in files:
                    start = pos if name == file else 4
                    cur.execute(f"SHOW BINLOG EVENTS IN %s FROM {int(start)}", (name,))
                    gtid = None
                    for row in cur.fetchall():
                        event_pos, kind, info = row[1], row[2], row[5] or ""
                        if kind in ("Gtid", "Anonymous_Gtid", "Gtid_tagged"):
                            gtid = _event_gtid(info)
                            continue
                        if gtids is not None and gtid is not None and gtid_set_contained(gtid, gtids):
                            continue  # committed before the offset
                        if kind != "Query" or (name == file and event_pos == pos and not include_start):
                            continue
                        use = _USE_PREFIX.match(info)
                        statement = info[use.end():] if use else info
                        if not _NOT_DDL.match(statement):
                            yield BinlogQuery(name, event_pos, use.group(1).replace("``", "`") if use else None,
                                              statement)
        finally:
            conn.close()

    def later_ddl_for(self, table_id: TableId, file: str, pos: int) -> BinlogQuery | None:
        """The first statement after (file, pos) that may touch `table_id` (by name), if any."""
        name = re.compile(r"(?<![\w$])`?" + re.escape(table_id.table) + r"`?(?![\w$])", re.I)
        for query in self.queries_after(file, pos):
            if name.search(query.statement):
                return query
        return None

    def show_create(self, table_id: TableId) -> str | None:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                quoted = ".".join("`" + p.replace("`", "``") + "`" for p in (table_id.database, table_id.table))
                try:
                    cur.execute(f"SHOW CREATE TABLE {quoted}")
                except pymysql.err.MySQLError:
                    return None
                row = cur.fetchone()
                return row[1] if row else None
        finally:
            conn.close()
