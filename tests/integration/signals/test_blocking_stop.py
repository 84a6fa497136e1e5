"""A stop (SIGTERM) during a long blocking snapshot: the connector exits cleanly and promptly, says the snapshot
is not resumed, and the next start streams on from where streaming paused; nothing streamed is lost."""
from __future__ import annotations

import json
import time
import uuid

import pytest

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import write_connector_config
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(240)
ROWS = 50_000


def test_stop_during_a_blocking_snapshot_then_streaming_goes_on(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql(
        "CREATE TABLE debezium_signal (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048));\n"
        "CREATE TABLE big (id INT PRIMARY KEY, v VARCHAR(20));\n"
        f"INSERT INTO big SELECT seq, CONCAT('v', seq) FROM seq_1_to_{ROWS};\n", database=database)
    prefix = f"sigb{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.{database}.big"
    broker.create_topics([topic, f"{prefix}.{database}.debezium_signal", prefix])
    config = write_connector_config(tmp_path, mariadb, broker, database, prefix, snapshot_mode="no_data",
                                    signal_data_collection=f"{database}.debezium_signal")

    def start() -> ConnectorProcess:
        proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json",
                                tmp_path / "connector.log").start()
        proc.wait_streaming(120)
        return proc

    proc = start()
    mariadb.run_sql("INSERT INTO big VALUES (0, 'before');\n"
                    "INSERT INTO debezium_signal VALUES ('blk', 'execute-snapshot', "
                    f"'{{\"data-collections\": [\"{database}.big\"], \"type\": \"blocking\"}}');", database=database)
    wait_until(lambda: (proc.status() or {}).get("records_acked", 0) > 1000, 60, "the blocking snapshot's first rows")
    started = time.monotonic()
    assert proc.stop() == 0, proc.log_tail()
    assert time.monotonic() - started < 30, "a stop must not wait for the blocking snapshot to finish"
    assert "not resumed at the next start" in proc.log_tail(200)
    metrics = proc.status()["snapshot"]  # Debezium's snapshot metric names, for blocking snapshots too
    assert metrics["SnapshotAborted"] and not metrics["SnapshotRunning"] and metrics["TotalTableCount"] == 1
    assert 0 < metrics["RowsScanned"][f"{database}.big"] < ROWS

    proc = start()
    mariadb.run_sql("INSERT INTO big VALUES (-1, 'after');", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=1000, timeout=120)
    assert proc.stop() == 0, proc.log_tail()

    records = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
               if r.value is not None]
    streamed = [(p["op"], p["after"]["id"]) for p in records if p["op"] != "r"]
    assert streamed == [("c", 0), ("c", -1)], streamed  # each streamed change exactly once, in order
    reads = [p for p in records if p["op"] == "r"]
    assert 0 < len(reads) < ROWS + 1 and reads[0]["source"]["snapshot"] == "first"
