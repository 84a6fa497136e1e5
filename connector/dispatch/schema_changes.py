"""DDL → the schema history, and schema change records (`<topic.prefix>` topic) with Debezium's `source`.

Each statement is applied to the schema history first; with `include.schema.changes=true` every schema
change it made becomes a record. During the snapshot the newest schema record is held back until it is
known whether data records follow: the snapshot's last record is marked `last` and carries the
completed offset (`end_snapshot`).
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable, Protocol

from connector.binlog.position import SourceOffset
from connector.dispatch.sender import RecordSender
from connector.dispatch.tables import SourceBlocks
from connector.events import records
from connector.events.kinds import Headers, SchemaChangeRecord
from connector.java.hashmap import hashmap_order
from connector.streaming.handler import EventSource
from schema_history.changes import SchemaChange
from schema_history.model import Table, TableId

__all__ = ["SchemaChanges", "SchemaTracker", "ddl_source_table", "truncated_table"]


class SchemaTracker(Protocol):
    """The schema history as the dispatcher needs it."""

    def table(self, table_id: TableId) -> Table | None: ...

    def apply(self, ddl: str, database: str, offset: dict[str, Any], snapshot: bool,
              event_at: tuple[str, int] | None = None) -> list[SchemaChange]: ...


_NAME = r"`(?:[^`]|``)+`|[\w$]+"
_TRUNCATE = re.compile(rf"^\s*TRUNCATE\s+(?:TABLE\s+)?((?:{_NAME})(?:\s*\.\s*(?:{_NAME}))?)", re.IGNORECASE)
_DATABASE_EVENT = re.compile(r"^\s*(CREATE|DROP)\s+(DATABASE|SCHEMA)\b|^\s*(USE|SET)\b", re.IGNORECASE)


def _unquote(part: str) -> str:
    part = part.strip()
    return part[1:-1].replace("``", "`") if part.startswith("`") else part


def truncated_table(statement: str, database: str) -> TableId | None:
    """The table a `TRUNCATE [TABLE] [db.]t` statement names (None for any other statement)."""
    match = _TRUNCATE.match(statement)
    if match is None:
        return None
    parts = re.findall(_NAME, match.group(1))
    if len(parts) == 2:
        return TableId(_unquote(parts[0]), _unquote(parts[1]))
    return TableId(database, _unquote(parts[0])) if database else None


def ddl_source_table(ddl: str, changes: list[SchemaChange]) -> str | None:
    """`source.table` of a statement's schema change events, as Debezium sets it.

    Every event of one statement names all the tables the statement touched, joined in the order of
    Debezium's `HashSet<TableId>` (a HashMap of `db.table` strings). Statements Debezium's parser
    signals no table event for are "database events" (table null: CREATE/DROP DATABASE, USE, SET);
    other statements without table changes (ALTER DATABASE, CREATE/DROP INDEX) get "".
    """
    touched = [c.id for change in changes for c in change.table_changes]
    touched += [change.touched for change in changes if change.touched is not None]  # renamed away again
    ids = {t.dotted(): t.table for t in touched}
    if ids:
        return ",".join(ids[k] for k in hashmap_order(ids))
    return None if _DATABASE_EVENT.match(ddl) else ""


class SchemaChanges:
    """Applies DDL to the schema history and emits its schema change records (held back during the snapshot)."""

    def __init__(self, schema: SchemaTracker, sender: RecordSender, sources: SourceBlocks, topic: str,
                 headers: Headers, *, include_schema_changes: bool,
                 clock_ns: Callable[[], int] = time.time_ns) -> None:
        self._schema = schema
        self._sender = sender
        self._sources = sources
        self._topic = topic
        self._headers = headers
        self._include = include_schema_changes
        self._clock_ns = clock_ns
        self._held: tuple[SchemaChange, EventSource, int | None, SourceOffset] | None = None

    @property
    def holding(self) -> bool:
        return self._held is not None

    def apply(self, ddl: str, database: str, es: EventSource, offset: SourceOffset, snapshot: bool) -> None:
        offset_map = offset.to_map()
        changes = self._schema.apply(ddl, database, offset_map, snapshot, event_at=(es.file, es.pos))
        if not self._include or not changes:
            return
        table = ddl_source_table(ddl, changes)
        for change in changes:
            es_for = EventSource(
                ts_ms=es.ts_ms, db=change.database_name, table=table,
                server_id=es.server_id, gtid=es.gtid, file=es.file, pos=es.pos, row=es.row, thread=es.thread,
                snapshot=es.snapshot, ts_us=es.ts_us)
            if snapshot:
                # Until we know whether data records follow, the newest snapshot schema record is held back.
                ts_ns = self._clock_ns()
                self.release()
                self._held = (change, es_for, ts_ns, offset)
            else:
                self._emit(change, es_for, None, offset_map)

    def release(self) -> None:
        """Data records follow: the held schema record is not the snapshot's last, send it as it is."""
        if self._held is not None:
            change, es, ts_ns, offset = self._held
            self._held = None
            self._emit(change, es, ts_ns, offset.to_map())

    def end_snapshot(self, completed: SourceOffset) -> None:
        """The snapshot emitted no data after its schema records: its last schema record is the last record."""
        if self._held is not None:
            change, es, ts_ns, _ = self._held
            self._held = None
            last = EventSource(ts_ms=es.ts_ms, db=es.db, table=es.table, server_id=es.server_id, gtid=es.gtid,
                               file=es.file, pos=es.pos, row=es.row, thread=es.thread, snapshot="last")
            self._emit(change, last, ts_ns, completed.to_map())

    def _emit(self, change: SchemaChange, es: EventSource, ts_ns: int | None, offset_map: dict[str, Any]) -> None:
        entries = tuple(records.TableChangeEntry(c.type.value, c.id, c.table) for c in change.table_changes)
        event = records.SchemaChange(self._sources.of(es, ts_ns), self._clock_ns() // 1_000_000,
                                     change.database_name, change.ddl, entries, change.schema_name)
        self._sender.emit(SchemaChangeRecord(event, self._topic, self._headers), offset_map)
