"""Offsets in a Kafka Connect offsets topic (`offset.storage.topic`), readable by Connect and Debezium Server.

Format (Connect's `KafkaOffsetBackingStore`): a compacted topic, Connect's default 25 partitions; each record's
key is the partition key `["<connector>",{"server":"<prefix>"}]` and its value the offset JSON, both
schemaless JsonConverter bytes; a null value deletes. Records go to the partition the Java producer picks
(murmur2 of the key), so all writes of one key, ours and Connect's, stay in one partition and in order.
Reading back: every partition from the beginning to its end (connector/kafka/topic_reader.py) and keep the
last value of our key.

Writes go through the connector's `KafkaWriter`, so they share its producer (and, in exactly-once mode,
its transaction) and the data records' ordering guarantees.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Mapping

from connector.kafka.writer import (
    KafkaWriter,
    OutRecord,
    TopicSpec,
    connection_config,
    java_default_partition,
)
from connector.errors import OffsetFlushTimeout, OffsetStoreUnusable, Where
from connector.kafka.topic_reader import read_to_end
from connector.offsets.store import (
    parse_offset,
    render_offset,
    same_partition_key,
)

__all__ = ["KafkaOffsetStore", "CONNECT_DEFAULT_PARTITIONS"]

logger = logging.getLogger(__name__)

CONNECT_DEFAULT_PARTITIONS = 25  # DistributedConfig.OFFSET_STORAGE_PARTITIONS_CONFIG default


class KafkaOffsetStore:
    """`OffsetStore` over a Connect offsets topic, for the connector whose partition key is `key`."""

    def __init__(
        self,
        writer: KafkaWriter,
        topic: str,
        key: bytes,
        *,
        replication_factor: int,
        partitions: int = CONNECT_DEFAULT_PARTITIONS,
        create_topic: bool = True,
        flush_timeout_s: float = 5.0,
        load_timeout_s: float = 60.0,
        consumer_overrides: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._writer = writer
        self._topic = topic
        self._key = key
        self._replication_factor = replication_factor
        self._partitions = partitions
        self._create_topic = create_topic
        self._flush_timeout_s = flush_timeout_s
        self._load_timeout_s = load_timeout_s
        self._consumer_overrides = dict(consumer_overrides or {})
        self._clock = clock
        self._topic_partitions: int | None = None

    def _ensure_topic(self) -> int:
        """Create the topic if allowed and missing; check it is compacted (as Connect insists); partition count."""
        if self._topic_partitions is not None:
            return self._topic_partitions
        if self._create_topic:
            self._writer.ensure_topics([TopicSpec(self._topic, self._partitions, self._replication_factor,
                                                  {"cleanup.policy": "compact"})])
        description = self._writer.describe_topic(self._topic)
        if description is None:
            raise OffsetStoreUnusable("offsets topic does not exist and may not be created",
                                      where=Where(topic=self._topic),
                                      fix="create it (compacted), or let the connector create it")
        policy = description.configs.get("cleanup.policy", "compact")
        if policy.replace(" ", "") != "compact":
            # Connect refuses such a topic too: deletion would lose committed offsets.
            raise OffsetStoreUnusable(
                f"offsets topic has cleanup.policy={policy}; it must be 'compact'", where=Where(topic=self._topic),
                fix=f"kafka-configs --alter --entity-type topics --entity-name {self._topic} "
                    f"--add-config cleanup.policy=compact")
        self._topic_partitions = description.partitions
        return description.partitions

    def load(self) -> dict[str, Any] | None:
        config = {**connection_config(self._writer.config), "group.id": f"binlog-cdc-offsets-reader-{self._topic}",
                  **self._consumer_overrides}
        latest: bytes | None = None
        found_in: set[int] = set()
        for partition, key, value in read_to_end(
                config, self._topic, partitions=self._ensure_topic(), timeout_s=self._load_timeout_s,
                clock=self._clock, failed=lambda reason: OffsetStoreUnusable(
                    f"reading the offsets topic {reason}", where=Where(topic=self._topic),
                    fix="check that the brokers of the offsets topic are up")):
            if same_partition_key(key, self._key):
                latest = value
                found_in.add(partition)
        if len(found_in) > 1:
            logger.warning("Offsets for %s found in partitions %s of %s; using the last one read",
                           self._key.decode(errors="replace"), sorted(found_in), self._topic)
        return None if latest is None else parse_offset(latest, f"offsets topic {self._topic}")

    def _record(self, offset: Mapping[str, Any]) -> OutRecord:
        partitions = self._ensure_topic()
        return OutRecord(self._topic, self._key, render_offset(offset), [],
                         java_default_partition(self._key, partitions))

    def stage(self, offset: Mapping[str, Any]) -> None:
        """Exactly-once mode: send the offset inside the writer's open transaction, without waiting;
        it becomes durable (and visible) with `commit_transaction`."""
        self._writer.send(self._record(offset), lambda: None)

    def save(self, offset: Mapping[str, Any]) -> None:
        acked = threading.Event()
        self._writer.send(self._record(offset), acked.set)
        if self._writer.transactional:
            # A transactional writer acknowledges only at commit (taking along any data sent since the last).
            self._writer.commit_transaction(self._flush_timeout_s)
        deadline = self._clock() + self._flush_timeout_s
        while not acked.is_set():
            if self._clock() > deadline:
                raise OffsetFlushTimeout(
                    f"offset record to {self._topic} not acknowledged within {self._flush_timeout_s:g} s"
                )
            self._writer.poll(0.05)

    def close(self) -> None:
        """The writer is owned (and closed) by the caller."""
