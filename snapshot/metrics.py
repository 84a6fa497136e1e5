"""Snapshot progress under Debezium's snapshot metric names (`SnapshotChangeEventSourceMetricsMXBean`), for the
initial snapshot and, as in Debezium, the blocking and incremental snapshots signals ask for.

Written only by the snapshot thread; `as_dict()` is a consistent-enough copy for a status file or
a metrics endpoint on another thread (each attribute is a single reference assignment).
"""

from __future__ import annotations

import time
from typing import Any, Protocol, Sequence

from connector.java.key_text import arrays_to_string
from schema_history.model import TableId


class TableProgress(Protocol):
    """Told when a table's reading starts and ends (the initial snapshot's notifications, which Debezium sends
    from the same places as these metrics)."""

    def table_started(self, table_id: TableId) -> None: ...
    def table_completed(self, table_id: TableId, rows: int) -> None: ...


class SnapshotMetrics:
    def __init__(self, clock: Any = time) -> None:
        self._clock = clock
        self.running = False
        self.completed = False
        self.aborted = False
        self.paused = False  # incremental snapshots: pause-snapshot / resume-snapshot
        self.holding_global_lock = False
        self.total_table_count = 0
        self.remaining_table_count = 0
        self.captured_tables: list[str] = []
        self.rows_scanned: dict[str, int] = {}
        self.row_estimates: dict[str, int] = {}
        self._started: float | None = None
        self._stopped: float | None = None
        self._reading: list[TableId] = []  # started, not completed
        self.skipped = False  # the last start took no snapshot (additive, as Debezium's SnapshotSkipped)
        self._paused_at: float | None = None
        self._paused_s = 0.0
        # incremental snapshots: the chunk being read, as SnapshotMeter.currentChunk keeps it (Arrays.toString
        # of the first and last key read, and of the table's first and maximum key)
        self.chunk_id: str | None = None
        self.chunk_from: str | None = None
        self.chunk_to: str | None = None
        self.table_from: str | None = None
        self.table_to: str | None = None
        # set by the initial snapshot for its run only (incremental snapshots notify on their own)
        self.progress: TableProgress | None = None

    # ---------------------------------------------------------------- updates (snapshot thread)
    def started(self) -> None:
        self.running, self.completed, self.aborted, self.paused = True, False, False, False
        self.rows_scanned, self.row_estimates, self._reading = {}, {}, []
        self._started, self._stopped = self._clock.monotonic(), None
        self.skipped, self._paused_at, self._paused_s = False, None, 0.0
        self.current_chunk(None, None, None, table_to=None)

    def snapshot_skipped(self) -> None:
        self.skipped = True

    def current_chunk(self, chunk_id: str | None, first: Sequence[Any] | None, last: Sequence[Any] | None,
                      *, table_to: Sequence[Any] | None | bool = False) -> None:
        """A chunk was read; `table_to` (the table's maximum key) only with its first chunk, which also sets
        TableFrom (False: a later chunk, the table's bounds stay)."""
        self.chunk_id, self.chunk_from, self.chunk_to = chunk_id, arrays_to_string(first), arrays_to_string(last)
        if table_to is not False:
            assert not isinstance(table_to, bool)
            self.table_from, self.table_to = self.chunk_from, arrays_to_string(table_to)

    def tables(self, tables: list[TableId]) -> None:
        self.captured_tables = [t.dotted() for t in tables]
        self.total_table_count = self.remaining_table_count = len(tables)

    def paused_changed(self, paused: bool) -> None:
        now = self._clock.monotonic()
        if paused and not self.paused:
            self._paused_at = now
        elif not paused and self._paused_at is not None:
            self._paused_s += now - self._paused_at
            self._paused_at = None
        self.paused = paused

    def lock_changed(self, holding: bool) -> None:
        self.holding_global_lock = holding

    def table_started(self, table_id: TableId, estimate: int) -> None:
        self.row_estimates[table_id.dotted()] = estimate
        self.rows_scanned[table_id.dotted()] = 0
        self._reading.append(table_id)
        if self.progress is not None:
            self.progress.table_started(table_id)

    def rows(self, table_id: TableId, count: int) -> None:
        self.rows_scanned[table_id.dotted()] = count

    def table_completed(self, table_id: TableId, count: int) -> None:
        self.rows_scanned[table_id.dotted()] = count
        self.remaining_table_count = max(0, self.remaining_table_count - 1)
        self.current_chunk(None, None, None, table_to=None)  # as Debezium's tableScanCompleted
        if table_id in self._reading:
            self._reading.remove(table_id)
        if self.progress is not None:
            self.progress.table_completed(table_id, count)

    def finished(self, aborted: bool = False) -> None:
        self.paused_changed(False)
        self.running = self.paused = False
        self.completed, self.aborted = not aborted, aborted
        self.holding_global_lock = False
        self._stopped = self._clock.monotonic()

    # ---------------------------------------------------------------- reading
    def duration_s(self) -> int:
        if self._started is None:
            return 0
        end = self._stopped if self._stopped is not None else self._clock.monotonic()
        return int(end - self._started)

    def reading(self) -> list[TableId]:
        """The tables whose reading started and did not complete."""
        return list(self._reading)

    def paused_s(self) -> int:
        running = self._clock.monotonic() - self._paused_at if self._paused_at is not None else 0.0
        return int(self._paused_s + running)

    def as_dict(self) -> dict[str, Any]:
        return {
            "SnapshotRunning": self.running,
            "SnapshotCompleted": self.completed,
            "SnapshotAborted": self.aborted,
            "SnapshotPaused": self.paused,
            "SnapshotSkipped": self.skipped,
            "SnapshotDurationInSeconds": self.duration_s(),
            "SnapshotPausedDurationInSeconds": self.paused_s(),
            "HoldingGlobalLock": self.holding_global_lock,
            "TotalTableCount": self.total_table_count,
            "RemainingTableCount": self.remaining_table_count,
            "CapturedTables": list(self.captured_tables),
            "RowsScanned": dict(self.rows_scanned),
            "ChunkId": self.chunk_id,
            "ChunkFrom": self.chunk_from,
            "ChunkTo": self.chunk_to,
            "TableFrom": self.table_from,
            "TableTo": self.table_to,
        }
