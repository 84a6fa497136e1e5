"""`notification.enabled.channels=log` through the CLI: a real `binlog-cdc run` on MariaDB writes Debezium's
`[Notification Service]  {...}` lines for its initial snapshot, and SKIPPED when a restart takes none (the sink channel's records are pinned to real
Debezium by the goldens notifications*, which use the same notifications)."""
from __future__ import annotations

import re
import uuid

import pytest

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.integration.service.support import connector_config, new_prefix, start_connector

pytestmark = pytest.mark.timeout(120)

LINE = re.compile(r"\[Notification Service\]  \{id='(?P<id>[0-9a-f-]{36})', aggregateType='(?P<agg>[^']*)', "
                  r"type='(?P<type>[A-Z_]+)', additionalData=\{(?P<data>[^}]*)\}, timestamp=(?P<ts>\d+)\}$")


def _notifications(log_text: str) -> list[tuple[str, str, dict[str, str], str]]:
    out = []
    for line in log_text.splitlines():
        if "[Notification Service]" not in line:
            continue
        m = LINE.search(line)
        assert m, f"not Debezium's notification log format: {line!r}"
        data = dict(kv.split("=", 1) for kv in m["data"].split(", ")) if m["data"] else {}
        out.append((m["agg"], m["type"], data, m["id"]))
    return out


@pytest.mark.parametrize("threads", ["1", "2"])
def test_log_channel_reports_the_initial_snapshot(threads, mariadb, broker, unique_database, tmp_path):
    """With snapshot.max.threads=2 the tables are read at once: the same notifications, tables in any order."""
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE a (id INT PRIMARY KEY); INSERT INTO a VALUES (1),(2),(3);"
                    "CREATE TABLE b (k VARCHAR(8) PRIMARY KEY); INSERT INTO b VALUES ('x'),('y');",
                    database=database)
    prefix = new_prefix("nlog")
    broker.create_topics([prefix, f"{prefix}.{database}.a", f"{prefix}.{database}.b"])
    config = connector_config(tmp_path, mariadb, broker, database, prefix, notification_enabled_channels="log",
                              snapshot_max_threads=threads)
    proc = start_connector(tmp_path, config)
    assert proc.stop() == 0, proc.log_tail()
    first_run = proc.log_file.read_text(encoding="utf-8", errors="replace")

    # A restart with the snapshot's offset stored takes no snapshot: Debezium's snapshot source says SKIPPED
    proc = start_connector(tmp_path, config)
    assert proc.stop() == 0, proc.log_tail()
    restart = proc.log_file.read_text(encoding="utf-8", errors="replace")[len(first_run):]
    assert [(agg, t) for agg, t, _, _ in _notifications(restart)] == [("Initial Snapshot", "SKIPPED")]

    seen = _notifications(first_run)
    assert {agg for agg, *_ in seen} == {"Initial Snapshot"}
    types = [t for _, t, _, _ in seen]
    if threads == "1":
        assert types == ["STARTED", "IN_PROGRESS", "TABLE_SCAN_COMPLETED", "IN_PROGRESS", "TABLE_SCAN_COMPLETED",
                         "COMPLETED"]
    else:
        assert "with 2 reader(s)" in first_run  # the parallel path was taken
        assert types[0] == "STARTED" and types[-1] == "COMPLETED"
        assert sorted(types[1:-1]) == ["IN_PROGRESS"] * 2 + ["TABLE_SCAN_COMPLETED"] * 2
    for table in ("a", "b"):  # each table's scan starts before it completes
        order = [t for _, t, d, _ in seen
                 if f"{database}.{table}" in (d.get("current_collection_in_progress"), d.get("scanned_collection"))]
        assert order == ["IN_PROGRESS", "TABLE_SCAN_COMPLETED"]
    assert len({nid for *_, nid in seen}) == len(seen)  # each notification its own random id
    assert all(data.get("connector_name") == prefix for _, _, data, _ in seen)
    tables = [f"{database}.a", f"{database}.b"]
    in_progress = [d for _, t, d, _ in seen if t == "IN_PROGRESS"]
    assert sorted(d["current_collection_in_progress"] for d in in_progress) == tables
    assert all(sorted(d["data_collections"].split(",")) == tables for d in in_progress)
    scanned = {d["scanned_collection"]: (d["total_rows_scanned"], d["status"])
               for _, t, d, _ in seen if t == "TABLE_SCAN_COMPLETED"}
    assert scanned == {f"{database}.a": ("3", "SUCCEEDED"), f"{database}.b": ("2", "SUCCEEDED")}
    assert uuid.UUID(seen[0][3]).version == 4


def test_a_failing_table_is_named_before_the_snapshot_aborts(mariadb, broker, unique_database, tmp_path):
    """Debezium stops when a table's SELECT fails; first it notifies TABLE_SCAN_COMPLETED SQL_EXCEPTION for
    that table and ABORTED."""
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE a (id INT PRIMARY KEY); INSERT INTO a VALUES (1);"
                    "CREATE TABLE b (id INT PRIMARY KEY); INSERT INTO b VALUES (1);", database=database)
    prefix = new_prefix("nfail")
    broker.create_topics([prefix, f"{prefix}.{database}.a", f"{prefix}.{database}.b"])
    config = connector_config(tmp_path, mariadb, broker, database, prefix, notification_enabled_channels="log")
    with open(config, "a", encoding="utf-8") as out:  # a SELECT the server refuses (unknown column)
        out.write(f"debezium.source.snapshot.select.statement.overrides={database}.b\n"
                  f"debezium.source.snapshot.select.statement.overrides.{database}.b="
                  f"SELECT nosuch FROM {database}.b\n")
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json",
                            tmp_path / "connector.log").start()
    assert proc.wait_exit(60) not in (0, None), proc.log_tail()
    seen = [(t, d.get("current_collection_in_progress") or d.get("scanned_collection"), d.get("status"))
            for _, t, d, _ in _notifications(proc.log_file.read_text(encoding="utf-8", errors="replace"))]
    a, b = f"{database}.a", f"{database}.b"
    assert seen == [("STARTED", None, None), ("IN_PROGRESS", a, None), ("TABLE_SCAN_COMPLETED", a, "SUCCEEDED"),
                    ("IN_PROGRESS", b, None), ("TABLE_SCAN_COMPLETED", b, "SQL_EXCEPTION"), ("ABORTED", None, None)]
