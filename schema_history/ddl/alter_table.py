"""ALTER TABLE clauses, per `AlterTableParserListener`: each clause edits one working copy of the
table; the statement yields one ALTER event for the table's final name."""

from __future__ import annotations

from dataclasses import replace

from schema_history.changes import TableChangeType
from schema_history.ddl.columns import ColumnSpec, parse_column, parse_default
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
from schema_history.ddl.versioning import add_system_versioning, drop_system_versioning
from schema_history.state import SchemaState


# -- ALTER TABLE -------------------------------------------------------------------------------

def _position(cur: Cursor) -> tuple[bool, str | None]:
    if cur.accept_word("FIRST"):
        return True, None
    if cur.accept_word("AFTER"):
        return False, cur.identifier()
    return False, None


def _place(editor: TableEditor, name: str, first: bool, after: str | None) -> None:
    if first:
        editor.reorder(name, None)
    elif after is not None:
        editor.reorder(name, after)


def _alter_add(cur: Cursor, editor: TableEditor) -> None:
    cur.accept_word("COLUMN")
    cur.accept_words("IF", "NOT", "EXISTS")
    if cur.at_punct("("):  # ADD (a INT, b TEXT)
        cur.next()
        while True:
            name = cur.identifier()
            add_column(editor, parse_column(cur, name))
            if cur.accept_punct(")"):
                return
            cur.expect_punct(",")
    name = cur.identifier()
    spec = parse_column(cur, name)
    existed = editor.column(name) is not None
    add_column(editor, spec)
    first, after = _position(cur)
    if not existed or first or after:
        _place(editor, name, first, after)


def _alter_add_key(cur: Cursor, editor: TableEditor) -> bool:
    """ADD [CONSTRAINT [x]] PRIMARY KEY/UNIQUE/INDEX/...; False if the clause is not a key."""
    start = cur.i
    if cur.accept_word("CONSTRAINT"):
        if not cur.at_word("PRIMARY", "UNIQUE", "FOREIGN", "CHECK"):
            cur.identifier()
    if cur.accept_words("PRIMARY", "KEY"):
        skip_index_name_and_type(cur)
        set_primary_key(editor, key_columns(cur))
        return True
    if cur.accept_word("UNIQUE"):
        cur.accept_word("KEY", "INDEX")
        skip_index_name_and_type(cur)
        unique_as_primary_key(editor, key_columns(cur))
        return True
    if cur.at_word("INDEX", "KEY", "FULLTEXT", "SPATIAL", "FOREIGN", "CHECK", "PERIOD", "PARTITION"):
        cur.skip_to_element_end()
        return True
    cur.i = start
    return False


def _alter_change(cur: Cursor, editor: TableEditor, rename: bool) -> None:
    cur.accept_word("COLUMN")
    cur.accept_words("IF", "EXISTS")
    old = cur.identifier()
    new = cur.identifier() if rename else old
    existing = editor.column(old)
    if existing is None:
        raise cur.error(f"column {old} does not exist in {editor.table_id.dotted()}")
    spec = parse_column(cur, existing.name)
    editor.add_column(spec.to_column())
    if spec.primary_key:
        editor.set_primary_key([existing.name])
    if new != existing.name:
        editor.rename_column(existing.name, new)
    first, after = _position(cur)
    _place(editor, new, first, after)


def _alter_alter_column(cur: Cursor, editor: TableEditor) -> None:
    cur.accept_word("COLUMN")
    name = cur.identifier()
    col = editor.column(name)
    if cur.accept_words("SET", "DEFAULT"):
        spec = ColumnSpec(name=name)
        parse_default(cur, spec)
        if col is not None and spec.has_default:
            editor.add_column(replace(col, has_default_value=True, default_value_expression=spec.default_expr))
    elif cur.accept_words("DROP", "DEFAULT"):
        if col is not None:
            # a nullable column keeps its implicit NULL default
            editor.add_column(replace(col, has_default_value=col.optional, default_value_expression=None))
    else:
        cur.skip_to_element_end()


def _alter_drop(cur: Cursor, editor: TableEditor) -> None:
    if cur.accept_words("PRIMARY", "KEY"):
        editor.set_primary_key([])
    elif cur.at_word("INDEX", "KEY", "FOREIGN", "CONSTRAINT", "CHECK", "PARTITION", "PERIOD", "SYSTEM"):
        cur.skip_to_element_end()
    else:
        cur.accept_word("COLUMN")
        cur.accept_words("IF", "EXISTS")
        editor.remove_column(cur.identifier())
        cur.accept_word("RESTRICT", "CASCADE")


def alter_table(cur: Cursor, state: SchemaState, ddl: str) -> list[TableEvent] | str:
    cur.accept_words("IF", "EXISTS")
    db, name, _, _ = cur.qualified_name()
    if cur.accept_word("WAIT"):  # MariaDB: ALTER TABLE t WAIT n | NOWAIT <specification>
        cur.next()
    else:
        cur.accept_word("NOWAIT")
    table_id = resolve_table_id(state, db, name)
    table = state.tables.get(table_id)
    if table is None:
        return []  # Debezium ignores ALTERs of tables it does not know
    editor = TableEditor.of(table)
    while not cur.at_end():
        if cur.accept_words("ADD", "SYSTEM", "VERSIONING"):
            add_system_versioning(editor)
        elif cur.accept_words("DROP", "SYSTEM", "VERSIONING"):
            drop_system_versioning(cur, editor)
        elif cur.accept_word("ADD"):
            if not _alter_add_key(cur, editor):
                _alter_add(cur, editor)
        elif cur.accept_word("DROP"):
            _alter_drop(cur, editor)
        elif cur.accept_word("MODIFY"):
            _alter_change(cur, editor, rename=False)
        elif cur.accept_word("CHANGE"):
            _alter_change(cur, editor, rename=True)
        elif cur.at_words("RENAME", "COLUMN"):
            cur.i += 2
            old = cur.identifier()
            cur.expect_word("TO")
            editor.rename_column(old, cur.identifier())
        elif cur.at_word("RENAME") and cur.at_word("INDEX", "KEY", k=1):
            cur.skip_to_element_end()
        elif cur.accept_word("RENAME"):
            cur.accept_word("TO", "AS")
            new_db, new_name, _, _ = cur.qualified_name()
            new_id = resolve_table_id(state, new_db, new_name)
            state.tables.remove(editor.table_id)
            editor.table_id = new_id
        elif cur.accept_word("ALTER"):
            if cur.at_word("INDEX", "KEY", "CHECK", "CONSTRAINT"):
                cur.skip_to_element_end()
            else:
                _alter_alter_column(cur, editor)
        elif cur.accept_words("CONVERT", "TO"):
            cur.accept_words("CHARACTER", "SET") or cur.accept_word("CHARSET")
            charset = cur.identifier()
            if cur.accept_word("COLLATE"):
                cur.identifier()
            editor.convert_charset(charset if charset.upper() != "DEFAULT" else (state.charset_for_table(editor.table_id) or charset))
        else:
            cur.skip_to_element_end()  # table options, ALGORITHM, LOCK, FORCE, ENABLE KEYS, ...
        if not cur.accept_punct(","):
            if not cur.at_end():
                cur.skip_to_element_end()
                if not cur.accept_punct(","):
                    break
    state.tables.put(editor.create())
    return [TableEvent(TableChangeType.ALTER, editor.table_id, ddl)]
