"""An incremental snapshot while a writer updates, deletes and inserts rows of the table being read (no golden:
the interleaving depends on timing). What a consumer rebuilds from the topic must equal the table at the end, and
per key the records must follow commit order: a snapshot read never brings back an older value (the column `n`
only grows) nor a deleted row (deleted ids are never inserted again)."""
from __future__ import annotations

import json
import uuid

import pytest

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import write_connector_config
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until
from tests.support.writer import CounterWriter

pytestmark = pytest.mark.timeout(240)
ROWS = 600


def churn(server, database: str) -> CounterWriter:
    return CounterWriter(server, database, table="items", first_new_id=ROWS + 1, name="snapshot-writer", seed=11,
                         update_set="n = n + 1, v = CONCAT('u', n + 1)", insert_values="(%s, 0, 'new')")


@pytest.mark.parametrize("server_name", ["mariadb", "mysql", "mysql-readonly", "mariadb-readonly"])
def test_incremental_snapshot_under_concurrent_writes_keeps_per_key_order(server_name, request, broker,
                                                                         unique_database, tmp_path):
    # -readonly: read.only=true, watermarks that write nothing instead of rows in the signal table (GTID sets on
    # MySQL, the chunk view's binlog position on MariaDB)
    server = request.getfixturevalue(server_name.partition("-")[0])
    read_only = server_name.endswith("-readonly")
    database = unique_database(server)
    values = ",".join(f"({i}, 0, 'v{i}')" for i in range(1, ROWS + 1))
    server.run_sql(
        "CREATE TABLE debezium_signal (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048));\n"
        "CREATE TABLE items (id INT PRIMARY KEY, n INT NOT NULL, v VARCHAR(20));\n"
        f"INSERT INTO items VALUES {values};\n"
        + "".join(f"GRANT INSERT, DELETE ON `{database}`.debezium_signal TO '{server.user}'@'{h}';\n"
                  for h in ("127.0.0.1", "localhost")), database=database)
    prefix = f"sigw{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.{database}.items"
    broker.create_topics([topic, f"{prefix}.{database}.debezium_signal", prefix])
    # no initial snapshot: every row the consumer sees before its first change comes from the incremental one
    config = write_connector_config(tmp_path, server, broker, database, prefix, snapshot_mode="no_data",
                                    signal_data_collection=f"{database}.debezium_signal",
                                    incremental_snapshot_chunk_size="20", read_only=str(read_only).lower())
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json",
                            tmp_path / "connector.log").start()
    writer = churn(server, database)
    try:
        proc.wait_streaming(120)
        writer.start()
        wait_until(lambda: writer.committed > 20, 120, "the writer's first transactions")
        server.run_sql("INSERT INTO debezium_signal VALUES ('snap-1', 'execute-snapshot', "
                       f"'{{\"data-collections\": [\"{database}.items\"]}}');", database=database)
        wait_until(lambda: f"incremental snapshot of {database}.items done" in proc.log_tail(400), 120,
                   "the incremental snapshot to finish")
        writer.finish()
        proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
    finally:
        writer.stop_requested.set()
        assert proc.stop() == 0, proc.log_tail()
    metrics = proc.status()["snapshot"]  # Debezium's snapshot metric names, for incremental snapshots too
    assert metrics["SnapshotCompleted"] and not metrics["SnapshotRunning"] and metrics["TotalTableCount"] == 1

    state: dict[int, tuple] = {}
    last_n: dict[int, int] = {}
    deleted: set[int] = set()
    reads = 0
    for r in consume_all(broker.bootstrap_servers, {topic: 1}):
        if r.value is None:
            continue
        payload = json.loads(r.value)["payload"]
        key = json.loads(r.key)["payload"]["id"]
        assert key not in deleted, f"id {key}: a record after its delete ({payload['op']})"
        if payload["op"] == "d":
            deleted.add(key)
            state.pop(key, None)
            continue
        after = payload["after"]
        reads += payload["op"] == "r"
        assert after["n"] >= last_n.get(key, 0), f"id {key}: n went back from {last_n[key]} to {after['n']}"
        last_n[key] = after["n"]
        state[key] = (after["id"], after["n"], after["v"])
    with server.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT id, n, v FROM items ORDER BY id")
        table = {row[0]: tuple(row) for row in cur.fetchall()}
    assert writer.committed > 20 and reads > 0
    assert metrics["RowsScanned"][f"{database}.items"] >= reads  # the rows read, de-duplicated ones included
    assert state == table, f"{len(set(state.items()) ^ set(table.items()))} rows differ from the table"
    if read_only:  # nothing was written: the signal table holds the one signal
        with server.connect(database) as conn, conn.cursor() as cur:
            cur.execute("SELECT id FROM debezium_signal")
            assert [row[0] for row in cur.fetchall()] == ["snap-1"]
