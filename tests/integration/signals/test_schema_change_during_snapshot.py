"""incremental.snapshot.allow.schema.changes=true through `binlog-cdc run` on MariaDB: an ALTER while an
incremental snapshot reads its table, with no pause (golden signals_altered-schema_changes shows Debezium's
windows for a paused snapshot; here which chunk meets the ALTER depends on timing, so the records are checked
against the table instead of a recording).

Every row is read, and each snapshot record is the row in one of the two shapes, never a mix: the old columns
with their values, or the new ones with the new column's default; a record sent after the ALTER in the binlog
has the new shape.
"""
from __future__ import annotations

import json
import uuid

import pytest

from tests.support.connector_config import write_connector_config
from tests.support.connector_process import ConnectorProcess, binlog_key, default_connector_cmd
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(240)
ROWS = 600


def test_an_alter_during_the_snapshot_gives_whole_rows_of_either_shape(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    values = ",".join(f"({i}, {i * 10}, 'v{i}')" for i in range(1, ROWS + 1))
    mariadb.run_sql(
        "CREATE TABLE debezium_signal (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048));\n"
        "CREATE TABLE items (id INT PRIMARY KEY, n INT NOT NULL, v VARCHAR(20));\n"
        f"INSERT INTO items VALUES {values};\n"
        + "".join(f"GRANT INSERT, DELETE ON `{database}`.debezium_signal TO '{mariadb.user}'@'{h}';\n"
                  for h in ("127.0.0.1", "localhost")), database=database)
    prefix = f"sa{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.{database}.items"
    broker.create_topics([topic, f"{prefix}.{database}.debezium_signal", prefix])
    config = write_connector_config(tmp_path, mariadb, broker, database, prefix, snapshot_mode="no_data",
                                    signal_data_collection=f"{database}.debezium_signal",
                                    incremental_snapshot_chunk_size="3",
                                    **{"incremental.snapshot.allow.schema.changes": "true"})
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json",
                            tmp_path / "connector.log").start()
    try:
        proc.wait_streaming(120)
        mariadb.run_sql("INSERT INTO debezium_signal VALUES ('snap-1', 'execute-snapshot', "
                        f"'{{\"data-collections\": [\"{database}.items\"]}}');", database=database)

        def scanned() -> int:
            return ((proc.status() or {}).get("snapshot") or {}).get("RowsScanned", {}).get(f"{database}.items", 0)

        wait_until(lambda: scanned() >= 6, 120, "the first chunks", state=scanned)
        mariadb.run_sql("ALTER TABLE items ADD COLUMN email VARCHAR(20) NOT NULL DEFAULT 'none', DROP COLUMN v;",
                        database=database)
        altered_at = binlog_key(*mariadb.binlog_position())
        wait_until(lambda: f"incremental snapshot of {database}.items done" in proc.run_log(), 180,
                   "the incremental snapshot to finish", state=scanned)
        proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    finally:
        assert proc.stop() == 0, proc.log_tail()
    log = proc.run_log()
    assert "Traceback" not in log, log[-3000:]

    read: dict[int, dict] = {}
    shapes = {"old": 0, "new": 0}
    for r in consume_all(broker.bootstrap_servers, {topic: 1}):
        payload = json.loads(r.value)["payload"]
        assert payload["op"] == "r", payload
        after, source = payload["after"], payload["source"]
        i = after["id"]
        if "v" in after:  # read before the ALTER: the old columns, the old values
            assert after == {"id": i, "n": i * 10, "v": f"v{i}"}, after
            assert binlog_key(source["file"], source["pos"]) < altered_at, (source, altered_at)
            shapes["old"] += 1
        else:
            assert after == {"id": i, "n": i * 10, "email": "none"}, after
            shapes["new"] += 1
        read[i] = after
    assert sorted(read) == list(range(1, ROWS + 1)), f"missing: {sorted(set(range(1, ROWS + 1)) - set(read))}"
    # two chunks read before the ALTER: the first one's window closed (went out, old shape) before the second
    # was read; the second may have met the ALTER before its close and been read again
    assert shapes["old"] >= 3, shapes
