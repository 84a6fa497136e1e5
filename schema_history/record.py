"""`HistoryRecord`: one line of Debezium's schema history, and its two JSON spellings.

* compact (`FileSchemaHistory`: one document per line, Jackson's default writer), and
* pretty (`KafkaSchemaHistory`: `HistoryRecord.toString()`, Jackson `DefaultPrettyPrinter`:
  `"k" : v`, two-space indent, arrays inline as `[ a, b ]`, `[ {` for arrays of objects,
  empty containers as `[ ]` / `{ }`).

Key order: source, position, ts_ms, databaseName, schemaName, ddl, tableChanges; null
databaseName/schemaName/ddl/tableChanges are omitted (debezium-contract.md §d7).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from schema_history.changes import SchemaChange, TableChange
from schema_history.errors import HistoryCorruptError


@dataclass(frozen=True)
class HistoryRecord:
    source: Mapping[str, Any]  # the source partition, {"server": <topic.prefix>}
    position: Mapping[str, Any]  # the offset map at this DDL, already in Java HashMap order
    ts_ms: int
    database_name: str | None
    ddl: str | None
    table_changes: tuple[dict[str, Any], ...] | None = field(default=())
    schema_name: str | None = None

    @staticmethod
    def of(change: SchemaChange, source: Mapping[str, Any], position: Mapping[str, Any], ts_ms: int) -> "HistoryRecord":
        return HistoryRecord(source=dict(source), position=dict(position), ts_ms=ts_ms,
                             database_name=change.database_name, ddl=change.ddl,
                             table_changes=tuple(change.table_changes_json()), schema_name=change.schema_name)

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"source": dict(self.source), "position": dict(self.position), "ts_ms": self.ts_ms}
        if self.database_name is not None:
            doc["databaseName"] = self.database_name
        if self.schema_name is not None:
            doc["schemaName"] = self.schema_name
        if self.ddl is not None:
            doc["ddl"] = self.ddl
        if self.table_changes is not None:
            doc["tableChanges"] = list(self.table_changes)
        return doc

    def parsed_table_changes(self) -> list[TableChange]:
        return [TableChange.from_history_json(c) for c in self.table_changes or ()]

    def to_compact_json(self) -> str:
        return to_compact_json(self.document())

    def to_pretty_json(self) -> str:
        return to_pretty_json(self.document())

    @staticmethod
    def from_json(text: str) -> "HistoryRecord":
        """Read either spelling (both are plain JSON)."""
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise HistoryCorruptError(f"schema history record is not JSON: {text[:200]!r}") from e
        if not isinstance(doc, dict) or "position" not in doc or "source" not in doc:
            raise HistoryCorruptError(f"schema history record lacks source/position: {text[:200]!r}")
        changes = doc.get("tableChanges")
        return HistoryRecord(
            source=doc["source"],
            position=doc["position"],
            ts_ms=int(doc.get("ts_ms", 0)),
            database_name=doc.get("databaseName"),
            ddl=doc.get("ddl"),
            table_changes=tuple(changes) if changes is not None else None,
            schema_name=doc.get("schemaName"),
        )


# -- Jackson-compatible writers ----------------------------------------------------------------

_CONTROL = re.compile(r'[\x00-\x1f"\\]')
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _string(text: str) -> str:
    """Jackson escapes only quote, backslash and control characters (as `\\u00XX`, upper-case hex)."""
    return '"' + _CONTROL.sub(lambda m: _SHORT_ESCAPES.get(m.group()) or "\\u%04X" % ord(m.group()), text) + '"'


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    raise TypeError(f"cannot write {type(value).__name__} into a history record")


def to_compact_json(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(_string(k) + ":" + to_compact_json(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_compact_json(v) for v in value) + "]"
    return _scalar(value)


def _pretty(value: Any, level: int, out: list[str]) -> None:
    if isinstance(value, dict):
        if not value:
            out.append("{ }")
            return
        out.append("{")
        inner = "\n" + "  " * (level + 1)
        first = True
        for k, v in value.items():
            out.append(inner if first else "," + inner)
            first = False
            out.append(_string(k) + " : ")
            _pretty(v, level + 1, out)
        out.append("\n" + "  " * level + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[ ]")
            return
        out.append("[ ")
        for i, v in enumerate(value):
            if i:
                out.append(", ")
            _pretty(v, level, out)  # arrays do not indent (FixedSpaceIndenter)
        out.append(" ]")
    else:
        out.append(_scalar(value))


def to_pretty_json(value: Any) -> str:
    out: list[str] = []
    _pretty(value, 0, out)
    return "".join(out)
