"""ha.* properties (connector/config/ha_settings.py): HA is refused, with every reason named, unless a former active
instance can be fenced (a transactional producer) and a standby on another machine finds the offsets and the
schema history (both in Kafka); the lease's consumer session follows ha.takeover.ms."""
from __future__ import annotations

import pytest

from connector.config.ha_settings import LeaseSession
from connector.config.loaders import load_server_properties
from connector.errors import ConfigError
from connector.transforms.config import transform_settings

BASE = {
    "debezium.sink.type": "kafka", "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:1",
    "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "debezium.source.database.hostname": "h", "debezium.source.database.user": "u",
    "debezium.source.database.password": "p", "debezium.source.database.server.id": "1",
    "debezium.source.topic.prefix": "inv", "debezium.source.offset.storage.file.filename": "/tmp/never-written.dat",
    "debezium.source.schema.history.internal": "io.debezium.relational.history.MemorySchemaHistory",
}
EXACTLY_ONCE = {
    "debezium.sink.kafka.producer.transactional.id": "inv-txn",
    "debezium.source.offset.storage": "org.apache.kafka.connect.storage.KafkaOffsetBackingStore",
    "debezium.source.offset.storage.topic": "inv-offsets",
    "debezium.source.schema.history.internal": "io.debezium.storage.kafka.history.KafkaSchemaHistory",
    "debezium.source.schema.history.internal.kafka.topic": "inv-history",
}


def settings(**props: str):
    raw = {**BASE, **{f"debezium.{k}" if k.startswith(("source.", "sink.")) else k: v for k, v in props.items()}}
    return load_server_properties(raw).settings(transform_settings)


def test_off_by_default() -> None:
    ha = settings().ha
    assert not ha.enabled and ha.takeover_ms == 10_000 and ha.lease_topic == "inv.ha-lease"


def test_at_least_once_and_files_are_refused_by_name() -> None:
    with pytest.raises(ConfigError) as exc:
        settings(**{"debezium.source.ha.enabled": "true"})
    text = str(exc.value)
    assert "ha.enabled=true needs exactly-once delivery" in text and "transactional.id" in text
    assert "needs the schema history in Kafka" in text


def test_exactly_once_with_kafka_history_is_accepted() -> None:
    ha = settings(**EXACTLY_ONCE, **{"debezium.source.ha.enabled": "true", "debezium.source.ha.takeover.ms": "20000",
                                     "debezium.source.ha.instance.id": "east-1",
                                     "debezium.source.ha.lease.topic": "leases"}).ha
    assert (ha.enabled, ha.instance_id, ha.lease_topic) == (True, "east-1", "leases")
    # 40% of the bound, so Tansu's rebalance (half a session after the drop) and the fence fit; 60% where the brokers'
    # group.min.session.timeout.ms refuses that (tests/integration/faults/test_ha_lease_session.py)
    assert ha.lease_sessions == (LeaseSession(8_000, 1_333), LeaseSession(12_000, 2_000))


def test_takeover_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="ha.takeover.ms"):
        settings(**EXACTLY_ONCE, **{"debezium.source.ha.enabled": "true", "debezium.source.ha.takeover.ms": "0"})
