"""KafkaWriter against a real broker: acks, headers, tombstones, partitioning, errors, back-pressure."""

from __future__ import annotations

import time

import pytest

from connector.kafka.writer import (
    KafkaBackpressureTimeout,
    KafkaDeliveryError,
    KafkaWriter,
    KafkaWriterInterrupted,
    OutRecord,
    TopicSpec,
    java_default_partition,
)
from connector.offsets import FileOffsetStore, OffsetCommitter, OffsetTracker, partition_key
from tests.integration.kafka.conftest import TansuBroker, read_all


def test_records_arrive_with_keys_headers_tombstones_and_java_partitions(
    kafka_bootstrap: str, topic_name: str
) -> None:
    writer = KafkaWriter({"bootstrap.servers": kafka_bootstrap}, max_in_flight_records=100)
    assert writer.ensure_topics([TopicSpec(topic_name, partitions=4, replication_factor=1)]) == [topic_name]
    assert writer.ensure_topics([TopicSpec(topic_name, partitions=4, replication_factor=1)]) == []
    headers = [("__debezium.context.connectorLogicalName", b"dbserver1"), ("__debezium.context.taskId", b"0")]
    records = [OutRecord(topic_name, f'{{"id":{i}}}'.encode(), f'{{"v":{i}}}'.encode(), headers)
               for i in range(20)]
    records.append(OutRecord(topic_name, b'{"id":3}', None))  # tombstone
    records.append(OutRecord(topic_name, None, b"schema-change", [], partition=0))
    acked: list[int] = []
    for i, record in enumerate(records):
        writer.send(record, lambda i=i: acked.append(i))
    assert writer.flush(30) == 0
    assert sorted(acked) == list(range(len(records)))
    assert writer.in_flight == 0

    got = read_all(kafka_bootstrap, topic_name, 4)
    assert len(got) == len(records)
    by_value = {m.value(): m for m in got}
    for record in records[:20]:
        msg = by_value[record.value]
        assert msg.key() == record.key
        assert msg.headers() == headers
        # The same partition Kafka's Java producer (Debezium) would choose for this key.
        assert msg.partition() == java_default_partition(record.key, 4)
    tombstone = by_value[None]
    assert tombstone.key() == b'{"id":3}' and tombstone.partition() == java_default_partition(b'{"id":3}', 4)
    assert by_value[b"schema-change"].partition() == 0
    # Per-key order is kept: the tombstone follows the record of the same key.
    same_partition = [m for m in got if m.partition() == tombstone.partition()]
    assert [m.value() for m in same_partition].index(None) > [m.value() for m in same_partition].index(b'{"v":3}')
    assert writer.close() == 0


def test_describe_topic(kafka_bootstrap: str, topic_name: str) -> None:
    writer = KafkaWriter({"bootstrap.servers": kafka_bootstrap}, max_in_flight_records=10)
    assert writer.describe_topic(topic_name) is None
    writer.ensure_topics([TopicSpec(topic_name, 3, 1, {"cleanup.policy": "compact"})])
    description = writer.describe_topic(topic_name)
    assert description is not None
    assert description.partitions == 3
    assert description.configs.get("cleanup.policy") == "compact"
    writer.close()


def test_oversized_record_is_a_typed_error_naming_the_topic(kafka_bootstrap: str, topic_name: str) -> None:
    writer = KafkaWriter({"bootstrap.servers": kafka_bootstrap, "max.request.size": "2000"},
                         max_in_flight_records=10)
    with pytest.raises(KafkaDeliveryError, match=topic_name) as caught:
        writer.send(OutRecord(topic_name, b"k", b"x" * 5000), lambda: None)
    assert caught.value.topic == topic_name
    writer.close()


def _pipeline(broker: TansuBroker, tmp_path, **overrides: str) -> tuple[KafkaWriter, OffsetTracker, OffsetCommitter,
                                                                        FileOffsetStore]:
    # Tansu's memory store forgets producer ids on restart, which wedges an idempotent producer (a real
    # broker keeps them); the restart tests therefore run without idempotence.
    config = {"bootstrap.servers": broker.bootstrap, "enable.idempotence": "false", **overrides}
    writer = KafkaWriter(config, max_in_flight_records=5, block_timeout_s=1.0)
    tracker = OffsetTracker()
    store = FileOffsetStore(tmp_path / "offsets.dat", partition_key("binlog-cdc", "dbserver1"))
    return writer, tracker, OffsetCommitter(tracker, store, flush_interval_ms=0), store


def _send(writer: KafkaWriter, tracker: OffsetTracker, topic: str, pos: int) -> None:
    seq = tracker.track({"file": "mariadb-bin.000001", "pos": pos})
    writer.send(OutRecord(topic, b"k%d" % pos, b"v%d" % pos), lambda: tracker.ack(seq))


def test_stopped_broker_blocks_send_and_holds_offsets_until_restart(
    restartable_broker: TansuBroker, topic_name: str, tmp_path
) -> None:
    writer, tracker, committer, store = _pipeline(restartable_broker, tmp_path)
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])
    for pos in range(3):
        _send(writer, tracker, topic_name, pos)
    assert writer.flush(10) == 0
    assert committer.maybe_commit()
    assert store.load() == {"file": "mariadb-bin.000001", "pos": 2}

    restartable_broker.stop()
    for pos in range(3, 8):  # fills the window of 5 un-acknowledged records
        _send(writer, tracker, topic_name, pos)
    started = time.monotonic()
    with pytest.raises(KafkaBackpressureTimeout, match="in flight"):
        _send(writer, tracker, topic_name, 8)
    assert 0.9 < time.monotonic() - started < 30  # the 1 s timeout, plus headroom for a loaded machine
    assert writer.in_flight == 5  # bounded: nothing more was buffered
    assert not committer.maybe_commit()
    assert store.load() == {"file": "mariadb-bin.000001", "pos": 2}

    restartable_broker.start()
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])  # Tansu lost it with the restart
    assert writer.flush(30) == 0
    assert committer.maybe_commit()
    assert store.load() == {"file": "mariadb-bin.000001", "pos": 7}
    _send(writer, tracker, topic_name, 9)  # the offset tracked for the refused send (8) blocks until re-sent
    assert writer.flush(10) == 0
    assert tracker.committable() == {"file": "mariadb-bin.000001", "pos": 7}
    assert [m.value() for m in read_all(restartable_broker.bootstrap, topic_name, 1)] == \
        [b"v%d" % p for p in (3, 4, 5, 6, 7, 9)]
    writer.close()


def test_producer_queue_full_also_blocks(restartable_broker: TansuBroker, topic_name: str, tmp_path) -> None:
    writer, tracker, _, _ = _pipeline(restartable_broker, tmp_path, **{"queue.buffering.max.messages": "2"})
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])
    restartable_broker.stop()
    _send(writer, tracker, topic_name, 0)
    _send(writer, tracker, topic_name, 1)
    with pytest.raises(KafkaBackpressureTimeout, match="producer queue"):
        _send(writer, tracker, topic_name, 2)
    assert writer.in_flight == 2
    writer.close(timeout_s=0.5)


def test_shutdown_request_interrupts_a_blocked_send(restartable_broker: TansuBroker, topic_name: str) -> None:
    stop = {"requested": False}
    writer = KafkaWriter({"bootstrap.servers": restartable_broker.bootstrap}, max_in_flight_records=1,
                         should_stop=lambda: stop["requested"])
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])
    restartable_broker.stop()
    writer.send(OutRecord(topic_name, b"k", b"v"), lambda: None)
    stop["requested"] = True
    with pytest.raises(KafkaWriterInterrupted):
        writer.send(OutRecord(topic_name, b"k", b"v2"), lambda: None)
    assert writer.close(timeout_s=0.5) == 1


def test_delivery_timeout_is_fatal_and_never_committed(
    restartable_broker: TansuBroker, topic_name: str, tmp_path
) -> None:
    writer, tracker, committer, store = _pipeline(restartable_broker, tmp_path, **{"delivery.timeout.ms": "1000"})
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])
    _send(writer, tracker, topic_name, 1)
    assert writer.flush(10) == 0
    restartable_broker.stop()
    _send(writer, tracker, topic_name, 2)
    with pytest.raises(KafkaDeliveryError, match=topic_name) as caught:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            writer.poll(0.1)
    assert "timed out" in str(caught.value).lower()
    with pytest.raises(KafkaDeliveryError):  # stays failed: nothing more is sent
        _send(writer, tracker, topic_name, 3)
    with pytest.raises(KafkaDeliveryError):
        committer.shutdown(writer, timeout_s=1)
    assert store.load() == {"file": "mariadb-bin.000001", "pos": 1}
    writer.close(timeout_s=0.5)


def test_unacknowledged_bytes_are_bounded_by_buffer_memory(restartable_broker: TansuBroker, topic_name: str,
                                                           tmp_path) -> None:
    # Big rows (16 MB BLOBs) must not pile up in the producer while the broker is slow: the bytes in flight
    # are bounded like the Java producer's buffer.memory, a record above the bound goes alone.
    writer, tracker, _, _ = _pipeline(restartable_broker, tmp_path, **{"buffer.memory": "1000"})
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])
    big = b"x" * 1500
    writer.send(OutRecord(topic_name, b"k0", big), lambda: None)  # over the bound, but nothing else in flight
    assert writer.flush(10) == 0
    restartable_broker.stop()
    writer.send(OutRecord(topic_name, b"k1", b"y" * 600), lambda: None)
    with pytest.raises(KafkaBackpressureTimeout, match="in flight"):
        writer.send(OutRecord(topic_name, b"k2", b"z" * 600), lambda: None)  # 1204 bytes > 1000
    assert writer.in_flight == 1
    writer.close(timeout_s=0.5)


def test_max_queue_size_in_bytes_lowers_the_bound(restartable_broker: TansuBroker, topic_name: str) -> None:
    # max.queue.size.in.bytes (the daemon passes it as max_in_flight_bytes) below buffer.memory's 32 MB wins.
    writer = KafkaWriter({"bootstrap.servers": restartable_broker.bootstrap, "enable.idempotence": "false"},
                         max_in_flight_records=100, max_in_flight_bytes=50, block_timeout_s=1.0)
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])
    restartable_broker.stop()
    writer.send(OutRecord(topic_name, b"k0", b"v" * 40), lambda: None)
    with pytest.raises(KafkaBackpressureTimeout, match="in flight"):
        writer.send(OutRecord(topic_name, b"k1", b"v" * 40), lambda: None)  # 84 bytes > 50
    assert writer.in_flight == 1
    writer.close(timeout_s=0.5)


def test_drain_oversized_waits_only_for_a_record_larger_than_the_bound(kafka_bootstrap: str, topic_name: str) -> None:
    # The daemon drains between source events: a record over the byte bound (a BLOB row) is acknowledged, and its
    # copies in librdkafka and the delivery report freed, before the next record is built.
    writer = KafkaWriter({"bootstrap.servers": kafka_bootstrap}, max_in_flight_records=100, max_in_flight_bytes=1000)
    writer.ensure_topics([TopicSpec(topic_name, 1, 1)])
    writer.send(OutRecord(topic_name, b"k0", b"v" * 100), lambda: None)
    writer.drain_oversized()  # within the bound: returns at once, nothing has to be acknowledged
    acked: list[str] = []
    writer.send(OutRecord(topic_name, b"k1", b"v" * 5000), lambda: acked.append("big"))  # let through: alone over
    writer.drain_oversized()
    assert acked == ["big"] and writer.in_flight == 0
    assert writer.close() == 0


def test_a_group_is_acknowledged_once_every_record_of_it_is_in_order(kafka_bootstrap: str, topic_name: str) -> None:
    # The fused row path sends a rows event's records as one group with one delivery callback.
    writer = KafkaWriter({"bootstrap.servers": kafka_bootstrap}, max_in_flight_records=5)
    writer.ensure_topics([TopicSpec(topic_name, partitions=3, replication_factor=1)])
    headers = [("__debezium.context.taskId", b"0")]
    groups = [[OutRecord(topic_name, f'{{"id":{i % 4}}}'.encode(), f"{g}-{i}".encode(), headers) for i in range(n)]
              for g, n in enumerate((1, 7, 30))]
    groups[1].append(OutRecord(topic_name, b'{"id":2}', None, headers))  # a tombstone closes a group
    acked: list[int] = []
    for g, group in enumerate(groups):
        writer.send_group(group, lambda g=g: acked.append(g))
    assert writer.flush(30) == 0
    assert sorted(acked) == [0, 1, 2] and writer.in_flight == 0
    got = read_all(kafka_bootstrap, topic_name, 3)
    assert len(got) == sum(map(len, groups))
    for partition in range(3):  # per-key order: each key's records in the order they were sent
        values = [m.value() for m in got if m.partition() == partition]
        sent = [r.value for group in groups for r in group
                if java_default_partition(r.key, 3) == partition]
        assert values == sent
    assert all(m.headers() == headers for m in got)
    assert writer.close() == 0
