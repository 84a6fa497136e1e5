"""Reads a topic from its start to its end, as a read_committed consumer sees it: (partition, key, value) in offset
order per partition. For the rare reads of the connector's own topics at start: the offsets topic
(connector/offsets/kafka_store.py) and data topics (snapshot/ghost_rows.py)."""

from __future__ import annotations

import time
from typing import Callable, Iterator, Mapping

from confluent_kafka import Consumer, KafkaError, TopicPartition

from connector.errors import RetriableError, SinkError, Where
from connector.kafka.producer_config import connection_config

__all__ = ["TopicReadFailed", "read_to_end", "read_topic"]

# A one-off read: no group offsets, and no broker holding empty fetches for the default 500 ms.
_READ_ONCE = {"enable.auto.commit": "false", "enable.partition.eof": "true", "auto.offset.reset": "earliest",
              "isolation.level": "read_committed", "fetch.wait.max.ms": "10"}


class TopicReadFailed(SinkError, RetriableError):
    """The topic could not be read to its end in time."""


def read_to_end(consumer_config: Mapping[str, str], topic: str, *, partitions: int | None = None,
                timeout_s: float = 120.0, clock: Callable[[], float] = time.monotonic,
                failed: Callable[[str], Exception] | None = None) -> Iterator[tuple[int, bytes | None, bytes | None]]:
    """Every record of `topic` as (partition, key, value).

    `consumer_config`: connection settings and `group.id`, with any overrides (they win over the one-off read's
    settings). `partitions`: how many to read; None asks the broker (nothing when the topic does not exist).
    `failed(reason)` builds the error raised when the end is not reached within `timeout_s` or the broker refuses
    a fetch (default: TopicReadFailed)."""
    fail = failed or (lambda reason: TopicReadFailed(f"reading topic {topic} {reason}", where=Where(topic=topic),
                                                     fix="check that the brokers are up, then restart"))
    consumer = Consumer({**_READ_ONCE, **consumer_config})
    try:
        if partitions is None:
            described = consumer.list_topics(topic, timeout=min(30.0, timeout_s)).topics.get(topic)
            if described is None or described.error is not None or not described.partitions:
                return
            partitions = len(described.partitions)
        # Offset 0 rather than OFFSET_BEGINNING saves a ListOffsets round trip per partition (a log that no longer
        # starts at 0 is out of range, and auto.offset.reset=earliest moves to its start); the end is found by
        # consuming to EOF because ListOffsets may be wrong on some brokers (docs: infra.md).
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        at_end: set[int] = set()
        deadline = clock() + timeout_s
        while len(at_end) < partitions:
            if clock() > deadline:
                raise fail(f"did not reach the end of partitions {sorted(set(range(partitions)) - at_end)} "
                           f"within {timeout_s:g} s")
            for msg in consumer.consume(num_messages=500, timeout=0.05):
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        at_end.add(msg.partition())
                        continue
                    raise fail(f"failed: {err}")
                yield msg.partition(), msg.key(), msg.value()
    finally:
        consumer.close()


def read_topic(producer_config: Mapping[str, str], topic: str, timeout_s: float = 120.0
               ) -> Iterator[tuple[bytes | None, bytes | None]]:
    """Every record of a data topic as (key, value), with the producer's connection settings."""
    config = {**connection_config(producer_config), "group.id": f"binlog-cdc-topic-reader-{topic}"}
    for _, key, value in read_to_end(config, topic, timeout_s=timeout_s):
        yield key, value
