"""Snapshot step 7 with one reader: every planned table read on the snapshot connection, emitted as op=r
records with Debezium's `snapshot` markers; each record's offset says how far a resumable snapshot got.

The snapshot's last record is only known once the next row (or table) has been looked at, so every row is
emitted one step late; the very last one is handed back (`Finish`) so that what Debezium writes before it
(the delayed schema of unlocked tables) can still come first.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import pymysql

from connector.offsets.position import SourceOffset
from connector.events.snapshot_text import Decoder
from connector.events.changes import EventSource
from schema_history.model import TableId
from snapshot.chunks import ChunkReader
from snapshot.emitter import GroupRowWriter, RowWriter, SnapshotEmitter
from snapshot.markers import MARKER_FIRST, MARKER_FIRST_IN_TABLE, MARKER_LAST, MARKER_LAST_IN_TABLE, MARKER_TRUE
from snapshot.metrics import SnapshotMetrics
from snapshot.plan import TableRead
from snapshot.raw_rows import decode
from snapshot.resume import ResumeOffsets, encode_key

log = logging.getLogger(__name__)

__all__ = ["DataSources", "DataStep", "Finish", "marker", "read_serially", "row_writer"]

DEFAULT_FETCH_SIZE = 2000
# Rows of a batch sent as one group (GroupRowWriter): one offset and one delivery callback per group; small enough
# that housekeeping (acks, offset commits, the status file) still runs every few hundred rows.
GROUP_ROWS = 256

# Emits the snapshot's last record (with the completed offset), or None when no row was read.
Finish = Callable[[], None] | None


@dataclass(frozen=True)
class DataStep:
    """What the data step writes to and how it reads: shared by the one-reader and the parallel snapshot."""

    emitter: SnapshotEmitter
    metrics: SnapshotMetrics
    should_stop: Callable[[], bool]
    fetch_size: int = DEFAULT_FETCH_SIZE  # snapshot.fetch.size: rows per fetch from a streamed result
    progress_interval_s: float = 10.0


class DataSources:
    """The `source` of snapshot data records: one EventSource per table, marker and batch clock, so that the
    dispatcher renders each source block once (it caches the JSON per EventSource object)."""

    def __init__(self, offset: SourceOffset) -> None:
        self._offset = offset
        self._cache: dict[tuple[TableId, str], EventSource] = {}

    def get(self, table_id: TableId, mark: str, ts_ms: int) -> EventSource:
        source = self._cache.get((table_id, mark))
        if source is None or source.ts_ms != ts_ms:
            offset = self._offset
            source = self._cache[(table_id, mark)] = EventSource(
                ts_ms=ts_ms, db=table_id.database, table=table_id.table, server_id=0, gtid=None, file=offset.file,
                pos=offset.pos, row=0, thread=None, snapshot=mark)
        return source


def marker(table_index: int, table_count: int, row_index: int, is_last_row: bool) -> str:
    """Debezium's SnapshotMarkerResolver: first/last of the whole snapshot win over per-table markers, and
    "last" wins over "first" (a single-row table in the middle is last_in_data_collection)."""
    first_table = table_index == 0
    last_table = table_index == table_count - 1
    if last_table and is_last_row:
        return MARKER_LAST
    if first_table and row_index == 0:
        return MARKER_FIRST
    if is_last_row:
        return MARKER_LAST_IN_TABLE
    if row_index == 0:
        return MARKER_FIRST_IN_TABLE
    return MARKER_TRUE


def row_writer(emitter: SnapshotEmitter, table_id: TableId, decoders: list[Decoder] | None) -> RowWriter:
    """Rows of one table → the emitter: PyMySQL tuples, or raw rows through its text writer, or raw rows
    decoded as PyMySQL would when it has none."""
    if decoders is None:
        return partial(emitter.snapshot_row, table_id)
    fast = emitter.snapshot_text_rows(table_id, decoders)
    if fast is not None:
        return fast
    emit = emitter.snapshot_row

    def decoded(raw: Any, source: EventSource, offset: Any) -> None:
        emit(table_id, tuple(decode(v, d) for v, d in zip(raw, decoders)), source, offset)
    return decoded


def read_serially(conn: pymysql.connections.Connection, reads: Sequence[TableRead], offset: SourceOffset,
                  step: DataStep, resumable: bool) -> tuple[int, Finish]:
    """Emits every row but the last; returns the row count and what emits the last one (module docstring)."""
    total = 0
    count = len(reads)
    metrics = step.metrics
    in_progress = offset
    in_progress_map = ResumeOffsets(in_progress)
    done = offset.with_(snapshot=None)
    # (writer of its table, table, row, table index, row index, offset) of the row emitted one step late; the
    # offset is set once its table is done (taken before the next table's key columns replace its own)
    pending: tuple[RowWriter, TableId, Any, int, int, Any] | None = None
    ts_ms = int(time.time()) * 1000
    key_index: list[int] = []
    key_decoders: list[Decoder] | None = None  # raw rows: PyMySQL's decoding of the key columns
    table_name = ""

    def progress(values: Any) -> Any:
        """The in-progress offset, with where the snapshot got to when resumable."""
        if not resumable:
            return in_progress
        if not key_index:
            return in_progress_map.at(table_name, None)
        if key_decoders is None:
            return in_progress_map.at(table_name, encode_key([values[i] for i in key_index]))
        return in_progress_map.at(table_name, encode_key([decode(values[i], d)
                                                          for i, d in zip(key_index, key_decoders)]))

    source_for = DataSources(offset).get
    if resumable and reads:
        # Before the first row: a restart now resumes (snapshot/remainder.py) instead of starting over, so even a
        # kill before the first acknowledged row leaves no row of this attempt unaccounted for (ghost rows), and
        # the schema just recorded is not recorded again.
        step.emitter.checkpoint(in_progress_map.at(reads[0].table_id.identifier(), None))

    def flush(is_last_row: bool, final: bool) -> None:
        emit_p, table_id, values, t_index, r_index, row_offset = pending  # type: ignore[misc]
        # The snapshot's last record is `last` even when the tables after its own were empty (Debezium marks
        # the record it buffered when the snapshot completes; reference run longtail)
        mark = MARKER_LAST if final else marker(t_index, count, r_index, is_last_row)
        source = source_for(table_id, mark, ts_ms)
        emit_p(values, source, done if final else row_offset if row_offset is not None else progress(values))

    for t_index, read in enumerate(reads):
        if step.should_stop():
            raise InterruptedError("snapshot interrupted by shutdown")
        table_id = read.table_id
        estimate = read.estimate or 0
        started = last_log = time.monotonic()
        metrics.table_started(table_id, estimate)
        log.info("Exporting data from table '%s' (%d of %d tables, ~%d rows)", table_id.dotted(),
                 t_index + 1, count, estimate)
        if pending is not None and pending[5] is None:
            # the previous table's last row waits for the next row actually read: when only empty tables
            # follow, it is the snapshot's last record
            pending = pending[:5] + (progress(pending[2]),)
        reader = ChunkReader(conn, read.scan, step.fetch_size, read.streaming)
        try:
            # Streamed rows go raw to the emitter's per-table text writer when it has one (snapshot/raw_rows.py:
            # no PyMySQL decoding, same bytes); buffered ones as PyMySQL's tuples to `snapshot_row`.
            decoders = reader.open()
            emit_table = row_writer(step.emitter, table_id, decoders)
            if resumable:
                key_index = reader.key_index
                key_decoders = [decoders[i] for i in key_index] if decoders is not None else None
                table_name = table_id.identifier()
            group_write = emit_table.group if isinstance(emit_table, GroupRowWriter) else None
            r_index = 0
            for batch in reader:
                ts_ms = int(time.time()) * 1000
                if group_write is not None and len(batch) > 1:
                    # All but the batch's last row go in groups (none of them is its table's last: the batch's
                    # last row comes after them); the last one is held back as `pending`, as below.
                    if pending is not None:
                        emit_p, table_p, values_p, t_p, r_p, offset_p = pending
                        emit_p(values_p, source_for(table_p, marker(t_p, count, r_p, offset_p is not None), ts_ms),
                               progress(values_p) if offset_p is None else offset_p)
                    held = len(batch) - 1
                    rest = source_for(table_id, MARKER_TRUE, ts_ms)
                    for start in range(0, held, GROUP_ROWS):
                        rows = batch[start:min(start + GROUP_ROWS, held)]
                        group_write(rows, source_for(table_id, marker(t_index, count, r_index + start, False), ts_ms),
                                    rest, progress(rows[-1]))
                    pending = (emit_table, table_id, batch[held], t_index, r_index + held, None)
                    r_index += len(batch)
                else:
                    for values in batch:
                        if pending is not None:  # flush(is_last_row=False, final=False), inlined: once per row
                            emit_p, table_p, values_p, t_p, r_p, offset_p = pending  # offset_p: a table's last row
                            emit_p(values_p, source_for(table_p, marker(t_p, count, r_p, offset_p is not None), ts_ms),
                                   progress(values_p) if offset_p is None else offset_p)
                        pending = (emit_table, table_id, values, t_index, r_index, None)
                        r_index += 1
                total += len(batch)
                metrics.rows(table_id, r_index)
                now = time.monotonic()
                if now - last_log >= step.progress_interval_s:
                    rate = r_index / max(now - started, 1e-6)
                    eta = max(estimate - r_index, 0) / rate if rate else 0
                    log.info("Exported %d of ~%d rows from '%s' (%.0f rows/s, ETA %.0f s)", r_index, estimate,
                             table_id.dotted(), rate, eta)
                    last_log = now
                    if step.should_stop():
                        raise InterruptedError("snapshot interrupted by shutdown")
        finally:
            reader.close()
        metrics.table_completed(table_id, r_index)
        elapsed = time.monotonic() - started
        log.info("Finished exporting %d records for table '%s' (%d of %d tables); total duration %.3f s "
                 "(%.0f rows/s)", r_index, table_id.dotted(), t_index + 1, count, elapsed,
                 r_index / max(elapsed, 1e-6))
    if pending is None:
        return total, None
    return total, lambda: flush(is_last_row=True, final=True)
