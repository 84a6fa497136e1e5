"""Notification records and log lines as Debezium 3.6.3 writes them (values from the golden `notifications`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from connector.events.kinds import NotificationRecord
from connector.notifications.model import Notification, java_additional_data, log_line
from connector.notifications.service import IncrementalNotifications, LogChannel, Notifier, SinkChannel
from schema_history.model import TableId
from snapshot.incremental.context import Collection, IncrementalContext

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden" / "notifications" / "events.jsonl"


class _Collect:
    def __init__(self) -> None:
        self.records: list[tuple[NotificationRecord, object]] = []

    def emit(self, record, offset) -> None:  # RecordEmitter
        self.records.append((record, offset))


def _golden_lines() -> list[dict]:
    return [json.loads(line) for line in GOLDEN.read_text().splitlines() if '"dbserver1.notifications"' in line]


def test_sink_record_bytes_equal_debeziums() -> None:
    """Key and value JSON of each golden notification, rebuilt from its fields, byte for byte (key order too)."""
    lines = _golden_lines()
    assert len(lines) == 31
    for line in lines:
        p = line["value"]["payload"]
        pairs = [(k, v) for k, v in p["additional_data"].items() if k != "connector_name"]
        data = java_additional_data(pairs, "dbserver1")
        assert list(data) == list(p["additional_data"]), p  # Java HashMap order, whatever order we were given
        record = NotificationRecord(p["id"], p["type"], p["aggregate_type"], data, p["timestamp"], line["topic"])
        key, value = record.json(True, True)
        assert json.loads(key) == line["key"] and key.decode() == json.dumps(line["key"], separators=(",", ":"))
        assert value.decode() == json.dumps(line["value"], separators=(",", ":"))
        assert record.partition is None and record.headers == []


def test_incremental_notifications_through_the_sink_carry_no_offset() -> None:
    sink = _Collect()
    notes = IncrementalNotifications(Notifier([SinkChannel("n", sink)], "dbserver1", clock_ms=lambda: 7))
    context = IncrementalContext()
    context.add("inc-2", [Collection(TableId("inventory", "orders")), Collection(TableId("inventory", "customers"))])
    context.maximum_key, context.chunk_end = ("B-7", 1), ("A-1", 2)
    notes.in_progress(context)
    (record, offset), = sink.records
    assert offset is None  # a notification never moves the committed offset
    assert (record.id, record.type, record.timestamp) == ("inc-2", "IN_PROGRESS", 7)
    assert dict(record.additional_data) == {
        "current_collection_in_progress": "inventory.orders", "connector_name": "dbserver1", "maximum_key": "B-7,1",
        "data_collections": "inventory.orders,inventory.customers", "last_processed_key": "A-1,2"}
    assert list(record.additional_data) == ["current_collection_in_progress", "connector_name", "maximum_key",
                                            "data_collections", "last_processed_key"]


def test_log_line_is_debeziums(caplog) -> None:
    n = Notification("inc-1", "Incremental Snapshot", "STARTED",
                     java_additional_data([("data_collections", "inventory.customers")], "dbserver1"), 1795557546741)
    with caplog.at_level(logging.INFO, logger="connector.notifications"):
        LogChannel().send(n)
    # the golden run's debezium.log line, after the logger's own prefix
    assert caplog.messages == ["[Notification Service]  {id='inc-1', aggregateType='Incremental Snapshot', "
                               "type='STARTED', additionalData={connector_name=dbserver1, "
                               "data_collections=inventory.customers}, timestamp=1795557546741}"]
    assert log_line(n) == caplog.messages[0]
