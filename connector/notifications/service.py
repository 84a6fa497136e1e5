"""Notification channels (`log`, `sink`) and the notifications snapshots send, as Debezium 3.6's
IncrementalSnapshotNotificationService and InitialSnapshotNotificationService build them.

The sink channel's records go through the dispatcher like heartbeats (one encode path, transforms apply) and
carry no offset of their own: a notification never moves the committed position, the records around it do.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Iterable, Protocol, Sequence

from connector.events.kinds import NotificationRecord
from connector.java.collection_order import hash_set_order
from connector.java.key_text import java_value_text
from connector.notifications.model import Notification, java_additional_data, log_line, new_id
from connector.streaming.heartbeat import RecordEmitter
from schema_history.model import TableId

__all__ = ["IncrementalNotifications", "InitialNotifications", "LogChannel", "NotificationChannel", "Notifier",
           "SinkChannel", "build_notifier"]

log = logging.getLogger("connector.notifications")


class SnapshotTable(Protocol):
    """A table in an incremental snapshot's queue (snapshot/incremental/context.py's Collection)."""

    @property
    def table(self) -> TableId: ...


class IncrementalContext(Protocol):
    """What the notifications read of an incremental snapshot's state (snapshot/incremental/context.py): declared
    here so that notifications/ need not import snapshot/, which sends them."""

    correlation_id: str | None
    maximum_key: tuple | None
    chunk_end: tuple | None

    @property
    def collections(self) -> Sequence[SnapshotTable]: ...

    @property
    def current(self) -> SnapshotTable | None: ...

INCREMENTAL = "Incremental Snapshot"
INITIAL = "Initial Snapshot"


class NotificationChannel(Protocol):
    def send(self, notification: Notification) -> None: ...


class LogChannel:
    """`log`: one INFO line per notification, in LogNotificationChannel's format."""

    def send(self, notification: Notification) -> None:
        log.info("%s", log_line(notification))


class SinkChannel:
    """`sink`: a record on `notification.sink.topic.name`, keyed by the notification's id."""

    def __init__(self, topic: str, emitter: RecordEmitter) -> None:
        self._topic = topic
        self._emitter = emitter

    def send(self, n: Notification) -> None:
        record = NotificationRecord(n.id, n.type, n.aggregate_type, n.additional_data, n.timestamp, self._topic)
        self._emitter.emit(record, None)


class Notifier:
    """Builds notifications (connector name added, wall-clock timestamp) and hands them to every channel."""

    def __init__(self, channels: Sequence[NotificationChannel], connector_name: str,
                 clock_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000) -> None:
        self._channels = tuple(channels)
        self._name = connector_name
        self._clock_ms = clock_ms

    @property
    def enabled(self) -> bool:
        return bool(self._channels)

    def notify(self, aggregate_type: str, type_: str, pairs: Sequence[tuple[str, str]],
               notification_id: str | None = None) -> None:
        if not self._channels:
            return
        n = Notification(notification_id or new_id(), aggregate_type, type_,
                         java_additional_data(pairs, self._name), self._clock_ms())
        for channel in self._channels:
            channel.send(n)


def build_notifier(channels: Iterable[str], connector_name: str, sink_topic: str | None,
                   emitter: RecordEmitter) -> Notifier:
    """The channels `notification.enabled.channels` names (settings refused anything else at start)."""
    built: list[NotificationChannel] = []
    for name in channels:
        if name == "log":
            built.append(LogChannel())
        elif name == "sink":
            assert sink_topic, "notification.sink.topic.name is checked at start"
            built.append(SinkChannel(sink_topic, emitter))
    return Notifier(built, connector_name)


def _keys(values: Sequence[Any]) -> str:
    """Debezium joins `Objects.toString(x, "<null>")` of the key objects with ","."""
    return ",".join(java_value_text(v, "<null>") for v in values)


class IncrementalNotifications:
    """Aggregate type "Incremental Snapshot"; the id is the signal's id (a random UUID once it is cleared)."""

    def __init__(self, notifier: Notifier) -> None:
        self._notifier = notifier

    def _send(self, context: IncrementalContext, type_: str, pairs: Sequence[tuple[str, str]],
              correlation_id: str | None = None) -> None:
        self._notifier.notify(INCREMENTAL, type_, pairs, correlation_id or context.correlation_id)

    @staticmethod
    def _collections(context: IncrementalContext) -> str:
        return ",".join(c.table.dotted() for c in context.collections)

    def started(self, context: IncrementalContext) -> None:
        self._send(context, "STARTED", [("data_collections", self._collections(context))])

    def paused(self, context: IncrementalContext) -> None:
        self._send(context, "PAUSED", [("data_collections", self._collections(context))])

    def resumed(self, context: IncrementalContext) -> None:
        self._send(context, "RESUMED", [("data_collections", self._collections(context))])

    def aborted(self, context: IncrementalContext, stopped: Sequence[str]) -> None:
        self._send(context, "ABORTED", [("data_collections", ",".join(stopped))])

    def in_progress(self, context: IncrementalContext) -> None:
        current = context.current
        assert current is not None
        maximum = _keys(context.maximum_key) if context.maximum_key is not None else '"<null>"'
        self._send(context, "IN_PROGRESS", [
            ("data_collections", self._collections(context)),
            ("current_collection_in_progress", current.table.dotted()),
            ("maximum_key", maximum),
            ("last_processed_key", _keys(context.chunk_end or ())),
        ])

    def table_scan_completed(self, context: IncrementalContext, rows: int, status: str) -> None:
        current = context.current
        assert current is not None
        self._send(context, "TABLE_SCAN_COMPLETED", [
            ("data_collections", self._collections(context)),
            ("scanned_collection", current.table.dotted()),
            ("total_rows_scanned", str(rows)),
            ("status", status),
        ])

    def completed(self, context: IncrementalContext, correlation_id: str | None) -> None:
        self._send(context, "COMPLETED", [], correlation_id)


class InitialNotifications:
    """Aggregate type "Initial Snapshot" (each with a new random id), sent by the initial snapshot."""

    def __init__(self, notifier: Notifier, signal_table: TableId | None) -> None:
        self._notifier = notifier
        self._signal_table = signal_table
        self._in_progress_set = ""
        self._captured = ""

    def started(self) -> None:
        self._notifier.notify(INITIAL, "STARTED", [])

    def tables(self, captured: Sequence[TableId], snapshotted: Sequence[TableId]) -> None:
        """Debezium names the snapshotted tables as a HashSet iterates them, and the captured tables (plus the
        signal table) sorted."""
        # Debezium reads no data from the signal table (binlog-cdc reads it, empty by design): not named
        data = [t for t in snapshotted if t != self._signal_table]
        self._in_progress_set = ",".join(t.dotted() for t in hash_set_order(data, len(data)))
        everything = set(captured) | ({self._signal_table} if self._signal_table is not None else set())
        self._captured = ",".join(sorted(t.dotted() for t in everything))

    def table_started(self, table_id: TableId) -> None:
        if table_id == self._signal_table:
            return
        self._notifier.notify(INITIAL, "IN_PROGRESS", [("current_collection_in_progress", table_id.dotted()),
                                                        ("data_collections", self._in_progress_set)])

    def table_completed(self, table_id: TableId, rows: int) -> None:
        if table_id == self._signal_table:
            return
        self._notifier.notify(INITIAL, "TABLE_SCAN_COMPLETED", [
            ("scanned_collection", table_id.dotted()), ("data_collections", self._captured),
            ("total_rows_scanned", str(rows)), ("status", "SUCCEEDED")])

    def table_failed(self, table_id: TableId) -> None:
        """Its SELECT failed (notifyCompletedTableWithError): no row count, no data_collections."""
        if table_id == self._signal_table:
            return
        self._notifier.notify(INITIAL, "TABLE_SCAN_COMPLETED", [
            ("scanned_collection", table_id.dotted()), ("status", "SQL_EXCEPTION")])

    def skipped(self) -> None:
        self._notifier.notify(INITIAL, "SKIPPED", [])

    def finished(self, aborted: bool) -> None:
        self._notifier.notify(INITIAL, "ABORTED" if aborted else "COMPLETED", [])
