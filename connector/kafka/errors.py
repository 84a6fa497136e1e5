"""Errors of the Kafka writer (see connector/kafka/writer.py). They are the `SinkError` branch of the one
error tree in connector/errors.py, defined there so every error is importable from `connector.errors`."""
from __future__ import annotations

from connector.errors import (
    KafkaBackpressureTimeout,
    KafkaConfigError,
    KafkaDeliveryError,
    KafkaTransactionAborted,
    KafkaTransactionFatal,
    KafkaWriterClosed,
    KafkaWriterError,
    KafkaWriterInterrupted,
)

__all__ = [
    "KafkaWriterError", "KafkaConfigError", "KafkaDeliveryError", "KafkaBackpressureTimeout", "KafkaWriterInterrupted",
    "KafkaTransactionAborted", "KafkaTransactionFatal", "KafkaWriterClosed",
]
