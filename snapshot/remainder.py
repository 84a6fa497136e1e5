"""The rest of an interrupted initial snapshot, read as an incremental snapshot beside streaming.

A restart that finds an interrupted initial snapshot (its offset says: position P1, table T, key K; see
snapshot/resume.py) opens no new consistent snapshot. It keeps the schema history recorded at P1, streams
from P1, and reads what remains — T after K, then the tables the plan puts after T — as DBLog chunks
between watermarks in the signal table (snapshot/incremental/source.py). That is what keeps every key's
records in commit order: a chunk's rows are read after its open watermark and emitted at its close
watermark, and a binlog change of a key in the open chunk drops that row from the chunk, so a row read
never overtakes a change streamed before or after it. Changes and DDL between P1 and now are streamed
(deletes included: no ghost rows), so no ALTER forces the snapshot to start over.

The remainder's records are snapshot reads (op=r) with `source.snapshot=incremental` and the incremental
snapshot's offset keys (`incremental_snapshot_*`, the correlation id `RESUME_CORRELATION_ID`): a kill while
it runs continues after the last acknowledged chunk row, as any incremental snapshot does.

`remainder_context` raises ResumeInvalid, before anything is sent, when the remainder cannot be read this
way (a table without a primary key, a key type without an encoding, a `snapshot.select.statement.overrides`
statement, a table no longer in the plan); the start decision then starts the snapshot over.
"""

from __future__ import annotations

import logging
from typing import Callable, Protocol, Sequence

import pymysql

from connector.offsets.position import SourceOffset
from connector.errors import RetriableError, ServerSetupError, SourceError, Where
from connector.offsets.parts import IncrementalSnapshotSlot
from schema_history.model import Table, TableId
from snapshot.incremental.context import Collection, IncrementalContext, java_key_type
from snapshot.plan import SnapshotQueries, plan_reads
from snapshot.resume import ResumeInvalid, ResumePoint

__all__ = ["RESUME_CORRELATION_ID", "KnownTables", "RemainderInterrupted", "refuse_skip", "remainder_context",
           "resumed_offset"]

log = logging.getLogger(__name__)

# The incremental snapshot's "signal id" for the remainder (in the offsets and the log).
RESUME_CORRELATION_ID = "initial-snapshot-resume"


class KnownTables(Protocol):
    """The schema as recovered at the interrupted snapshot's position (the schema tracker)."""

    def table_ids(self) -> list[TableId]: ...

    def table(self, table_id: TableId) -> Table | None: ...


def remainder_context(point: ResumePoint, tables: KnownTables, included: Callable[[TableId], bool],
                      queries: SnapshotQueries) -> IncrementalContext:
    """The incremental snapshot of the interrupted table after the resume key and of the tables after it, in the
    order the initial snapshot reads them (snapshot/plan.py); `included`: the table filters."""
    captured = [t for t in tables.table_ids() if included(t)]
    order = [r.table_id for r in plan_reads(captured, queries, lambda _t: None)]
    if point.table not in order:
        raise ResumeInvalid(f"table {point.table.dotted()} is no longer part of the snapshot")
    remaining = order[order.index(point.table):]
    for table_id in remaining:
        _check_readable(table_id, tables.table(table_id), queries)
    context = IncrementalContext()
    context.add(RESUME_CORRELATION_ID, [Collection(t) for t in remaining])
    first = tables.table(point.table)
    assert first is not None
    if point.key is not None and len(point.key) == len(first.primary_key_column_names):
        # as a stored incremental offset: the next chunk starts after the last acknowledged key
        context.chunk_end = context.last_sent = tuple(point.key)
    log.info("Resuming the interrupted snapshot as an incremental snapshot beside streaming: %s after key %s, "
             "then %d more table(s) (snapshot/remainder.py)", point.table.dotted(), context.chunk_end,
             len(remaining) - 1)
    return context


def _check_readable(table_id: TableId, table: Table | None, queries: SnapshotQueries) -> None:
    if table is None:
        raise ResumeInvalid(f"table {table_id.dotted()} has no schema in the history")
    if table_id.dotted() in queries.overrides:
        raise ResumeInvalid(f"table {table_id.dotted()} is read with snapshot.select.statement.overrides, which "
                            f"chunks cannot apply")
    key: Sequence[str] = table.primary_key_column_names
    if not key:
        raise ResumeInvalid(f"table {table_id.dotted()} has no primary key to read it in chunks")
    for name in key:
        column = table.column(name)
        if column is None:
            raise ResumeInvalid(f"table {table_id.dotted()}: key column {name} is not in its schema")
        try:
            java_key_type(column)
        except TypeError as exc:
            raise ResumeInvalid(f"table {table_id.dotted()}: {exc}") from None


def resumed_offset(interrupted: SourceOffset, context: IncrementalContext) -> SourceOffset:
    """Where streaming starts: the interrupted snapshot's position, no longer a snapshot offset, carrying the
    remainder's incremental snapshot keys (so that the first record streamed already says what remains)."""
    slot: IncrementalSnapshotSlot | None = context.slot()
    return interrupted.with_(snapshot=None, parts=(slot,) if slot is not None else ())


class RemainderInterrupted(SourceError, RetriableError):
    """The connection dropped while a chunk of the remainder was read. The active run ends (after its final
    commit) rather than reconnecting in place: the streaming loop's reconnect would replay the binlog without the
    chunk's watermarks, and the remainder would wait for them forever. The next run, in the same process once the
    database answers (connector/snapshot_wiring.py), continues it."""


# Server-side codes of a connection that went away (shutdown, killed, idle timeout); client codes are >= 2000.
_GONE = (1053, 1927, 4031)


def _connection_lost(exc: Exception) -> bool:
    if isinstance(exc, pymysql.err.InterfaceError):
        return True
    code = exc.args[0] if isinstance(exc, pymysql.err.OperationalError) and exc.args else None
    return isinstance(code, int) and (code >= 2000 or code in _GONE)


def refuse_skip(correlation_id: str | None, table_id: TableId, exc: Exception) -> None:
    """The incremental snapshot's `on_skip`: an ad hoc snapshot skips a table it cannot read, but the remainder
    of the initial snapshot must not (its rows would be lost): stop with the reason. The offset still says
    what remains, so the restart after the fix continues it."""
    if correlation_id != RESUME_CORRELATION_ID:
        return
    where = Where(table=table_id.dotted())
    if _connection_lost(exc):
        raise RemainderInterrupted(f"connection lost while reading the rest of the interrupted initial snapshot "
                                   f"({exc})", where=where,
                                   fix="restart when the database is reachable: the snapshot continues") from exc
    raise ServerSetupError(
        f"cannot read the rest of the interrupted initial snapshot in chunks ({exc})", where=where,
        fix="give the connector's user INSERT on the signal.data.collection table (watermarks) and SELECT on the "
            "table, then restart; or delete the stored offsets to take the snapshot again from the start") from exc
