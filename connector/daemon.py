"""The composition root: builds every object from `Settings`, runs the snapshot, then streams.

Order follows Debezium's `ChangeEventSourceCoordinator`: check the server, load offsets, recover the
schema history up to them, snapshot if the mode says so, then stream from the snapshot's (or the
stored) position. Offsets are committed only once Kafka acknowledged every record they cover.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pymysql
from pymysqlreplication.event import XidEvent

from connector.binlog import connection as dbconn
from connector.binlog.gtid import GtidSet, GtidSourceFilter, MariaGtidPosition
from connector.binlog.position import BinlogPosition, SourceOffset
from connector.binlog.reader import BinlogReader, ConnectionParams
from connector.binlog.tls import database_tls
from connector.config.loaders import LoadedConfig
from connector.config.modes import SnapshotMode
from connector.config.settings import OFFSETS_FILE, OFFSETS_KAFKA, Settings
from connector.converters.base import ValueSettings
from connector.converters.registry import unusable_column
from connector.converters.snapshot_conv import allow_binary_vectors, pymysql_conversions
from connector.dispatch.dispatcher import Dispatcher
from connector.errors import (SchemaError, SchemaRegistryUnavailable, ServerSetupError, SourceConnectionError,
                              Where)
from connector.kafka.errors import KafkaDeliveryError
from connector.dispatch.filters import ColumnFilter, TableFilter
from connector.streaming.heartbeat import ActionQuery, Heartbeat
from connector.ops.metrics import MetricsServer, StreamingCollector, StreamingStats, build_registry
from connector.streaming.purge_monitor import PurgeMonitor
from connector.kafka.writer import KafkaWriter
from connector.offsets.committer import OffsetCommitter
from connector.offsets.file_store import FileOffsetStore
from connector.offsets.kafka_store import KafkaOffsetStore
from connector.offsets.store import OffsetStore, partition_key
from connector.offsets.tracker import OffsetTracker
from connector.offsets.transactional import TransactionalCommitter
from connector.schema.live import LiveSchema, changes_shape, shape_ddl_table
from connector.schema.tracker import build_schema_tracker
from connector.shutdown import ShutdownToken
from connector.ops.status import StatusFile
from connector.streaming.handler import ResumePoint as StreamResume, StreamingHandler, StreamingState
from connector.converters.mappers import column_mapper_rules, mapper_lookup
from connector.events.table_schema import TableSchemaBuilder, message_key_columns, source_type_propagation
from schema_history.model import TableId
from snapshot.initial import InitialSnapshot, ResumeInvalid, SnapshotOptions, SnapshotSource, SnapshotStart
from snapshot.metrics import SnapshotMetrics
from snapshot.modes import SnapshotPolicy, policy_for
from snapshot.plan import SnapshotQueries
from snapshot.resume import ResumePoint

log = logging.getLogger(__name__)


def snapshot_policy(settings: Settings) -> SnapshotPolicy:
    """What snapshot.mode does at start (snapshot/modes.py); a ConfigError for a mode that cannot run."""
    return policy_for(settings.snapshot.mode, settings.snapshot.configuration_based)


def connection_params(settings: Settings) -> ConnectionParams:
    """Credentials and TLS of every database connection; a ConfigError when a TLS store cannot be read."""
    db = settings.database
    return ConnectionParams(db.hostname, db.port, db.user, db.password.reveal(), db.connect_timeout_ms / 1000,
                            database_tls(db.ssl))


def make_offset_store(settings: Settings, data_writer: KafkaWriter | None = None) -> OffsetStore:
    """The store named by `offset.storage`. In exactly-once mode the offsets topic is written through the
    data writer, inside its transactions; otherwise through a producer of its own."""
    key = partition_key(settings.name, settings.topics.prefix)
    if settings.offsets.store == OFFSETS_FILE:
        assert settings.offsets.file_filename
        path = Path(settings.offsets.file_filename)
        path.parent.mkdir(parents=True, exist_ok=True)
        return FileOffsetStore(path, key)
    if settings.offsets.store == OFFSETS_KAFKA:
        assert settings.offsets.topic
        if data_writer is not None and data_writer.transactional:
            writer = data_writer
        else:
            # A producer of its own, as Kafka Connect's offset writer: offset flushes never wait on data
            # batches. Never with the data writer's transactional.id, which would fence it.
            own = {k: v for k, v in settings.kafka.producer.items() if k != "transactional.id"}
            writer = KafkaWriter(own, max_in_flight_records=100)
        return KafkaOffsetStore(writer, settings.offsets.topic, key,
                                replication_factor=settings.offsets.replication_factor,
                                partitions=settings.offsets.partitions,
                                flush_timeout_s=settings.offsets.flush_timeout_ms / 1000)
    from connector.offsets.memory_store import MemoryOffsetStore

    return MemoryOffsetStore()


def table_schema_builder(settings: Settings) -> TableSchemaBuilder:
    """Everything that shapes keys and values, resolved once: the builder does per-table work per table version."""
    ev = settings.events
    columns = ColumnFilter(settings.filters.column_include, settings.filters.column_exclude)
    return TableSchemaBuilder(
        settings.topics.prefix,
        value_settings(settings),
        schemas_enable=settings.kafka.value_schemas_enable,
        key_schemas_enable=settings.kafka.key_schemas_enable,
        key_columns=message_key_columns(settings.message_key_columns),
        column_filter=columns.keep if columns.active else None,
        propagate_source_type=source_type_propagation(ev.column_propagate_source_type,
                                                      ev.datatype_propagate_source_type),
        column_mapper=mapper_lookup(column_mapper_rules(settings.events.column_mappers)),
        schema_name_mode=ev.schema_name_adjustment_mode,
        field_name_mode=ev.field_name_adjustment_mode,
    )


def value_settings(settings: Settings) -> ValueSettings:
    ev = settings.events
    return ValueSettings(
        decimal_mode=ev.decimal_handling_mode,
        time_precision_mode=ev.time_precision_mode,
        bigint_unsigned_mode=ev.bigint_unsigned_handling_mode,
        binary_mode=ev.binary_handling_mode,
        include_schema_comments=ev.include_schema_comments,
        enable_time_adjuster=ev.enable_time_adjuster,
    )


class AckPoller:
    """Serves the producer's delivery callbacks while the reader waits on the binlog.

    Acks must be processed even when no new record is produced (an idle database), or offsets would
    lag behind what Kafka already has. A failure is kept and re-raised on the main thread.
    """

    def __init__(self, writer: KafkaWriter, interval_s: float = 0.05) -> None:
        self._writer = writer
        self._interval_s = interval_s
        self._stop = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="kafka-ack-poller", daemon=True)

    def start(self) -> "AckPoller":
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._writer.poll(self._interval_s)
            except BaseException as exc:  # handed to the main thread by check()
                self.error = exc
                return

    def check(self) -> None:
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class Daemon:
    def __init__(self, loaded: LoadedConfig, token: ShutdownToken, status_path: Path | None = None) -> None:
        self.loaded = loaded
        self.settings = loaded.settings()
        self.token = token
        self.status = StatusFile(status_path)
        self.phase = "starting"
        self.reader: BinlogReader | None = None
        self.stats = StreamingStats()
        self.snapshot_metrics = SnapshotMetrics()
        # What snapshot.mode does at start (snapshot/modes.py); refuses unsupported modes before connecting.
        self.policy = snapshot_policy(self.settings)

    # ---------------------------------------------------------------- wiring
    def tables_for_topic(self, topic: str) -> list[TableId]:
        """The captured tables whose records go to `topic` (for errors that name a topic)."""
        dispatcher = getattr(self, "_dispatcher", None)
        return dispatcher.tables_for_topic(topic) if dispatcher is not None else []

    def run(self) -> int:
        s = self.settings
        for warning in self.loaded.warnings:
            log.warning("%s", warning)
        log.info("binlog-cdc starting: topic.prefix=%s database=%s:%s", s.topics.prefix, s.database.hostname,
                 s.database.port)
        if s.snapshot.mode == SnapshotMode.NEVER:
            log.warning("snapshot.mode=never is Debezium 2's name (Debezium 3.6 refuses it); the 3.6 spelling is "
                        "snapshot.mode=configuration_based with snapshot.mode.configuration.based.start.stream=true")
        params = connection_params(s)
        ctl = dbconn.connect(params)
        info = dbconn.server_info(ctl)
        dbconn.check_server(info)
        dbconn.warn_include_query(info, s.events.include_query)
        dbconn.check_privileges(ctl, s.database.user)
        dbconn.check_server_id_unique(ctl, s.database.server_id)
        log.info("source server %s (%s), gtid_mode=%s", info.version, info.flavor, info.gtid_mode)

        writer = KafkaWriter(s.kafka.producer, max_in_flight_records=max(1, s.max_queue_size),
                             should_stop=None, poll_on_send=False)
        if writer.transactional and s.offsets.store != OFFSETS_KAFKA:
            raise ServerSetupError(
                "transactional.id is set (exactly-once delivery) but offsets are not stored in Kafka: set "
                "offset.storage.topic so that offsets can be committed in the same Kafka transaction as the records")
        offsets = make_offset_store(s, writer)
        stored = offsets.load()
        table_filter = TableFilter(s.filters)
        schema = build_schema_tracker(s, table_filter)
        live = LiveSchema(lambda: dbconn.connect(params))
        schema.attach_live(live)  # SHOW CREATE TABLE fallback for unparseable table DDL
        self._live = live
        tracker = OffsetTracker()
        builder = table_schema_builder(s)
        # a parsed DDL the converters cannot represent falls back instead of failing on its first row
        schema.attach_table_check(lambda table: unusable_column(table, builder.settings))
        dispatcher = Dispatcher(s, schema, builder, writer, tracker, table_filter)
        committer: OffsetCommitter | TransactionalCommitter
        if writer.transactional:
            assert isinstance(offsets, KafkaOffsetStore)
            # One Kafka transaction per commit; at least 100 ms apart so an interval of 0 does not mean one
            # transaction per binlog event.
            committer = TransactionalCommitter(tracker, writer, offsets, max(100, s.offsets.flush_interval_ms))
            committer.start()
        else:
            committer = OffsetCommitter(tracker, offsets, s.offsets.flush_interval_ms)
        self._writer, self._dispatcher, self._committer = writer, dispatcher, committer
        metrics = self._start_metrics(dispatcher)
        poller = self._poller = AckPoller(writer).start()
        try:
            offset = self._start_offset(stored, ctl, info, schema, table_filter, dispatcher, params)
            self._flush_and_commit()
            if not self.policy.stream:
                log.info("snapshot.mode=%s: snapshot done, not streaming", s.snapshot.mode.value)
                return 0
            if self.token.requested:
                return 0
            self._stream(offset, info, params, dispatcher)
            return 0
        finally:
            self.phase = "stopped"
            poller.stop()
            try:
                self._flush_and_commit(final=True)
            finally:
                writer.close(timeout_s=5.0)  # after the final flush: only what it could not deliver is left
                offsets.close()
                schema.close()
                ctl.close()
                self._write_status(force=True)
                if metrics is not None:
                    metrics.stop()

    def _start_metrics(self, dispatcher: Dispatcher) -> MetricsServer | None:
        s = self.settings
        if not s.metrics_port:
            return None
        c = dispatcher.counters
        schema = dispatcher.schema
        collector = StreamingCollector(s.topics.prefix, self.stats, lambda: c.data_events, lambda: c.records_sent,
                                       lambda: c.records_acked, lambda: getattr(schema, "ddl_fallbacks", 0))
        return MetricsServer(s.metrics_host, s.metrics_port, build_registry(collector), self.stats).start()

    def _flush_and_commit(self, final: bool = False) -> None:
        if isinstance(self._committer, TransactionalCommitter):
            self._committer.commit(reopen=not final)
        else:
            # offset.flush.timeout.ms bounds the wait as in Debezium; a periodic flush gets a margin for a slow
            # broker, the final one little, so that a stop with Kafka down ends within an orchestrator's grace
            # period. Unacknowledged records are never covered by the committed offset: they are read again.
            timeout_s = self.settings.offsets.flush_timeout_ms / 1000 + (5 if final else 30)
            remaining = self._writer.flush(timeout_s)
            if final and remaining:
                log.warning("stopping with %d record(s) not acknowledged by Kafka after %.0f s (is the broker "
                            "reachable?); offsets are committed up to the last acknowledged record, the rest is "
                            "read from the binlog again at the next start", remaining, timeout_s)
            self._committer.commit()

    def _write_status(self, force: bool = False) -> None:
        self.stats.phase = self.phase
        reader = self.reader
        self.status.write({
            "phase": self.phase,
            "binlog_file": reader.file if reader else None,
            "binlog_pos": reader.next_pos if reader else None,
            "records_sent": self._dispatcher.counters.records_sent,
            "records_acked": self._dispatcher.counters.records_acked,
            "committed_offset": self._committer.last_committed,
            "snapshot": self.snapshot_metrics.as_dict(),
        }, force=force)

    # ---------------------------------------------------------------- snapshot or resume
    def _start_offset(self, stored: dict[str, Any] | None, ctl: pymysql.connections.Connection,
                      info: dbconn.ServerInfo, schema: Any, table_filter: TableFilter, dispatcher: Dispatcher,
                      params: ConnectionParams) -> SourceOffset:
        s = self.settings
        mode = s.snapshot.mode
        policy = self.policy
        previous = SourceOffset.from_map(stored) if stored else None
        completed = previous is not None and not previous.snapshot_in_progress
        # Recovery: the schema at the stored offset, asked for (recovery) or because the history is lost and
        # configuration_based's snapshot.on.schema.error allows it (Debezium's validateSchemaHistory).
        lost_history = completed and policy.on_schema_error and not policy.snapshots(True) and not schema.exists()
        if completed and ((policy.snapshot_schema(True) and not policy.stream_from_snapshot) or lost_history):
            assert previous is not None
            self._check_available(ctl, info, previous)
            self._refuse_recovery_after_ddl(previous, table_filter)
            log.info("snapshot.mode=%s: rebuilding the schema history from the current tables at %s", mode.value,
                     previous.position())
            self._snapshot(schema, table_filter, dispatcher, params, info, mode, recovery_offset=previous)
            return previous
        if completed and not policy.snapshots(offset_exists=True):
            assert previous is not None
            log.info("resuming from stored offset %s", stored)
            try:
                self._check_available(ctl, info, previous)
            except ServerSetupError:
                if not policy.on_data_error:
                    raise
                log.warning("stored position %s was purged; snapshot.mode=%s takes a new snapshot",
                            previous.position(), mode.value)
                previous = None  # as Debezium's resetOffset: snapshot as on a first start
            else:
                schema.recover(previous.to_map(include_transaction=False))
                return previous
        if previous is not None and previous.snapshot_in_progress:
            resumed = self._resume_snapshot(stored, previous, ctl, info, schema, table_filter, dispatcher, params,
                                            mode)
            if resumed is not None:
                return resumed
            log.info("the previous snapshot did not complete; starting it again")
        offset_exists = previous is not None
        in_progress = previous is not None and previous.snapshot_in_progress
        if in_progress and not policy.snapshots(True, True):
            raise ServerSetupError(f"the connector stopped during a snapshot, but snapshot.mode={mode.value} takes "
                                   f"no snapshot now: use snapshot.mode=initial or when_needed to take it again")
        if policy.on_schema_error and stored is None:
            raise ServerSetupError(f"snapshot.mode={mode.value} rebuilds the schema history for stored offsets, but "
                                   f"there are none; with no offsets use snapshot.mode=initial")
        if not policy.snapshots(offset_exists, in_progress):
            first = dbconn.binary_logs(ctl)[0][0]
            log.info("snapshot.mode=%s takes no snapshot: streaming from the start of the oldest binlog %s; tables "
                     "created before it have no schema and cannot be captured", mode.value, first)
            schema.reset()
            return SourceOffset(file=first, pos=4)
        with_data = policy.snapshot_data(offset_exists, in_progress)
        if offset_exists and not in_progress and not with_data:
            log.warning("snapshot.mode=%s re-reads the schema at a new binlog position despite the stored offset %s "
                        "(as Debezium): changes made while the connector was stopped are not streamed",
                        mode.value, previous.position() if previous else "-")
        return self._snapshot(schema, table_filter, dispatcher, params, info, mode, with_data=with_data)

    def _resume_snapshot(self, stored: dict[str, Any] | None, previous: SourceOffset,
                         ctl: pymysql.connections.Connection, info: dbconn.ServerInfo, schema: Any,
                         table_filter: TableFilter, dispatcher: Dispatcher, params: ConnectionParams,
                         mode: SnapshotMode) -> SourceOffset | None:
        """Continue an interrupted snapshot where its acknowledged records end (snapshot/resume.py), or None
        when it must start over."""
        point = ResumePoint.from_offset(stored)
        if point is None or not self.settings.snapshot.resume_enabled or not self.policy.snapshot_data(True, True):
            return None
        try:
            self._check_available(ctl, info, previous)
            schema.recover(previous.to_map(include_transaction=False))
        except (ServerSetupError, SchemaError) as exc:
            log.warning("the interrupted snapshot cannot be resumed (%s)", exc)
            return None
        try:
            return self._snapshot(schema, table_filter, dispatcher, params, info, mode, resume=point,
                                  resume_offset=previous)
        except ResumeInvalid as exc:  # raised before any row is sent
            log.warning("the interrupted snapshot cannot be resumed (%s)", exc)
            return None

    def _refuse_recovery_after_ddl(self, previous: SourceOffset, table_filter: TableFilter) -> None:
        """snapshot.mode=recovery records the current tables at the stored offset: wrong if DDL of a captured
        database ran since then (rows before that DDL would be decoded with the newer shape)."""
        for query in self._live.queries_after(previous.file, previous.pos, include_start=True,
                                              gtids=previous.gtids or None, server_id=previous.server_id or None):
            if not changes_shape(query.statement):
                continue
            table_id = shape_ddl_table(query.statement, query.database)
            database = table_id.database if table_id is not None else query.database
            if database is None or table_filter.database_included(database):
                raise ServerSetupError(
                    f"snapshot.mode=recovery refused: DDL ran after the stored offset {previous.file}:{previous.pos} "
                    f"(at {query.file}:{query.pos}: {' '.join(query.statement.split())[:200]}), so the current "
                    f"tables are not the schema at that offset. Restore the lost history instead, or start over "
                    f"with new offsets and snapshot.mode=initial")

    def _check_available(self, ctl: pymysql.connections.Connection, info: dbconn.ServerInfo,
                         offset: SourceOffset) -> None:
        if info.gtid_mode and offset.gtids:
            dbconn.check_gtids_available(ctl, offset.gtids, GtidSourceFilter.from_settings(self.settings.gtid_source))
        elif _tracks_mariadb_gtids(self.settings, info) and offset.gtids:
            if _mariadb_connect_state(ctl, offset.position(), offset.gtids) is not None:
                dbconn.check_mariadb_gtids_available(ctl, offset.gtids)
        else:
            dbconn.check_position_available(ctl, offset.position())

    def _snapshot(self, schema: Any, table_filter: TableFilter, dispatcher: Dispatcher, params: ConnectionParams,
                  info: dbconn.ServerInfo, mode: SnapshotMode, recovery_offset: SourceOffset | None = None,
                  resume: ResumePoint | None = None, resume_offset: SourceOffset | None = None,
                  with_data: bool = True) -> SourceOffset:
        self.phase = "snapshot"
        self._write_status(force=True)
        if resume is None:
            schema.reset()
        conv = pymysql_conversions()
        # PyMySQL cannot read MySQL 9 VECTOR columns unless told they are binary.
        allow_binary_vectors()

        def connect() -> pymysql.connections.Connection:
            return dbconn.connect(params, autocommit=False, conv=conv, init_command="SET time_zone='+00:00'")

        ss = self.settings.snapshot
        queries = SnapshotQueries(ss.include_collection_list, ss.select_overrides, ss.tables_order_by_row_count,
                                  ss.min_row_count_to_stream_results, ss.fetch_size,
                                  self.settings.filters.table_include)
        snap = InitialSnapshot(
            SnapshotSource(connect, table_filter, use_gtids=info.gtid_mode), _SnapshotEmitter(dispatcher, self),
            SnapshotOptions(locking_mode=ss.locking_mode, lock_timeout_ms=ss.lock_timeout_ms, queries=queries,
                            max_threads=ss.max_threads, resumable=ss.resume_enabled, with_data=with_data),
            SnapshotStart(resume=resume, resume_offset=resume_offset, recovery_offset=recovery_offset),
            self.snapshot_metrics)
        if ss.delay_ms and recovery_offset is None:
            log.info("snapshot.delay.ms: waiting %d ms before the snapshot starts", ss.delay_ms)
            self.token.wait(ss.delay_ms / 1000)
            if self.token.requested:
                raise InterruptedError("stopped during snapshot.delay.ms")
        result = snap.run(should_stop=lambda: self.token.requested)
        dispatcher.end_snapshot(result.offset)
        # With no data (no_data mode, or empty tables) no record may carry the completed offset: record it anyway.
        dispatcher.tracker.observe(result.offset.to_map())
        return result.offset

    # ---------------------------------------------------------------- streaming
    def _stream(self, offset: SourceOffset, info: dbconn.ServerInfo, params: ConnectionParams,
                dispatcher: Dispatcher) -> None:
        s = self.settings
        self.phase = "streaming"
        use_gtids = info.gtid_mode
        gtid_filter = GtidSourceFilter.from_settings(s.gtid_source)
        # With gtid.source filters the offset only ever records the followed sources (Debezium's also holds the
        # other sources' GTIDs read since it started; it drops them on restart, as here).
        done = GtidSet.parse(offset.gtids) if use_gtids else None
        if done is not None and gtid_filter.active:
            done = gtid_filter.retain(done)
        if _tracks_mariadb_gtids(s, info):
            done = MariaGtidPosition.parse(offset.gtids or self._mariadb_gtids_at(params, offset.position()))
        resume = None
        if offset.event or offset.row or offset.transaction is not None:
            resume = StreamResume(offset.event, offset.row, offset.transaction)
        state = StreamingState(
            file=offset.file, restart_pos=offset.pos, server_id=offset.server_id, ts_sec=offset.ts_sec,
            restart_gtids=str(done) if done is not None else None,
            current_gtids=done,
            resume=resume,
        )
        handler = StreamingHandler(state, dispatcher, use_gtids=use_gtids, is_mariadb=info.is_mariadb,
                                   provide_transaction_metadata=s.events.provide_transaction_metadata,
                                   gtid_filter=gtid_filter, include_query=s.events.include_query)
        heartbeat = self._heartbeat(params, dispatcher)
        stats = self.stats
        stats.gtid_mode = use_gtids
        purge = PurgeMonitor(params, s.database.server_id, s.purge_check_interval_ms, stats,
                             lambda: self._committer.last_committed)
        # The server's own heartbeats wake an idle reader; they must come at least as often as ours.
        server_heartbeat_s = max(0.1, min(1.0, heartbeat.interval_s)) if heartbeat.enabled else 1.0
        attempts = 0
        try:
            while not self.token.requested:
                start = BinlogPosition(state.file, state.restart_pos)
                if state.in_tx:
                    # Reconnect at the transaction start and skip what was already emitted (its END was not).
                    state.resume = StreamResume(state.events, state.rows, state.tx, in_progress=True)
                    state.in_tx = False
                self.reader = reader = BinlogReader(params, s.database.server_id, start,
                                                    heartbeat_interval_s=server_heartbeat_s,
                                                    auto_position=self._auto_position(state, gtid_filter, params)
                                                    if use_gtids else self._mariadb_auto_position(state, info,
                                                                                                  params),
                                                    is_mariadb=info.is_mariadb,
                                                    annotate_rows=s.events.include_query and info.is_mariadb)
                try:
                    reader.open()
                    self._write_status(force=True)
                    for pe in reader.events():
                        handler.handle(pe)
                        attempts = 0
                        if not stats.connected:
                            stats.set_connected(True)
                        stats.event(pe.file, pe.next_pos, pe.timestamp, time.time_ns() // 1_000_000)
                        if type(pe.event) is XidEvent:
                            stats.committed_transactions += 1
                            if state.current_gtids is not None:
                                stats.gtid_set = state.restart_gtids or ""
                        if not state.in_tx and heartbeat.due():
                            # Between transactions the restart position already points past the last event.
                            heartbeat.emit(state.offset(rows=0, with_tx=False).with_(event=0))
                            stats.heartbeats_sent = heartbeat.sent
                        self._poller.check()
                        self._committer.maybe_commit()
                        purge.maybe_check()
                        self._write_status()
                        if self.token.requested:
                            break
                    else:
                        log.warning("binlog stream ended at %s:%s; reconnecting", reader.file, reader.next_pos)
                # Only what re-reading the binlog can cure: Kafka's retriable errors are not (their records
                # would be skipped as already emitted); the registry is, as the record is built again.
                except (pymysql.err.OperationalError, ConnectionError, OSError, SourceConnectionError,
                        SchemaRegistryUnavailable) as exc:
                    stats.set_connected(False)
                    stats.disconnects += 1
                    attempts += 1
                    if s.errors_max_retries >= 0 and attempts > s.errors_max_retries:
                        raise SourceConnectionError(
                            f"binlog connection lost after {attempts} attempt(s) ({' '.join(str(exc).split())})",
                            where=Where(reader.file, reader.next_pos),
                            fix="check that the database server is reachable; errors.max.retries="
                                f"{s.errors_max_retries} bounds the reconnects (-1: no limit)") from exc
                    delay = min(30.0, 0.5 * 2 ** min(attempts, 6))
                    log.warning("binlog connection lost at %s:%s (%s); reconnecting from %s:%s in %.1f s "
                                "(attempt %d)", reader.file, reader.next_pos, exc, state.file, state.restart_pos,
                                delay, attempts)
                    self.token.wait(delay)
                finally:
                    reader.close()
        finally:
            stats.set_connected(False)
            heartbeat.close()
        log.info("stopping: last reader position %s:%s", state.file, state.restart_pos)

    @staticmethod
    def _auto_position(state: StreamingState, gtid_filter: GtidSourceFilter, params: ConnectionParams) -> str | None:
        """The GTID set sent with COM_BINLOG_DUMP_GTID: what we completed, plus (with gtid.source filters) the
        server's GTIDs of the sources we do not follow, so those are skipped rather than replayed."""
        if not state.restart_gtids or not gtid_filter.active:
            return state.restart_gtids
        with dbconn.connect(params) as ctl:
            executed = GtidSet.parse(dbconn.binlog_status(ctl).executed_gtid_set)
        return str(gtid_filter.merged_for_connect(GtidSet.parse(state.restart_gtids), executed))

    def _mariadb_auto_position(self, state: StreamingState, info: dbconn.ServerInfo,
                               params: ConnectionParams) -> str | None:
        """MariaDB: the GTID position to connect with (@slave_connect_state), or None to connect at file/pos.

        File/pos is used while it means the same point on this server, i.e. the server's GTID position there
        (`BINLOG_GTID_POS`) is the offset's; otherwise (another server after a failover, a purged file, a restart
        after a standalone DDL whose GTID the offset does not hold yet) the GTID position decides."""
        if not _tracks_mariadb_gtids(self.settings, info) or not state.restart_gtids:
            return None
        with dbconn.connect(params) as ctl:
            gtids = _mariadb_connect_state(ctl, BinlogPosition(state.file, state.restart_pos), state.restart_gtids)
        if gtids is not None:
            log.info("binlog position %s:%s does not match GTID position %s on this server: connecting by GTID",
                     state.file, state.restart_pos, gtids)
        return gtids

    def _mariadb_gtids_at(self, params: ConnectionParams, position: BinlogPosition) -> str:
        """The GTID position at an offset without one (older offsets, snapshots), read on the server it names."""
        with dbconn.connect(params) as ctl:
            return dbconn.mariadb_gtid_pos_at(ctl, position) or ""

    def _heartbeat(self, params: ConnectionParams, dispatcher: Dispatcher) -> Heartbeat:
        s = self.settings
        action = None
        if s.heartbeat_action_query:
            action = ActionQuery(s.heartbeat_action_query, lambda: dbconn.connect(params))
        return Heartbeat(s.heartbeat_interval_ms, s.topics.heartbeat_topic(), s.topics.prefix, dispatcher,
                         action=action)


class _SnapshotEmitter:
    """Snapshot → dispatcher, keeping the status file fresh while rows flow."""

    # Committing and the status file are time-based: looking at the clock every row costs ~5% of the
    # snapshot's throughput, every 256 rows nothing.
    HOUSEKEEPING_EVERY = 256

    def __init__(self, dispatcher: Dispatcher, daemon: Daemon) -> None:
        self._dispatcher = dispatcher
        self._daemon = daemon
        self._rows = 0

    def schema_statement(self, database: str, ddl: str, source: Any, offset: SourceOffset) -> None:
        self._dispatcher.schema_statement(database, ddl, source, offset)

    def snapshot_row(self, table_id: Any, values: tuple, source: Any, offset: SourceOffset) -> None:
        self._dispatcher.snapshot_row(table_id, values, source, offset)
        self._row_done()

    def snapshot_text_rows(self, table_id: Any, decoders: list) -> Callable[[list, Any, Any], None] | None:
        emit = self._dispatcher.snapshot_text_rows(table_id, decoders)
        if emit is None:
            return None

        def emit_row(raw: list, source: Any, offset: Any) -> None:
            emit(raw, source, offset)
            self._row_done()

        return emit_row

    def _row_done(self) -> None:
        self._rows += 1
        if self._rows % self.HOUSEKEEPING_EVERY == 0:
            self._housekeeping()

    def _housekeeping(self) -> None:
        self._daemon._poller.check()
        self._daemon._committer.maybe_commit()
        self._daemon._write_status()

    def table_known(self, table_id: Any) -> bool:
        return self._dispatcher.table_known(table_id)

    def table_columns(self, table_id: Any) -> tuple[list[str], tuple[str, ...]]:
        table = self._dispatcher.schema.table(table_id)
        if table is None:
            return [], ()
        return table.column_names(), tuple(table.primary_key_column_names)


def _tracks_mariadb_gtids(settings: Settings, info: dbconn.ServerInfo) -> bool:
    """Offsets carry MariaDB GTID positions (`gtids`, `d-s-n` per domain) as Debezium's MariaDB connector's do.
    Debezium's MySQL connector sees no GTIDs on MariaDB, so with it offsets stay file/pos only."""
    return info.is_mariadb and settings.mariadb_connector


def _mariadb_connect_state(ctl: pymysql.connections.Connection, position: BinlogPosition, gtids: str) -> str | None:
    """None when `position` is the point of GTID position `gtids` on this server, else `gtids` (connect by GTID)."""
    here = dbconn.mariadb_gtid_pos_at(ctl, position)
    if here is not None and MariaGtidPosition.parse(here) == MariaGtidPosition.parse(gtids):
        return None
    return gtids


def run(loaded: LoadedConfig, token: ShutdownToken, status_path: Path | None = None) -> int:
    """0 after a clean stop; failures propagate to `connector.cli.main`, which maps them to exit codes."""
    daemon = Daemon(loaded, token, status_path)
    try:
        return daemon.run()
    except KafkaDeliveryError as exc:
        # Kafka refused a record (an invalid or forbidden topic, a record too large): name the tables written to
        # that topic; offsets cover only what was acknowledged, so a restart loses nothing.
        tables = daemon.tables_for_topic(exc.topic)
        if tables:
            exc.where = Where(topic=exc.topic, table=", ".join(t.dotted() for t in tables))
            exc.fix = "fix the topic (name, ACLs, size limits) or route the table elsewhere, then restart"
        raise
    except InterruptedError as exc:
        if not token.requested:
            raise
        # A stop asked for during the snapshot: offsets were committed on the way out, nothing failed.
        log.info("%s; the next start resumes or retakes the snapshot", exc)
        return 0
