"""The relational model the schema history keeps: one immutable `Table` per table version.

The attributes mirror Debezium's `io.debezium.relational.Column`/`Table` one for one, because they
are written verbatim into history records and schema change events (debezium-contract.md §d6–d7)
and because the value converters are chosen from them (type name, length, scale, charset, enum
values). Nothing here talks to a server or parses SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Mapping


@dataclass(frozen=True, order=True)
class TableId:
    """A table's identity. MySQL has no schemas, so `database` plays Debezium's *catalog* role."""

    database: str
    table: str

    def identifier(self) -> str:
        """Debezium's `TableId.toDoubleQuotedString()`: `"db"."table"` as used in `tableChanges[].id`, a `"`
        inside a name doubled (`"db"."spe""cial"`, reference run longtail)."""
        return '"' + self.database.replace('"', '""') + '"."' + self.table.replace('"', '""') + '"'

    def dotted(self) -> str:
        """`db.table`, as used in topic names, `transaction_data_collection_order_*` and filters."""
        return f"{self.database}.{self.table}"

    @staticmethod
    def parse_identifier(text: str) -> "TableId":
        """Inverse of `identifier()`; accepts `"db"."t"` (quotes doubled inside names) and `db.t`."""
        if text.startswith('"'):
            parts: list[str] = []
            i = 0
            while i < len(text):
                if text[i] == '"':
                    j = i + 1
                    buf = []
                    while j < len(text):
                        if text[j] == '"' and j + 1 < len(text) and text[j + 1] == '"':
                            buf.append('"')
                            j += 2
                        elif text[j] == '"':
                            break
                        else:
                            buf.append(text[j])
                            j += 1
                    parts.append("".join(buf))
                    i = j + 1
                else:
                    i += 1
            if len(parts) == 2:
                return TableId(parts[0], parts[1])
            if len(parts) == 3:  # catalog, (null) schema, table
                return TableId(parts[0], parts[2])
            raise ValueError(f"not a table identifier: {text!r}")
        db, _, table = text.partition(".")
        return TableId(db, table)


@dataclass(frozen=True)
class Column:
    """One column, with exactly the attributes Debezium records in history (`JsonTableChangeSerializer`).

    `length`/`scale` are None when Debezium has none (it writes no key then); `native_type` likewise.
    `type_name` is Debezium's upper-case name including ` UNSIGNED`/` ZEROFILL`, e.g. `INT UNSIGNED`;
    `enum_values` holds the quoted literals as Debezium stores them (`"'small'"`).
    """

    name: str
    position: int  # 1-based
    jdbc_type: int
    type_name: str
    type_expression: str
    native_type: int | None = None
    charset_name: str | None = None
    length: int | None = None
    scale: int | None = None
    optional: bool = True
    auto_incremented: bool = False
    generated: bool = False
    comment: str | None = None
    has_default_value: bool = False
    default_value_expression: str | None = None
    enum_values: tuple[str, ...] = ()

    def with_position(self, position: int) -> "Column":
        return replace(self, position=position)


@dataclass(frozen=True)
class Table:
    """One version of a table's definition; columns are in table order with positions 1..n."""

    id: TableId
    columns: tuple[Column, ...]
    primary_key_column_names: tuple[str, ...] = ()
    default_charset_name: str | None = None
    comment: str | None = None
    # Debezium's free-form table attributes (name, value); MySQL writes none today.
    attributes: tuple[tuple[str, str], ...] = ()

    def column(self, name: str) -> Column | None:
        lowered = name.lower()
        for col in self.columns:
            if col.name.lower() == lowered:
                return col
        return None

    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def primary_key_columns(self) -> list[Column]:
        out = []
        for name in self.primary_key_column_names:
            col = self.column(name)
            if col is not None:
                out.append(col)
        return out


@dataclass
class Tables:
    """The whole captured schema at one point of the binlog: `TableId` → `Table`.

    Mutable on purpose (the history applies changes to it in place); the `Table` values are frozen,
    so anything that captured a `Table` keeps seeing the version it captured.
    """

    _tables: dict[TableId, Table] = field(default_factory=dict)
    # Counts put/remove: with this object's identity it tells a cache that no definition changed since (the history
    # replaces the whole object on most changes, recovery and checkpoints change it in place).
    changes: int = field(default=0, compare=False, repr=False)

    def get(self, table_id: TableId) -> Table | None:
        return self._tables.get(table_id)

    def put(self, table: Table) -> None:
        self._tables[table.id] = table
        self.changes += 1

    def remove(self, table_id: TableId) -> Table | None:
        self.changes += 1
        return self._tables.pop(table_id, None)

    def ids(self) -> list[TableId]:
        return sorted(self._tables)

    def __iter__(self) -> Iterator[Table]:
        return iter([self._tables[k] for k in sorted(self._tables)])

    def __len__(self) -> int:
        return len(self._tables)

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._tables

    def databases(self) -> set[str]:
        return {t.database for t in self._tables}

    def copy(self) -> "Tables":
        return Tables(dict(self._tables))

    def as_mapping(self) -> Mapping[TableId, Table]:
        return dict(self._tables)
