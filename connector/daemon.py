"""The composition root: builds every object from `Settings`, runs the snapshot, then streams.

It checks the server, opens the Kafka writer and the offset store, builds the schema tracker, dispatcher,
offset tracker and committer, the initial snapshot source and the binlog streaming source, and hands them to
the `Coordinator` (connector/coordinator.py), which decides how to start and runs them in Debezium's order.
Offsets are committed only once Kafka acknowledged every record they cover.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable


import pymysql

from connector.binlog import connection as dbconn
from connector.streaming.server_start import ServerStart
from connector.binlog.reader import ConnectionParams
from connector.binlog.tls import database_tls
from connector.config.loaders import LoadedConfig
from connector.config.modes import SnapshotMode
from connector.config.settings import OFFSETS_FILE, OFFSETS_KAFKA, Settings
from connector.converters.base import ValueSettings
from connector.converters.mappers import column_mapper_rules, mapper_lookup
from connector.converters.registry import unusable_column
from connector.coordinator import Coordinator
from connector.dispatch.snapshot_emitter import DispatcherSnapshotEmitter
from connector.dispatch.dispatcher import Dispatcher, run_encoder
from connector.dispatch.encode_pool import EncodePool
from connector.dispatch.reselect import Reselector
from connector.converters.snapshot_conv import pymysql_conversions
from connector.dispatch.encoder import RecordEncoder
from connector.transforms.chain import Transforms
from connector.dispatch.sender import DispatchCounters
from connector.events.records import HeaderFormat
from connector.transforms import build_chain
from connector.config.table_filter import ColumnFilter, TableFilter
from connector.errors import ServerSetupError, Where
from connector.ha import HaState, KafkaLease, exit_unless_stopped, is_fenced, stepped_down
from connector.events.table_schema import TableSchemaBuilder, message_key_columns, source_type_propagation
from connector.kafka.ack_poller import AckPoller
from connector.kafka.errors import KafkaDeliveryError, KafkaTransactionAborted
from connector.kafka.topic_reader import read_topic
from connector.kafka.writer import KafkaWriter
from connector.offsets.committer import OffsetCommitter
from connector.offsets.file_store import FileOffsetStore
from connector.offsets.kafka_store import KafkaOffsetStore
from connector.offsets.store import OffsetStore, partition_key
from connector.offsets.tracker import OffsetTracker
from connector.offsets.transactional import TransactionalCommitter
from connector.ops.metrics import MetricsServer, StreamingCollector, StreamingStats, build_registry
from connector.ops.status import StatusFile
from connector.schema.guardrail import check_guardrail
from connector.schema.live import LiveSchema
from connector.schema.tracker import SchemaTracker, build_schema_tracker
from connector.shutdown import ShutdownToken
from connector.notifications.service import build_notifier
from connector.signal_wiring import signal_emitter
from connector.standby_wiring import StandbyStart, prepare_standby
from connector.snapshot_wiring import (
    InitialSnapshotSource,
    new_table_snapshot,
    run_continuing_remainder,
    snapshot_remainder,
)
from connector.streaming.loop import EventReader
from connector.streaming.source import BinlogStreamingSource
from connector.transforms.config import transform_settings
from schema_history.model import TableId
from snapshot.metrics import SnapshotMetrics
from snapshot.modes import SnapshotPolicy, policy_for

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


def run_transforms(settings: Settings) -> Transforms:
    """The transforms (SMTs) configured as in Debezium, built once; the encoder applies them to every record kind."""
    return build_chain(settings.transforms, HeaderFormat(settings.kafka.header_format))


def settings_encoder(settings: Settings) -> RecordEncoder:
    """The run's encoder as an encode worker builds it: JSON converters (encode.workers refuses Avro)."""
    return run_encoder(settings, transforms=run_transforms(settings))


def build_reselector(settings: Settings, params: ConnectionParams) -> Reselector | None:
    """post.processors' ReselectColumnsPostProcessors, on a connection of their own that reads values as the
    snapshot does (same conversions, UTC session)."""
    if not settings.post_processors:
        return None
    conv = pymysql_conversions()
    return Reselector(settings.post_processors,
                      lambda: dbconn.connect(params, conv=conv, init_command="SET time_zone='+00:00'"),
                      signal_table=settings.signals.data_collection)


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
        topics=settings.topics,
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
        custom_converters=ev.custom_converters,
        converting_failure_mode=ev.event_converting_failure_handling_mode,
    )


class Daemon:
    def __init__(self, loaded: LoadedConfig, token: ShutdownToken, status_path: Path | None = None) -> None:
        self.loaded = loaded
        self.settings = loaded.settings(transform_settings)
        self.token = token
        self.status = StatusFile(status_path)
        self.phase = "starting"
        self.reader: EventReader | None = None
        self.stats = StreamingStats()
        self.counters = DispatchCounters()  # across active runs (run_continuing_remainder): metrics only grow
        self.snapshot_metrics = SnapshotMetrics()
        # What snapshot.mode does at start (snapshot/modes.py); refuses unsupported modes before connecting.
        self.policy = snapshot_policy(self.settings)
        ha = self.settings.ha
        self.ha_state = HaState(ha.instance_id) if ha.enabled else None
        self.lost_lease: str | None = None  # why this instance stepped down (HA), once it did
        self._dispatcher: Dispatcher | None = None
        self._schema: SchemaTracker | None = None
        self._standby: StandbyStart | None = None  # HA: made ready while waiting, used by the first active run
        self._standby_tried = False  # once: a failed preparation is not retried every poll (the takeover starts cold)

    # ---------------------------------------------------------------- wiring
    def tables_for_topic(self, topic: str) -> list[TableId]:
        """The captured tables whose records go to `topic` (for errors that name a topic)."""
        dispatcher = self._dispatcher
        return dispatcher.tables_for_topic(topic) if dispatcher is not None else []

    def run(self) -> int:
        # as Debezium's task start, values masked by custom.sanitize.pattern
        log.info("Starting MySqlConnectorTask with configuration:\n%s",
                 "\n".join(f"   {k} = {v}" for k, v in self.loaded.redacted().items()))
        for warning in self.loaded.warnings:
            log.warning("%s", warning)
        metrics = self._start_metrics()  # first: a standby answers /health and /metrics while it waits
        lease = None
        try:
            if self.ha_state is not None:
                lease = KafkaLease(self.settings.ha, self.settings.kafka.producer, self.ha_state, self._lease_lost)
                self.phase = "standby"
                self._write_status(force=True)
                if not lease.acquire(self._standby_waits):
                    return 0  # stopped while waiting
            return run_continuing_remainder(self._run_active, self._database_answers, self.token.wait,
                                            self.settings.errors_max_retries)
        finally:
            if self._standby is not None:
                self._standby.close()
                self._standby = None
            if lease is not None:
                lease.release()  # after the final commit: a standby's init_transactions would fence it
            if metrics is not None:
                metrics.stop()
            self.status.close()

    def _standby_waits(self, timeout_s: float) -> bool:
        """The lease's wait while a standby (True: stop asked for). Its first call prepares the start, in the group
        already, so that a takeover during it is not missed (the lease thread keeps the membership)."""
        if self._standby is None and not self._standby_tried:
            self._standby_tried = True
            self._standby = self._prepare_standby()
            self._write_status(force=True)
        return self.token.wait(timeout_s)

    def _prepare_standby(self) -> StandbyStart | None:
        s = self.settings
        return prepare_standby(s, self._new_writer, lambda writer: make_offset_store(s, writer),
                               lambda: dbconn.connect(connection_params(s)), self._check_server)

    def _new_writer(self) -> KafkaWriter:
        s = self.settings
        # max.queue.size(.in.bytes) bound Debezium's queue to Kafka: here the records not acknowledged yet
        return KafkaWriter(s.kafka.producer, max_in_flight_records=max(1, s.max_queue_size),
                           max_in_flight_bytes=s.max_queue_size_in_bytes or None, should_stop=None,
                           poll_on_send=False)

    def _check_server(self, ctl: pymysql.connections.Connection) -> dbconn.ServerInfo:
        s = self.settings
        info = dbconn.server_info(ctl)
        dbconn.check_server(info)
        dbconn.warn_include_query(info, s.events.include_query)
        dbconn.check_privileges(ctl, s.database.user)
        return info

    def _lease_lost(self, reason: str) -> None:
        """From the lease thread: stop; the transactional producer refuses whatever this instance still sends."""
        self.lost_lease = reason
        self.token.request()
        exit_unless_stopped(self.ha_state, reason, self.settings.ha.takeover_ms / 1000)

    def _database_answers(self) -> None:
        dbconn.connect(connection_params(self.settings)).close()

    def _run_active(self) -> int:
        s = self.settings
        log.info("binlog-cdc starting: topic.prefix=%s database=%s:%s", s.topics.prefix, s.database.hostname,
                 s.database.port)
        if s.snapshot.mode == SnapshotMode.NEVER:
            log.warning("snapshot.mode=never is Debezium 2's name (Debezium 3.6 refuses it); the 3.6 spelling is "
                        "snapshot.mode=configuration_based with snapshot.mode.configuration.based.start.stream=true")
        standby, self._standby = self._standby, None  # HA: what the standby prepared, for this first run only
        writer = standby.writer if standby is not None else self._new_writer()
        if self.ha_state is not None:
            # Fence at once: init_transactions bumps the shared transactional.id's epoch (Kafka refuses a former active
            # instance's writes, aborts its open transaction); offsets read after it include all it committed.
            writer.begin_transaction()
        params = connection_params(s)
        if standby is not None:
            ctl, info = standby.ctl, standby.info
            ctl.ping(reconnect=True)  # a standby may wait for hours: past the server's wait_timeout
        else:
            ctl = dbconn.connect(params)
            info = self._check_server(ctl)
        # after the fence: a frozen former active instance may still have its dump thread on the server
        dbconn.check_server_id_unique(ctl, s.database.server_id)
        log.info("source server %s (%s), gtid_mode=%s", info.version, info.flavor, info.gtid_mode)

        if writer.transactional and s.offsets.store != OFFSETS_KAFKA:
            raise ServerSetupError(
                "transactional.id is set (exactly-once delivery) but offsets are not stored in Kafka: set "
                "offset.storage.topic so that offsets can be committed in the same Kafka transaction as the records")
        offsets = standby.offsets if standby is not None else make_offset_store(s, writer)
        stored = offsets.load()  # HA: read again after the fence (the old active may have committed meanwhile)
        table_filter = TableFilter(s.filters)
        check_guardrail(ctl, s, table_filter)  # before any history or snapshot work, as Debezium's task start
        # the coordinator recovers the schema at `stored`, from records a standby's store mostly read already
        schema = (SchemaTracker(s, table_filter, standby.history) if standby is not None
                  else build_schema_tracker(s, table_filter))
        live = LiveSchema(lambda: dbconn.connect(params))
        schema.attach_live(live)  # SHOW CREATE TABLE fallback for unparseable table DDL
        tracker = OffsetTracker()
        builder = table_schema_builder(s)
        # a parsed DDL the converters cannot represent falls back instead of failing on its first row
        schema.attach_table_check(lambda table: unusable_column(table, builder.settings))
        pool = (EncodePool(s, s.encode_workers, make_builder=table_schema_builder, make_encoder=settings_encoder)
                if s.encode_workers else None)
        reselector = build_reselector(s, params)
        dispatcher = Dispatcher(s, schema, builder, writer, tracker, table_filter, transforms=run_transforms(s),
                                encode_pool=pool, counters=self.counters, reselector=reselector)
        committer: OffsetCommitter | TransactionalCommitter
        if writer.transactional:
            assert isinstance(offsets, KafkaOffsetStore)
            # One Kafka transaction per commit; at least 100 ms apart so an interval of 0 does not mean one
            # transaction per binlog event. Read-committed consumers see records only when their transaction
            # commits, so the one-minute offset default does not apply here (Kafka Connect's exactly-once
            # sources ignore the interval too): unless set, a transaction every 100 ms.
            interval_ms = s.offsets.flush_interval_ms if s.offsets.flush_interval_set else 0
            committer = TransactionalCommitter(tracker, writer, offsets, max(100, interval_ms))
            committer.start()
        else:
            # The offsets file's periodic save (two fsyncs) on a thread of its own; Kafka's store stays in place.
            committer = OffsetCommitter(tracker, offsets, s.offsets.flush_interval_ms,
                                        write_behind=isinstance(offsets, FileOffsetStore))
        self._writer, self._dispatcher, self._committer, self._schema = writer, dispatcher, committer, schema
        poller = self._poller = AckPoller(writer, on_error=(lambda e: is_fenced(e) and self._lease_lost(f"fenced: {e}"))
                                          if self.ha_state is not None else None).start()
        sig = s.signals
        notifier = build_notifier(sig.notification_channels, s.topics.prefix, sig.notification_topic, dispatcher)
        snapshots = InitialSnapshotSource(s, params, info, schema, table_filter, dispatcher, self.token,
                                          self.snapshot_metrics, housekeeping=self._housekeeping,
                                          on_start=self._snapshot_started, notifier=notifier,
                                          read_topic=lambda topic: read_topic(writer.config, topic))
        streaming = BinlogStreamingSource(s, params, info, dispatcher, self.stats, self.token,
                                          housekeeping=self._housekeeping,
                                          idle=dispatcher.idle, holding=dispatcher.holding,
                                          committed=lambda: committer.last_committed, on_reader=self._reader_open,
                                          signals=signal_emitter(s, params, dispatcher,
                                                                 DispatcherSnapshotEmitter(dispatcher,
                                                                                           self._housekeeping),
                                                                 self.token, self.snapshot_metrics, notifier,
                                                                 is_mariadb=info.is_mariadb))
        coordinator = Coordinator(self.policy, stored, ServerStart(s, info, ctl, schema, live, table_filter),
                                  snapshots, streaming, self.token, resume_enabled=s.snapshot.resume_enabled,
                                  remainder=snapshot_remainder(s, info, schema, table_filter),
                                  after_snapshot=self._flush_and_commit,
                                  new_tables=new_table_snapshot(s, info, schema, table_filter),
                                  streaming_delay_ms=s.snapshot.streaming_delay_ms,
                                  on_streaming_delay=self._streaming_delayed)
        try:
            coordinator.run()
            return 0
        finally:
            self.phase = "stopped"
            poller.stop()
            try:
                self._flush_and_commit(final=True)
            finally:
                if dispatcher.pipeline is not None:
                    dispatcher.pipeline.close()
                if reselector is not None:
                    reselector.close()
                writer.close(timeout_s=5.0)  # after the final flush: only what it could not deliver is left
                if isinstance(committer, OffsetCommitter):
                    committer.close_writer()
                offsets.close()
                schema.close()
                ctl.close()
                self._write_status(force=True)

    def _start_metrics(self) -> MetricsServer | None:
        s = self.settings
        if not s.metrics_port:
            return None

        def counter(read: Callable[[DispatchCounters], int]) -> Callable[[], int]:  # 0 on a standby: no dispatcher
            return lambda: read(self._dispatcher.counters) if self._dispatcher is not None else 0

        collector = StreamingCollector(
            s.topics.prefix, self.stats, counter(lambda c: c.data_events), counter(lambda c: c.records_sent),
            counter(lambda c: c.records_acked), lambda: self._schema.ddl_fallbacks if self._schema is not None else 0,
            ha=self.ha_state, tags=s.metric_tags)
        return MetricsServer(s.metrics_host, s.metrics_port, build_registry(collector), self.stats,
                             ha=self.ha_state).start()

    def _snapshot_started(self) -> None:
        self.phase = "snapshot"
        self._write_status(force=True)

    def _streaming_delayed(self) -> None:
        self.phase = "streaming_delay"
        self._write_status(force=True)

    def _reader_open(self, reader: EventReader | None) -> None:
        self.phase = "streaming"
        self.reader = reader
        self._write_status(force=True)

    def _housekeeping(self) -> None:
        """Between records: surface a delivery failure, let an oversized record be acknowledged before the next
        is built, commit offsets when due, refresh the status file."""
        self._poller.check()
        self._poller.serve()
        self._dispatcher.flush_held()
        self._writer.drain_oversized()
        self._committer.maybe_commit()
        self._write_status()

    def _flush_and_commit(self, final: bool = False) -> None:
        self._dispatcher.drain()  # every record emitted so far reaches the producer first
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
        self.stats.phase = self.phase  # the health endpoint reads it, with or without a status file
        if not force and not self.status.due():
            return
        ha = ({"instance": self.ha_state.instance_id, "role": str(self.ha_state.role)}
              if self.ha_state is not None else None)
        if self._dispatcher is None:  # a standby: nothing runs yet; `prepared`: ready to take over (_prepare_standby)
            self.status.write({"phase": self.phase, "ha": ha, "prepared": self._standby is not None}, force=force)
            return
        reader = self.reader
        self.status.write({
            "ha": ha,
            "phase": self.phase,
            "binlog_file": reader.file if reader else None,
            "binlog_pos": reader.next_pos if reader else None,
            "records_sent": self._dispatcher.counters.records_sent,
            "records_acked": self._dispatcher.counters.records_acked,
            "committed_offset": self._committer.last_committed,
            "snapshot": self.snapshot_metrics.as_dict(),
        }, force=force)


def run(loaded: LoadedConfig, token: ShutdownToken, status_path: Path | None = None) -> int:
    """0 after a clean stop; failures propagate to `connector.cli.main`, which maps them to exit codes."""
    daemon = Daemon(loaded, token, status_path)
    try:
        code = daemon.run()
    except Exception as exc:
        down = stepped_down(daemon.ha_state, daemon.lost_lease, exc)  # HA: another instance took over
        if down is not None:
            raise down from exc
        return _failed(daemon, token, exc)
    down = stepped_down(daemon.ha_state, daemon.lost_lease, None)
    if down is not None:
        raise down
    return code


def _failed(daemon: Daemon, token: ShutdownToken, exc: Exception) -> int:
    if isinstance(exc, KafkaTransactionAborted) and isinstance(exc.__cause__, KafkaDeliveryError):
        # Exactly-once: the refused record's transaction was aborted at the commit; the refusal is the cause
        # to report (a restart would meet the same record again).
        exc = exc.__cause__
    if isinstance(exc, KafkaDeliveryError):
        # Kafka refused a record (an invalid or forbidden topic, a record too large): name the tables written to
        # that topic; offsets cover only what was acknowledged, so a restart loses nothing.
        tables = daemon.tables_for_topic(exc.topic)
        if tables:
            exc.where = Where(topic=exc.topic, table=", ".join(t.dotted() for t in tables))
            exc.fix = "fix the topic (name, ACLs, size limits) or route the table elsewhere, then restart"
        raise exc
    if isinstance(exc, InterruptedError) and token.requested:
        # A stop asked for during the snapshot: offsets were committed on the way out, nothing failed.
        log.info("%s; the next start resumes or retakes the snapshot", exc)
        return 0
    raise exc
