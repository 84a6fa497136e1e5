"""A table created while the initial snapshot reads data is not part of the snapshot (its CREATE comes after
the snapshot's binlog position): its rows arrive from streaming as op=c, its CREATE TABLE is recorded once,
by streaming; `snapshot.delay.ms` holds the snapshot back.

The snapshot of `big` is held open for a known time by its own SELECT (`snapshot.select.statement.overrides` with a
SLEEP per row), so the table is created while the snapshot reads, on a fast machine or a loaded one."""
from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.waiting import wait_until
from tests.conformance.config import write_properties
from tests.support.connector_config import connector_properties
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(300)

BIG_ROWS = 10
SLEEP_PER_ROW_S = 1.5  # the snapshot reads `big` for ~15 s: the window in which `late` is created


def _load_big(server, database: str) -> None:
    server.run_sql("CREATE TABLE big (id INT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL);"
                   + "".join(f"INSERT INTO big (v) VALUES ({v});" for v in range(BIG_ROWS)), database=database)


def _ops(records, topic: str) -> list[str]:
    return [json.loads(r.value)["payload"]["op"] for r in records if r.topic == topic and r.value is not None]


def test_table_created_during_snapshot_is_streamed_not_snapshotted(mariadb, broker, unique_database,
                                                                   tmp_path: Path):
    database = unique_database(mariadb)
    _load_big(mariadb, database)
    prefix = f"late{uuid.uuid4().hex[:8]}"
    big_topic, late_topic = f"{prefix}.{database}.big", f"{prefix}.{database}.late"
    broker.create_topics([big_topic, late_topic, prefix])
    props = connector_properties(tmp_path, mariadb, broker, database, prefix, snapshot_delay_ms="1500")
    overrides = "debezium.source.snapshot.select.statement.overrides"
    props[overrides] = f"{database}.big"
    props[f"{overrides}.{database}.big"] = f"SELECT * FROM `{database}`.`big` WHERE SLEEP({SLEEP_PER_ROW_S}) = 0"
    config = tmp_path / "application.properties"
    write_properties(config, props)
    log_path = tmp_path / "connector.log"

    started = time.monotonic()
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json", log_path).start()
    try:
        wait_until(lambda: log_path.exists() and "Exporting data from table" in log_path.read_text(), 120,
                   "the snapshot to start reading data")
        exporting_after_s = time.monotonic() - started
        mariadb.run_sql("CREATE TABLE late (id INT PRIMARY KEY, note VARCHAR(20));"
                        "INSERT INTO late VALUES (1, 'one'), (2, 'two'); UPDATE late SET note = 'TWO' WHERE id = 2;",
                        database=database)
        status = proc.status() or {}
        snapshot_was_running = bool((status.get("snapshot") or {}).get("SnapshotRunning"))
        proc.wait_streaming(180)
        proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=1000, timeout=120)
    finally:
        assert proc.stop() == 0, proc.log_tail()

    log = log_path.read_text()
    assert snapshot_was_running, "the snapshot ended before the table was created; the test proves nothing"
    assert "snapshot.delay.ms: waiting 1500 ms" in log
    assert exporting_after_s >= 1.5
    records = consume_all(broker.bootstrap_servers, {big_topic: 1, late_topic: 1, prefix: 1})
    assert _ops(records, big_topic) == ["r"] * BIG_ROWS
    assert _ops(records, late_topic) == ["c", "c", "u"]
    late_ddl = [json.loads(r.value)["payload"] for r in records
                if r.topic == prefix and "CREATE TABLE late" in json.loads(r.value)["payload"]["ddl"]]
    assert len(late_ddl) == 1 and late_ddl[0]["source"]["snapshot"] == "false", late_ddl
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert sum("CREATE TABLE late" in h["ddl"] for h in history) == 1
