"""offset.flush.interval.ms defaults as in Debezium Server: the engine's PeriodicCommitOffsetPolicy commits
every minute when the property is not set; an explicit value (0 included) is taken as given."""
from __future__ import annotations

from connector.config.loaders import load_server_properties
from connector.transforms.config import transform_settings

BASE = {
    "debezium.sink.type": "kafka", "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:1",
    "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "debezium.source.database.hostname": "h", "debezium.source.database.user": "u",
    "debezium.source.database.password": "p", "debezium.source.database.server.id": "1",
    "debezium.source.topic.prefix": "p", "debezium.source.offset.storage.file.filename": "/tmp/never-written.dat",
    "debezium.source.schema.history.internal": "io.debezium.relational.history.MemorySchemaHistory",
}


def test_unset_interval_is_one_minute() -> None:
    offsets = load_server_properties(BASE).settings(transform_settings).offsets
    assert (offsets.flush_interval_ms, offsets.flush_interval_set) == (60_000, False)


def test_explicit_interval_is_kept() -> None:
    for value in ("0", "1000"):
        offsets = load_server_properties({**BASE, "debezium.source.offset.flush.interval.ms": value}).settings(transform_settings).offsets
        assert (offsets.flush_interval_ms, offsets.flush_interval_set) == (int(value), True)
