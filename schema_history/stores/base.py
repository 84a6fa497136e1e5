"""The `SchemaHistoryStore` seam: where history records live (Kafka topic, file, memory)."""

from __future__ import annotations

from typing import Iterator, Protocol, runtime_checkable

from schema_history.record import HistoryRecord


@runtime_checkable
class SchemaHistoryStore(Protocol):
    def check_and_initialize(self) -> None:
        """Create the storage if missing and verify it is usable (e.g. a single-partition topic)."""

    def append(self, record: HistoryRecord) -> None:
        """Durably store one record; returns only once it is stored (Kafka: flushed and acked)."""

    def records(self) -> Iterator[HistoryRecord]:
        """Every stored record, oldest first."""

    def exists(self) -> bool:
        """True when the storage exists and holds at least one record."""

    def close(self) -> None:
        """Release clients and files."""
