"""Blocking snapshots without servers: the statement check of their additional-conditions, and what a stored
BLOCKING offset means at start (the records themselves: goldens signals_blocking, signals_blocking-mysql)."""

from __future__ import annotations

import pytest

from connector.offsets.position import BLOCKING, INCREMENTAL, SourceOffset
from schema_history.model import TableId
from snapshot.blocking import StatementRejected, checked_statement

ORDERS = TableId("inventory", "orders")


@pytest.mark.parametrize("text, rendered", [
    ("SELECT * FROM inventory.orders WHERE qty > 2", "SELECT * FROM inventory.orders WHERE qty > 2"),
    ("select order_no, qty from orders where qty in (1, 2)", "SELECT order_no, qty FROM orders WHERE qty IN (1, 2)"),
    ("SELECT * FROM `inventory`.`orders` WHERE order_no LIKE 'A%'",
     "SELECT * FROM `inventory`.`orders` WHERE order_no LIKE 'A%'"),
])
def test_select_of_the_table_is_accepted_as_sqlglot_renders_it(text, rendered):
    assert checked_statement(text, ORDERS) == rendered


@pytest.mark.parametrize("text, reason", [
    ("qty > 2", "one SELECT"),  # Debezium runs this as the statement and fails: so do we, before any SQL
    ("SELECT * FROM inventory.orders; DROP TABLE inventory.orders", "one SELECT"),
    ("SELECT * FROM inventory.customers", "not inventory.orders"),
    ("SELECT * FROM inventory.orders WHERE qty IN (SELECT score FROM inventory.customers)", "not allowed"),
    ("SELECT * FROM inventory.orders UNION SELECT * FROM inventory.orders", "one SELECT"),
    ("SELECT * FROM inventory.orders -- hidden", "comments"),
    ("SELECT * FROM inventory.orders o JOIN inventory.customers c ON o.qty = c.id", "not inventory.orders"),
    ("SELECT * FROM inventory.orders FOR UPDATE", "not allowed"),
    ("SELECT 1", "does not read"),
])
def test_other_statements_are_refused(text, reason):
    with pytest.raises(StatementRejected, match=reason):
        checked_statement(text, ORDERS)


@pytest.mark.parametrize("snapshot, in_progress", [("INITIAL", True), (BLOCKING, False), (INCREMENTAL, False),
                                                   (None, False)])
def test_an_interrupted_blocking_snapshot_is_not_an_initial_one(snapshot, in_progress):
    offset = SourceOffset.from_map({"file": "mariadb-bin.000001", "pos": 2802, "event": 3,
                                    **({"snapshot": snapshot} if snapshot else {})})
    assert offset.snapshot_in_progress is in_progress


def test_snapshot_metrics_say_paused_and_start_afresh_for_each_snapshot():
    from snapshot.metrics import SnapshotMetrics

    m = SnapshotMetrics()
    m.started()
    m.tables([ORDERS])
    m.rows(ORDERS, 2)
    m.paused_changed(True)
    assert m.as_dict()["SnapshotPaused"] and m.as_dict()["RowsScanned"] == {"inventory.orders": 2}
    m.finished(aborted=True)
    assert not m.as_dict()["SnapshotPaused"] and m.as_dict()["SnapshotAborted"]
    m.started()  # the next (blocking or incremental) snapshot
    assert m.as_dict()["RowsScanned"] == {} and not m.as_dict()["SnapshotAborted"]


def test_snapshot_metrics_time_pauses_and_keep_a_table_bounds_across_its_chunks():
    from snapshot.metrics import SnapshotMetrics

    class Clock:
        now = 100.0

        def monotonic(self) -> float:
            return self.now

    clock = Clock()
    m = SnapshotMetrics(clock)
    m.snapshot_skipped()
    m.started()
    assert not m.as_dict()["SnapshotSkipped"]
    m.tables([ORDERS])
    m.current_chunk("c1", ("A-1", 1), ("A-1", 2), table_to=("B-7", 1))
    m.current_chunk("c2", ("B-7", 1), ("B-7", 1))  # a later chunk: the table's bounds stay
    d = m.as_dict()
    assert [d[k] for k in ("ChunkId", "ChunkFrom", "ChunkTo", "TableFrom", "TableTo")] == [
        "c2", "[B-7, 1]", "[B-7, 1]", "[A-1, 1]", "[B-7, 1]"]
    m.paused_changed(True)
    clock.now += 3
    assert m.as_dict()["SnapshotPausedDurationInSeconds"] == 3
    m.paused_changed(False)
    clock.now += 5
    m.table_completed(ORDERS, 3)
    d = m.as_dict()
    assert d["SnapshotPausedDurationInSeconds"] == 3 and d["RemainingTableCount"] == 0
    assert [d[k] for k in ("ChunkId", "ChunkFrom", "ChunkTo", "TableFrom", "TableTo")] == [None] * 5
