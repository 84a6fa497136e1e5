"""The public surface of `schema_history` (what the connector may import)."""

from __future__ import annotations

import schema_history
import schema_history.ddl
import schema_history.stores


def test_exported_members() -> None:
    assert sorted(schema_history.__all__) == sorted([
        "Column", "Table", "TableId", "Tables",
        "SchemaState", "SchemaChange", "TableChange", "TableChangeType",
        "apply_ddl", "apply_statement", "DdlFilter", "DEFAULT_DDL_FILTER",
        "HistoryRecord", "SchemaHistory", "SchemaHistorySettings",
        "recover", "is_at_or_before",
        "SchemaHistoryError", "DdlParseError", "HistoryCorruptError", "HistoryStoreError",
    ])
    for module in (schema_history, schema_history.ddl, schema_history.stores):
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module.__name__}.{name}"


def test_errors_are_terminal() -> None:
    for error in (schema_history.DdlParseError, schema_history.HistoryStoreError, schema_history.HistoryCorruptError):
        assert issubclass(error, schema_history.SchemaHistoryError)
        assert error.retriable is False
