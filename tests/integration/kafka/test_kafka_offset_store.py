"""KafkaOffsetStore against a real broker: Connect's offsets-topic layout, read back to EOF."""

from __future__ import annotations

import json

import pytest

from connector.kafka.writer import KafkaWriter, OutRecord, TopicSpec, java_default_partition
from connector.offsets import KafkaOffsetStore, OffsetCommitter, OffsetStoreError, OffsetTracker, partition_key
from tests.integration.kafka.conftest import read_all
from tests.unit.offsets.store_contract import SECOND, check_offset_store_contract

KEY = partition_key("binlog-cdc", "dbserver1")


@pytest.fixture
def writer(kafka_bootstrap: str):
    writer = KafkaWriter({"bootstrap.servers": kafka_bootstrap}, max_in_flight_records=100)
    yield writer
    writer.close()


def test_kafka_store_contract(writer: KafkaWriter, topic_name: str) -> None:
    check_offset_store_contract(
        lambda: KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1), persistent=True
    )


def test_topic_layout_is_connects(writer: KafkaWriter, kafka_bootstrap: str, topic_name: str) -> None:
    store = KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1)
    assert store.load() is None  # creates the topic
    description = writer.describe_topic(topic_name)
    assert description.partitions == 25
    assert description.configs["cleanup.policy"] == "compact"
    store.save(SECOND)
    [msg] = read_all(kafka_bootstrap, topic_name, 25)
    assert msg.key() == b'["binlog-cdc",{"server":"dbserver1"}]'
    assert msg.value() == (b'{"ts_sec":1700000099,"file":"mariadb-bin.000002","pos":1234,'
                           b'"gtids":"0-1-42","row":1,"server_id":1,"event":2}')
    # Where Connect's Java producer would put this key, so later Connect writes stay in order with ours.
    assert msg.partition() == java_default_partition(KEY, 25)


def test_reads_connect_written_records_and_ignores_other_connectors(
    writer: KafkaWriter, topic_name: str
) -> None:
    writer.ensure_topics([TopicSpec(topic_name, 5, 1, {"cleanup.policy": "compact"})])
    other = partition_key("other-connector", "other")
    for key, value in [(KEY, b'{"pos":1}'), (other, b'{"pos":99}'), (KEY, b'{"file":"f","pos":2}'),
                       (other, None)]:
        writer.send(OutRecord(topic_name, key, value, [], java_default_partition(key, 5)), lambda: None)
    assert writer.flush(10) == 0
    store = KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1, create_topic=False)
    assert store.load() == {"file": "f", "pos": 2}
    assert KafkaOffsetStore(writer, topic_name, other, replication_factor=1).load() is None  # tombstoned
    # An existing topic keeps its partition count: the key is placed by the real count (5), not 25.
    store.save({"pos": 3})
    assert store.load() == {"pos": 3}


def test_refuses_a_topic_that_is_not_compacted(writer: KafkaWriter, topic_name: str) -> None:
    writer.ensure_topics([TopicSpec(topic_name, 1, 1, {"cleanup.policy": "delete"})])
    with pytest.raises(OffsetStoreError, match="cleanup.policy=delete"):
        KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1).load()


def test_missing_topic_without_creation_is_an_error(writer: KafkaWriter, topic_name: str) -> None:
    with pytest.raises(OffsetStoreError, match="does not exist"):
        KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1, create_topic=False).load()


def test_committer_writes_acknowledged_offsets_to_the_topic(
    writer: KafkaWriter, kafka_bootstrap: str, topic_name: str
) -> None:
    data_topic = topic_name + "-data"
    writer.ensure_topics([TopicSpec(data_topic, 2, 1)])
    tracker = OffsetTracker()
    store = KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1)
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0)
    for pos in range(1, 51):
        seq = tracker.track({"file": "mariadb-bin.000001", "pos": pos})
        writer.send(OutRecord(data_topic, b"%d" % pos, b"v"), lambda seq=seq: tracker.ack(seq))
        if pos % 10 == 0:
            committer.maybe_commit()
            committed = committer.last_committed
            # Whatever was committed is covered by acknowledged data records.
            assert committed is None or committed["pos"] <= pos
    assert committer.shutdown(writer, timeout_s=10)
    assert KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1).load() == \
        {"file": "mariadb-bin.000001", "pos": 50}
    assert len(read_all(kafka_bootstrap, data_topic, 2)) == 50
    values = [json.loads(m.value())["pos"] for m in read_all(kafka_bootstrap, topic_name, 25)]
    assert values == sorted(values) and values[-1] == 50


def test_save_through_a_transactional_writer_commits(kafka_bootstrap: str, topic_name: str) -> None:
    writer = KafkaWriter({"bootstrap.servers": kafka_bootstrap, "transactional.id": f"tx-{topic_name}"},
                         max_in_flight_records=10)
    store = KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1)
    store.save({"pos": 1})
    assert KafkaOffsetStore(writer, topic_name, KEY, replication_factor=1).load() == {"pos": 1}
    writer.close()
