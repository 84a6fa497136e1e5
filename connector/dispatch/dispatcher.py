"""The central dispatcher: change, schema and transaction events → logical records with their offsets.

Streaming and the snapshot only say *what happened*. The dispatcher filters (connector/dispatch/table_maps.py),
looks up the per-table-version `TableSchema` and topic (tables.py), hands DDL to the schema history
(schema_changes.py), and builds one logical record per Kafka record (connector/events/kinds.py). Every record
then goes through the one encoder (encoder.py: transforms, converters) and is sent with the source offset it
carries (sender.py). Records produced for one source event (a delete and its tombstone) share one offset,
which only the last of them carries, so the offset becomes committable once the whole group is acknowledged.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable, Sequence

from connector.offsets.position import SourceOffset, TransactionState
from connector.config import modes
from connector.config.modes import Operation
from connector.config.settings import Settings
from connector.dispatch.definition_cache import DefinitionCache
from connector.dispatch.encode_pool import EncodePool
from connector.dispatch.encoder import ErrorTolerance, RecordEncoder
from connector.transforms.chain import Transforms
from connector.config.table_filter import TableFilter
from connector.dispatch.fused_rows import FusedRows, FusedTable, RowCheck
from connector.dispatch.schema_changes import SchemaChanges, SchemaTracker, truncated_table
from connector.dispatch.pipelined_sender import PipelinedSender
from connector.dispatch.reselect import Reselector
from connector.dispatch.row_records import VALUE_FAILURES, event_headers, failed_row, planned_rows, row_values
from connector.dispatch.snapshot_text_rows import SnapshotTextRows
from connector.dispatch.sender import DispatchCounters, RecordSender, RecordSink
from connector.dispatch.table_maps import CapturedTables
from connector.dispatch.tables import SourceBlocks, TableRoutes
from connector.errors import SchemaError, Where
from connector.events import records
from connector.binlog.rows_decoder import RawRows
from connector.events.envelope import TxBlock
from connector.events.kinds import DataChange, LogicalRecord, RecordKind, Tombstone, TransactionRecord
from connector.events.row_renderer import key_writer, row_renderer
from connector.events.row_errors import row_value_error
from connector.events.table_schema import TableSchema, TableSchemaBuilder
from connector.kafka.writer import OutRecord
from connector.offsets.tracker import OffsetTracker
from connector.offsets.parts import debezium_entries
from connector.serde.avro import RecordSerializer, record_serializer
from connector.events.changes import EventPositions, EventSource, RowChange
from schema_history.model import Table, TableId

__all__ = ["DispatchCounters", "Dispatcher", "RecordSink", "SchemaTracker", "FusedRowsMode"]


class FusedRowsMode(str, Enum):
    """BINLOG_CDC_FUSED_ROWS: `1` (default) the fused row path where it applies (fused_rows.py); `0` every row
    change through the general path (`Dispatcher.row_change`); `check` the fused path, with each of its rows also
    rendered by the general path and any difference raised (tests/conformance/test_conformance.py runs the
    goldens so)."""

    ON = "1"
    OFF = "0"
    CHECK = "check"

    @classmethod
    def from_env(cls) -> "FusedRowsMode":
        return cls(os.environ.get("BINLOG_CDC_FUSED_ROWS", "1"))



def run_encoder(settings: Settings, serializer: RecordSerializer | None = None,
                transforms: Transforms | None = None) -> RecordEncoder:
    """The run's encoder: the configured key/value converters (JSON text unless Avro) and transforms."""
    kafka = settings.kafka
    converters = serializer if serializer is not None else record_serializer(
        kafka.key_format, kafka.value_format, key_registry_url=kafka.key_schema_registry_url,
        value_registry_url=kafka.value_schema_registry_url, key_schemas_enable=kafka.key_schemas_enable,
        value_schemas_enable=kafka.value_schemas_enable, key_access=kafka.key_registry_access,
        value_access=kafka.value_registry_access, value_cloudevents_extensions=kafka.value_cloudevents_extensions)
    tolerance = (ErrorTolerance(settings.errors_log_enable, settings.errors_log_include_messages)
                 if settings.errors_tolerance is modes.ErrorTolerance.ALL else None)
    return RecordEncoder(converters, key_schemas_enable=kafka.key_schemas_enable,
                         value_schemas_enable=kafka.value_schemas_enable, transforms=transforms, tolerance=tolerance)


class Dispatcher:
    def __init__(self, settings: Settings, schema: SchemaTracker, builder: TableSchemaBuilder, sink: RecordSink,
                 tracker: OffsetTracker, table_filter: TableFilter, *, connector_name: str = "mysql",
                 version: str | None = None, clock_ns: Callable[[], int] = time.time_ns,
                 serializer: RecordSerializer | None = None, transforms: Transforms | None = None,
                 encode_pool: EncodePool | None = None, fused_mode: FusedRowsMode | None = None,
                 counters: DispatchCounters | None = None, reselector: Reselector | None = None) -> None:
        fused_mode = FusedRowsMode.from_env() if fused_mode is None else fused_mode
        self.schema = schema
        self.tracker = tracker
        # the process's counters, given when it runs more than one dispatcher
        # (connector/snapshot_wiring.py: run_continuing_remainder)
        self.counters = counters if counters is not None else DispatchCounters()
        self._clock_ns = clock_ns
        self._events = settings.events
        self._skipped = settings.events.skipped_operations
        self._topics = settings.topics
        self._header_format = records.HeaderFormat(settings.kafka.header_format)
        self._context_headers = (
            records.context_headers(settings.topics.prefix, str(uuid.uuid4()), self._header_format,
                                    connector_name=connector_name)
            if settings.events.extended_headers_enabled else []
        )
        self.encoder = run_encoder(settings, serializer, transforms)
        # encode.workers > 0: change events are rendered in worker processes, in order (pipelined_sender.py)
        self.pipeline = (PipelinedSender(self.encoder, sink, tracker, self.counters, encode_pool)
                         if encode_pool is not None else None)
        self._sender = self.pipeline or RecordSender(self.encoder, sink, tracker, self.counters, hold_groups=True)
        self._captured = CapturedTables(table_filter, schema, settings.events.inconsistent_schema_handling_mode)
        self._routes = TableRoutes(builder, settings.topics)
        self._sources = SourceBlocks(settings.topics.prefix, connector_name, version)
        self._schema_changes = SchemaChanges(schema, self._sender, self._sources, settings.topics.schema_change_topic(),
                                             self._context_headers,
                                             include_schema_changes=settings.events.include_schema_changes,
                                             clock_ns=clock_ns)
        # The database the snapshot's schema records last `USE`d: Debezium runs those statements on the connection
        # it later writes incremental-snapshot watermarks on (connector/signal_wiring.py); None: no snapshot ran.
        self.snapshot_session_database: str | None = None
        # The snapshot hands the same offset object with every row of a table read: its map is built once.
        self._offset_map: tuple[SourceOffset | None, dict[str, Any]] = (None, {})
        # The last row's table version and what its rows need.
        self._target: RowTarget | None = None
        # The fused row path (fused_rows.py) needs JSON text records straight from the renderer: no transform of
        # data records or tombstones, JSON converters, rows rendered in this process.
        # post.processors (reselect.py) may change a row's after image: every row takes the general path.
        self._reselector = reselector
        self._fusable = (self.pipeline is None and reselector is None and self.encoder.direct(RecordKind.DATA)
                         and self.encoder.direct(RecordKind.TOMBSTONE) and fused_mode is not FusedRowsMode.OFF)
        self._check_fused = fused_mode is FusedRowsMode.CHECK
        # Per TableSchema (kept alive with it) and operation: what its fused rows events share, None when its rows
        # take the general path.
        self._fused_tables: dict[tuple[int, Operation], tuple[TableSchema, FusedTable | None]] = {}
        # Per rows event the same answer as the last event of its table and operation, while no table definition
        # changed: (id(streaming's TableId), id(operation)) -> (that TableId, the fused table or None).
        self._fused_events: DefinitionCache[tuple[int, int], tuple[TableId, FusedTable | None]] = DefinitionCache()

    def emit(self, record: LogicalRecord, offset: dict[str, Any] | None) -> None:
        """A record built elsewhere (heartbeats): encoded, tracked and committed like every other."""
        self._sender.emit(record, offset)

    # ---------------------------------------------------------------- records held back (sender.py, encode workers)
    def holding(self) -> bool:
        """Whether records emitted may still wait here for batching (then `idle` sends them)."""
        return self._sender.holding

    def idle(self, server: Any = None) -> None:
        """The reader is about to wait for the server (`server`: its socket): what is held back goes now."""
        self._sender.idle(server)

    def flush_held(self) -> None:
        """Housekeeping: send what is held back (encode workers: what they answered so far)."""
        self._sender.flush_batch()

    def drain(self) -> None:
        """Before offsets are committed: every record emitted so far reaches the producer (waiting for workers)."""
        self._sender.drain()

    def tables_for_topic(self, topic: str) -> list[TableId]:
        """The tables whose records go to `topic` (to name them when Kafka refuses it)."""
        return self._routes.tables_for(topic)

    # ---------------------------------------------------------------- filters
    def wants_table(self, table_id: TableId) -> bool:
        return self._captured.wanted(table_id)

    def table_map(self, table_id: TableId, binlog_types: tuple[int, ...], file: str, pos: int) -> None:
        self._captured.table_map(table_id, binlog_types, file, pos)

    def table_known(self, table_id: TableId) -> bool:
        return self.schema.table(table_id) is not None

    # ---------------------------------------------------------------- data
    def row_change(self, change: RowChange, source: EventSource, positions: EventPositions) -> None:
        target = self._row_target(change.table_id, source)
        ts = target.schema
        before, after = row_values(ts, change.before, change.after, target.columns, source.file, source.pos,
                                   target.data_collection)
        if self._reselector is not None and after is not None and change.after is not None:
            after = self._reselector.apply(ts, change.after, after,
                                           Where(source.file, source.pos, target.data_collection))
        try:
            self._emit_rows(ts, change.op, before, after, source, positions, target.topic, target.data_collection)
        except VALUE_FAILURES as exc:
            raise failed_row(ts, change.before, change.after, exc, source.file, source.pos) from exc

    def fused_rows(self, table_id: TableId, op: Operation, source: EventSource) -> FusedRows | None:
        """For one rows event (`source` at its first row to emit): its fused emission (fused_rows.py), which sends
        what `row_change` would, or None when its rows must take `row_change`."""
        if not self._fusable:
            return None
        fused_events = self._fused_events.entries(self.schema.current_tables())
        known = fused_events.get((id(table_id), id(op)))
        if known is None or known[0] is not table_id:
            known = fused_events[(id(table_id), id(op))] = (table_id, self._fused_for(table_id, op, source))
        fused = known[1]
        if fused is None:
            return None
        check = None
        if self._check_fused:
            target = self._row_target(table_id, source)
            check = self._general_path_check(target.schema, op, source, target)
        return fused.event(self._sources.json_around_row(source), self._sender.send_group, self.counters,
                           self._clock_ns, check)

    def _fused_for(self, table_id: TableId, op: Operation, source: EventSource) -> FusedTable | None:
        """What the rows events of this table's current version and `op` share, None when they take `row_change`."""
        if op.value in self._skipped:
            return None
        target = self._row_target(table_id, source)
        ts = target.schema
        cached = self._fused_tables.get((id(ts), op))
        if cached is None or cached[0] is not ts:
            cached = self._fused_tables[(id(ts), op)] = (ts, self._fused_table(ts, op, target))
        return cached[1]

    def _fused_table(self, ts: TableSchema, op: Operation, target: RowTarget) -> FusedTable | None:
        render = row_renderer(ts)
        if render is None:
            return None
        return FusedTable(ts, render, target.topic, target.data_collection, op.value,
                          op is Operation.DELETE and self._events.tombstones_on_delete, self._context_headers,
                          key_writer(ts))

    def _general_path_check(self, ts: TableSchema, op: Operation, source: EventSource,
                            target: RowTarget) -> RowCheck:
        """FusedRowsMode.CHECK: a row's fused records against those `row_change` would send for it, byte for byte."""

        def check(before: Sequence[Any] | None, after: Sequence[Any] | None, row: int,
                  tx_block: tuple[str, int, int] | None, offset: SourceOffset, now_ns: int,
                  fused: list[tuple[OutRecord, dict[str, Any] | None]]) -> None:
            general: list[tuple[OutRecord | None, dict[str, Any] | None]] = []
            data_events = self.counters.data_events
            es = source.at_row(row)
            b, a = row_values(ts, before, after, target.columns, es.file, es.pos,  # type: ignore[arg-type]
                              target.data_collection)
            self._emit_rows(ts, op, b, a, es, _FixedPosition(tx_block, offset), target.topic, target.data_collection,
                            now_ns=now_ns,
                            emit=lambda record, offset_map: general.append((self.encoder.encode(record), offset_map)))
            self.counters.data_events = data_events
            if general != fused:
                raise AssertionError(f"the fused row path differs from the general one at {es.file}:{es.pos} row "
                                     f"{row} of {target.data_collection}:\nfused   {fused}\ngeneral {general}")

        return check

    def _row_target(self, table_id: TableId, source: EventSource) -> RowTarget:
        """What the rows of the table's current version need."""
        table = self.schema.table(table_id)
        if table is None:
            raise SchemaError(
                "rows for a table the schema history has no definition for",
                where=Where(source.file, source.pos, table_id.dotted()),
                fix="restore the history topic or run with snapshot.mode=recovery")
        target = self._target
        if target is None or target.table is not table:  # another table version than the last row's
            target = self._target = RowTarget(table, self._routes.schema(table), self._routes.topic(table.id),
                                              table.id.dotted(), len(table.columns))
        return target

    def ships_rows(self) -> bool:
        """Whether encode workers run (encode.workers > 0): streaming then hands whole rows events to `rows_event`."""
        return self.pipeline is not None

    def rows_event(self, table_id: TableId, op: Operation, raw: RawRows, source: EventSource, first: int,
                   offset: SourceOffset) -> bool:
        """A whole rows event (rows from `first` on) for the encode workers, which decode, convert and render it
        (encode.workers, without transaction metadata: `offset` is the event's, rows count on from it). False
        when it is not taken (a skipped operation: streaming goes through its rows itself)."""
        assert self.pipeline is not None
        if op.value in self._skipped:
            return False
        target = self._row_target(table_id, source)
        self.pipeline.rows_event(target.schema, target.topic, target.columns, op, raw, self._sources.of(source), first,
                                 offset, self._clock_ns(), self._context_headers)
        return True

    def settled_last_row(self, current: int) -> int:
        """Once the workers answered every rows event handed to them: the last row index they held (`current`
        when none had rows)."""
        assert self.pipeline is not None
        self.pipeline.drain()
        last, self.pipeline.last_row = self.pipeline.last_row, None
        return current if last is None else last

    def _snapshot_offset_map(self, offset: SourceOffset) -> dict[str, Any]:
        # The tracker copies what it keeps, so one map may serve every row that carries this offset.
        if self._offset_map[0] is not offset:
            self._offset_map = (offset, offset.to_map())
        return self._offset_map[1]

    def snapshot_row(self, table_id: TableId, values: tuple, source: EventSource, offset: SourceOffset) -> None:
        table = self.schema.table(table_id)
        assert table is not None
        self._schema_changes.release()
        ts = self._routes.schema(table)
        try:
            after = ts.convert_snapshot_row(values)
            if Operation.READ.value in self._skipped:
                return
            # The snapshot's hot path: _emit_rows for its one-event case (op=r: no plan, no transaction block, no
            # key headers). Each data record gets its own header list: transforms may append to it.
            self.counters.data_events += 1
            offset_map = self._snapshot_offset_map(offset)
            self._sender.emit(DataChange(ts, self._routes.topic(table_id), Operation.READ, None, after, after,
                                         self._sources.of(source), None, self._clock_ns(),
                                         list(self._context_headers), debezium_entries(offset_map)),
                              offset_map)
        except VALUE_FAILURES as exc:
            raise row_value_error(ts, values, "snapshot", exc, source.file, source.pos) from exc

    def topic_of(self, table_id: TableId) -> str:
        return self._routes.topic(table_id)

    def snapshot_delete(self, table_id: TableId, before: Sequence[Any], source: EventSource,
                        offset: SourceOffset) -> None:
        """A delete (and its tombstone) of a row an interrupted snapshot's earlier attempt sent that is gone now
        (snapshot/ghost_rows.py); `before`: Connect values in table column order."""
        table = self.schema.table(table_id)
        assert table is not None
        self._schema_changes.release()
        ts = self._routes.schema(table)
        self._emit_rows(ts, Operation.DELETE, before, None, source, _FixedPosition(None, offset), self._routes.topic(table_id),
                        table_id.dotted())

    def snapshot_text_rows(self, table_id: TableId, decoders: Sequence[Any]) -> SnapshotTextRows | None:
        """For one table read: `emit(raw_row, source, offset)` (and `emit.group`), `snapshot_row` for the server's
        raw text values (connector/events/snapshot_text.py, same bytes), or None when rows must go through
        `snapshot_row` (records not taking the JSON fast path, op=r skipped, column mappers). The source JSON is
        rendered once per `EventSource` object, the offset map once per offset object."""
        table = self.schema.table(table_id)
        if table is None or Operation.READ.value in self._skipped:
            return None
        to_record = self.encoder.rendered(RecordKind.DATA, self._routes.topic(table_id), self._context_headers)
        ts = self._routes.schema(table)
        encode = ts.snapshot_text_encoder(decoders) if to_record is not None else None
        if encode is None or to_record is None:
            return None
        schema_changes, sources = self._schema_changes, self._sources

        def release() -> None:
            if schema_changes.holding:
                schema_changes.release()

        return SnapshotTextRows(ts, decoders, encode, to_record, send=self._sender.send,
                                send_group=self._sender.send_group if self.pipeline is None else None,
                                offset_map=self._snapshot_offset_map, counters=self.counters,
                                clock_ns=self._clock_ns, release=release,
                                source_json=lambda source: sources.of(source).json(), failures=VALUE_FAILURES)

    def _emit_rows(self, ts: TableSchema, op: Operation, before: Sequence[Any] | None, after: Sequence[Any] | None,
                   es: EventSource, positions: EventPositions, topic: str, data_collection: str, *,
                   now_ns: int | None = None,
                   emit: Callable[[LogicalRecord, dict[str, Any] | None], None] | None = None) -> None:
        if op.value in self._skipped:
            return
        planned = planned_rows(ts, op, before, after, self._events.tombstones_on_delete)
        source = self._sources.of(es)
        now_ns = self._clock_ns() if now_ns is None else now_ns
        emit = self._sender.emit if emit is None else emit
        for event in planned:
            self.counters.data_events += 1
            tx_block, offset = positions.next_event(data_collection)
            tx = TxBlock(*tx_block) if tx_block is not None else None
            offset_map = offset.to_map()
            headers = event_headers(ts, event, self._context_headers, self._header_format)
            # A delete and its tombstone share one offset: only the last of them carries it.
            emit(DataChange(ts, topic, event.op, event.before, event.after, event.key_of, source, tx, now_ns, headers,
                            debezium_entries(offset_map)),
                 None if event.tombstone else offset_map)
            if event.tombstone:
                assert event.key_of is not None
                emit(Tombstone(ts, topic, event.key_of, headers), offset_map)

    # ---------------------------------------------------------------- schema
    def schema_statement(self, database: str, ddl: str, source: EventSource, offset: SourceOffset) -> None:
        if ddl.startswith("USE "):
            self.snapshot_session_database = database
        self._schema_changes.apply(ddl, database, source, offset, snapshot=True)

    def ddl(self, statement: str, database: str, source: EventSource, offset: SourceOffset) -> None:
        truncated = truncated_table(statement, database)
        if truncated is not None:
            self._truncate(truncated, source, offset)
        self._schema_changes.apply(statement, database, source, offset, snapshot=False)

    def _truncate(self, table_id: TableId, es: EventSource, offset: SourceOffset) -> None:
        """`op=t` for TRUNCATE TABLE (emitted unless skipped.operations contains t, Debezium's default):
        no key, no before/after, no transaction block."""
        if Operation.TRUNCATE.value in self._skipped or not self._captured.filter.table_included(table_id):
            return
        table = self.schema.table(table_id)
        if table is None:
            return
        source = self._sources.of(EventSource(
            ts_ms=es.ts_ms, db=table_id.database, table=table_id.table, server_id=es.server_id, gtid=es.gtid,
            file=es.file, pos=es.pos, row=0, thread=None))
        self._sender.emit(DataChange(self._routes.schema(table), self._routes.topic(table_id), Operation.TRUNCATE,
                                     None, None, None, source, None, self._clock_ns(), list(self._context_headers)),
                          offset.to_map())

    def replay_snapshot_schema(self, tables: Sequence[TableId]) -> None:
        """A blocking snapshot: the initial snapshot's schema records of `tables` again (SchemaChanges.replay)."""
        self._schema_changes.replay(tables)

    def reset_snapshot_schema(self) -> None:
        self._schema_changes.reset_snapshot_log()

    def end_snapshot(self, completed: SourceOffset) -> None:
        """The snapshot emitted no data after its schema records: its last schema record is the last record."""
        self._schema_changes.end_snapshot(completed)

    # ---------------------------------------------------------------- transactions
    def transaction_begin(self, tx_id: str, ts_ms: int, offset: SourceOffset) -> None:
        self._sender.emit(TransactionRecord(tx_id, ts_ms, self._topics.transaction_topic()), offset.to_map())

    def transaction_end(self, tx: TransactionState, ts_ms: int, offset: SourceOffset) -> None:
        self._sender.emit(TransactionRecord(tx.id, ts_ms, self._topics.transaction_topic(), tx.counts()),
                          offset.to_map())

    def position_advanced(self, offset: SourceOffset, next_pos: tuple[str, int]) -> None:
        # Debezium commits only offsets of emitted records (heartbeats aside), so neither do we.
        pass



@dataclass(frozen=True, slots=True)
class RowTarget:
    """A table version and what its rows' records need (the dispatcher keeps the last row's)."""

    table: Table
    schema: TableSchema
    topic: str
    data_collection: str  # `db.table`
    columns: int  # the table version's column count (a row image must have as many values)


class _FixedPosition:
    """`EventPositions` handing out one given transaction block and offset: the fused path's check, and records
    outside any transaction that all carry one offset (a snapshot's deletes)."""

    def __init__(self, tx_block: tuple[str, int, int] | None, offset: SourceOffset) -> None:
        self._answer = (tx_block, offset)

    def next_event(self, data_collection: str) -> tuple[tuple[str, int, int] | None, SourceOffset]:
        return self._answer
