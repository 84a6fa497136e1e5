"""Debezium heartbeats: a record on `__debezium-heartbeat.<prefix>` every `heartbeat.interval.ms`.

The record's real purpose is the source offset it carries: when the captured tables are idle, or every
transaction is filtered out, no data record moves the committed offset, and an old position would be
pinned (and eventually purged from the server). A heartbeat commits the reader's current position.

Debezium checks the interval after every binlog event (`dispatchHeartbeatEvent`), including the server's
own heartbeat events on an idle connection. We do the same, except that we only emit *between*
transactions: a mid-transaction offset with `row=0` would be read back as "END already sent"
(see `streaming.ResumePoint`), so a heartbeat due inside a transaction waits for its commit.

`heartbeat.action.query` is run (on a connection of its own) right before each heartbeat, as Debezium's
`DatabaseHeartbeatImpl` does; typically an UPDATE of a heartbeat table in a captured database, so that a
low-traffic database still produces binlog events for the connector.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Protocol

import pymysql

from connector.binlog.connection import close_quietly
from connector.offsets.position import SourceOffset
from connector.events.kinds import HeartbeatRecord, LogicalRecord

log = logging.getLogger(__name__)


class RecordEmitter(Protocol):
    """Encodes, sends and tracks a record with the offset it carries (the dispatcher)."""

    def emit(self, record: LogicalRecord, offset: dict[str, Any] | None) -> None: ...


class ActionQuery:
    """Runs `heartbeat.action.query`, reconnecting after a failure; a failure is logged, not fatal
    (the heartbeat record itself still goes out)."""

    def __init__(self, query: str, connect: Callable[[], pymysql.connections.Connection]) -> None:
        self._query = query
        self._connect = connect
        self._conn: pymysql.connections.Connection | None = None
        self.failures = 0

    def run(self) -> None:
        try:
            if self._conn is None:
                self._conn = self._connect()
            with self._conn.cursor() as cur:
                cur.execute(self._query)
            self._conn.commit()
        except (pymysql.Error, OSError) as exc:
            self.failures += 1
            log.warning("heartbeat.action.query failed (%s): %s", self._query, exc)
            self.close()

    def close(self) -> None:
        close_quietly(self._conn)
        self._conn = None


class Heartbeat:
    """Emits a heartbeat record when `interval_ms` elapsed since the last one (0 disables)."""

    def __init__(self, interval_ms: int, topic: str, topic_prefix: str, emitter: RecordEmitter, *,
                 action: ActionQuery | None = None,
                 clock_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_ms / 1000
        self.topic = topic
        self._emitter = emitter
        self._prefix = topic_prefix
        self._action = action
        self._clock_ms = clock_ms
        self._monotonic = monotonic
        self._next_due = monotonic() + self.interval_s
        self.sent = 0

    @property
    def enabled(self) -> bool:
        return self.interval_s > 0

    def due(self) -> bool:
        return self.enabled and self._monotonic() >= self._next_due

    def maybe_emit(self, offset: Callable[[], SourceOffset]) -> bool:
        """Emit if due; `offset` is only evaluated then."""
        if not self.due():
            return False
        self.emit(offset())
        return True

    def emit(self, offset: SourceOffset) -> None:
        if self._action is not None:
            self._action.run()
        self._emitter.emit(HeartbeatRecord(self._prefix, self._clock_ms(), self.topic), offset.to_map())
        self.sent += 1
        self._next_due = self._monotonic() + self.interval_s

    def close(self) -> None:
        if self._action is not None:
            self._action.close()
