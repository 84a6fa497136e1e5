"""The snapshot's `SnapshotEmitter` (snapshot/emitter.py) over the dispatcher, with the daemon's housekeeping."""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from connector.offsets.position import SourceOffset
from connector.dispatch.dispatcher import Dispatcher
from connector.dispatch.snapshot_text_rows import SnapshotTextRows
from connector.events.changes import EventSource

__all__ = ["DispatcherSnapshotEmitter"]


class DispatcherSnapshotEmitter:
    """Snapshot → dispatcher, with the daemon's housekeeping (acks, offset commits, status file) while rows flow."""

    # Committing and the status file are time-based: looking at the clock every row costs ~5% of the
    # snapshot's throughput, every 256 rows nothing.
    HOUSEKEEPING_EVERY = 256

    def __init__(self, dispatcher: Dispatcher, housekeeping: Callable[[], None]) -> None:
        self._dispatcher = dispatcher
        self._housekeeping = housekeeping
        self._rows = 0

    def schema_statement(self, database: str, ddl: str, source: Any, offset: SourceOffset) -> None:
        self._dispatcher.schema_statement(database, ddl, source, offset)

    def snapshot_row(self, table_id: Any, values: tuple, source: Any, offset: SourceOffset) -> None:
        self._dispatcher.snapshot_row(table_id, values, source, offset)
        self._row_done()

    def snapshot_text_rows(self, table_id: Any, decoders: list) -> "_CountedTextRows | None":
        emit = self._dispatcher.snapshot_text_rows(table_id, decoders)
        return None if emit is None else _CountedTextRows(emit, self)

    def checkpoint(self, offset: SourceOffset) -> None:
        self._dispatcher.tracker.observe(offset.to_map())
        self._housekeeping()

    def topic_of(self, table_id: Any) -> str:
        return self._dispatcher.topic_of(table_id)

    def snapshot_delete(self, table_id: Any, before: Sequence[Any], offset: SourceOffset) -> None:
        """snapshot/ghost_rows.py: a delete of a row an earlier attempt of this snapshot sent, gone now."""
        source = EventSource(ts_ms=int(time.time() * 1000), db=table_id.database, table=table_id.table, server_id=0,
                             gtid=None, file=offset.file, pos=offset.pos, row=0, thread=None, snapshot="true")
        self._dispatcher.snapshot_delete(table_id, before, source, offset)
        self._row_done()

    def _row_done(self) -> None:
        self._rows += 1
        if self._rows % self.HOUSEKEEPING_EVERY == 0:
            self._housekeeping()

    def _rows_done(self, count: int) -> None:
        before = self._rows
        self._rows += count
        if before // self.HOUSEKEEPING_EVERY != self._rows // self.HOUSEKEEPING_EVERY:
            self._housekeeping()

    def table_known(self, table_id: Any) -> bool:
        return self._dispatcher.table_known(table_id)

    def wants_table(self, table_id: Any) -> bool:
        return self._dispatcher.wants_table(table_id)

    def replay_snapshot_schema(self, tables: Any) -> None:
        self._dispatcher.replay_snapshot_schema(tables)

    def table_columns(self, table_id: Any) -> tuple[list[str], tuple[str, ...]]:
        table = self._dispatcher.schema.table(table_id)
        if table is None:
            return [], ()
        return table.column_names(), tuple(table.primary_key_column_names)


class _CountedTextRows:
    """The dispatcher's `SnapshotTextRows` with the emitter's row count (its housekeeping) kept."""

    __slots__ = ("_emit", "_owner")

    def __init__(self, emit: SnapshotTextRows, owner: DispatcherSnapshotEmitter) -> None:
        self._emit, self._owner = emit, owner

    def __call__(self, raw: list, source: Any, offset: Any) -> None:
        self._emit(raw, source, offset)
        self._owner._row_done()

    def group(self, raws: Sequence[list], first: Any, source: Any, offset: SourceOffset) -> None:
        self._emit.group(raws, first, source, offset)
        self._owner._rows_done(len(raws))
