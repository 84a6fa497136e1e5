"""DDL → the schema history, and schema change records (`<topic.prefix>` topic) with Debezium's `source`.

Each statement is applied to the schema history first; with `include.schema.changes=true` every schema
change it made becomes a record. During the snapshot the newest schema record is held back until it is
known whether data records follow: the snapshot's last record is marked `last` and carries the
completed offset (`end_snapshot`).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from connector.offsets.position import SourceOffset
from connector.dispatch.sender import RecordSender
from connector.dispatch.tables import SourceBlocks
from connector.events import records
from connector.events.kinds import Headers, SchemaChangeRecord
from connector.java.hashmap import hashmap_order
from connector.events.changes import EventSource
from schema_history.changes import SchemaChange
from schema_history.model import Table, TableId, Tables

__all__ = ["SchemaChanges", "SchemaTracker", "ddl_source_table", "truncated_table"]

log = logging.getLogger(__name__)


class SchemaTracker(Protocol):
    """The schema history as the dispatcher needs it."""

    def table(self, table_id: TableId) -> Table | None: ...

    def current_tables(self) -> Tables:
        """The definitions now; the same object with the same `changes` means none changed (for caches)."""
        ...

    def last_ddl(self, table_id: TableId) -> str | None: ...

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


@dataclass(frozen=True)
class _Logged:
    """One table statement of the initial snapshot, as it was applied and sent."""

    ddl: str
    database: str
    source: EventSource
    offset: SourceOffset
    table_id: TableId
    ts_ns: list[int]


def _source_for(es: EventSource, change: SchemaChange, table: str | None) -> EventSource:
    return EventSource(ts_ms=es.ts_ms, db=change.database_name, table=table, server_id=es.server_id, gtid=es.gtid,
                       file=es.file, pos=es.pos, row=es.row, thread=es.thread, snapshot=es.snapshot,
                       ts_us=es.ts_us)


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
        # The initial snapshot's table statements, for blocking snapshots to send again (see replay).
        self._snapshot_log: list[_Logged] = []
        self._snapshot_tables: dict[TableId, Table | None] = {}

    @property
    def holding(self) -> bool:
        return self._held is not None

    def apply(self, ddl: str, database: str, es: EventSource, offset: SourceOffset, snapshot: bool) -> None:
        offset_map = offset.to_map()
        changes = self._schema.apply(ddl, database, offset_map, snapshot, event_at=(es.file, es.pos))
        if snapshot and es.snapshot is not None:
            self._log_snapshot_statement(ddl, database, es, offset, changes)
        if not self._include or not changes:
            return
        table = ddl_source_table(ddl, changes)
        for change in changes:
            es_for = _source_for(es, change, table)
            if snapshot:
                # Until we know whether data records follow, the newest snapshot schema record is held back.
                ts_ns = self._clock_ns()
                self.release()
                self._held = (change, es_for, ts_ns, offset)
                if self._snapshot_log and self._snapshot_log[-1].ddl is ddl:
                    self._snapshot_log[-1].ts_ns.append(ts_ns)
            else:
                self._emit(change, es_for, None, offset_map)

    def reset_snapshot_log(self) -> None:
        """A new initial snapshot starts: blocking snapshots replay its statements, not older ones."""
        self._snapshot_log.clear()
        self._snapshot_tables.clear()

    def _log_snapshot_statement(self, ddl: str, database: str, es: EventSource, offset: SourceOffset,
                                changes: list[SchemaChange]) -> None:
        touched = {c.id for change in changes for c in change.table_changes}
        if len(touched) != 1:  # SET, USE, CREATE/DROP DATABASE: not replayed (they name no table)
            return
        table_id = next(iter(touched))
        self._snapshot_log.append(_Logged(ddl, database, es, offset, table_id, []))
        self._snapshot_tables[table_id] = self._schema.table(table_id)

    def replay(self, tables: Sequence[TableId]) -> None:
        """A blocking snapshot of `tables`: as Debezium's BinlogSnapshotChangeEventSource, send again the initial
        snapshot's schema records of these tables (same source, offset and history position; none when this
        process took no initial snapshot). A table whose definition changed since then is left out: Debezium
        would record its old definition again, and a schema history replayed later would end on it."""
        wanted = set(tables)
        for table_id in wanted:
            if table_id in self._snapshot_tables and self._snapshot_tables[table_id] != self._schema.table(table_id):
                log.warning("blocking snapshot: the schema of %s changed since the initial snapshot; its snapshot "
                            "schema records are not sent again (they would carry the old definition)",
                            table_id.dotted())
                wanted.discard(table_id)
        for logged in self._snapshot_log:
            if logged.table_id not in wanted:
                continue
            offset_map = logged.offset.to_map()
            changes = self._schema.apply(logged.ddl, logged.database, offset_map, True,
                                         event_at=(logged.source.file, logged.source.pos))
            if not self._include or not changes:
                continue
            table = ddl_source_table(logged.ddl, changes)
            for index, change in enumerate(changes):
                ts_ns = logged.ts_ns[index] if index < len(logged.ts_ns) else None
                self._emit(change, _source_for(logged.source, change, table), ts_ns, offset_map)

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
