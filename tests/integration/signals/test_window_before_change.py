"""Issue 28 (a lost update, fault seed 2861): a read-only window (MariaDB: the chunk query's consistent view,
snapshot/incremental/view_position.py) that a streamed change closes goes out *before* that change, at an offset
that does not cover it yet. The streaming handler counts a row as done before handing it on (`st.rows = index + 1`),
and the window's rows used to take that offset: a run that ended right after them (a SIGKILL after their commit,
or the next chunk's connection lost, RemainderInterrupted with its final commit) restarted past the change, and the
change never reached Kafka.

Driven with a real MariaDB: the chunk is read (its view V is the server's), a real UPDATE commits after V, and the
change reaches the incremental snapshot through the real SignalingEmitter with the streaming state the handler has
at that row; the dispatcher is an in-memory stand-in that records each record's offset.
"""
from __future__ import annotations

from typing import Any

from connector.offsets.position import SourceOffset
from connector.config.modes import Operation
from connector.events.changes import EventSource, RowChange
from connector.signals.processor import SignalingEmitter
from connector.streaming.handler import StreamingState
from schema_history.model import Column, Table, TableId
from snapshot.incremental.context import Collection, IncrementalContext
from snapshot.incremental.source import IncrementalSnapshot
from snapshot.incremental.view_position import ViewPositionWatermarks


class Schema:
    def __init__(self, table: Table) -> None:
        self._table = table

    def table_ids(self) -> list[TableId]:
        return [self._table.id]

    def table(self, table_id: TableId) -> Table | None:
        return self._table if table_id == self._table.id else None


class Records:
    """The dispatcher: every record sent, in order, with its offset."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple, SourceOffset]] = []
        self.state: StreamingState | None = None

    def snapshot_row(self, table_id: TableId, values: tuple, source: EventSource, offset: SourceOffset) -> None:
        self.sent.append(("r", tuple(values), offset))

    def wants_table(self, table_id: TableId) -> bool:
        return True

    def row_change(self, change: RowChange, source: EventSource, positions: Any) -> None:
        assert self.state is not None
        self.sent.append(("u", tuple(change.after or ()), self.state.offset()))


def test_a_window_closed_by_a_change_goes_out_at_an_offset_a_restart_streams_that_change_from(
        mariadb, unique_database) -> None:
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE d (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO d VALUES (1, 0), (2, 0), (3, 0);",
                    database=database)
    table_id = TableId(database, "d")
    table = Table(table_id, (Column("id", 1, 4, "INT", "INT"), Column("v", 2, 4, "INT", "INT")), ("id",))
    context = IncrementalContext()
    context.add("initial-snapshot-resume", [Collection(table_id)])
    records = Records()
    snapshot = IncrementalSnapshot(lambda: mariadb.connect(database, root=False), None, Schema(table), records,
                                   chunk_size=10, context=context, watermarks=ViewPositionWatermarks())
    try:
        _close_a_window_with_an_update(mariadb, database, table_id, snapshot, records)
    finally:
        snapshot._close()  # the chunk connection (no public close: streaming owns it for the process's life)


def _close_a_window_with_an_update(mariadb, database: str, table_id: TableId, snapshot: IncrementalSnapshot,
                                   records: Records) -> None:
    context = snapshot.context
    snapshot.read_chunk()  # the chunk's rows, as of its view V, wait in the window
    assert context.current is not None and snapshot.needs_rows(table_id)

    file, start = mariadb.binlog_position()  # the next transaction starts here, after V
    mariadb.run_sql("UPDATE d SET v = 7 WHERE id IN (2, 3);", database=database)

    # The handler at the update's first row: the transaction's events before the rows event are done, and the row
    # is counted before it is handed on (connector/streaming/handler.py: st.rows = index + 1).
    state = StreamingState(file=file, restart_pos=start, server_id=1, events=1, rows=1)
    records.state = state
    emitter = SignalingEmitter(records, state, None, snapshot)  # type: ignore[arg-type]
    source = EventSource(ts_ms=0, db=database, table="d", server_id=1, gtid=None, file=file, pos=start + 100, row=0,
                         thread=None)
    emitter.row_change(RowChange(table_id, Operation.UPDATE, [2, 0], [2, 7]), source, None)

    reads = [r for r in records.sent if r[0] == "r"]
    assert [values for _, values, _ in reads] == [(1, 0), (2, 0), (3, 0)], "the window goes out before the change"
    assert records.sent[-1][:2] == ("u", (2, 7)), "then the change"
    last_read = reads[-1][2]
    # A restart from the window's last row (its offset committed, the change's not) resumes in this transaction at
    # event 1, row `row`: the handler re-emits that event's rows from index `row` on, so the change (index 0) too.
    assert (last_read.file, last_read.pos, last_read.event) == (file, start, 1)
    assert last_read.row == 0, f"the window's offset covers the change it went out before: {last_read}"
