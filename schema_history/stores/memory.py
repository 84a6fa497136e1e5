"""In-memory history store, for tests and for `schema.history.internal=...MemorySchemaHistory`."""

from __future__ import annotations

from typing import Iterator

from schema_history.record import HistoryRecord


class MemoryHistoryStore:
    def __init__(self) -> None:
        self._lines: list[str] = []

    def check_and_initialize(self) -> None:
        pass

    def append(self, record: HistoryRecord) -> None:
        # Keep the serialized form so what comes back is what a real store would give.
        self._lines.append(record.to_compact_json())

    def records(self) -> Iterator[HistoryRecord]:
        for line in list(self._lines):
            yield HistoryRecord.from_json(line)

    def exists(self) -> bool:
        return bool(self._lines)

    def close(self) -> None:
        pass
