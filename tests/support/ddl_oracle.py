"""The DDL oracle (issue 14): after each statement, the in-memory schema must equal what the server reports.

No Debezium needed: the server is the reference. Each statement runs on the server and through
`SchemaHistory.apply_ddl`; then, for every table of the database, the columns' names and order,
nullability, character lengths, decimal precision/scale and the primary key are compared with
`information_schema`, and the converters must accept every column (no row could fail later).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pymysql

from connector.converters import ValueSettings, unusable_column
from schema_history.errors import DdlParseError
from schema_history.history import SchemaHistory
from schema_history.model import Table, TableId
from schema_history.stores.memory import MemoryHistoryStore

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "ddl" / "longtail_corpus.sql"


def corpus_statements(database: str, path: Path = CORPUS) -> list[str]:
    """The corpus, one statement per `;`-terminated line, with `corpus` renamed to `database`."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("--"):
            out.append(re.sub(r"\bcorpus(?=\b|_other\b)", database, line.rstrip(";")))
    return out


@dataclass
class OracleReport:
    accepted: list[str] = field(default_factory=list)  # statements the server ran
    refused: list[tuple[str, str]] = field(default_factory=list)  # (statement, server error)
    problems: list[str] = field(default_factory=list)  # in-memory schema ≠ server, or unusable, or unparseable
    _seen: set[str] = field(default_factory=set, repr=False)

    def add(self, after: str, problem: str) -> None:
        """Each problem once, at the statement where it first shows (it persists until the table changes)."""
        if problem not in self._seen:
            self._seen.add(problem)
            self.problems.append(f"{after}: {problem}")

    def summary(self) -> str:
        return (f"{len(self.accepted)} statements run, {len(self.refused)} refused by the server, "
                f"{len(self.problems)} problem(s)")


def _server_tables(cur: Any, databases: Iterable[str]) -> dict[TableId, list[tuple]]:
    dbs = list(databases)
    cur.execute("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, "
                "NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ("
                + ",".join(["%s"] * len(dbs)) + ") ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION", dbs)
    out: dict[TableId, list[tuple]] = {}
    for schema, table, *rest in cur.fetchall():
        out.setdefault(TableId(schema, table), []).append(tuple(rest))
    cur.execute("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE <> 'BASE TABLE' "
                "AND TABLE_SCHEMA IN (" + ",".join(["%s"] * len(dbs)) + ")", dbs)
    for schema, table in cur.fetchall():
        out.pop(TableId(schema, table), None)
    return out


def _server_pk(cur: Any, table_id: TableId) -> list[str]:
    cur.execute("SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s "
                "AND CONSTRAINT_NAME='PRIMARY' ORDER BY ORDINAL_POSITION", (table_id.database, table_id.table))
    return [r[0] for r in cur.fetchall()]


_CHAR_TYPES = {"char", "varchar"}
_DECIMAL_TYPES = {"decimal"}


def compare_table(table: Table, server_columns: list[tuple], server_pk: list[str]) -> list[str]:
    """What differs between the in-memory `table` and the server's view of it (empty: equal)."""
    where = table.id.dotted()
    ours = [c.name for c in table.columns]
    theirs = [c[0] for c in server_columns]
    if ours != theirs:
        return [f"{where}: columns {ours} but the server has {theirs}"]
    problems = []
    for column, (name, nullable, data_type, char_len, precision, scale) in zip(table.columns, server_columns):
        if column.optional != (nullable == "YES"):
            problems.append(f"{where}.{name}: optional={column.optional} but IS_NULLABLE={nullable}")
        if data_type in _CHAR_TYPES and column.length is not None and column.length != char_len:
            problems.append(f"{where}.{name}: length {column.length} but the server says {char_len}")
        if data_type in _DECIMAL_TYPES and (column.length, column.scale) != (precision, scale):
            problems.append(f"{where}.{name}: DECIMAL({column.length},{column.scale}) but the server says "
                            f"({precision},{scale})")
    if list(table.primary_key_column_names) != server_pk:
        problems.append(f"{where}: primary key {list(table.primary_key_column_names)} but the server has {server_pk}")
    return problems


def run_oracle(connect: Any, database: str, statements: list[str],
               settings: ValueSettings = ValueSettings()) -> OracleReport:
    """Run `statements` on the server (in `database`) and in memory, comparing after each one."""
    report = OracleReport()
    history = SchemaHistory(MemoryHistoryStore(), "oracle")
    databases = {database, database + "_other"}
    conn: pymysql.connections.Connection = connect()
    try:
        with conn.cursor() as cur:
            cur.execute(f"USE `{database}`")
            for i, statement in enumerate(statements):
                try:
                    cur.execute(statement)
                    while cur.nextset():  # OPTIMIZE/ANALYZE return result sets
                        pass
                except pymysql.err.MySQLError as exc:
                    report.refused.append((statement, str(exc)))
                    continue
                report.accepted.append(statement)
                try:
                    history.apply_ddl(statement, database, {"file": "oracle", "pos": i})
                except DdlParseError as exc:
                    report.add(f"#{i}", f"cannot parse: {exc}")
                    continue
                server = _server_tables(cur, databases)
                mine = {t: history.tables.get(t) for t in history.tables.ids() if t.database in databases}
                if set(mine) != set(server):
                    report.add(f"after #{i} {statement[:80]!r}", f"tables {sorted(t.dotted() for t in mine)} but the "
                                                                 f"server has {sorted(t.dotted() for t in server)}")
                    continue
                for table_id, table in mine.items():
                    assert table is not None
                    for problem in compare_table(table, server[table_id], _server_pk(cur, table_id)):
                        report.add(f"after #{i} {statement[:80]!r}", problem)
                    unusable = unusable_column(table, settings)
                    if unusable is not None:
                        report.add(f"after #{i}", f"{table_id.dotted()} {unusable}")
    finally:
        conn.close()
    return report
