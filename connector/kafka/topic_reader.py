"""Reads a topic from its start to its end, as a read_committed consumer sees it: (key, value) in offset order
per partition. For the rare reads of the connector's own topics at start (snapshot/ghost_rows.py)."""

from __future__ import annotations

import time
from typing import Iterator, Mapping

from confluent_kafka import Consumer, KafkaError, TopicPartition

from connector.errors import RetriableError, SinkError, Where
from connector.kafka.producer_config import connection_config

__all__ = ["TopicReadFailed", "read_topic"]


class TopicReadFailed(SinkError, RetriableError):
    """The topic could not be read to its end in time."""


def read_topic(producer_config: Mapping[str, str], topic: str, timeout_s: float = 120.0
               ) -> Iterator[tuple[bytes | None, bytes | None]]:
    """Every record of `topic`, partition after partition; nothing when the topic does not exist."""
    consumer = Consumer({**connection_config(producer_config), "group.id": f"binlog-cdc-topic-reader-{topic}",
                         "enable.auto.commit": "false", "enable.partition.eof": "true",
                         "auto.offset.reset": "earliest", "isolation.level": "read_committed",
                         "fetch.wait.max.ms": "10"})
    try:
        metadata = consumer.list_topics(topic, timeout=min(30.0, timeout_s))
        described = metadata.topics.get(topic)
        if described is None or described.error is not None or not described.partitions:
            return
        partitions = sorted(described.partitions)
        # end of a partition by consuming to EOF: ListOffsets may be wrong on some brokers (docs: infra.md)
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        at_end: set[int] = set()
        deadline = time.monotonic() + timeout_s
        while len(at_end) < len(partitions):
            if time.monotonic() > deadline:
                raise TopicReadFailed(f"reading topic {topic} did not reach its end within {timeout_s:g} s",
                                      where=Where(topic=topic), fix="check that the brokers are up, then restart")
            for msg in consumer.consume(num_messages=1000, timeout=0.1):
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        at_end.add(msg.partition())
                        continue
                    raise TopicReadFailed(f"reading topic {topic} failed: {err}", where=Where(topic=topic))
                yield msg.key(), msg.value()
    finally:
        consumer.close()
