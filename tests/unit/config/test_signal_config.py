"""signal.* and incremental.snapshot.* are read into SignalSettings; what is not implemented is refused by name."""
from __future__ import annotations

import pytest

from connector.config import load_config
from connector.errors import ConfigError
from tests.unit.config.test_config import SERVER, write
from connector.transforms.config import transform_settings


def settings(tmp_path, extra: str):
    return load_config(write(tmp_path, SERVER + extra), environ={}).settings(transform_settings)


def test_signal_properties_are_accepted(tmp_path):
    s = settings(tmp_path, "debezium.source.signal.data.collection=inventory.debezium_signal\n"
                           "debezium.source.signal.enabled.channels=source\n"
                           "debezium.source.incremental.snapshot.chunk.size=2\n"
                           "debezium.source.incremental.snapshot.watermarking.strategy=insert_insert\n")
    assert s.signals.data_collection == "inventory.debezium_signal"
    assert s.signals.channels == ("source",) and s.signals.chunk_size == 2 and not s.signals.read_only


def test_kafka_and_file_channels_are_read_with_debezium_defaults(tmp_path):
    s = settings(tmp_path, "debezium.source.signal.enabled.channels=source,kafka,file\n"
                           "debezium.source.signal.kafka.bootstrap.servers=127.0.0.1:9092\n"
                           "debezium.source.signal.consumer.session.timeout.ms=6000\n")
    sig = s.signals
    assert sig.external == ("kafka", "file")
    assert (sig.file, sig.poll_interval_ms, sig.kafka_topic, sig.kafka_group_id, sig.kafka_poll_timeout_ms) == (
        "file-signals.txt", 5000, None, "kafka-signal", 0)
    assert sig.kafka_bootstrap_servers == "127.0.0.1:9092" and sig.consumer == (("session.timeout.ms", "6000"),)


def test_defaults(tmp_path):
    s = settings(tmp_path, "")
    assert s.signals.data_collection is None and s.signals.channels == ("source",) and s.signals.chunk_size == 1024


@pytest.mark.parametrize("extra, message", [
    ("debezium.source.signal.enabled.channels=source,jmx\n", "jmx refused: JMX has no Python equivalent"),
    ("debezium.source.signal.enabled.channels=source,in-process\n", "in-process refused"),
    ("debezium.source.signal.enabled.channels=kafka\n", "kafka needs signal.kafka.bootstrap.servers"),
    ("debezium.source.signal.enabled.channels=carrier-pigeon\n", "unknown channel 'carrier-pigeon'"),
    ("debezium.source.incremental.snapshot.watermarking.strategy=insert_delete\n", "insert_delete refused"),
    ("debezium.source.notification.enabled.channels=jmx\n", "notification.enabled.channels=jmx refused"),
    ("debezium.source.notification.enabled.channels=sink\n", "Notification topic name must be provided"),
    ("debezium.source.notification.enabled.channels=log,pager\n", "unknown channel 'pager'"),
    ("debezium.source.notification.sink.topic.retention=1\n", "notification.sink.topic.retention=1: only"),
    ("debezium.source.signal.data.collection=debezium_signal\n", "expected `database.table`"),
])
def test_not_implemented_is_refused_by_name(tmp_path, extra, message):
    with pytest.raises(ConfigError, match=message):
        settings(tmp_path, extra)
