"""Apply one DDL text to a `SchemaState` and say which schema change events it produces.

Mirrors `BinlogDatabaseSchema.parseDdl`: the statement's table events become one `SchemaChange`
each (filed under the table's database); CREATE/ALTER/DROP DATABASE, USE, SET and CREATE/DROP
INDEX that leave the primary key alone become one database-level change with empty
`tableChanges` (filed under the named database, else the statement's default database), as do
table statements that change nothing (CREATE TABLE IF NOT EXISTS of an existing table, ALTER of an
unknown table). Other statements produce no change at all, as the reference runs show: views,
users, grants, triggers, routines, ANALYZE/OPTIMIZE, TRUNCATE. Dispatch is a table from the first
keyword.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from schema_history.changes import SchemaChange, TableChange, TableChangeType
from schema_history.ddl import table_statements as ts
from schema_history.ddl.cursor import Cursor
from schema_history.ddl.sequences import create_sequence
from schema_history.ddl.tokens import Kind, TokenizeError, tokenize, split_statements
from schema_history.errors import DdlParseError
from schema_history.state import SchemaState

# Handler result: table events, or None for "database-level event", or NO_EVENT.
Handler = Callable[[Cursor, SchemaState, str], "list[ts.TableEvent] | str | None"]
NO_EVENT = ts.NO_EVENT

_VERSIONED_WRAPPER = re.compile(r"^/\*(?:M?!\d*)\s*((?:(?!\*/).)*?)\s*\*/\s*;?\s*$", re.DOTALL)


def _create_database(cur: Cursor, state: SchemaState, ddl: str) -> str:
    cur.accept_words("IF", "NOT", "EXISTS")
    name = cur.identifier()
    charset = ts.database_charset(cur, state.server_charset())
    if charset is not None:
        state.database_charsets[name] = charset
    return name


def _alter_database(cur: Cursor, state: SchemaState, ddl: str) -> str | None:
    name = state.current_database
    if not cur.at_word("DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "READ", "ENCRYPTION", "UPGRADE", "COMMENT"):
        name = cur.identifier()
    charset = ts.database_charset(cur, state.server_charset())
    if charset is not None and name is not None:
        state.database_charsets[name] = charset  # (only USE switches character_set_database)
    return name


def _drop_database(cur: Cursor, state: SchemaState, ddl: str) -> str:
    cur.accept_words("IF", "EXISTS")
    name = cur.identifier()
    state.drop_database(name)
    return name


def _use(cur: Cursor, state: SchemaState, ddl: str) -> str:
    name = cur.identifier()
    state.use_database(name)
    return name


def _set(cur: Cursor, state: SchemaState, ddl: str) -> None:
    """`SET [GLOBAL|SESSION] var = value, ...`: remember the variables (charsets matter)."""
    while not cur.at_end():
        if cur.at_word("NAMES") or cur.at_words("CHARACTER", "SET") or cur.at_word("CHARSET", "TRANSACTION"):
            return
        cur.accept_word("GLOBAL", "SESSION", "LOCAL", "PERSIST", "PERSIST_ONLY")
        tok = cur.next()
        name = tok.text.lstrip("@")
        for scope in ("global.", "session.", "local."):
            if name.lower().startswith(scope):
                name = name[len(scope):]
        if cur.accept_punct(".") is not None:
            name = cur.identifier()
        if cur.accept_punct("=") is None and cur.accept_punct(":=") is None:
            return
        value_tok = cur.next()
        value = value_tok.identifier() if value_tok.kind is not Kind.NUMBER else value_tok.text
        state.variables[name.lower()] = value
        while not cur.at_end() and not cur.at_punct(","):
            cur.next()
        if not cur.accept_punct(","):
            return


def _create(cur: Cursor, state: SchemaState, ddl: str):
    replace_existing = cur.accept_words("OR", "REPLACE")
    while cur.accept_word("TEMPORARY", "ALGORITHM", "DEFINER", "SQL", "SECURITY", "ONLINE", "OFFLINE",
                          "AGGREGATE") is not None:
        if cur.accept_punct("="):
            cur.next()
            if cur.at_punct("@") or (cur.peek() is not None and cur.peek().kind is Kind.VARIABLE):
                cur.next()
        elif cur.at_word("DEFINER", "INVOKER"):
            cur.next()
    if cur.accept_word("TABLE"):
        return ts.create_table(cur, state, ddl, replace_existing)
    if cur.accept_word("SEQUENCE"):
        return create_sequence(cur, state, ddl, replace_existing, _seen(cur, "TEMPORARY"))
    if cur.accept_word("DATABASE", "SCHEMA"):
        return _create_database(cur, state, ddl)
    if cur.accept_word("UNIQUE"):
        cur.expect_word("INDEX", "KEY")
        return ts.create_index(cur, state, ddl, unique=True)
    if cur.accept_word("INDEX", "FULLTEXT", "SPATIAL"):
        cur.accept_word("INDEX")
        return ts.create_index(cur, state, ddl, unique=False)
    return NO_EVENT  # views, users, triggers, procedures, functions, events ...


def _seen(cur: Cursor, word: str) -> bool:
    return any(t.is_word(word) for t in cur.tokens[:cur.i])


def _alter(cur: Cursor, state: SchemaState, ddl: str):
    cur.accept_word("ONLINE", "OFFLINE", "IGNORE")
    if cur.accept_word("TABLE"):
        return ts.alter_table(cur, state, ddl)
    if cur.accept_word("DATABASE", "SCHEMA"):
        return _alter_database(cur, state, ddl)
    return NO_EVENT


def _drop(cur: Cursor, state: SchemaState, ddl: str):
    cur.accept_word("TEMPORARY")
    if cur.accept_word("TABLE", "TABLES"):
        return ts.drop_table(cur, state, ddl)
    if cur.accept_word("SEQUENCE"):  # a MariaDB sequence is a table (schema_history.ddl.sequences)
        return NO_EVENT if _seen(cur, "TEMPORARY") else ts.drop_table(cur, state, ddl)
    if cur.accept_word("DATABASE", "SCHEMA"):
        return _drop_database(cur, state, ddl)
    if cur.accept_word("INDEX"):
        return None
    return NO_EVENT


def _rename(cur: Cursor, state: SchemaState, ddl: str):
    if cur.accept_word("TABLE", "TABLES"):
        return ts.rename_table(cur, state, ddl)
    return NO_EVENT


def _unique_index(cur: Cursor, state: SchemaState, ddl: str):
    """`UNIQUE INDEX ux ON t (a)`: how Debezium records `CREATE UNIQUE INDEX` (history replay)."""
    cur.expect_word("INDEX", "KEY")
    return ts.create_index(cur, state, ddl, unique=True)


def _ignored(cur: Cursor, state: SchemaState, ddl: str) -> str:
    return NO_EVENT


_HANDLERS: dict[str, Handler] = {
    "CREATE": _create,
    "ALTER": _alter,
    "DROP": _drop,
    "RENAME": _rename,
    "USE": _use,
    "SET": _set,
    "TRUNCATE": _ignored,
    "UNIQUE": _unique_index,
}


def strip_versioned_wrapper(ddl: str) -> str:
    """`/*!40000 ALTER TABLE t DISABLE KEYS */` is recorded by Debezium as its content."""
    m = _VERSIONED_WRAPPER.match(ddl.strip())
    return m.group(1) if m else ddl


def apply_statement(state: SchemaState, ddl: str, database: str | None) -> list[SchemaChange]:
    """Parse one statement, apply it to `state` and return the schema change events it yields.

    `database` is the statement's default database (the binlog event's schema); it becomes the
    current database for unqualified names. Raises `DdlParseError` for statements that may change
    table shapes but cannot be understood; `state` is left unchanged then.
    """
    try:
        tokens = tokenize(ddl)
    except TokenizeError as e:
        raise DdlParseError(str(e), ddl, e.position) from e
    if not tokens:
        return []
    text = ddl[tokens[0].start:tokens[-1].end] if not tokens[-1].is_punct(";") else ddl[tokens[0].start:tokens[-2].end]
    cur = Cursor(ddl, [t for t in tokens if not t.is_punct(";")])
    single_quote_strings(cur)
    handler = _HANDLERS.get(cur.peek().upper if cur.peek().kind is Kind.WORD else "", _ignored)
    cur.next()
    working = state.copy()
    if database:
        working.current_database = database
    result = handler(cur, working, text)
    if cur.rewrites:
        end = tokens[-1].end if not tokens[-1].is_punct(";") else tokens[-2].end
        written, text = text, cur.rewritten(tokens[0].start, end)
        if isinstance(result, list):
            result = [replace(e, ddl=text) if e.ddl == written else e for e in result]
    if isinstance(result, list) and not working.include_comments:
        _drop_comments(working, result)
    if isinstance(result, list):
        for event in result:
            working.last_ddl[event.table_id] = event.ddl
    state.tables, state.database_charsets, state.variables, state.current_database, state.last_ddl = (
        working.tables, working.database_charsets, working.variables, working.current_database, working.last_ddl)
    if result == NO_EVENT:
        return []
    if isinstance(result, list) and result:
        return [_table_change(state, event) for event in result]
    db_name = result if isinstance(result, str) else (database or "")
    return [SchemaChange(database_name=db_name, ddl=text)]


def _drop_comments(state: SchemaState, events: list[ts.TableEvent]) -> None:
    """Without include.schema.comments Debezium's parser never records COMMENTs (history shows null)."""
    for event in events:
        table = state.tables.get(event.table_id)
        if table is not None and (table.comment is not None or any(c.comment is not None for c in table.columns)):
            state.tables.put(replace(table, comment=None,
                                     columns=tuple(replace(c, comment=None) for c in table.columns)))


def _table_change(state: SchemaState, event: ts.TableEvent) -> SchemaChange:
    table = None if event.type is TableChangeType.DROP else state.tables.get(event.table_id)
    if table is None and event.type is not TableChangeType.DROP:
        # Debezium looks the table up once the whole statement is applied: in `RENAME TABLE a TO b, b TO c`
        # (or a swap through a temporary name) `b` is gone by then and that pair's event has no table change.
        return SchemaChange(database_name=event.table_id.database, ddl=event.ddl, touched=event.table_id)
    change = TableChange(event.type, event.table_id, table, event.previous_id)
    return SchemaChange(database_name=event.table_id.database, ddl=event.ddl, table_changes=(change,))


_COMPOUND = ("PROCEDURE", "FUNCTION", "TRIGGER", "EVENT")


def _statements(sql: str) -> list[str]:
    """Split on `;`, except routine/trigger/event bodies (`BEGIN ...; ...; END`)."""
    try:
        head = tokenize(sql[:400])
    except TokenizeError:
        head = []
    if head and head[0].is_word("CREATE", "ALTER", "DROP") and any(t.is_word(*_COMPOUND) for t in head[:12]):
        return [sql.strip()]
    return split_statements(sql)


def single_quote_strings(cur: Cursor) -> None:
    """Every double-quoted string becomes single-quoted, in the tokens and in the recorded statement, with `'`
    doubled and nothing else changed (`""` stays): Debezium's `DdlNormalizer` rewrites the statement so before
    parsing it (default sql_mode, no ANSI_QUOTES), and records that text. Seen in defaults (golden longtail),
    ENUM members and JSON paths `c->"$.id"` (golden realworld). A double-quoted name still reads as a name: the
    cursor takes a single-quoted string where a name may be one."""
    for index, tok in enumerate(cur.tokens):
        if tok.kind is Kind.DQUOTED and tok.text[:1] == '"':
            single = "'" + tok.text[1:-1].replace("'", "''") + "'"
            cur.rewrites.append((tok.start, tok.end, single))
            cur.tokens[index] = replace(tok, kind=Kind.STRING, text=single)


def apply_ddl(state: SchemaState, sql: str, database: str | None) -> list[SchemaChange]:
    """Apply every statement of `sql` (a binlog query event may hold several) in order."""
    out: list[SchemaChange] = []
    for statement in _statements(strip_versioned_wrapper(sql)):
        out.extend(apply_statement(state, statement, database))
        database = state.current_database or database
    return out
