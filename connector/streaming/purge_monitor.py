"""Warns before the committed binlog position is purged by the server's binlog expiry.

Debezium only fails once the position is gone (at the next start). A connector that lags, or is stopped for
maintenance, is better told how long it has: every `binlog.purge.check.interval.ms` this compares the
committed offset's binlog file with `SHOW BINARY LOGS` and `binlog_expire_logs_seconds`/`expire_logs_days`,
exposes the estimate as a metric and logs a warning when less than a quarter of the expiry period (at
least two check intervals) is left.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

import pymysql

from connector.binlog import connection as dbconn
from connector.binlog.reader import ConnectionParams, binlog_file_start_time
from connector.ops.metrics import StreamingStats

log = logging.getLogger(__name__)

# Extra server ids are derived like Debezium's `database.server.id.offset` (default 10000).
SERVER_ID_OFFSET = 10000


class PurgeMonitor:
    def __init__(self, params: ConnectionParams, server_id: int, interval_ms: int, stats: StreamingStats,
                 committed: Callable[[], dict[str, Any] | None],
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._params = params
        self._server_id = server_id + SERVER_ID_OFFSET
        self._interval_s = interval_ms / 1000
        self._stats = stats
        self._committed = committed
        self._monotonic = monotonic
        self._next = monotonic()
        self._started: dict[str, float | None] = {}  # binlog file → start time; files never change once closed

    def _closed_at(self, next_file: str) -> float | None:
        if next_file not in self._started:
            self._started[next_file] = binlog_file_start_time(self._params, self._server_id, next_file)
        return self._started[next_file]

    def maybe_check(self) -> None:
        if self._interval_s <= 0 or self._monotonic() < self._next:
            return
        self._next = self._monotonic() + self._interval_s
        self.check()

    def check(self) -> dbconn.PurgeEstimate | None:
        offset = self._committed()
        if not offset or not offset.get("file"):
            return None
        try:
            conn = dbconn.connect(self._params)
            try:
                est = dbconn.purge_estimate(conn, offset["file"], time.time(), self._closed_at)
            finally:
                conn.close()
        except (pymysql.Error, OSError, dbconn.SourceConnectionError) as exc:
            log.info("binlog purge check skipped: %s", exc)
            return None
        s = self._stats
        s.purge_position_available = est.available
        s.purge_seconds_left = -1.0 if est.seconds_left is None else est.seconds_left
        if not est.available:
            log.error("the committed binlog position %s:%s has been purged from the server (oldest binlog: %s); "
                      "a restart will fail unless snapshot.mode=when_needed", offset["file"], offset.get("pos"),
                      est.oldest_file)
        elif est.seconds_left is not None and est.seconds_left < max(est.expire_seconds / 4, 2 * self._interval_s):
            log.warning("the committed binlog position %s:%s may be purged in about %.0f s (binlog expiry %.0f s); "
                        "the connector is lagging or was stopped too long", offset["file"], offset.get("pos"),
                        est.seconds_left, est.expire_seconds)
        else:
            log.debug("binlog purge check: %s", est)
        return est
