"""snapshot.new.tables=incremental through the CLI: a table added to table.include.list between two runs is read
as an incremental snapshot beside streaming while a writer keeps changing it, a stop in the middle continues it,
and the consumer's state of the table equals the table; without the property (Debezium's behaviour) only its
changes since the stored offset arrive."""
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

pytestmark = pytest.mark.timeout(900)
ROWS = 3000


def churn(server, database: str) -> CounterWriter:
    return CounterWriter(server, database, table="b", first_new_id=ROWS + 1, name="new-table-writer", seed=5)


def _setup(server, broker, database: str) -> tuple[str, dict[str, int]]:
    values = ",".join(f"({i}, 0)" for i in range(1, ROWS + 1))
    server.run_sql(
        "CREATE TABLE debezium_signal (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048));\n"
        "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20));\n"
        "CREATE TABLE b (id INT PRIMARY KEY, n INT NOT NULL);\n"
        f"INSERT INTO a VALUES (1, 'one'); INSERT INTO b VALUES {values};\n"
        + "".join(f"GRANT INSERT, DELETE ON `{database}`.debezium_signal TO '{server.user}'@'{h}';\n"
                  for h in ("127.0.0.1", "localhost")), database=database)
    prefix = f"newt{uuid.uuid4().hex[:8]}"
    topics = {f"{prefix}.{database}.{t}": 1 for t in ("a", "b", "debezium_signal")}
    broker.create_topics([*topics, prefix])
    return prefix, topics


def _run(tmp_path, server, broker, database, prefix, tables: str, new_tables: str, name: str,
         **props: str) -> ConnectorProcess:
    config = write_connector_config(tmp_path, server, broker, database, prefix,
                                    table_include_list=",".join(f"{database}.{t}" for t in tables.split(",")),
                                    signal_data_collection=f"{database}.debezium_signal",
                                    incremental_snapshot_chunk_size="10", snapshot_new_tables=new_tables, **props)
    return ConnectorProcess(list(default_connector_cmd()), config, tmp_path / f"{name}-status.json",
                            tmp_path / f"{name}.log").start()


def _state_of_b(broker, topic: str) -> tuple[dict[int, int], list[dict]]:
    """What a consumer rebuilds of b, checking per key that records follow commit order; and the payloads."""
    state: dict[int, int] = {}
    deleted: set[int] = set()
    payloads = []
    for r in consume_all(broker.bootstrap_servers, {topic: 1}):
        if r.value is None:
            continue
        payload = json.loads(r.value)["payload"]
        payloads.append(payload)
        key = json.loads(r.key)["payload"]["id"]
        assert key not in deleted, f"id {key}: a record after its delete ({payload['op']})"
        if payload["op"] == "d":
            deleted.add(key)
            state.pop(key, None)
            continue
        n = payload["after"]["n"]
        assert n >= state.get(key, 0), f"id {key}: n went back from {state[key]} to {n} ({payload['op']})"
        state[key] = n
    return state, payloads


def _table_b(server, database) -> dict[int, int]:
    with server.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT id, n FROM b")
        return {row[0]: row[1] for row in cur.fetchall()}


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_a_table_added_to_the_include_list_is_snapshotted_incrementally(server_name, request, broker,
                                                                        unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    prefix, topics = _setup(server, broker, database)
    first = _run(tmp_path, server, broker, database, prefix, "a,debezium_signal", "incremental", "run1")
    started = [first]
    writer = churn(server, database)
    try:
        first.wait_streaming(120)
        server.run_sql("INSERT INTO a VALUES (2, 'two');", database=database)
        writer.start()  # b is not captured yet: its changes are skipped
        wait_until(lambda: writer.committed > 20, 120, "the writer's first transactions")
        first.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
        assert first.stop() == 0, first.log_tail()
        # b is added; the writer goes on while the connector is down and while it reads b
        second = _run(tmp_path, server, broker, database, prefix, "a,b,debezium_signal", "incremental", "run2")
        started.append(second)
        wait_until(lambda: "newly matched" in second.run_log(), 120, "the new-tables line",
                   state=lambda: second.log_tail(5))
        line = next(x for x in second.run_log().splitlines() if "newly matched" in x)
        assert f"{database}.b" in line and f"{database}.a" not in line, line
        # once it sent records (their offsets carry the snapshot's keys), stop in the middle of b: the restart
        # continues it
        wait_until(lambda: (second.status() or {}).get("records_acked", 0) >= 50, 120, "records of run 2",
                   state=second.status)
        assert second.stop() == 0, second.log_tail()
        third = _run(tmp_path, server, broker, database, prefix, "a,b,debezium_signal", "incremental", "run3")
        started.append(third)

        def b_done() -> bool:
            third._check_alive()
            snapshot = (third.status() or {}).get("snapshot") or {}
            return bool(snapshot.get("SnapshotCompleted")) and not snapshot.get("SnapshotRunning")

        # The state, not a log line: the continued snapshot runs (status file) from the start until b is read.
        wait_until(b_done, 600, "the incremental snapshot of b to finish (status SnapshotCompleted)",
                   state=lambda: ((third.status() or {}).get("snapshot"), third.log_tail(5)))
        log3 = third.run_log()
        assert f"incremental snapshot of {database}.b done" in log3, log3[-3000:]
        assert "newly matched" not in log3 and "incremental snapshot in progress" in log3, log3
        writer.finish()
        third.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
        assert third.stop() == 0, third.log_tail()
    finally:
        writer.stop_requested.set()
        for proc in started:  # a failed wait leaves one running: never let it outlive the test
            proc.stop()
    state, payloads = _state_of_b(broker, f"{prefix}.{database}.b")
    reads = [p for p in payloads if p["op"] == "r"]
    assert reads and all(p["source"]["snapshot"] == "incremental" for p in reads)
    assert any(p["op"] == "u" for p in payloads)  # changes since the stored offset are streamed too
    table = _table_b(server, database)
    assert state == table, f"{len(set(state.items()) ^ set(table.items()))} rows of b differ from the table"


def test_without_the_property_a_newly_included_table_is_only_streamed(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    prefix, topics = _setup(mariadb, broker, database)
    first = _run(tmp_path, mariadb, broker, database, prefix, "a,debezium_signal", "off", "run1")
    first.wait_streaming(120)
    assert first.stop() == 0, first.log_tail()
    mariadb.run_sql("UPDATE b SET n = 7 WHERE id = 1; INSERT INTO b VALUES (99999, 1);", database=database)
    second = _run(tmp_path, mariadb, broker, database, prefix, "a,b,debezium_signal", "off", "run2")
    try:
        second.wait_caught_up(mariadb.binlog_position(), quiet_ms=1000, timeout=120)
    finally:
        assert second.stop() == 0, second.log_tail()
    _, payloads = _state_of_b(broker, f"{prefix}.{database}.b")
    assert [(p["op"], p["after"]["id"]) for p in payloads] == [("u", 1), ("c", 99999)]
    assert "newly matched" not in second.run_log()


def test_read_only_on_mariadb_reads_a_new_table_writing_nothing(mariadb, broker, unique_database, tmp_path):
    # read.only=true on MariaDB: the new table is read between the chunk views' binlog positions; the signal table
    # stays empty (Debezium's MySQL connector refuses read.only without GTID mode; docs/DIFFERENCES.md)
    database = unique_database(mariadb)
    prefix, _ = _setup(mariadb, broker, database)
    first = _run(tmp_path, mariadb, broker, database, prefix, "a,debezium_signal", "incremental", "run1",
                 read_only="true")
    try:
        first.wait_streaming(120)
        mariadb.run_sql("INSERT INTO a VALUES (2, 'two');", database=database)  # an offset naming the tables
        first.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    finally:
        assert first.stop() == 0, first.log_tail()
    mariadb.run_sql("UPDATE b SET n = 7 WHERE id = 1; DELETE FROM b WHERE id = 2;", database=database)
    second = _run(tmp_path, mariadb, broker, database, prefix, "a,b,debezium_signal", "incremental", "run2",
                  read_only="true")
    try:
        wait_until(lambda: f"incremental snapshot of {database}.b done" in second.run_log(), 300,
                   "the incremental snapshot of b", state=lambda: second.log_tail(5))
        mariadb.run_sql("UPDATE b SET n = 8 WHERE id = 3;", database=database)
        second.wait_caught_up(mariadb.binlog_position(), quiet_ms=1000, timeout=120)
    finally:
        assert second.stop() == 0, second.log_tail()
    state, payloads = _state_of_b(broker, f"{prefix}.{database}.b")
    # every row read but the deleted one and, where its streamed update met the window, the updated one
    assert sum(p["op"] == "r" for p in payloads) >= ROWS - 2
    assert state == _table_b(mariadb, database)
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM debezium_signal")
        assert cur.fetchone()[0] == 0
