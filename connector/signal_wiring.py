"""Part of the composition root (daemon.py): builds what signals need around the dispatcher when streaming starts:
the channels, the incremental snapshot (snapshot/incremental/) and the blocking snapshot (snapshot/blocking.py),
behind a `SignalingEmitter`. It lives beside daemon.py, not in signals/, because it imports snapshot/, which only
the root may."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Callable

import pymysql

from connector.binlog import connection as dbconn
from connector.gtids.sets import GtidSet
from connector.offsets.position import SourceOffset
from connector.binlog.reader import ConnectionParams
from connector.config.settings import Settings
from connector.converters.snapshot_conv import pymysql_conversions
from connector.dispatch.dispatcher import Dispatcher
from connector.errors import ServerSetupError
from connector.events.kinds import HeartbeatRecord
from connector.notifications.service import IncrementalNotifications, InitialNotifications, Notifier
from connector.offsets.parts import IncrementalSnapshotSlot
from connector.signals.channels import FileChannel, KafkaChannel, SignalChannel, SignalPoller, SignalQueue
from connector.signals.processor import NoIncrementalSnapshots, SignalingEmitter, SnapshotActions
from connector.streaming.emitter import ChangeEmitter
from connector.streaming.handler import StreamingState
from connector.streaming.pause import StopSignal
from schema_history.model import TableId
from snapshot.blocking import BlockingEmitter, BlockingSnapshot
from snapshot.incremental.context import IncrementalContext
from snapshot.incremental.source import IncrementalSnapshot
from snapshot.metrics import SnapshotMetrics
from snapshot.plan import SnapshotQueries
from snapshot.incremental.read_only import GtidWatermarks, Watermarks
from snapshot.incremental.view_position import ViewPositionWatermarks
from snapshot.remainder import RESUME_CORRELATION_ID, refuse_skip
from snapshot.scan import DEFAULT_FETCH_SIZE

__all__ = ["external_channels", "signal_emitter"]

log = logging.getLogger(__name__)


def external_channels(settings: Settings) -> list[SignalChannel]:
    """The kafka and file channels `signal.enabled.channels` asks for."""
    sig = settings.signals
    channels: list[SignalChannel] = []
    if "file" in sig.channels:
        channels.append(FileChannel(Path(sig.file)))
    if "kafka" in sig.channels:
        assert sig.kafka_bootstrap_servers is not None  # checked when the settings were read
        prefix = settings.topics.prefix
        channels.append(KafkaChannel(sig.kafka_bootstrap_servers, sig.kafka_topic or f"{prefix}-signal",
                                     sig.kafka_group_id, prefix, dict(sig.consumer), sig.kafka_poll_timeout_ms))
    return channels


def signal_emitter(settings: Settings, params: ConnectionParams, dispatcher: Dispatcher,
                   snapshot_emitter: BlockingEmitter, token: StopSignal, metrics: SnapshotMetrics,
                   notifier: Notifier | None = None, *, is_mariadb: bool = False,
                   ) -> Callable[[StreamingState, ChangeEmitter], ChangeEmitter]:
    """Signals around the dispatcher, when a signal table or a kafka/file channel is configured, or when the
    stored offset holds the rest of an interrupted initial snapshot (snapshot/remainder.py); otherwise streaming
    keeps the dispatcher as it is."""
    sig = settings.signals
    signals_on = bool(sig.channels) and (sig.data_collection is not None or sig.external)
    signal_table = TableId.parse_identifier(sig.data_collection) if sig.data_collection else None
    conv = pymysql_conversions()

    def connect_signal_db() -> pymysql.connections.Connection:
        # In the database Debezium's connection is in: it writes watermarks on the connection its snapshot ran on,
        # after the snapshot's last `USE` (the last database read, not the signal table's), with none if no
        # snapshot ran. MySQL logs the session's database in each watermark transaction's BEGIN, so every later
        # binlog position depends on it (issue 24: 5 bytes per watermark with two databases). Names are qualified.
        assert signal_table is not None
        return dbconn.connect(params, dispatcher.snapshot_session_database, autocommit=False, conv=conv,
                              init_command="SET time_zone='+00:00'")

    def connect_snapshot() -> pymysql.connections.Connection:
        return dbconn.connect(params, autocommit=False, conv=conv, init_command="SET time_zone='+00:00'")

    ss = settings.snapshot
    # The signal names the tables: snapshot.include.collection.list does not narrow them.
    queries = SnapshotQueries((), ss.select_overrides, ss.tables_order_by_row_count,
                              ss.min_row_count_to_stream_results, ss.fetch_size, settings.filters.table_include)

    def heartbeat_with(offset: SourceOffset) -> None:
        dispatcher.emit(HeartbeatRecord(settings.topics.prefix, time.time_ns() // 1_000_000,
                                        settings.topics.heartbeat_topic()), offset.to_map())

    def wrap(state: StreamingState, inner: ChangeEmitter) -> ChangeEmitter:
        engine: IncrementalSnapshot | None = None
        slot = next((p for p in state.parts if isinstance(p, IncrementalSnapshotSlot)), None)
        context = IncrementalContext.load(dict(slot.values)) if slot is not None else None
        remainder = context is not None and context.running and context.correlation_id == RESUME_CORRELATION_ID
        marks = _no_write_watermarks(state, is_mariadb)
        if sig.read_only and marks is None:
            # as Debezium's MySQL connector when streaming starts, signals configured or not
            raise ServerSetupError("read.only=true: incremental snapshots that write nothing use GTID watermarks; "
                                   "this MySQL server has gtid_mode=OFF (Debezium 3.6: \"Read only connection "
                                   "requires GTID_MODE to be ON\")",
                                   fix="SET GLOBAL gtid_mode=ON (with enforce_gtid_consistency=ON), or set "
                                       "read.only=false")
        if not signals_on and not remainder:
            return inner
        snapshots: SnapshotActions = NoIncrementalSnapshots(
            "incremental snapshots write watermarks to the signal table: set signal.data.collection")

        def engine_on(connect: Callable[[], pymysql.connections.Connection],
                      watermarks: Watermarks | None = None) -> IncrementalSnapshot:
            return IncrementalSnapshot(connect, signal_table, dispatcher.schema, dispatcher, sig.chunk_size, context,
                                       watermarks=watermarks, metrics=metrics, on_skip=refuse_skip,
                                       progress=IncrementalNotifications(notifier)
                                       if notifier is not None and notifier.enabled else None,
                                       allow_schema_changes=sig.allow_schema_changes)

        if remainder and (signal_table is None or sig.read_only) and marks is not None:
            # The rest of an interrupted initial snapshot, with no signal table to write to: watermarks read
            # from the server's own state (snapshot/incremental/read_only.py); nothing is written.
            engine = engine_on(connect_snapshot, marks)
        elif sig.read_only:
            # Executed GTID sets on MySQL, as Debezium's MySQL connector; on MariaDB the chunk view's binlog
            # position (view_position.py), exact where Debezium's MariaDB connector brackets the query with
            # gtid_binlog_pos (its MySQL connector refuses: "Read only connection requires GTID_MODE to be ON").
            # Signals come from the signal table's rows in the binlog, a topic or a file.
            engine = engine_on(connect_signal_db if signal_table is not None else connect_snapshot, marks)
        elif signal_table is not None:
            engine = engine_on(connect_signal_db)
        if engine is not None:
            snapshots = engine
        blocking = BlockingSnapshot(connect_snapshot, snapshot_emitter, dispatcher.schema.table_ids, queries,
                                    ss.fetch_size or DEFAULT_FETCH_SIZE, lambda: token.requested, metrics,
                                    progress=InitialNotifications(notifier, None)
                                    if notifier is not None and notifier.enabled else None)
        queue, poller = None, None
        if sig.external:
            queue = SignalQueue()
            poller = SignalPoller(external_channels(settings), queue, token, sig.poll_interval_ms / 1000).start()
        emitter = SignalingEmitter(inner, state, signal_table, snapshots, blocking, external=queue,
                                   source_channel="source" in sig.channels,
                                   on_close=poller.close if poller is not None else lambda: None,
                                   heartbeat=heartbeat_with)
        if engine is not None:
            engine.connect()  # at start, as Debezium's connection (thread ids come in the same order)
            if engine.context.running:
                log.info("incremental snapshot in progress: reading its next chunk")
                engine.continue_running()
        return emitter

    return wrap


def _streamed_gtids(state: StreamingState) -> str:
    """What streaming has read, the current transaction included (the offset's text once a GTID event came)."""
    if state.gtids_text:
        return state.gtids_text
    return state.current_gtids.client_str() if isinstance(state.current_gtids, GtidSet) else ""


def _no_write_watermarks(state: StreamingState, is_mariadb: bool) -> Watermarks | None:
    """Watermarks that write nothing on this server: executed GTID sets on MySQL with GTIDs, the chunk view's
    binlog position on MariaDB; None on MySQL without GTIDs (the interrupted snapshot then starts over)."""
    if is_mariadb:
        return ViewPositionWatermarks()
    if isinstance(state.current_gtids, GtidSet):
        return GtidWatermarks(seen=lambda: _streamed_gtids(state))
    return None
