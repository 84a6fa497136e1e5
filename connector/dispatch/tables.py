"""Per table version and per event, what every record of the dispatcher needs: the table's `TableSchema`
(built once per `Table` object), its topic, and the `source` block of an event.

Routing is by table, as topic.naming.strategy names it (`<topic.prefix>.<db>.<table>` by default, sanitized;
connector/events/topic_names.py), cached by `TopicNamer`, which also answers which tables a topic holds.
"""

from __future__ import annotations

from connector.config.settings import TopicSettings
from connector.events.source_info import DEFAULT_VERSION, SnapshotMarker, SourceInfo, streaming_json_around_pos
from connector.events.table_schema import TableSchema, TableSchemaBuilder
from connector.events.topic_names import TopicNamer
from connector.events.changes import EventSource
from schema_history.model import Table, TableId

__all__ = ["SourceBlocks", "TableRoutes"]


class TableRoutes:
    def __init__(self, builder: TableSchemaBuilder, topics: TopicSettings) -> None:
        self._builder = builder
        self._schemas: dict[int, tuple[Table, TableSchema]] = {}
        self._namer = TopicNamer(topics)

    def schema(self, table: Table) -> TableSchema:
        # Tables are immutable: one TableSchema per table version, keyed by identity (the Table is kept, so
        # its id is never reused while the entry lives).
        cached = self._schemas.get(id(table))
        if cached is not None and cached[0] is table:
            return cached[1]
        built = self._builder.build(table)
        self._schemas[id(table)] = (table, built)
        return built

    def topic(self, table_id: TableId) -> str:
        return self._namer.data_topic(table_id)

    def tables_for(self, topic: str) -> list[TableId]:
        """The captured tables whose records went to `topic` so far (for errors naming a topic)."""
        return self._namer.tables_for(topic)


class SourceBlocks:
    """`EventSource` (what streaming or the snapshot saw) → the record's `SourceInfo`."""

    def __init__(self, name: str, connector: str = "mysql", version: str | None = None) -> None:
        self._name = name
        self._connector = connector
        self._version = version or DEFAULT_VERSION
        # The rows event last seen (its first row's EventSource) and its block: the other rows' blocks are
        # copies of it (EventSource.at_row / SourceInfo.at_row), so a rows event's block is built and rendered once.
        self._event: tuple[EventSource | None, SourceInfo | None] = (None, None)
        # `json_around_row`'s last texts before the position and after the row, with what they were built from
        self._around_pos: tuple[tuple, str, str] | None = None

    def of(self, es: EventSource, ts_ns: int | None = None) -> SourceInfo:
        """`ts_ns` overrides the event's time (schema changes of the snapshot carry the wall clock)."""
        template = es.template
        if template is not None and ts_ns is None:
            seen, block = self._event
            if seen is not template or block is None:
                block = self._build(template, None)
                self._event = (template, block)
            return block.at_row(es.row)
        return self._build(es, ts_ns)

    def json_around_row(self, es: EventSource) -> tuple[str, str]:
        """`of(es).json_around_row()` for a streamed rows event (`es.snapshot` is None), without the block."""
        assert es.snapshot is None
        ts_ns = es.ts_us * 1000 if es.ts_us else es.ts_ms * 1_000_000
        # what the block says but for the position, as for the last rows event (a transaction's events share it)
        key = (ts_ns, es.db, es.table, es.server_id, es.gtid, es.file, es.thread, es.query)
        last = self._around_pos
        if last is None or last[0] != key:
            last = self._around_pos = (key, *streaming_json_around_pos(
                self._version, self._connector, self._name, ts_ns, es.db, es.table, es.server_id, es.gtid, es.file,
                es.thread, es.query))
        return f'{last[1]}{es.pos},"row":', last[2]

    def _build(self, es: EventSource, ts_ns: int | None) -> SourceInfo:
        if ts_ns is None:
            ts_ns = es.ts_us * 1000 if es.ts_us else es.ts_ms * 1_000_000
        return SourceInfo(self._name, ts_ns, SnapshotMarker(es.snapshot) if es.snapshot else None, es.db, es.table,
                          es.server_id, es.gtid, es.file, es.pos, es.row, es.thread, es.query, self._version,
                          self._connector)

