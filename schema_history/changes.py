"""What one DDL statement changed: Debezium's `SchemaChangeEvent` in plain dataclasses.

`SchemaChange` is one schema change event / one history record: the database it is filed under,
the DDL text recorded for it, and its table changes (empty for database-level statements such as
`CREATE DATABASE`, `USE`, `SET character_set_server`, `CREATE INDEX`). A statement can produce
several (`DROP TABLE a, b` gives one per table, `RENAME TABLE a TO b, c TO d` one per pair).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from schema_history.model import Table, TableId
from schema_history.table_json import table_from_history_json, table_to_history_json


class TableChangeType(str, Enum):
    CREATE = "CREATE"
    ALTER = "ALTER"
    DROP = "DROP"


@dataclass(frozen=True)
class TableChange:
    type: TableChangeType
    id: TableId
    table: Table | None = None  # None for DROP
    previous_id: TableId | None = None  # set by RENAME TABLE

    def to_history_json(self) -> dict[str, Any]:
        """`JsonTableChangeSerializer.toDocument`: type, id, [previousId], [table, comment]."""
        doc: dict[str, Any] = {"type": self.type.value, "id": self.id.identifier()}
        if self.previous_id is not None:
            doc["previousId"] = self.previous_id.identifier()
        if self.table is not None:
            doc["table"] = table_to_history_json(self.table)
            doc["comment"] = self.table.comment
        return doc

    @staticmethod
    def from_history_json(doc: dict[str, Any]) -> "TableChange":
        table_id = TableId.parse_identifier(doc["id"])
        previous = doc.get("previousId")
        table_doc = doc.get("table")
        table = table_from_history_json(table_id, table_doc, doc.get("comment")) if table_doc else None
        return TableChange(
            type=TableChangeType(doc["type"]),
            id=table_id,
            table=table,
            previous_id=TableId.parse_identifier(previous) if previous else None,
        )


@dataclass(frozen=True)
class SchemaChange:
    """One schema change event: what the lead's event builder turns into a Kafka record."""

    database_name: str
    ddl: str
    table_changes: tuple[TableChange, ...] = ()
    schema_name: str | None = None
    # A table the statement touched whose event carries no table change (`b` of `RENAME TABLE a TO b, b TO c`):
    # it still counts for `source.table`. Never serialized.
    touched: TableId | None = None

    def table_changes_json(self) -> list[dict[str, Any]]:
        return [c.to_history_json() for c in self.table_changes]
