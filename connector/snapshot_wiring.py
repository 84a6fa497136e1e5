"""How the composition root builds the snapshot side: the initial snapshot source the coordinator runs, the reading
of an interrupted snapshot's remainder (and the next active run after the database went away while it was read),
and `snapshot.new.tables=incremental` (connector/daemon.py calls these, as it calls connector/signal_wiring.py for
the signal side)."""

from __future__ import annotations

import logging
from typing import Any, Callable, Iterable

import pymysql

from connector.binlog import connection as dbconn
from connector.offsets.position import SourceOffset
from connector.binlog.reader import ConnectionParams
from connector.config.modes import NewTablesMode
from connector.config.settings import Settings
from connector.config.table_filter import TableFilter
from connector.converters.snapshot_conv import allow_binary_vectors, pymysql_conversions
from connector.coordinator import SnapshotRemainder
from connector.dispatch.dispatcher import Dispatcher
from connector.dispatch.snapshot_emitter import DispatcherSnapshotEmitter
from connector.errors import ServerSetupError, SourceConnectionError
from connector.notifications.service import InitialNotifications, Notifier
from connector.shutdown import ShutdownToken
from schema_history.model import TableId
from snapshot.ghost_rows import GhostSweep, live_keys
from snapshot.initial import InitialSnapshot, SnapshotOptions, SnapshotSource, SnapshotStart
from snapshot.metrics import SnapshotMetrics
from snapshot.new_tables import NewTables
from snapshot.plan import SnapshotQueries
from snapshot.remainder import RemainderInterrupted, remainder_context

__all__ = ["InitialSnapshotSource", "new_table_snapshot", "run_continuing_remainder", "snapshot_queries",
           "snapshot_remainder"]

log = logging.getLogger(__name__)


def snapshot_queries(settings: Settings) -> SnapshotQueries:
    ss = settings.snapshot
    return SnapshotQueries(ss.include_collection_list, ss.select_overrides, ss.tables_order_by_row_count,
                           ss.min_row_count_to_stream_results, ss.fetch_size, settings.filters.table_include)


def snapshot_remainder(settings: Settings, info: dbconn.ServerInfo, schema: Any,
                       table_filter: TableFilter) -> SnapshotRemainder | None:
    """How an interrupted initial snapshot's remainder is read: as an incremental snapshot between watermarks
    (connector/signal_wiring.py). Rows in a signal table the connector writes, or, with none (the default) or
    read.only=true, what the server says without any write: the executed GTID set on MySQL with GTIDs, the chunk
    view's binlog position on MariaDB. None on MySQL without GTIDs and no writable signal table: the snapshot
    starts over (snapshot/ghost_rows.py keeps consumers free of ghost rows)."""
    sig = settings.signals
    writes = sig.data_collection is not None and "source" in sig.channels and not sig.read_only
    if not writes and not (info.is_mariadb or info.gtid_mode):
        return None
    queries = snapshot_queries(settings)
    return lambda point: remainder_context(point, schema, table_filter.table_included, queries)


def new_table_snapshot(settings: Settings, info: dbconn.ServerInfo, schema: Any,
                       table_filter: TableFilter) -> NewTables | None:
    """`snapshot.new.tables=incremental` (snapshot/new_tables.py), refused when no incremental snapshot can run
    here: the configuration check (a signal table) cannot know the server's GTID mode, which read.only needs."""
    if settings.snapshot.new_tables != NewTablesMode.INCREMENTAL:
        return None
    if settings.signals.read_only and not info.is_mariadb and not info.gtid_mode:
        raise ServerSetupError("snapshot.new.tables=incremental with read.only=true reads new tables with GTID "
                               "watermarks, which need gtid_mode=ON on MySQL",
                               fix="set read.only=false (watermarks in signal.data.collection) or "
                                   "snapshot.new.tables=off")
    return NewTables(settings.filters, schema, table_filter.table_included)


class InitialSnapshotSource:
    """The coordinator's `SnapshotSource`: snapshot/initial.py over fresh connections to the source server."""

    def __init__(self, settings: Settings, params: ConnectionParams, info: dbconn.ServerInfo, schema: Any,
                 table_filter: TableFilter, dispatcher: Dispatcher, token: ShutdownToken, metrics: SnapshotMetrics,
                 *, housekeeping: Callable[[], None], on_start: Callable[[], None],
                 notifier: Notifier | None = None,
                 read_topic: Callable[[str], Iterable[tuple[bytes | None, bytes | None]]] | None = None) -> None:
        self._s, self._params, self._info = settings, params, info
        self._read_topic = read_topic  # what consumers of a data topic hold (snapshot/ghost_rows.py)
        self._schema, self._filter, self._dispatcher = schema, table_filter, dispatcher
        self._token, self._metrics = token, metrics
        self._housekeeping, self._on_start = housekeeping, on_start
        self._notifier = notifier

    def snapshot(self, *, with_data: bool = True, recovery_offset: SourceOffset | None = None,
                 after_interrupted: bool = False) -> SourceOffset:
        self._on_start()
        self._schema.reset()
        self._dispatcher.reset_snapshot_schema()  # blocking snapshots replay this snapshot's schema records
        conv = pymysql_conversions()
        # PyMySQL cannot read MySQL 9 VECTOR columns unless told they are binary.
        allow_binary_vectors()
        params = self._params

        def connect() -> pymysql.connections.Connection:
            return dbconn.connect(params, autocommit=False, conv=conv, init_command="SET time_zone='+00:00'")

        ss = self._s.snapshot
        queries = snapshot_queries(self._s)
        dispatcher = self._dispatcher
        snap = InitialSnapshot(
            SnapshotSource(connect, self._filter, use_gtids=self._info.gtid_mode),
            DispatcherSnapshotEmitter(dispatcher, self._housekeeping),
            SnapshotOptions(locking_mode=ss.locking_mode, lock_timeout_ms=ss.lock_timeout_ms, queries=queries,
                            max_threads=ss.max_threads, resumable=ss.resume_enabled, with_data=with_data),
            SnapshotStart(recovery_offset=recovery_offset, ghosts=self._ghost_sweep(after_interrupted and with_data)),
            self._metrics, self._initial_notifications())
        if ss.delay_ms and recovery_offset is None:
            log.info("snapshot.delay.ms: waiting %d ms before the snapshot starts", ss.delay_ms)
            self._token.wait(ss.delay_ms / 1000)
            if self._token.requested:
                raise InterruptedError("stopped during snapshot.delay.ms")
        result = snap.run(should_stop=lambda: self._token.requested)
        dispatcher.end_snapshot(result.offset)
        # With no data (no_data mode, or empty tables) no record may carry the completed offset: record it anyway.
        dispatcher.tracker.observe(result.offset.to_map())
        return result.offset

    def skipped(self) -> None:
        self._metrics.snapshot_skipped()
        notifications = self._initial_notifications()
        if notifications is not None:
            notifications.skipped()

    def _ghost_sweep(self, wanted: bool) -> GhostSweep | None:
        read = self._read_topic
        if not wanted or read is None:
            return None
        return GhostSweep(lambda topic: live_keys(read(topic)))

    def _initial_notifications(self) -> InitialNotifications | None:
        if self._notifier is None or not self._notifier.enabled:
            return None
        signals = self._s.signals.data_collection
        return InitialNotifications(self._notifier, TableId.parse_identifier(signals) if signals else None)


def _delay_s(attempt: int) -> float:
    """The streaming loop's reconnect backoff (connector/streaming/loop.py): 1 s, 2 s, ... up to 30 s."""
    return min(30.0, 0.5 * 2 ** min(attempt, 6))


def run_continuing_remainder(run: Callable[[], int], database_answers: Callable[[], None],
                             stopped: Callable[[float], bool], max_retries: int) -> int:
    """`run()` (an active run) again after each RemainderInterrupted, as a supervisor's restart would, so that a
    database restart while the rest of an interrupted initial snapshot is read does not end the service. The
    remainder cannot reconnect in place (snapshot/remainder.py); the run that ended made its final commit on the way
    out (connector/daemon.py), so the next one continues the remainder from the committed offsets, with a new runId,
    as after a restart of the process. It starts once `database_answers()` returns without raising
    SourceConnectionError, polled with the streaming loop's backoff; `stopped(timeout)` sleeps and says whether a
    shutdown was asked for (then 0: the offsets are committed). More than `max_retries` (errors.max.retries; -1: no
    limit) failed attempts in a row raise the last error."""
    while True:
        try:
            return run()
        except RemainderInterrupted as exc:
            log.warning("%s; offsets are committed, the rest of the snapshot continues in this process once the "
                        "database answers", exc)
            error: Exception = exc
        attempt = 0
        while True:
            attempt += 1
            if 0 <= max_retries < attempt:
                raise error
            if stopped(_delay_s(attempt)):
                return 0
            try:
                database_answers()
                break
            except SourceConnectionError as exc:
                log.warning("the database does not answer yet (attempt %d): %s", attempt, exc)
                error = exc
