"""Which databases, tables and columns are captured (Debezium's include/exclude lists).

Patterns are anchored, case-insensitive regular expressions, as in Debezium; they are compiled once
and table decisions are cached, so the row path never runs a regex.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from connector.config.database_settings import FilterSettings
from schema_history.model import TableId

BUILTIN_DATABASES = frozenset({"mysql", "performance_schema", "sys", "information_schema"})


def _compile(patterns: tuple[str, ...]) -> list[re.Pattern[str]]:
    return [re.compile(p, re.IGNORECASE) for p in patterns]


@dataclass
class TableFilter:
    settings: FilterSettings
    _db_include: list[re.Pattern[str]] = field(init=False)
    _db_exclude: list[re.Pattern[str]] = field(init=False)
    _tb_include: list[re.Pattern[str]] = field(init=False)
    _tb_exclude: list[re.Pattern[str]] = field(init=False)
    _cache: dict[TableId, bool] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        s = self.settings
        self._db_include = _compile(s.database_include)
        self._db_exclude = _compile(s.database_exclude)
        self._tb_include = _compile(s.table_include)
        self._tb_exclude = _compile(s.table_exclude)

    def database_included(self, database: str) -> bool:
        if self.settings.ignore_builtin and database.lower() in BUILTIN_DATABASES:
            return False
        if self._db_include:
            return any(p.fullmatch(database) for p in self._db_include)
        return not any(p.fullmatch(database) for p in self._db_exclude)

    def table_included(self, table_id: TableId) -> bool:
        cached = self._cache.get(table_id)
        if cached is not None:
            return cached
        result = self._decide(table_id)
        self._cache[table_id] = result
        return result

    def _decide(self, table_id: TableId) -> bool:
        if not self.database_included(table_id.database):
            return False
        name = table_id.dotted()
        if self._tb_include:
            return any(p.fullmatch(name) for p in self._tb_include)
        return not any(p.fullmatch(name) for p in self._tb_exclude)


@dataclass
class ColumnFilter:
    """`column.include.list` / `column.exclude.list`: anchored regexes over `db.table.column`."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]

    def __post_init__(self) -> None:
        self._include = _compile(self.include)
        self._exclude = _compile(self.exclude)

    @property
    def active(self) -> bool:
        return bool(self._include or self._exclude)

    def keep(self, table_id: TableId, column: str) -> bool:
        name = f"{table_id.database}.{table_id.table}.{column}"
        if self._include:
            return any(p.fullmatch(name) for p in self._include)
        return not any(p.fullmatch(name) for p in self._exclude)
