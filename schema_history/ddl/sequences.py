"""MariaDB sequences (beyond Debezium: its MySQL grammar rejects `CREATE SEQUENCE`).

A MariaDB sequence is a one-row InnoDB table; when NEXTVAL refills its cache the server binlogs a row
of that table like any other, so the schema must know its columns or the connector stops at that
TABLE_MAP. `CREATE SEQUENCE` is recorded as a table with the columns SHOW CREATE TABLE prints for a
sequence (MariaDB 10.3-11.4); `DROP SEQUENCE` as a dropped table; `ALTER SEQUENCE` changes no shape.
A typed sequence (`AS INT`, MariaDB 11.5+) raises, so the SHOW CREATE TABLE fallback takes its shape.
"""

from __future__ import annotations

from schema_history.ddl.create_table import create_table
from schema_history.ddl.cursor import Cursor
from schema_history.ddl.keys import NO_EVENT, TableEvent, quote, resolve_table_id
from schema_history.ddl.tokens import tokenize
from schema_history.state import SchemaState

# SHOW CREATE TABLE of a sequence on MariaDB 10.11, after the table name.
SEQUENCE_DEFINITION = (
    "(`next_not_cached_value` bigint(21) NOT NULL, `minimum_value` bigint(21) NOT NULL, "
    "`maximum_value` bigint(21) NOT NULL, "
    "`start_value` bigint(21) NOT NULL COMMENT 'start value when sequences is created or value if RESTART is used', "
    "`increment` bigint(21) NOT NULL COMMENT 'increment value', `cache_size` bigint(21) unsigned NOT NULL, "
    "`cycle_option` tinyint(1) unsigned NOT NULL COMMENT '0 if no cycles are allowed, 1 if the sequence should "
    "begin a new cycle when maximum_value is passed', "
    "`cycle_count` bigint(21) NOT NULL COMMENT 'How many cycles have been done') ENGINE=InnoDB SEQUENCE=1")


def create_sequence(cur: Cursor, state: SchemaState, ddl: str, replace: bool, temporary: bool
                    ) -> list[TableEvent] | str:
    if temporary:
        return NO_EVENT  # like temporary tables, never in the binlog's row events of a captured table
    if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
    db, name, _, _ = cur.qualified_name()
    if cur.at_word("AS"):
        raise cur.error("typed sequences (AS <integer type>) change the column types")
    table_id = resolve_table_id(state, db, name)
    if replace and not if_not_exists:
        state.tables.remove(table_id)
    sql = f"{quote(table_id.database)}.{quote(table_id.table)} {SEQUENCE_DEFINITION}"
    return create_table(Cursor(sql, tokenize(sql)), state, ddl)
