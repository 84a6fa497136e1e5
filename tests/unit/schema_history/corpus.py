"""Loader for `tests/fixtures/ddl/corpus.sql`: DDL statements → expected events and table shapes.

Format (one case per `-- case:` header; the preamble `SET character_set_server=utf8mb4, ...;
CREATE DATABASE db1 CHARSET utf8mb4; USE db1` is applied first unless `-- nopreamble`):

    -- case: name
    <SQL statements, `;`-separated, applied in order with default database db1>
    -- events: CREATE db1.t | ALTER db1.t<-db1.old | DROP db1.t | DB db1 | NONE   (of the last statement)
    -- table db1.t pk=a,b charset=utf8mb4
    --   <column descriptor, see describe_column>
    -- absent db1.t
    -- error                                                          (last statement must raise)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from schema_history.changes import SchemaChange
from schema_history.model import Column, Table

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "ddl" / "corpus.sql"
PREAMBLE = [
    "SET character_set_server=utf8mb4, collation_server=utf8mb4_general_ci",
    "CREATE DATABASE db1 CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "USE `db1`",
]


def describe_column(c: Column) -> str:
    parts = [c.name, c.type_name, f"jdbc={c.jdbc_type}"]
    if c.length is not None:
        parts.append(f"len={c.length}")
    if c.scale is not None:
        parts.append(f"scale={c.scale}")
    if c.charset_name is not None:
        parts.append(f"cs={c.charset_name}")
    parts.append("NULL" if c.optional else "NOTNULL")
    if c.auto_incremented:
        parts.append("AI")
    if c.generated:
        parts.append("GEN")
    if c.has_default_value:
        parts.append("DEFAULT" if c.default_value_expression is None else "DEFAULT=" + json.dumps(c.default_value_expression))
    if c.enum_values:
        parts.append("VALUES=" + ",".join(c.enum_values))
    return " ".join(parts)


def describe_table_header(t: Table) -> str:
    return f"table {t.id.dotted()} pk={','.join(t.primary_key_column_names)} charset={t.default_charset_name}"


def describe_event(change: SchemaChange) -> str:
    if not change.table_changes:
        return f"DB {change.database_name}"
    tc = change.table_changes[0]
    prev = f"<-{tc.previous_id.dotted()}" if tc.previous_id else ""
    return f"{tc.type.value} {tc.id.dotted()}{prev}"


@dataclass
class Case:
    name: str
    statements: list[str] = field(default_factory=list)
    events: str | None = None
    tables: dict[str, list[str]] = field(default_factory=dict)  # header -> column descriptors
    absent: list[str] = field(default_factory=list)
    error: bool = False
    preamble: bool = True


def load_cases(path: Path = CORPUS) -> list[Case]:
    from schema_history.ddl.tokens import split_statements

    cases: list[Case] = []
    sql: list[str] = []
    current_table: list[str] | None = None

    def flush_sql() -> None:
        if cases and sql:
            cases[-1].statements.extend(split_statements("\n".join(sql)))
        sql.clear()

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.rstrip()
        if line.startswith("-- case:"):
            flush_sql()
            cases.append(Case(line.split(":", 1)[1].strip()))
            current_table = None
        elif line.startswith("-- events:"):
            flush_sql()
            cases[-1].events = line.split(":", 1)[1].strip()
        elif line.startswith("-- table "):
            flush_sql()
            current_table = cases[-1].tables.setdefault(line[3:].strip(), [])
        elif line.startswith("--   "):
            assert current_table is not None, raw
            current_table.append(line[5:].strip())
        elif line.startswith("-- absent "):
            cases[-1].absent.append(line[len("-- absent "):].strip())
        elif line.strip() == "-- error":
            flush_sql()
            cases[-1].error = True
        elif line.strip() == "-- nopreamble":
            cases[-1].preamble = False
        elif line.startswith("--") or not line.strip():
            continue
        else:
            sql.append(line)
    flush_sql()
    return cases
