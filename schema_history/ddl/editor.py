"""A mutable working copy of one table, like Debezium's `TableEditor`, producing frozen `Table`s."""

from __future__ import annotations

from dataclasses import replace

from schema_history.ddl.type_names import CHARSET_JDBC_TYPES
from schema_history.model import Column, Table, TableId


class TableEditor:
    def __init__(self, table_id: TableId, columns: list[Column] | None = None, primary_key: list[str] | None = None,
                 default_charset: str | None = None, comment: str | None = None) -> None:
        self.table_id = table_id
        self.columns: list[Column] = list(columns or [])
        self.primary_key: list[str] = list(primary_key or [])
        self.default_charset = default_charset
        self.comment = comment
        # MariaDB system versioning seen in the statement being applied (schema_history.ddl.versioning)
        self.system_versioned = False
        self.row_end_column: str | None = None

    @staticmethod
    def of(table: Table) -> "TableEditor":
        return TableEditor(table.id, list(table.columns), list(table.primary_key_column_names),
                           table.default_charset_name, table.comment)

    def _index(self, name: str) -> int | None:
        lowered = name.lower()
        for i, col in enumerate(self.columns):
            if col.name.lower() == lowered:
                return i
        return None

    def column(self, name: str) -> Column | None:
        i = self._index(name)
        return None if i is None else self.columns[i]

    def has_primary_key(self) -> bool:
        return bool(self.primary_key)

    def add_column(self, column: Column) -> None:
        """Replace the column of that name in place, or append it."""
        i = self._index(column.name)
        if i is None:
            self.columns.append(column)
        else:
            self.columns[i] = column

    def remove_column(self, name: str) -> None:
        i = self._index(name)
        if i is not None:
            removed = self.columns.pop(i)
            self.primary_key = [p for p in self.primary_key if p.lower() != removed.name.lower()]

    def rename_column(self, old: str, new: str) -> None:
        i = self._index(old)
        if i is None:
            return
        previous = self.columns[i].name
        self.columns[i] = replace(self.columns[i], name=new)
        self.primary_key = [new if p.lower() == previous.lower() else p for p in self.primary_key]

    def reorder(self, name: str, after: str | None) -> None:
        """Move `name` to the front (`after` None) or right after `after`."""
        i = self._index(name)
        if i is None:
            return
        col = self.columns.pop(i)
        if after is None:
            self.columns.insert(0, col)
            return
        j = self._index(after)
        if j is None:
            self.columns.insert(i, col)
            return
        self.columns.insert(j + 1, col)

    def set_primary_key(self, names: list[str]) -> None:
        self.primary_key = [self.column(n).name if self.column(n) else n for n in names]

    def convert_charset(self, charset: str) -> None:
        self.default_charset = charset
        self.columns = [replace(c, charset_name=charset) if c.jdbc_type in CHARSET_JDBC_TYPES else c
                        for c in self.columns]

    def create(self) -> Table:
        cols = []
        for pos, col in enumerate(self.columns, start=1):
            charset = col.charset_name
            if col.jdbc_type in CHARSET_JDBC_TYPES and (charset is None or charset.upper() == "DEFAULT"):
                charset = self.default_charset
            cols.append(replace(col, position=pos, charset_name=charset))
        # The primary key keeps only columns that still exist.
        pk = tuple(p for p in self.primary_key if any(c.name.lower() == p.lower() for c in cols))
        return Table(id=self.table_id, columns=tuple(cols), primary_key_column_names=pk,
                     default_charset_name=self.default_charset, comment=self.comment)
