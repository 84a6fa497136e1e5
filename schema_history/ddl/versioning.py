"""MariaDB system-versioned tables (beyond Debezium: its MySQL grammar rejects `WITH SYSTEM VERSIONING`).

A table made versioned without naming its period columns gets two hidden ones, `row_start` and `row_end`
(TIMESTAMP(6)), which SHOW CREATE TABLE does not print but the binlog carries in every row, after the
declared columns; MariaDB also appends the row-end column to the primary key. Both are recorded here,
so the rows decode with their real columns and each historical row version (an UPDATE logs the old
version as an INSERT with a past `row_end`; a DELETE is an UPDATE of `row_end`) has a key of its own.
Explicit period columns (`... GENERATED ALWAYS AS ROW START|END`) are ordinary declared columns.
"""

from __future__ import annotations

from functools import cache

from schema_history.ddl.columns import parse_column
from schema_history.ddl.cursor import Cursor
from schema_history.ddl.editor import TableEditor
from schema_history.ddl.tokens import tokenize
from schema_history.errors import DdlParseError
from schema_history.model import Column

ROW_START, ROW_END = "row_start", "row_end"
_HIDDEN_TYPE = "TIMESTAMP(6) NOT NULL"


@cache
def _hidden_column(name: str) -> Column:
    return parse_column(Cursor(_HIDDEN_TYPE, tokenize(_HIDDEN_TYPE)), name).to_column()


def add_system_versioning(editor: TableEditor) -> None:
    """`WITH SYSTEM VERSIONING` / `ADD SYSTEM VERSIONING`: the hidden period columns (unless the statement
    declared its own) and the row-end column in the primary key."""
    row_end = editor.row_end_column
    if row_end is None:
        for name in (ROW_START, ROW_END):
            if editor.column(name) is None:
                editor.add_column(_hidden_column(name))
        row_end = ROW_END
    if editor.primary_key and row_end.lower() not in (p.lower() for p in editor.primary_key):
        editor.primary_key.append(row_end)


def drop_system_versioning(cur: Cursor, editor: TableEditor) -> None:
    """`DROP SYSTEM VERSIONING` drops the period columns. Only the hidden ones are known by name once the
    table is recorded; other names raise, so the SHOW CREATE TABLE fallback can take the server's shape."""
    if editor.column(ROW_START) is None or editor.column(ROW_END) is None:
        raise DdlParseError(f"DROP SYSTEM VERSIONING of {editor.table_id.dotted()}, whose period columns are not "
                            f"{ROW_START}/{ROW_END}", cur.sql)
    editor.remove_column(ROW_START)
    editor.remove_column(ROW_END)
