"""encode.workers without servers: records made in the connector's process go out at once, a lost worker stops
the connector with a line that says so, Avro is refused. Rows events through the workers are tested against
real servers: the goldens with workers (tests/conformance, byte for byte) and kill -9 (tests/integration/faults)."""

from __future__ import annotations


import pytest

from connector.config.loaders import load_server_properties
from connector.config.settings import Settings
from connector.daemon import run_transforms, settings_encoder, table_schema_builder
from connector.dispatch.dispatcher import Dispatcher
from connector.dispatch.encode_pool import EncodePool, EncodeWorkerLost
from connector.config.table_filter import TableFilter
from connector.errors import ConfigError
from connector.offsets.tracker import OffsetTracker
from connector.schema.tracker import SchemaTracker
from connector.streaming.heartbeat import Heartbeat
from schema_history.stores.memory import MemoryHistoryStore
from tests.unit.dispatch.test_dispatcher import DDL, T, MemorySink, _offset, _source, dispatcher_settings
from connector.transforms.config import transform_settings

def _dispatcher(settings: Settings, pool: EncodePool | None) -> tuple[Dispatcher, MemorySink, OffsetTracker]:
    table_filter = TableFilter(settings.filters)
    sink, tracker = MemorySink(), OffsetTracker()
    dispatcher = Dispatcher(settings, SchemaTracker(settings, table_filter, MemoryHistoryStore()),
                            table_schema_builder(settings), sink, tracker, table_filter, clock_ns=lambda: 7_000_000,
                            transforms=run_transforms(settings), encode_pool=pool)
    return dispatcher, sink, tracker


def _pool(settings: Settings, workers: int = 2) -> EncodePool:
    return EncodePool(settings, workers, make_builder=table_schema_builder, make_encoder=settings_encoder)


def test_a_lost_worker_stops_with_a_line_that_says_so() -> None:
    pool = _pool(dispatcher_settings(), workers=1)
    try:
        pool.submit(0, {}, {}, [])
        assert pool.receive(0) == []  # a live worker answers an empty batch
        pool._workers[0].process.kill()
        pool._workers[0].process.join(5)
        with pytest.raises(EncodeWorkerLost, match=r"encode worker 0 \(pid \d+\) ended .* Fix: restart the connector"):
            pool.submit(0, {}, {}, [])
            pool.receive(0)
    finally:
        pool.close()


def test_a_dispatcher_with_workers_sends_records_made_here_at_once() -> None:
    """Nothing in the workers: schema changes, heartbeats and snapshot rows are not held back."""
    settings = dispatcher_settings()
    pool = _pool(settings, workers=1)
    try:
        dispatcher, sink, tracker = _dispatcher(settings, pool)
        dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
        dispatcher.snapshot_row(T, (1, "a"), _source(150, snapshot="last"), _offset(150))
        Heartbeat(1, "__debezium-heartbeat.dbserver1", "dbserver1", dispatcher, clock_ms=lambda: 5).emit(_offset(205))
        assert [r.topic for r in sink.sent] == ["dbserver1", "dbserver1.inventory.customers",
                                                "__debezium-heartbeat.dbserver1"]
        sink.ack_all()
        assert tracker.committable() == _offset(205).to_map()
    finally:
        pool.close()


def test_avro_with_workers_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="encode.workers=2 works with the JSON converters only"):
        load_server_properties({
            "debezium.sink.type": "kafka",
            "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:1",
            "debezium.source.database.hostname": "127.0.0.1",
            "debezium.source.database.user": "u",
            "debezium.source.database.server.id": "1",
            "debezium.source.topic.prefix": "dbserver1",
            "debezium.source.encode.workers": "2",
            "debezium.format.value": "avro",
            "debezium.format.value.schema.registry.url": "http://127.0.0.1:1",
        }).settings(transform_settings)
