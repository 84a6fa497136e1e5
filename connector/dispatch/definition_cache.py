"""Answers kept per rows event or TABLE_MAP while no table definition changes (issue 27).

A single-row transaction has its own TABLE_MAP and rows event, and streaming hands the same `TableId` object for
every one of a TABLE_MAP body: what the dispatcher looked up for the last of them (the TABLE_MAP check, the fused
row path's table) holds for the next as long as the schema history's definitions are the same. They are while
`Tables` is the same object with the same `changes` count (the history replaces the object on DDL; recovery and
checkpoints change it in place, which the count sees).
"""

from __future__ import annotations

from typing import Generic, Hashable, TypeVar

from schema_history.model import Tables

__all__ = ["DefinitionCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class DefinitionCache(Generic[K, V]):
    """A dict emptied whenever the table definitions change, and once it holds `limit` entries."""

    def __init__(self, limit: int = 4096) -> None:
        self._entries: dict[K, V] = {}
        self._tables: Tables | None = None
        self._changes = 0
        self._limit = limit

    def entries(self, tables: Tables) -> dict[K, V]:
        """The entries valid for `tables`, the definitions now (to read and to add to)."""
        if tables is not self._tables or tables.changes != self._changes:
            self._entries.clear()
            self._tables, self._changes = tables, tables.changes
        elif len(self._entries) >= self._limit:
            self._entries.clear()
        return self._entries
