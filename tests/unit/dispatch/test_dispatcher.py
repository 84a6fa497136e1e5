"""The dispatcher end to end without servers: DDL through the real schema history (in memory), row changes,
TRUNCATE, transactions and heartbeats into an in-memory sink; every record through the one encoder, and
offsets tracked so that a record group (delete + tombstone) or a dropped record commits correctly."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from connector.offsets.position import SourceOffset, TransactionState
from connector.config.loaders import load_server_properties
from connector.config.modes import Operation
from connector.config.settings import Settings
from connector.daemon import table_schema_builder
from connector.dispatch.dispatcher import Dispatcher
from connector.transforms.chain import Transforms
from connector.config.table_filter import TableFilter
from connector.events.kinds import ConnectRecord, NotificationRecord, RecordKind
from connector.kafka.writer import OutRecord
from connector.offsets.tracker import OffsetTracker
from connector.schema.tracker import SchemaTracker
from connector.events.changes import EventSource, RowChange
from connector.streaming.heartbeat import Heartbeat
from connector.transforms.config import transform_settings
from schema_history.model import TableId
from schema_history.stores.memory import MemoryHistoryStore

T = TableId("inventory", "customers")
DDL = "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))"


@dataclass
class MemorySink:
    """Keeps what was sent; `ack_all()` acknowledges it, as Kafka's delivery callbacks would."""

    sent: list[OutRecord] = field(default_factory=list)
    _acks: list[Callable[[], None]] = field(default_factory=list)

    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None:
        self.sent.append(record)
        self._acks.append(on_ack)

    def ack_all(self) -> None:
        acks, self._acks = self._acks, []
        for ack in acks:
            ack()


@dataclass
class Positions:
    """Streaming's offsets outside a transaction: one per event, `row` counting up."""

    offset: SourceOffset
    handed: list[SourceOffset] = field(default_factory=list)

    def next_event(self, data_collection: str) -> tuple[None, SourceOffset]:
        self.offset = replace(self.offset, row=self.offset.row + 1)
        self.handed.append(self.offset)
        return None, self.offset


@dataclass
class Seen:
    """A transform that records the kinds it was given and passes records on."""

    kinds: list[RecordKind]
    kind: RecordKind

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        self.kinds.append(self.kind)
        return record


class DropTombstones:
    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return None


def dispatcher_settings(**props: str) -> Settings:
    """A streaming connector's settings without servers; `props` as source properties, dots written as `_`."""
    return load_server_properties({
        "debezium.sink.type": "kafka",
        "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:1",
        "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "debezium.source.database.hostname": "127.0.0.1",
        "debezium.source.database.user": "u",
        "debezium.source.database.password": "p",
        "debezium.source.database.server.id": "1",
        "debezium.source.topic.prefix": "dbserver1",
        "debezium.source.schema.history.internal": "io.debezium.relational.history.MemorySchemaHistory",
        **{f"debezium.source.{k.replace('_', '.')}": v for k, v in props.items()},
    }).settings(transform_settings)


def _dispatcher(transforms: Transforms | None = None, **props: str) -> tuple[Dispatcher, MemorySink, OffsetTracker]:
    settings = dispatcher_settings(**props)
    table_filter = TableFilter(settings.filters)
    sink, tracker = MemorySink(), OffsetTracker()
    dispatcher = Dispatcher(settings, SchemaTracker(settings, table_filter, MemoryHistoryStore()),
                            table_schema_builder(settings), sink, tracker, table_filter, clock_ns=lambda: 7_000_000,
                            transforms=transforms)
    return dispatcher, sink, tracker


def _source(pos: int, **changes: Any) -> EventSource:
    return EventSource(ts_ms=1000, db="inventory", table="customers", server_id=1, gtid=None,
                       file="bin.000001", pos=pos, row=0, thread=None, **changes)


def _offset(pos: int) -> SourceOffset:
    return SourceOffset(file="bin.000001", pos=pos)


def _payload(record: OutRecord, side: str = "value") -> Any:
    raw = record.value if side == "value" else record.key
    return None if raw is None else json.loads(raw)["payload"]


def _streamed(dispatcher: Dispatcher) -> None:
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    dispatcher.transaction_begin("tx-1", 1000, _offset(200))
    positions = Positions(_offset(200))
    dispatcher.row_change(RowChange(T, Operation.CREATE, None, [1, "a"]), _source(210), positions)
    dispatcher.row_change(RowChange(T, Operation.DELETE, [1, "a"], None), _source(220), positions)
    dispatcher.transaction_end(TransactionState("tx-1", 2, (("inventory.customers", 2),)), 1000, _offset(230))
    dispatcher.ddl("TRUNCATE TABLE customers", "inventory", _source(300), _offset(300))


def test_every_kind_reaches_the_sink_with_debezium_topics() -> None:
    dispatcher, sink, tracker = _dispatcher(provide_transaction_metadata="true", skipped_operations="none")
    _streamed(dispatcher)
    Heartbeat(1, "__debezium-heartbeat.dbserver1", "dbserver1", dispatcher, clock_ms=lambda: 5).emit(_offset(400))
    topics = [(r.topic, r.partition) for r in sink.sent]
    assert topics == [("dbserver1", 0), ("dbserver1.transaction", None), ("dbserver1.inventory.customers", None),
                      ("dbserver1.inventory.customers", None), ("dbserver1.inventory.customers", None),
                      ("dbserver1.transaction", None), ("dbserver1.inventory.customers", None),
                      ("__debezium-heartbeat.dbserver1", 0)]  # TRUNCATE changes no schema: no schema record
    ops = [(_payload(r) or {}).get("op") for r in sink.sent]
    assert ops == [None, None, "c", "d", None, None, "t", None]
    assert sink.sent[4].value is None and _payload(sink.sent[4], "key") == {"id": 1}  # the tombstone
    assert _payload(sink.sent[7]) == {"ts_ms": 5} and _payload(sink.sent[7], "key") == {"serverName": "dbserver1"}
    assert dispatcher.counters.records_sent == 8 and dispatcher.counters.data_events == 2
    sink.ack_all()
    assert tracker.committable() == _offset(400).to_map() and dispatcher.counters.records_acked == 8


def test_delete_and_its_tombstone_share_one_offset() -> None:
    dispatcher, sink, tracker = _dispatcher()
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    sink.ack_all()
    positions = Positions(_offset(200))
    dispatcher.row_change(RowChange(T, Operation.DELETE, [1, "a"], None), _source(210), positions)
    [delete_offset] = positions.handed
    assert [r.value is None for r in sink.sent[1:]] == [False, True]
    sink.sent.clear()
    sink._acks[0]()  # the delete alone is not the whole group
    assert tracker.committable() == _offset(100).to_map()
    sink._acks[1]()
    assert tracker.committable() == delete_offset.to_map()


def test_transforms_see_every_kind_and_a_dropped_record_still_commits() -> None:
    seen: list[RecordKind] = []
    transforms: dict[RecordKind, Any] = {kind: [Seen(seen, kind)] for kind in RecordKind}
    transforms[RecordKind.TOMBSTONE] = [Seen(seen, RecordKind.TOMBSTONE), DropTombstones()]
    dispatcher, sink, tracker = _dispatcher(transforms, provide_transaction_metadata="true", skipped_operations="none")
    plain, plain_sink, _ = _dispatcher(provide_transaction_metadata="true", skipped_operations="none")
    _streamed(dispatcher)
    _streamed(plain)
    # a notification (sink channel) goes through the same encoder and transforms, with no offset of its own
    note = NotificationRecord("inc-1", "STARTED", "Incremental Snapshot", {"connector_name": "dbserver1"}, 1, "n")
    dispatcher.emit(note, None)
    plain.emit(note, None)
    assert set(seen) == set(RecordKind) - {RecordKind.HEARTBEAT}
    # The same records, bytes and all, except the dropped tombstone (context headers differ by run id only).
    expected = [r for r in plain_sink.sent if not (r.value is None and r.topic.endswith("customers"))]
    assert [(r.topic, r.key, r.value) for r in sink.sent] == [(r.topic, r.key, r.value) for r in expected]
    sink.ack_all()
    assert tracker.committable() == _offset(300).to_map()
    assert dispatcher.counters.records_sent == dispatcher.counters.records_acked == len(plain_sink.sent) - 1


def test_snapshot_schema_record_is_held_until_data_or_the_end() -> None:
    dispatcher, sink, tracker = _dispatcher()
    snap = _offset(500)
    dispatcher.schema_statement("inventory", DDL, _source(500, snapshot="true"), snap)
    assert sink.sent == []
    dispatcher.snapshot_row(T, (1, "a"), _source(500, snapshot="last"), snap)
    assert [(_payload(r) or {}).get("op") for r in sink.sent] == [None, "r"]
    assert _payload(sink.sent[0])["source"]["snapshot"] == "true"
    dispatcher.schema_statement("inventory", "CREATE TABLE other (id INT)", _source(500, snapshot="true"), snap)
    completed = replace(snap, snapshot=None)
    dispatcher.end_snapshot(completed)
    assert _payload(sink.sent[2])["source"]["snapshot"] == "last"
    sink.ack_all()
    assert tracker.committable() == completed.to_map()
