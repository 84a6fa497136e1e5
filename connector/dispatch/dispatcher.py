"""The central dispatcher: change, schema and transaction events → Kafka records with their offsets.

Streaming and the snapshot only say *what happened*; this module filters, applies DDL to the schema
history, looks up the per-table-version `TableSchema` (built once per `Table` object), renders bytes
and hands each record to the writer together with the source offset it carries. Records produced for
one source event (a delete and its tombstone) share one offset, which is attached to the last of them
only, so the offset becomes committable once the whole group is acknowledged.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from connector.events import records
from connector.binlog.position import SourceOffset, TransactionState
from connector.config.modes import Operation
from connector.config.settings import Settings
from connector.events.envelope import PlannedEvent, TxBlock, plan_row
from connector.config.modes import InconsistentSchemaHandlingMode
from connector.errors import SchemaError, Where
from connector.schema.table_map_check import mismatch
from connector.dispatch.filters import TableFilter
from connector.kafka.writer import OutRecord
from connector.offsets.tracker import OffsetTracker
from connector.serde.avro import RecordSerializer, record_serializer
from connector.serde.connect_schema import ConnectSchema
from connector.java.hashmap import hashmap_order
from connector.events.source_info import SnapshotMarker, SourceInfo
from connector.streaming.handler import EventPositions, EventSource, RowChange
from connector.events.table_schema import TableSchema, TableSchemaBuilder
from connector.events.topic_names import TopicNamer
from schema_history.changes import SchemaChange
from schema_history.model import Table, TableId

log = logging.getLogger(__name__)


class RecordSink(Protocol):
    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None: ...


class SchemaTracker(Protocol):
    """The schema history as the dispatcher needs it."""

    def table(self, table_id: TableId) -> Table | None: ...

    def apply(self, ddl: str, database: str, offset: dict[str, Any], snapshot: bool,
              event_at: tuple[str, int] | None = None) -> list[SchemaChange]: ...


@dataclass
class DispatchCounters:
    records_sent: int = 0
    records_acked: int = 0
    data_events: int = 0


_TRUNCATE = re.compile(r"^\s*TRUNCATE\s+(?:TABLE\s+)?((?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?)",
                       re.IGNORECASE)


def _unquote(part: str) -> str:
    part = part.strip()
    return part[1:-1].replace("``", "`") if part.startswith("`") else part


def _truncated_table(statement: str, database: str) -> TableId | None:
    match = _TRUNCATE.match(statement)
    if match is None:
        return None
    parts = re.findall(r"`(?:[^`]|``)+`|[\w$]+", match.group(1))
    if len(parts) == 2:
        return TableId(_unquote(parts[0]), _unquote(parts[1]))
    return TableId(database, _unquote(parts[0])) if database else None


_DATABASE_EVENT = re.compile(r"^\s*(CREATE|DROP)\s+(DATABASE|SCHEMA)\b|^\s*(USE|SET)\b", re.IGNORECASE)


def _ddl_source_table(ddl: str, changes: list[SchemaChange]) -> str | None:
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


class _FixedPosition:
    """Snapshot records: no transaction, one offset for every event."""

    def __init__(self, offset: SourceOffset) -> None:
        self._offset = offset

    def next_event(self, data_collection: str) -> tuple[None, SourceOffset]:
        return None, self._offset


class Dispatcher:
    def __init__(self, settings: Settings, schema: SchemaTracker, builder: TableSchemaBuilder, sink: RecordSink,
                 tracker: OffsetTracker, table_filter: TableFilter, *, connector_name: str = "mysql",
                 version: str | None = None, clock_ns: Callable[[], int] = time.time_ns,
                 serializer: RecordSerializer | None = None) -> None:
        self.settings = settings
        self.schema = schema
        self.builder = builder
        self.sink = sink
        self.tracker = tracker
        self.filter = table_filter
        self.counters = DispatchCounters()
        self._clock_ns = clock_ns
        self._events = settings.events
        self._topics = settings.topics
        self._connector_name = connector_name
        self._version = version
        header_format = records.HeaderFormat(settings.kafka.header_format)
        self._header_format = header_format
        self._context_headers = (
            records.context_headers(settings.topics.prefix, str(uuid.uuid4()), header_format,
                                    connector_name=connector_name)
            if settings.events.extended_headers_enabled else []
        )
        self._key_schemas = settings.kafka.key_schemas_enable
        self._value_schemas = settings.kafka.value_schemas_enable
        # Picked once: None keeps the JSON text fast path; otherwise (Avro on either side) every record goes
        # through Connect values and the key and value converters.
        kafka = settings.kafka
        self._serializer = serializer if serializer is not None else record_serializer(
            kafka.key_format, kafka.value_format, key_registry_url=kafka.key_schema_registry_url,
            value_registry_url=kafka.value_schema_registry_url, key_schemas_enable=kafka.key_schemas_enable,
            value_schemas_enable=kafka.value_schemas_enable, basic_auth=kafka.schema_registry_basic_auth)
        self._table_schemas: dict[int, tuple[Table, TableSchema]] = {}
        # TABLE_MAP verification: (table version, binlog types) already found consistent; tables whose rows
        # are skipped until their next TABLE_MAP (inconsistent.schema.handling.mode=warn/skip)
        self._checked_maps: set[tuple[int, tuple[int, ...]]] = set()
        self._inconsistent: set[TableId] = set()
        self._held: tuple[SchemaChange, EventSource, int | None, SourceOffset] | None = None
        self._topic_namer = TopicNamer(settings.topics)

    # ---------------------------------------------------------------- helpers
    def _source(self, es: EventSource, ts_ns: int | None = None) -> SourceInfo:
        kwargs: dict[str, Any] = dict(
            name=self._topics.prefix,
            ts_ns=ts_ns if ts_ns is not None else es.ts_us * 1000 if es.ts_us else es.ts_ms * 1_000_000,
            snapshot=SnapshotMarker(es.snapshot) if es.snapshot else None, db=es.db, table=es.table,
            server_id=es.server_id, gtid=es.gtid, file=es.file, pos=es.pos, row=es.row, thread=es.thread,
            query=es.query, connector=self._connector_name,
        )
        if self._version:
            kwargs["version"] = self._version
        return SourceInfo(**kwargs)

    def _send(self, record: OutRecord, offset: dict[str, Any] | None) -> None:
        seq = self.tracker.track(offset)
        self.counters.records_sent += 1

        def acked() -> None:
            self.counters.records_acked += 1
            self.tracker.ack(seq)

        self.sink.send(record, acked)

    def send_record(self, record: OutRecord, offset: dict[str, Any] | None) -> None:
        """A record built elsewhere (heartbeats), tracked and committed like every other."""
        self._send(record, offset)

    def serialize(self, topic: str, key_schema: ConnectSchema | None, key: Any, value_schema: ConnectSchema | None,
                  value: Any) -> tuple[bytes | None, bytes | None]:
        """Key then value bytes through the run's converters (Connect's order: the key first, so that a fresh
        registry hands out ids as AvroConverter does). Also for records built elsewhere (heartbeats)."""
        if self._serializer is None:
            from connector.serde.json_converter import JsonConverter

            return (JsonConverter(self._key_schemas).to_bytes(key_schema, key) if key is not None else None,
                    JsonConverter(self._value_schemas).to_bytes(value_schema, value) if value is not None else None)
        return (self._serializer.key.serialize(topic, key_schema, key),
                self._serializer.value.serialize(topic, value_schema, value))

    def table_schema(self, table: Table) -> TableSchema:
        # Tables are immutable: one TableSchema per table version, keyed by identity.
        cached = self._table_schemas.get(id(table))
        if cached is not None and cached[0] is table:
            return cached[1]
        built = self.builder.build(table)
        self._table_schemas[id(table)] = (table, built)
        return built

    def _topic(self, table_id: TableId) -> str:
        return self._topic_namer.data_topic(table_id)

    def tables_for_topic(self, topic: str) -> list[TableId]:
        return self._topic_namer.tables_for(topic)

    # ---------------------------------------------------------------- filters
    def wants_table(self, table_id: TableId) -> bool:
        return self.filter.table_included(table_id) and table_id not in self._inconsistent

    def table_map(self, table_id: TableId, binlog_types: tuple[int, ...], file: str, pos: int) -> None:
        """Check a TABLE_MAP of a captured table against the in-memory schema; on a mismatch stop, or
        with inconsistent.schema.handling.mode=warn/skip drop that table's rows until its next TABLE_MAP."""
        if not self.filter.table_included(table_id):
            return
        table = self.schema.table(table_id)
        if table is not None and (id(table), binlog_types) in self._checked_maps:
            self._inconsistent.discard(table_id)
            return
        problem = "the schema history has no definition for it" if table is None else mismatch(table, binlog_types)
        if problem is None:
            self._checked_maps.add((id(table), binlog_types))
            self._inconsistent.discard(table_id)
            return
        last = getattr(self.schema, "last_ddl", lambda t: None)(table_id)
        message = (f"TABLE_MAP of {table_id.dotted()} at binlog {file}:{pos} does not match the schema history: "
                   f"{problem}; last DDL applied to this table: {last if last is not None else '(none recorded)'}")
        mode = self._events.inconsistent_schema_handling_mode
        if mode == InconsistentSchemaHandlingMode.FAIL:
            raise SchemaError(
                f"TABLE_MAP does not match the schema history ({problem})", where=Where(file, pos, table_id.dotted()),
                statement=f"last DDL applied to this table: {last if last is not None else '(none recorded)'}",
                fix="fix or restore the schema history (snapshot.mode=recovery rebuilds it), or set "
                    "inconsistent.schema.handling.mode=warn/skip to skip such rows")
        if mode == InconsistentSchemaHandlingMode.WARN:
            log.warning("%s; skipping its rows (inconsistent.schema.handling.mode=warn)", message)
        else:
            log.debug("%s; skipping its rows (inconsistent.schema.handling.mode=skip)", message)
        self._inconsistent.add(table_id)

    def table_known(self, table_id: TableId) -> bool:
        return self.schema.table(table_id) is not None

    # ---------------------------------------------------------------- data
    def row_change(self, change: RowChange, source: EventSource, positions: EventPositions) -> None:
        table = self.schema.table(change.table_id)
        if table is None:
            raise SchemaError(
                "rows for a table the schema history has no definition for",
                where=Where(source.file, source.pos, change.table_id.dotted()),
                fix="restore the history topic or run with snapshot.mode=recovery")
        ts = self.table_schema(table)
        expected = len(table.columns)
        for image in (change.before, change.after):
            if image is not None and len(image) != expected:
                raise SchemaError(
                    f"row event has {len(image)} columns but the schema history says {expected}",
                    where=Where(source.file, source.pos, change.table_id.dotted()),
                    fix="the last DDL applied to this table does not match the binlog: restore the schema history "
                        "or rebuild it with snapshot.mode=recovery")
        before = ts.convert_binlog_row(change.before) if change.before is not None else None
        after = ts.convert_binlog_row(change.after) if change.after is not None else None
        self._emit_rows(ts, change.op, before, after, source, positions)

    def snapshot_row(self, table_id: TableId, values: tuple, source: EventSource, offset: SourceOffset) -> None:
        table = self.schema.table(table_id)
        assert table is not None
        self._release_held()
        ts = self.table_schema(table)
        after = ts.convert_snapshot_row(values)
        if self._serializer is not None or Operation.READ.value in self._events.skipped_operations:
            self._emit_rows(ts, Operation.READ, None, after, source, _FixedPosition(offset))
            return
        # The snapshot's hot path: _emit_rows for its one-event case (op=r: no plan, no transaction block, no
        # key headers), same bytes, ~10% less time per row.
        self.counters.data_events += 1
        key = ts.key_bytes(after)
        value = ts.value_bytes(Operation.READ, None, after, self._source(source), None, self._clock_ns())
        self._send(OutRecord(self._topic(ts.table.id), key, value, self._context_headers), offset.to_map())

    def snapshot_text_rows(self, table_id: TableId, decoders: Sequence[Any]
                           ) -> Callable[[list, EventSource, Any], None] | None:
        """For one table read: `emit(raw_row, source, offset)`, `snapshot_row` for the server's raw text values
        (connector/events/snapshot_text.py, same bytes), or None when rows must go through `snapshot_row` (Avro,
        op=r skipped, column mappers). The source JSON is rendered once per `EventSource` object."""
        table = self.schema.table(table_id)
        if table is None or self._serializer is not None or Operation.READ.value in self._events.skipped_operations:
            return None
        encode = self.table_schema(table).snapshot_text_encoder(decoders)
        if encode is None:
            return None
        topic, headers, counters, send, clock_ns = (self._topic(table_id), self._context_headers, self.counters,
                                                    self._send, self._clock_ns)
        last: list[Any] = [None, ""]  # the EventSource last rendered, its JSON

        def emit(raw: list, source: EventSource, offset: Any) -> None:
            if self._held is not None:
                self._release_held()
            if source is not last[0]:
                last[0], last[1] = source, self._source(source).json()
            counters.data_events += 1
            key, value = encode(raw, last[1], clock_ns())
            send(OutRecord(topic, key, value, headers), offset.to_map())

        return emit

    def _emit_rows(self, ts: TableSchema, op: Operation, before: Sequence[Any] | None, after: Sequence[Any] | None,
                   es: EventSource, positions: EventPositions) -> None:
        events = self._events
        if op.value in events.skipped_operations:
            return
        old_key = ts.key_values(before) if before is not None else None
        new_key = ts.key_values(after) if after is not None else None
        planned = plan_row(op, before, after, old_key, new_key, events.tombstones_on_delete)
        source = self._source(es)
        topic = self._topic(ts.table.id)
        data_collection = ts.table.id.dotted()
        now_ns = self._clock_ns()
        for event in planned:
            self.counters.data_events += 1
            tx_block, offset = positions.next_event(data_collection)
            tx = TxBlock(*tx_block) if tx_block is not None else None
            offset_map = offset.to_map()
            headers = self._headers_for(ts, event)
            if self._serializer is None:
                key = ts.key_bytes(event.key_of) if event.key_of is not None else None
                value = ts.value_bytes(event.op, event.before, event.after, source, tx, now_ns)
            else:
                key, value = self.serialize(
                    topic, ts.key_schema, ts.key_values(event.key_of) if event.key_of is not None else None,
                    ts.envelope, ts.envelope_values(event.op, event.before, event.after, source, tx, now_ns))
            # A delete and its tombstone share one offset: only the last of them carries it.
            self._send(OutRecord(topic, key, value, headers), None if event.tombstone else offset_map)
            if event.tombstone:
                self._send(OutRecord(topic, key, None, headers), offset_map)

    def _headers_for(self, ts: TableSchema, event: PlannedEvent) -> list[tuple[str, bytes]]:
        if not event.headers or ts.key_schema is None:
            return self._context_headers
        extra = [records.key_header(name, ts.key_schema, key, self._header_format) for name, key in event.headers]
        return extra + self._context_headers

    # ---------------------------------------------------------------- schema
    def schema_statement(self, database: str, ddl: str, source: EventSource, offset: SourceOffset) -> None:
        self._apply_ddl(ddl, database, source, offset, snapshot=True)

    def ddl(self, statement: str, database: str, source: EventSource, offset: SourceOffset) -> None:
        truncated = _truncated_table(statement, database)
        if truncated is not None:
            self._truncate(truncated, source, offset)
        self._apply_ddl(statement, database, source, offset, snapshot=False)

    def _truncate(self, table_id: TableId, es: EventSource, offset: SourceOffset) -> None:
        """`op=t` for TRUNCATE TABLE (emitted unless skipped.operations contains t, Debezium's default):
        no key, no before/after, no transaction block."""
        if Operation.TRUNCATE.value in self._events.skipped_operations or not self.filter.table_included(table_id):
            return
        table = self.schema.table(table_id)
        if table is None:
            return
        ts = self.table_schema(table)
        source = self._source(EventSource(
            ts_ms=es.ts_ms, db=table_id.database, table=table_id.table, server_id=es.server_id, gtid=es.gtid,
            file=es.file, pos=es.pos, row=0, thread=None))
        if self._serializer is None:
            value = ts.value_bytes(Operation.TRUNCATE, None, None, source, None, self._clock_ns())
        else:
            _, value = self.serialize(self._topic(table_id), None, None, ts.envelope,
                                      ts.envelope_values(Operation.TRUNCATE, None, None, source, None,
                                                         self._clock_ns()))
        self._send(OutRecord(self._topic(table_id), None, value, self._context_headers), offset.to_map())

    def _apply_ddl(self, ddl: str, database: str, es: EventSource, offset: SourceOffset, snapshot: bool) -> None:
        offset_map = offset.to_map()
        changes = self.schema.apply(ddl, database, offset_map, snapshot, event_at=(es.file, es.pos))
        if not self._events.include_schema_changes or not changes:
            return
        table = _ddl_source_table(ddl, changes)
        for change in changes:
            es_for = EventSource(
                ts_ms=es.ts_ms, db=change.database_name, table=table,
                server_id=es.server_id, gtid=es.gtid, file=es.file, pos=es.pos, row=es.row, thread=es.thread,
                snapshot=es.snapshot, ts_us=es.ts_us)
            ts_ns = self._clock_ns() if snapshot else None
            if snapshot:
                # The snapshot's last record is marked `last` and carries the completed offset; until we know
                # whether data records follow, the newest schema record is held back.
                self._release_held()
                self._held = (change, es_for, ts_ns, offset)
            else:
                self._send_schema_change(change, es_for, ts_ns, offset_map)

    def _send_schema_change(self, change: SchemaChange, es: EventSource, ts_ns: int | None,
                            offset_map: dict[str, Any]) -> None:
        entries = tuple(records.TableChangeEntry(c.type.value, c.id, c.table) for c in change.table_changes)
        event = records.SchemaChange(self._source(es, ts_ns), self._clock_ns() // 1_000_000,
                                     change.database_name, change.ddl, entries, change.schema_name)
        if self._serializer is None:
            value = records.schema_change_value_bytes(event, self._value_schemas)
            key = records.schema_change_key_bytes(change.database_name, self._key_schemas)
        else:
            key, value = self.serialize(self._topics.schema_change_topic(), records.SCHEMA_CHANGE_KEY_SCHEMA,
                                        (change.database_name,), records.SCHEMA_CHANGE_VALUE_SCHEMA,
                                        records.schema_change_values(event))
        self._send(OutRecord(self._topics.schema_change_topic(), key, value, self._context_headers, partition=0),
                   offset_map)

    def _release_held(self) -> None:
        if self._held is not None:
            change, es, ts_ns, offset = self._held
            self._held = None
            self._send_schema_change(change, es, ts_ns, offset.to_map())

    def end_snapshot(self, completed: SourceOffset) -> None:
        """The snapshot emitted no data after its schema records: its last schema record is the last record."""
        if self._held is not None:
            change, es, ts_ns, _ = self._held
            self._held = None
            last = EventSource(ts_ms=es.ts_ms, db=es.db, table=es.table, server_id=es.server_id, gtid=es.gtid,
                               file=es.file, pos=es.pos, row=es.row, thread=es.thread, snapshot="last")
            self._send_schema_change(change, last, ts_ns, completed.to_map())

    # ---------------------------------------------------------------- transactions
    def transaction_begin(self, tx_id: str, ts_ms: int, offset: SourceOffset) -> None:
        if self._serializer is None:
            key = records.transaction_key_bytes(tx_id, self._key_schemas)
            value = records.transaction_begin_bytes(tx_id, ts_ms, self._value_schemas)
        else:
            key, value = self.serialize(self._topics.transaction_topic(), records.TX_KEY_SCHEMA, (tx_id,),
                                        records.TX_VALUE_SCHEMA, records.transaction_begin_values(tx_id, ts_ms))
        self._send(OutRecord(self._topics.transaction_topic(), key, value, []), offset.to_map())

    def transaction_end(self, tx: TransactionState, ts_ms: int, offset: SourceOffset) -> None:
        if not tx.per_table:
            # Debezium emits END only for transactions that produced data events it kept.
            pass
        if self._serializer is None:
            key = records.transaction_key_bytes(tx.id, self._key_schemas)
            value = records.transaction_end_bytes(tx.id, ts_ms, tx.counts(), self._value_schemas)
        else:
            key, value = self.serialize(self._topics.transaction_topic(), records.TX_KEY_SCHEMA, (tx.id,),
                                        records.TX_VALUE_SCHEMA,
                                        records.transaction_end_values(tx.id, ts_ms, tx.counts()))
        self._send(OutRecord(self._topics.transaction_topic(), key, value, []), offset.to_map())

    def position_advanced(self, offset: SourceOffset, next_pos: tuple[str, int]) -> None:
        # Debezium commits only offsets of emitted records (heartbeats aside), so neither do we.
        pass
