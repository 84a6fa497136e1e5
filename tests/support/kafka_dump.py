"""Read whole topics back from a broker, to the end, in partition order.

The end of a partition is found by consuming to partition EOF, not by ListOffsets, which
Tansu gets wrong after multi-record batches (infra.md) and which is racy anyway.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from confluent_kafka import Consumer, KafkaError, TopicPartition


@dataclass(frozen=True)
class KafkaRecord:
    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


def consume_all(bootstrap_servers: str, topics: dict[str, int], timeout: float = 300.0,
                start: dict[tuple[str, int], int] | None = None) -> list[KafkaRecord]:
    """Every record of `topics` ({topic: partitions}), from `start` ({(topic, partition): offset}, default
    the beginning), ordered by (topic, partition, offset).

    Uses manual assignment (no consumer group: Tansu's joins are slow) and read_committed,
    so aborted transactional records (and open transactions) never show up.
    """
    start = start or {}
    assignments = [TopicPartition(t, p, start.get((t, p), 0)) for t, n in sorted(topics.items()) for p in range(n)]
    if not assignments:
        return []
    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": "binlog-cdc-test-dump",
                         "enable.auto.commit": False, "enable.partition.eof": True,
                         "isolation.level": "read_committed", "auto.offset.reset": "earliest",
                         # the end of a partition is an empty fetch: the broker holds it for this long (500 ms
                         # by default, which every read-back would pay)
                         "fetch.wait.max.ms": 10})
    records: list[KafkaRecord] = []
    pending = {(tp.topic, tp.partition) for tp in assignments}
    try:
        consumer.assign(assignments)
        deadline = time.monotonic() + timeout
        while pending:
            if time.monotonic() > deadline:
                raise TimeoutError(f"did not reach the end of {sorted(pending)} within {timeout:.0f} s")
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    pending.discard((msg.topic(), msg.partition()))
                    continue
                raise RuntimeError(f"consuming {msg.topic()}[{msg.partition()}]: {err}")
            records.append(KafkaRecord(msg.topic(), msg.partition(), msg.offset(), msg.timestamp()[1],
                                       msg.key(), msg.value(), tuple(msg.headers() or ())))
    finally:
        consumer.close()
    records.sort(key=lambda r: (r.topic, r.partition, r.offset))
    return records
