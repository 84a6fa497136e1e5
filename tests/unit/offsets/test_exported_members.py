"""The declared public surface of connector.offsets and connector.kafka.writer."""

from __future__ import annotations

import connector.kafka.writer
import connector.offsets


def test_offsets_exports() -> None:
    assert sorted(connector.offsets.__all__) == sorted([
        "CONNECT_DEFAULT_PARTITIONS", "FileOffsetStore", "Flushable", "KafkaOffsetStore", "MemoryOffsetStore",
        "OffsetCommitter", "OffsetFlushTimeout", "OffsetStore", "OffsetStoreError", "OffsetTracker",
        "TransactionalCommitter", "parse_offset", "partition_key", "read_offsets_file", "render_offset",
        "write_offsets_file", "IncrementalSnapshotSlot", "OffsetPart", "SnapshotMarker", "compose_offset",
    ])
    for name in connector.offsets.__all__:
        assert getattr(connector.offsets, name) is not None


def test_kafka_writer_exports() -> None:
    assert sorted(connector.kafka.writer.__all__) == sorted([
        "OutRecord", "KafkaWriter", "TopicSpec", "TopicDescription", "KafkaWriterError", "KafkaConfigError",
        "KafkaDeliveryError", "KafkaBackpressureTimeout", "KafkaWriterInterrupted", "KafkaTransactionAborted",
        "KafkaTransactionFatal", "build_producer_config", "connection_config", "java_murmur2",
        "java_default_partition",
    ])
    for name in connector.kafka.writer.__all__:
        assert hasattr(connector.kafka.writer, name)
