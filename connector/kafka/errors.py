"""Errors of the Kafka writer, by what the pipeline does about them (see connector/kafka/writer.py)."""
from __future__ import annotations

from confluent_kafka import KafkaError


class KafkaWriterError(Exception):
    """Base of every error raised by the writer."""

    retriable: bool = False


class KafkaConfigError(KafkaWriterError):
    """A producer property is unknown, unsupported by librdkafka, or invalid."""

    problems: list[str] = []  # one entry per property, when known


class KafkaDeliveryError(KafkaWriterError):
    """Kafka did not accept a record; nothing from this record on may be committed."""

    def __init__(self, topic: str, partition: int | None, error: KafkaError | str) -> None:
        self.topic = topic
        self.partition = partition
        self.error = error
        where = topic if partition is None or partition < 0 else f"{topic}[{partition}]"
        super().__init__(f"delivery to {where} failed: {error}")


class KafkaBackpressureTimeout(KafkaWriterError):
    """`send` waited longer than `block_timeout_s` for the broker to acknowledge earlier records."""

    retriable = True


class KafkaWriterInterrupted(KafkaWriterError):
    """`should_stop()` became true while `send` was blocked on back-pressure."""

    retriable = True


class KafkaTransactionAborted(KafkaWriterError):
    """The transaction was aborted: none of its records (nor its offsets) are visible. Restart from the
    last committed offset with a new writer."""

    retriable = True


class KafkaTransactionFatal(KafkaWriterError):
    """The transactional producer cannot continue (e.g. fenced by another instance with the same
    transactional.id). Terminal."""
