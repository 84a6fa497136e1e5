"""The binlog streaming source: from a start offset, the streaming state, handler, heartbeat and purge monitor,
and the reconnecting loop (loop.py) over a `BinlogReader` that reconnects where the state says.

As Debezium's `BinlogStreamingChangeEventSource.execute`: GTID mode connects with the set of completed
transactions (plus, with gtid.source filters, the server's GTIDs of sources not followed), MariaDB with its
GTID position when file/pos no longer means the same point, otherwise at file/pos.
"""

from __future__ import annotations

import logging
from typing import Callable

from connector.binlog import connection as dbconn
from connector.binlog.availability import mariadb_connect_state, tracks_mariadb_gtids
from connector.gtids.sets import GtidSet, GtidSourceFilter, MariaGtidPosition
from connector.offsets.position import BinlogPosition, SourceOffset
from connector.binlog.reader import BinlogReader, ConnectionParams
from connector.config.settings import Settings
from connector.dispatch.dispatcher import Dispatcher
from connector.ops.metrics import StreamingStats
from connector.streaming.emitter import ChangeEmitter, ChannelsOwner
from connector.streaming.handler import ResumePoint, StreamingHandler, StreamingState
from connector.streaming.heartbeat import ActionQuery, Heartbeat
from connector.streaming.loop import EventReader, StreamingLoop
from connector.streaming.pause import PauseGate, StopSignal
from connector.streaming.purge_monitor import PurgeMonitor

__all__ = ["BinlogStreamingSource", "streaming_state"]

log = logging.getLogger(__name__)
IDLE_WAKE_S = 0.2  # the longest the reader blocks on an idle server


def streaming_state(offset: SourceOffset, done: GtidSet | MariaGtidPosition | None) -> StreamingState:
    """The state streaming starts in at `offset` (with `done` the GTIDs it completed, when tracked)."""
    resume = None
    if offset.event or offset.row or offset.transaction is not None:
        resume = ResumePoint(offset.event, offset.row, offset.transaction)
    return StreamingState(file=offset.file, restart_pos=offset.pos, server_id=offset.server_id, ts_sec=offset.ts_sec,
                          restart_gtids=str(done) if done is not None else None, current_gtids=done, resume=resume,
                          parts=offset.parts)


class BinlogStreamingSource:
    """The coordinator's `StreamingSource` over the server in `params`."""

    def __init__(self, settings: Settings, params: ConnectionParams, info: dbconn.ServerInfo,
                 dispatcher: Dispatcher, stats: StreamingStats, token: StopSignal, *,
                 housekeeping: Callable[[], None], committed: Callable[[], object],
                 idle: Callable[[object], None] | None = None, holding: Callable[[], bool] = lambda: True,
                 on_reader: Callable[[EventReader | None], None],
                 signals: Callable[[StreamingState, ChangeEmitter], ChangeEmitter] | None = None) -> None:
        self._s, self._params, self._info = settings, params, info
        self._dispatcher, self._stats, self._token = dispatcher, stats, token
        self._housekeeping, self._committed, self._on_reader = housekeeping, committed, on_reader
        self._idle, self._holding = idle, holding
        # Wraps the dispatcher with the signal channel and the incremental snapshot (connector/signals/).
        self._signals = signals
        self._gtid_filter = GtidSourceFilter.from_settings(settings.gtid_source)

    def stream(self, offset: SourceOffset, gate: PauseGate) -> None:
        s, info = self._s, self._info
        # gtid.ignore.on.recovery: as Debezium, no GTID tracking at all while streaming (connect by file and
        # position; records without source.gtid, offsets without gtids), though the server keeps GTIDs on
        use_gtids = info.gtid_mode and not s.gtid_ignore_on_recovery
        # With gtid.source filters the offset only ever records the followed sources (Debezium's also holds the
        # other sources' GTIDs read since it started; it drops them on restart, as here).
        done: GtidSet | MariaGtidPosition | None = GtidSet.parse(offset.gtids) if use_gtids else None
        if isinstance(done, GtidSet) and self._gtid_filter.active:
            done = self._gtid_filter.retain(done)
        if tracks_mariadb_gtids(s, info) and not s.gtid_ignore_on_recovery:
            done = MariaGtidPosition.parse(offset.gtids or self._mariadb_gtids_at(offset.position()))
        state = streaming_state(offset, done)
        emitter: ChangeEmitter = self._dispatcher
        if self._signals is not None:
            emitter = self._signals(state, emitter)
        handler = StreamingHandler(state, emitter, use_gtids=use_gtids, is_mariadb=info.is_mariadb,
                                   provide_transaction_metadata=s.events.provide_transaction_metadata,
                                   gtid_filter=self._gtid_filter, include_query=s.events.include_query)
        heartbeat = self._heartbeat()
        self._stats.gtid_mode = info.gtid_mode
        purge = PurgeMonitor(self._params, s.database.server_id, s.purge_check_interval_ms, self._stats,
                             self._committed)
        # The server's own heartbeats wake an idle reader; they must come at least as often as ours. They also bound
        # how long an idle connector takes to notice a stop request and how stale its status file gets, hence 0.2 s
        # (a server sends them only when it has nothing else to send).
        server_heartbeat_s = max(0.1, min(IDLE_WAKE_S, heartbeat.interval_s)) if heartbeat.enabled else IDLE_WAKE_S

        session_statement = s.database.binlog_session_statement()
        if session_statement:
            log.info("binlog connection session: %s", session_statement)

        def open_reader() -> EventReader:
            auto = (self._auto_position(state) if use_gtids else self._mariadb_auto_position(state))
            return BinlogReader(self._params, s.database.server_id, BinlogPosition(state.file, state.restart_pos),
                                heartbeat_interval_s=server_heartbeat_s, auto_position=auto,
                                is_mariadb=info.is_mariadb, annotate_rows=s.events.include_query and info.is_mariadb,
                                session_statement=session_statement,
                                nongraceful=s.database.nongraceful_disconnect)

        def housekeeping() -> None:
            self._housekeeping()
            purge.maybe_check()

        try:
            StreamingLoop(handler, open_reader, self._token, stats=self._stats, heartbeat=heartbeat,
                          housekeeping=housekeeping, idle=self._idle, holding=self._holding, gate=gate,
                          max_retries=s.errors_max_retries,
                          on_reader=self._on_reader).run()
        finally:
            # the signal channels' poller thread (connector/signals/processor.py SignalingEmitter)
            if isinstance(emitter, ChannelsOwner):
                emitter.stop_channels()

    def _auto_position(self, state: StreamingState) -> str | None:
        """The GTID set sent with COM_BINLOG_DUMP_GTID: what we completed, plus (with gtid.source filters) the
        server's GTIDs of the sources we do not follow, so those are skipped rather than replayed."""
        if not state.restart_gtids or not self._gtid_filter.active:
            return state.restart_gtids
        with dbconn.connect(self._params) as ctl:
            executed = GtidSet.parse(dbconn.binlog_status(ctl).executed_gtid_set)
        return str(self._gtid_filter.merged_for_connect(GtidSet.parse(state.restart_gtids), executed))

    def _mariadb_auto_position(self, state: StreamingState) -> str | None:
        """MariaDB: the GTID position to connect with (@slave_connect_state), or None to connect at file/pos.

        File/pos is used while it means the same point on this server, i.e. the server's GTID position there
        (`BINLOG_GTID_POS`) is the offset's; otherwise (another server after a failover, a purged file, a restart
        after a standalone DDL whose GTID the offset does not hold yet) the GTID position decides."""
        if not tracks_mariadb_gtids(self._s, self._info) or self._s.gtid_ignore_on_recovery or not state.restart_gtids:
            return None
        with dbconn.connect(self._params) as ctl:
            gtids = mariadb_connect_state(ctl, BinlogPosition(state.file, state.restart_pos), state.restart_gtids)
        if gtids is not None:
            log.info("binlog position %s:%s does not match GTID position %s on this server: connecting by GTID",
                     state.file, state.restart_pos, gtids)
        return gtids

    def _mariadb_gtids_at(self, position: BinlogPosition) -> str:
        """The GTID position at an offset without one (older offsets, snapshots), read on the server it names."""
        with dbconn.connect(self._params) as ctl:
            return dbconn.mariadb_gtid_pos_at(ctl, position) or ""

    def _heartbeat(self) -> Heartbeat:
        s, dispatcher, params = self._s, self._dispatcher, self._params
        action = None
        if s.heartbeat_action_query:
            action = ActionQuery(s.heartbeat_action_query, lambda: dbconn.connect(params))
        # the dispatcher's encoder applies the run's converters and transforms to heartbeats as to every record
        return Heartbeat(s.heartbeat_interval_ms, s.topics.heartbeat_topic(), s.topics.prefix, dispatcher,
                         action=action)
