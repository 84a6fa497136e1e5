"""Shared pieces of the table statements: table events, key lists and Debezium's primary-key rules."""

from __future__ import annotations

from dataclasses import dataclass, replace

from schema_history.changes import TableChangeType
from schema_history.ddl.columns import ColumnSpec
from schema_history.ddl.cursor import Cursor
from schema_history.ddl.editor import TableEditor
from schema_history.model import TableId
from schema_history.state import SchemaState

# Returned when the statement yields no schema change event at all (not even a database-level one).
NO_EVENT = "no-event"


@dataclass(frozen=True)
class TableEvent:
    type: TableChangeType
    table_id: TableId
    ddl: str
    previous_id: TableId | None = None


def resolve_table_id(state: SchemaState, db: str | None, name: str) -> TableId:
    return TableId(db if db is not None else (state.current_database or ""), name)


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


# -- key lists ---------------------------------------------------------------------------------

def key_columns(cur: Cursor) -> list[str | None]:
    """`(a, b(10) DESC, (expr))`: column names, None for expressions."""
    cur.expect_punct("(")
    names: list[str | None] = []
    while True:
        if cur.at_punct("("):
            cur.skip_group()
            names.append(None)
        else:
            names.append(cur.identifier())
            if cur.at_punct("("):
                cur.skip_group()
        cur.accept_word("ASC", "DESC")
        if cur.accept_punct(")"):
            return names
        cur.expect_punct(",")


def skip_index_name_and_type(cur: Cursor) -> None:
    """Skip `[name] [USING BTREE]` before a key's column list."""
    while not cur.at_punct("(") and not cur.at_end():
        if cur.accept_word("USING"):
            cur.next()
        else:
            cur.next()


def set_primary_key(editor: TableEditor, names: list[str | None]) -> None:
    """`parsePrimaryIndexColumnNames`: the columns become NOT NULL and lose an implicit NULL default."""
    pk: list[str] = []
    for name in names:
        if name is None:
            continue
        col = editor.column(name)
        if col is not None and col.optional:
            has_default = col.has_default_value and col.default_value_expression is not None
            editor.add_column(replace(col, optional=False, has_default_value=has_default))
        pk.append(name)
    editor.set_primary_key(pk)


def unique_as_primary_key(editor: TableEditor, names: list[str | None]) -> None:
    """`parseUniqueIndexColumnNames`: with no PK, a unique key of NOT NULL columns acts as the PK."""
    if editor.has_primary_key():
        return
    cols = [editor.column(n) if n is not None else None for n in names]
    if any(c is None for c in cols):
        return
    if any(c.optional for c in cols if c is not None):
        return
    editor.set_primary_key([c.name for c in cols if c is not None])


def add_column(editor: TableEditor, spec: ColumnSpec) -> None:
    col = spec.to_column()
    editor.add_column(col)
    if spec.system_period == "END":
        editor.row_end_column = col.name
    if spec.versioned:
        editor.system_versioned = True
    if spec.primary_key:
        editor.set_primary_key([col.name])
    elif spec.unique and not editor.has_primary_key():
        editor.set_primary_key([col.name])
