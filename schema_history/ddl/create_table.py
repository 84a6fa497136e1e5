"""CREATE TABLE (as users write it and as SHOW CREATE TABLE prints it), per `CreateTableParserListener`."""

from __future__ import annotations

from schema_history.changes import TableChangeType
from schema_history.ddl.columns import parse_column
from schema_history.ddl.cursor import Cursor
from schema_history.ddl.editor import TableEditor
from schema_history.ddl.keys import (
    TableEvent,
    add_column,
    key_columns,
    set_primary_key,
    skip_index_name_and_type,
    resolve_table_id,
    unique_as_primary_key,
)
from schema_history.ddl.tokens import Kind
from schema_history.ddl.type_names import candidates
from schema_history.ddl.versioning import add_system_versioning
from schema_history.state import SchemaState


# -- CREATE TABLE ------------------------------------------------------------------------------

def _table_options(cur: Cursor, editor: TableEditor) -> None:
    while not cur.at_end():
        if cur.accept_words("WITH", "SYSTEM", "VERSIONING"):
            editor.system_versioned = True
            continue
        if cur.at_word("SELECT", "AS", "PARTITION", "IGNORE", "REPLACE", "WITH"):
            return
        if cur.accept_word("DEFAULT"):
            continue
        if cur.accept_word("COMMENT"):
            cur.accept_equals()
            editor.comment = cur.next().identifier()
        elif cur.accept_words("CHARACTER", "SET") or cur.accept_word("CHARSET"):
            cur.accept_equals()
            charset = cur.identifier()
            if charset.upper() != "DEFAULT":
                editor.default_charset = charset
        elif cur.at_punct("("):
            cur.skip_group()
        else:
            cur.next()


def _create_definitions(cur: Cursor, editor: TableEditor) -> None:
    cur.expect_punct("(")
    while True:
        if cur.at_word("CONSTRAINT") and not cur.at_word("CHECK", k=1):
            cur.next()
            if not cur.at_word("PRIMARY", "UNIQUE", "FOREIGN", "CHECK"):
                cur.identifier()
        elif cur.accept_word("CONSTRAINT"):
            pass
        if cur.accept_words("PRIMARY", "KEY"):
            skip_index_name_and_type(cur)
            set_primary_key(editor, key_columns(cur))
            cur.skip_to_element_end()
        elif cur.accept_word("UNIQUE"):
            cur.accept_word("KEY", "INDEX")
            skip_index_name_and_type(cur)
            unique_as_primary_key(editor, key_columns(cur))
            cur.skip_to_element_end()
        elif cur.at_word("KEY", "INDEX", "FULLTEXT", "SPATIAL", "FOREIGN", "CHECK", "PERIOD") and not (
            cur.peek(1) is not None and cur.peek(1).kind is Kind.WORD and _looks_like_type(cur)
        ):
            cur.skip_to_element_end()
        elif cur.accept_word("LIKE"):
            raise cur.error("unexpected LIKE")
        else:
            name = cur.identifier()
            add_column(editor, parse_column(cur, name))
        if cur.accept_punct(")"):
            return
        cur.expect_punct(",")


def _looks_like_type(cur: Cursor) -> bool:
    """`key INT` declares a column named `key`; `KEY idx (a)` declares an index."""
    nxt = cur.peek(1)
    return nxt is not None and bool(candidates(nxt.upper)) and not cur.at_punct("(", k=2)


def create_table(cur: Cursor, state: SchemaState, ddl: str, replace_existing: bool = False) -> list[TableEvent] | str:
    """`replace_existing`: MariaDB's CREATE OR REPLACE TABLE, applied as DROP then CREATE; one CREATE change
    carries the new definition. Debezium 3.6.3 cannot parse the statement at all (it stops); keeping the old
    table instead would fail at the next row event ("TABLE_MAP does not match")."""
    cur.accept_words("IF", "NOT", "EXISTS")
    db, name, _, _ = cur.qualified_name()
    table_id = resolve_table_id(state, db, name)
    if replace_existing and state.tables.get(table_id) is not None:
        state.tables.remove(table_id)
    if cur.accept_word("LIKE") or (cur.at_punct("(") and cur.at_word("LIKE", k=1)):
        wrapped = cur.accept_punct("(") is not None
        if wrapped:
            cur.expect_word("LIKE")
        src_db, src_name, _, _ = cur.qualified_name()
        original = state.tables.get(resolve_table_id(state, src_db, src_name))
        if original is None:
            return []
        editor = TableEditor.of(original)
        editor.table_id = table_id
        state.tables.put(editor.create())
        return [TableEvent(TableChangeType.CREATE, table_id, ddl)]
    if state.tables.get(table_id) is not None:
        return []  # Debezium leaves an existing table alone (CREATE TABLE IF NOT EXISTS)
    editor = TableEditor(table_id)
    if cur.at_punct("("):
        _create_definitions(cur, editor)
    _table_options(cur, editor)
    if editor.system_versioned:
        add_system_versioning(editor)
    if editor.default_charset is None:
        editor.default_charset = state.charset_for_table(table_id)
    state.tables.put(editor.create())
    return [TableEvent(TableChangeType.CREATE, table_id, ddl)]
