"""Table order, statements and streaming choice of the snapshot plan; Java collection orders; lock table."""
from __future__ import annotations

import pytest

from connector.config.families import select_overrides
from connector.config.modes import SnapshotLockingMode
from connector.errors import ConfigError
from schema_history.model import TableId
from connector.java.collection_order import hash_map_order, hash_set_order, put_all_capacity
from connector.java.hashmap import java_string_hash
from snapshot.locking import BACKUP_LOCK, FTWRL, STRATEGIES
from snapshot.metrics import SnapshotMetrics
from snapshot.plan import SnapshotQueries, include_list_order, plan_reads

SHOP = [TableId("shop", t) for t in ("customers", "empty_one", "events_log", "orders")]
ESTIMATES = {"shop.customers": 5, "shop.empty_one": 0, "shop.events_log": 2, "shop.orders": 12, "audit.trail": 3}


def estimate(t: TableId) -> int | None:
    return ESTIMATES.get(t.dotted())


def test_java_string_hash_matches_java():
    # values of "…".hashCode() in Java, as unsigned 32-bit
    assert java_string_hash("") == 0
    assert java_string_hash("shop.customers") == 456257373
    assert java_string_hash("é€𝄞") == 16751501  # UTF-16 code units, surrogate pair included


def test_hash_map_order_is_debeziums_lock_free_show_create_order():
    # recorded by Debezium 3.6.3 with snapshot.locking.mode=none (golden snapshot-none)
    assert [t.table for t in hash_map_order(SHOP)] == ["empty_one", "events_log", "customers", "orders"]
    assert [put_all_capacity(n) for n in (1, 2, 3, 4, 6, 7, 12, 13)] == [2, 4, 4, 8, 8, 16, 16, 32]


def test_hash_set_order_is_debeziums_delayed_schema_order():
    delayed = [TableId("shop", "empty_one"), TableId("shop", "events_log")]
    # golden snapshot-percona: events_log before empty_one
    assert [t.table for t in hash_set_order(delayed, 5)] == ["events_log", "empty_one"]


def test_include_list_order_follows_patterns_then_names():
    tables = sorted(SHOP + [TableId("audit", "trail")])
    assert include_list_order(tables, ()) == tables
    ordered = include_list_order(tables, (r"shop\.orders", r"audit\..*", r"shop\..*"))
    assert [t.dotted() for t in ordered] == ["shop.orders", "audit.trail", "shop.customers", "shop.empty_one",
                                             "shop.events_log"]


def test_plan_include_overrides_and_row_count_order():
    q = SnapshotQueries((r"shop\.orders", r"shop\.customers", r"shop\.events_log"),
                        {"shop.orders": "SELECT * FROM shop.orders WHERE id > 3"}, "descending", 3, None)
    reads = plan_reads(SHOP, q, estimate)
    assert [r.table_id.table for r in reads] == ["customers", "events_log", "orders"]  # override: no estimate (0)
    assert reads[2].select == "SELECT * FROM shop.orders WHERE id > 3" and reads[2].estimate is None
    assert reads[0].select == "SELECT * FROM `shop`.`customers`"
    assert [r.streaming for r in reads] == [True, False, True]  # 5 > 3 streamed; override streamed
    asc = plan_reads(SHOP, SnapshotQueries(order_by_row_count="ascending"), estimate)
    assert [r.table_id.table for r in asc] == ["empty_one", "events_log", "customers", "orders"]
    off = plan_reads(SHOP, SnapshotQueries(min_rows_to_stream=0), estimate)
    assert not any(r.streaming for r in off)  # 0 turns streaming off, as in Debezium


def test_plan_refuses_bad_settings():
    with pytest.raises(ConfigError, match="ascending"):
        SnapshotQueries(order_by_row_count="sideways")
    problems: list[str] = []
    assert select_overrides({"snapshot.select.statement.overrides": "shop.orders"}, problems) == {}
    assert problems and "snapshot.select.statement.overrides.shop.orders is not set" in problems[0]


def test_lock_strategies_table():
    s = STRATEGIES
    assert s[SnapshotLockingMode.MINIMAL].global_lock_sql == FTWRL and s[SnapshotLockingMode.MINIMAL].minimal
    assert not s[SnapshotLockingMode.EXTENDED].minimal
    assert s[SnapshotLockingMode.MINIMAL_PERCONA].global_lock_sql == BACKUP_LOCK
    assert not s[SnapshotLockingMode.MINIMAL_PERCONA].resets_isolation
    assert not s[SnapshotLockingMode.MINIMAL_PERCONA_NO_TABLE_LOCKS].table_locks
    assert not s[SnapshotLockingMode.NONE].locking


def test_metrics_names():
    m = SnapshotMetrics()
    m.started()
    m.tables([TableId("a", "b"), TableId("a", "c")])
    m.lock_changed(True)
    m.table_started(TableId("a", "b"), 10)
    m.table_completed(TableId("a", "b"), 7)
    d = m.as_dict()
    assert d["SnapshotRunning"] and d["HoldingGlobalLock"] and d["TotalTableCount"] == 2
    assert d["RemainingTableCount"] == 1 and d["RowsScanned"] == {"a.b": 7}
    m.finished()
    d = m.as_dict()
    assert d["SnapshotCompleted"] and not d["SnapshotRunning"] and not d["HoldingGlobalLock"]
