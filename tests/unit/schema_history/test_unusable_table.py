"""A parsed DDL that leaves a table the converters cannot represent, and parser failures (issue 14).

`SchemaHistory.check_table` names the problem before anything is stored; `on_unusable_table` may record a
replacement (the connector's is SHOW CREATE TABLE, connector/schema/tracker.py) or keep the parsed shape.
"""

from __future__ import annotations

import pytest

from schema_history.errors import DdlParseError
from schema_history.history import SchemaHistory
from schema_history.model import Table, TableId
from schema_history.stores.memory import MemoryHistoryStore

POSITION = {"file": "mysql-bin.000001", "pos": 400}
LIVE = "CREATE TABLE `t` (`id` int NOT NULL, `d` time DEFAULT '01:00:00', PRIMARY KEY (`id`))"


def _history() -> SchemaHistory:
    history = SchemaHistory(MemoryHistoryStore(), "p")
    history.apply_ddl("CREATE DATABASE db", None, {"file": "mysql-bin.000001", "pos": 4})
    return history


def _bad_default(table: Table) -> str | None:
    return next((f"column {c.name!r}: bad default" for c in table.columns
                 if c.default_value_expression == "bad"), None)


def test_replacement_is_recorded_instead_of_the_parsed_shape() -> None:
    history = _history()
    calls = []

    def replace(ddl: str, table_id: TableId, position, problem: str):
        calls.append((table_id, problem))
        return history.apply_table_definition(ddl, table_id, LIVE, position)

    history.check_table, history.on_unusable_table = _bad_default, replace
    ddl = "CREATE TABLE t (id INT PRIMARY KEY, d TIME DEFAULT 'bad')"
    changes = history.apply_ddl(ddl, "db", POSITION)
    assert calls == [(TableId("db", "t"), "column 'd': bad default")]
    table = history.tables.get(TableId("db", "t"))
    assert table is not None and table.columns[1].default_value_expression == "01:00:00"
    assert [c.ddl for c in changes] == [ddl]  # the statement as written, the shape from the server
    assert [r.ddl for r in history.store.records()][-1] == ddl  # recorded once


def test_without_a_replacement_the_parsed_shape_is_kept() -> None:
    history = _history()
    history.check_table, history.on_unusable_table = _bad_default, lambda *args: None
    history.apply_ddl("CREATE TABLE t (id INT PRIMARY KEY, d TIME DEFAULT 'bad')", "db", POSITION)
    table = history.tables.get(TableId("db", "t"))
    assert table is not None and table.columns[1].default_value_expression == "bad"


def test_a_parser_bug_is_a_ddl_parse_error_naming_the_statement(monkeypatch) -> None:
    import schema_history.history as module

    def broken(state, ddl, database):
        raise IndexError("list index out of range")

    monkeypatch.setattr(module, "apply_ddl", broken)
    with pytest.raises(DdlParseError, match="internal parser error.*CREATE TABLE x"):
        _history_without_setup().apply_ddl("CREATE TABLE x (id INT)", "db", POSITION)


def _history_without_setup() -> SchemaHistory:
    return SchemaHistory(MemoryHistoryStore(), "p")
