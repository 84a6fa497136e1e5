"""CREATE TABLE, ALTER TABLE, CREATE/DROP INDEX, DROP TABLE and RENAME TABLE.

Each handler mutates the `SchemaState` and returns the table events it caused, mirroring the
`signalCreateTable/AlterTable/DropTable` calls of Debezium's listeners (`CreateTableParserListener`,
`AlterTableParserListener`, `DropTableParserListener`, `RenameTableParserListener`,
`CreateUniqueIndexParserListener`). An empty list means "a database-level event", `NO_EVENT`
means Debezium signals nothing for the statement.
"""

from __future__ import annotations

from schema_history.changes import TableChangeType
from schema_history.ddl.alter_table import alter_table
from schema_history.ddl.create_table import create_table
from schema_history.ddl.cursor import Cursor
from schema_history.ddl.editor import TableEditor
from schema_history.ddl.keys import NO_EVENT, TableEvent, key_columns, quote, resolve_table_id, unique_as_primary_key
from schema_history.ddl.type_names import collation_charset
from schema_history.state import SchemaState

__all__ = ["NO_EVENT", "TableEvent", "alter_table", "create_table", "create_index", "drop_table", "rename_table",
           "database_charset"]


# -- indexes, drop, rename ---------------------------------------------------------------------

def create_index(cur: Cursor, state: SchemaState, ddl: str, unique: bool) -> list[TableEvent]:
    """CREATE [UNIQUE] INDEX: only a unique index that becomes the primary key changes the table.
    Debezium records that event's DDL without the leading `CREATE ` (`UNIQUE INDEX ux ON a (x)`)."""
    if unique:
        keyword = cur.tokens[cur.i - 2]  # the UNIQUE token, just before INDEX/KEY
        ddl = cur.sql[keyword.start:cur.tokens[-1].end]
    cur.accept_words("IF", "NOT", "EXISTS")
    if not cur.at_word("ON"):
        cur.identifier()
    _skip_index_name_and_type_on(cur)
    db, name, _, _ = cur.qualified_name()
    table_id = resolve_table_id(state, db, name)
    columns = key_columns(cur)
    table = state.tables.get(table_id)
    if not unique or table is None or table.primary_key_column_names:
        return []
    editor = TableEditor.of(table)
    unique_as_primary_key(editor, columns)
    if not editor.primary_key:
        return []
    state.tables.put(editor.create())
    return [TableEvent(TableChangeType.ALTER, table_id, ddl)]


def _skip_index_name_and_type_on(cur: Cursor) -> None:
    while not cur.at_word("ON"):
        cur.next()
    cur.next()


def drop_table(cur: Cursor, state: SchemaState, ddl: str) -> list[TableEvent]:
    if_exists = cur.accept_words("IF", "EXISTS")
    events = []
    while True:
        db, name, _, _ = cur.qualified_name()
        table_id = resolve_table_id(state, db, name)
        state.tables.remove(table_id)
        text = "DROP TABLE " + ("IF EXISTS " if if_exists else "") + quote(table_id.database) + "." + quote(name)
        events.append(TableEvent(TableChangeType.DROP, table_id, text))
        if not cur.accept_punct(","):
            return events


def rename_table(cur: Cursor, state: SchemaState, ddl: str) -> list[TableEvent]:
    events = []
    while True:
        db, name, start, _ = cur.qualified_name()
        cur.expect_word("TO")
        new_db, new_name, _, end = cur.qualified_name()
        old_id = resolve_table_id(state, db, name)
        new_id = resolve_table_id(state, new_db, new_name)
        table = state.tables.remove(old_id)
        if table is not None:
            editor = TableEditor.of(table)
            editor.table_id = new_id
            state.tables.put(editor.create())
            events.append(TableEvent(TableChangeType.ALTER, new_id, "RENAME TABLE " + cur.sql[start:end], old_id))
        if not cur.accept_punct(","):
            return events


def database_charset(cur: Cursor, server_charset: str | None) -> str | None:
    """Database options: the charset, else the charset of the collation (`CREATE DATABASE x
    COLLATE latin2_general_ci` gives latin2 in Debezium 3.6); `CHARSET DEFAULT` is the server's."""
    charset = collation = None
    while not cur.at_end():
        if cur.accept_word("DEFAULT"):
            continue
        if cur.accept_words("CHARACTER", "SET") or cur.accept_word("CHARSET"):
            cur.accept_equals()
            charset = cur.identifier()
            if charset.upper() == "DEFAULT":
                charset = server_charset
        elif cur.accept_word("COLLATE"):
            cur.accept_equals()
            collation = cur.identifier()
        else:
            cur.next()
    if charset is None and collation is not None:
        charset = collation_charset(collation)
    return charset
