"""Which tables' rows the dispatcher keeps: the table filters, and the TABLE_MAP check.

Every TABLE_MAP of a captured table is compared (column count and binlog types) with the in-memory
schema. On a mismatch the connector stops before emitting a row, naming the table, the binlog position
and the last DDL applied to it; `inconsistent.schema.handling.mode=warn|skip` instead drops that
table's rows until a TABLE_MAP agrees again.
"""

from __future__ import annotations

import logging
from typing import Protocol

from connector.config.modes import InconsistentSchemaHandlingMode
from connector.config.table_filter import TableFilter
from connector.dispatch.definition_cache import DefinitionCache
from connector.errors import SchemaError, Where
from connector.schema.table_map_check import mismatch
from schema_history.model import Table, TableId, Tables

__all__ = ["CapturedTables", "TableLookup"]

log = logging.getLogger(__name__)


class TableLookup(Protocol):
    def table(self, table_id: TableId) -> Table | None: ...

    def current_tables(self) -> Tables:
        """The definitions now; the same object with the same `changes` means none changed (for caches)."""
        ...

    def last_ddl(self, table_id: TableId) -> str | None:
        """The last DDL statement applied to the table (None when none was recorded), for errors."""
        ...


class CapturedTables:
    def __init__(self, table_filter: TableFilter, schema: TableLookup, mode: InconsistentSchemaHandlingMode) -> None:
        self.filter = table_filter
        self._schema = schema
        self._mode = mode
        # (table version, binlog types) already found consistent; tables whose rows are skipped until their
        # next TABLE_MAP (inconsistent.schema.handling.mode=warn/skip)
        self._checked: set[tuple[int, tuple[int, ...]]] = set()
        self._inconsistent: set[TableId] = set()
        # A TABLE_MAP that repeats the last consistent one of its table (the same TableId and types objects, as
        # streaming keeps them per TABLE_MAP body) is known consistent without the lookups, while no definition
        # changed: id(table id) -> (table id, types)
        self._consistent: DefinitionCache[int, tuple[TableId, tuple[int, ...]]] = DefinitionCache()

    def wanted(self, table_id: TableId) -> bool:
        return self.filter.table_included(table_id) and not (self._inconsistent and table_id in self._inconsistent)

    def table_map(self, table_id: TableId, binlog_types: tuple[int, ...], file: str, pos: int) -> None:
        """Check a TABLE_MAP of a captured table against the in-memory schema (see the module docstring)."""
        consistent = self._consistent.entries(self._schema.current_tables())
        known = consistent.get(id(table_id))
        if known is not None and known[0] is table_id and known[1] is binlog_types:
            if self._inconsistent:  # the usual case: empty, nothing to look up
                self._inconsistent.discard(table_id)
            return
        if not self.filter.table_included(table_id):
            return
        table = self._schema.table(table_id)
        if table is not None and (id(table), binlog_types) in self._checked:
            if self._inconsistent:
                self._inconsistent.discard(table_id)
            consistent[id(table_id)] = (table_id, binlog_types)
            return
        problem = "the schema history has no definition for it" if table is None else mismatch(table, binlog_types)
        if problem is None:
            self._checked.add((id(table), binlog_types))
            self._inconsistent.discard(table_id)
            consistent[id(table_id)] = (table_id, binlog_types)
            return
        last_ddl = self._schema.last_ddl(table_id)
        message = (f"TABLE_MAP of {table_id.dotted()} at binlog {file}:{pos} does not match the schema history: "
                   f"{problem}; last DDL applied to this table: "
                   f"{last_ddl if last_ddl is not None else '(none recorded)'}")
        if self._mode == InconsistentSchemaHandlingMode.FAIL:
            raise SchemaError(
                f"TABLE_MAP does not match the schema history ({problem})", where=Where(file, pos, table_id.dotted()),
                statement=f"last DDL applied to this table: {last_ddl if last_ddl is not None else '(none recorded)'}",
                fix="fix or restore the schema history (snapshot.mode=recovery rebuilds it), or set "
                    "inconsistent.schema.handling.mode=warn/skip to skip such rows")
        if self._mode == InconsistentSchemaHandlingMode.WARN:
            log.warning("%s; skipping its rows (inconsistent.schema.handling.mode=warn)", message)
        else:
            log.debug("%s; skipping its rows (inconsistent.schema.handling.mode=skip)", message)
        self._inconsistent.add(table_id)
