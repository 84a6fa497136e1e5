"""The rest of an interrupted initial snapshot as an incremental snapshot (snapshot/remainder.py): which tables,
after which key, in which order, and when it cannot be read that way."""
from __future__ import annotations

import pymysql
import pytest

from connector.offsets.position import SourceOffset
from connector.errors import ServerSetupError
from connector.offsets.parts import IncrementalSnapshotSlot
from schema_history.model import Column, Table, TableId
from snapshot.incremental.context import IncrementalContext
from snapshot.plan import SnapshotQueries
from snapshot.remainder import (
    RESUME_CORRELATION_ID,
    RemainderInterrupted,
    refuse_skip,
    remainder_context,
    resumed_offset,
)
from snapshot.resume import ResumeInvalid, ResumePoint, SnapshotResume

INT = Column("id", 1, 4, "INT", "INT")
BLOB_KEY = Column("k", 1, 2004, "BLOB", "BLOB")


class Schema:
    def __init__(self, *tables: Table) -> None:
        self._tables = {t.id: t for t in tables}

    def table_ids(self) -> list[TableId]:
        return list(self._tables)

    def table(self, table_id: TableId) -> Table | None:
        return self._tables.get(table_id)


def keyed(db: str, name: str) -> Table:
    return Table(TableId(db, name), (INT,), ("id",))


SCHEMA = Schema(keyed("db", "c"), keyed("db", "a"), keyed("db", "b"), keyed("other", "x"))
CAPTURED = {TableId("db", "a"), TableId("db", "b"), TableId("db", "c")}.__contains__


def test_the_interrupted_table_after_its_key_then_the_later_tables_in_plan_order() -> None:
    context = remainder_context(ResumePoint(TableId("db", "b"), (41,)), SCHEMA, CAPTURED, SnapshotQueries())
    assert [c.table for c in context.collections] == [TableId("db", "b"), TableId("db", "c")]
    assert context.chunk_end == context.last_sent == (41,)
    assert context.correlation_id == RESUME_CORRELATION_ID
    # table.include.list order, as the initial snapshot read them
    ordered = remainder_context(ResumePoint(TableId("db", "c"), None), SCHEMA, CAPTURED,
                                SnapshotQueries(table_include_order=("db.c", "db.a", "db.b")))
    assert [c.table.table for c in ordered.collections] == ["c", "a", "b"]
    assert ordered.chunk_end is None  # no resumable key: the table is read from its start


@pytest.mark.parametrize("schema, queries, reason", [
    (Schema(keyed("db", "a"), Table(TableId("db", "b"), (INT,), ())), SnapshotQueries(), "no primary key"),
    (Schema(keyed("db", "a"), Table(TableId("db", "b"), (BLOB_KEY,), ("k",))), SnapshotQueries(), "BLOB"),
    (Schema(keyed("db", "a"), keyed("db", "b")), SnapshotQueries(overrides={"db.b": "SELECT 1"}), "overrides"),
    (Schema(keyed("db", "b")), SnapshotQueries(), "no longer part of the snapshot"),
])
def test_a_remainder_that_chunks_cannot_read_is_refused(schema: Schema, queries: SnapshotQueries,
                                                         reason: str) -> None:
    with pytest.raises(ResumeInvalid, match=reason):
        remainder_context(ResumePoint(TableId("db", "a"), (1,)), schema, CAPTURED, queries)


def test_streaming_starts_at_the_interrupted_position_with_the_remainder_in_its_offset() -> None:
    interrupted = SourceOffset("bin.000002", 1234, snapshot="true",
                               parts=(SnapshotResume('"db"."b"', "[41]"),))
    context = remainder_context(ResumePoint(TableId("db", "b"), (41,)), SCHEMA, CAPTURED, SnapshotQueries())
    offset = resumed_offset(interrupted, context)
    stored = offset.to_map()
    assert (offset.file, offset.pos, offset.snapshot) == ("bin.000002", 1234, None)
    assert "snapshot" not in stored and "snapshot_resume_table" not in stored
    slot = offset.part(IncrementalSnapshotSlot)
    assert slot is not None
    # a kill before the first chunk: the stored offset continues after the same key
    again = IncrementalContext.load(stored)
    assert [c.table for c in again.collections] == [TableId("db", "b"), TableId("db", "c")]
    assert again.chunk_end == (41,) and again.correlation_id == RESUME_CORRELATION_ID


def test_the_remainder_never_skips_a_table_but_an_ad_hoc_snapshot_does() -> None:
    table = TableId("db", "b")
    denied = pymysql.err.OperationalError(1142, "INSERT command denied")
    refuse_skip("some-signal", table, denied)  # an execute-snapshot signal: logged and skipped by the caller
    with pytest.raises(ServerSetupError, match="INSERT on the signal.data.collection table"):
        refuse_skip(RESUME_CORRELATION_ID, table, denied)
    with pytest.raises(RemainderInterrupted, match="db.b"):
        refuse_skip(RESUME_CORRELATION_ID, table, pymysql.err.OperationalError(2013, "Lost connection"))
    with pytest.raises(ServerSetupError, match="INSERT on the signal.data.collection table"):
        refuse_skip(RESUME_CORRELATION_ID, table, pymysql.err.ProgrammingError(1146, "no such table"))
