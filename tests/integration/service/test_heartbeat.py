"""Heartbeats keep the committed offset moving when nothing captured changes (Debezium's `heartbeat.interval.ms`),
and `heartbeat.action.query` runs on each heartbeat."""
from __future__ import annotations

import json

import pytest

from tests.support.connector_process import binlog_key
from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.waiting import wait_until
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_heartbeats_advance_offset_of_a_fully_filtered_stream(server_name, request, broker, unique_database,
                                                              tmp_path):
    server = request.getfixturevalue(server_name)
    captured = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=captured)
    other = captured + "_other"
    server.run_sql(f"DROP DATABASE IF EXISTS {other}; CREATE DATABASE {other}; "
                   f"CREATE TABLE {other}.noise (id INT PRIMARY KEY, v INT)")
    prefix = new_prefix("hb")
    # on MySQL, Debezium 3.6's topic.heartbeat.name (golden heartbeat/heartbeat-named.jsonl): the whole topic name
    named = {"topic.heartbeat.name": f"shared-heartbeats-{prefix}"} if server_name == "mysql" else {}
    heartbeat_topic = named.get("topic.heartbeat.name", f"__debezium-heartbeat.{prefix}")
    broker.create_topics([heartbeat_topic, prefix])
    config = connector_config(tmp_path, server, broker, captured, prefix, **{"heartbeat.interval.ms": "300"},
                              **named)
    proc = start_connector(tmp_path, config)
    try:
        start_committed = wait_until(lambda: (proc.status() or {}).get("committed_offset"), 120, "a first commit")
        # Only the filtered-out database changes: no data record can move the offset, heartbeats must.
        for i in range(20):
            server.run_sql(f"INSERT INTO {other}.noise VALUES ({i}, {i})")
        target = binlog_key(*server.binlog_position())

        def moved() -> bool:
            off = (proc.status() or {}).get("committed_offset") or {}
            return binlog_key(off.get("file"), off.get("pos")) >= target

        wait_until(moved, 120, f"the committed offset to reach {server.binlog_position()}")
        assert binlog_key(start_committed.get("file"), start_committed.get("pos")) < target
        committed = proc.status()["committed_offset"]
        assert "event" not in committed and "row" not in committed
    finally:
        assert proc.stop() == 0, proc.log_tail()
        server.run_sql(f"DROP DATABASE IF EXISTS {other}")

    beats = consume_all(broker.bootstrap_servers, {heartbeat_topic: 1})
    assert len(beats) >= 2
    first = beats[0]
    assert first.partition == 0
    assert not first.headers
    key = json.loads(first.key)
    assert key["payload"] == {"serverName": prefix}
    assert key["schema"]["name"] == "io.debezium.connector.common.ServerNameKey"
    value = json.loads(first.value)
    assert value["schema"]["name"] == "io.debezium.connector.common.Heartbeat"
    assert isinstance(value["payload"]["ts_ms"], int)
    # no data records for the filtered database
    assert not [r for r in consume_all(broker.bootstrap_servers, {prefix: 1}) if other in (r.value or b"").decode()]


def test_heartbeat_action_query_runs_and_its_changes_are_captured(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE beat (id INT PRIMARY KEY, n INT NOT NULL); INSERT INTO beat VALUES (1, 0); "
                    f"GRANT UPDATE ON {database}.beat TO '{mariadb.user}'@'127.0.0.1'", database=database)
    prefix = new_prefix("hba")
    topic = f"{prefix}.{database}.beat"
    broker.create_topics([f"__debezium-heartbeat.{prefix}", prefix, topic])
    config = connector_config(tmp_path, mariadb, broker, database, prefix, **{
        "heartbeat.interval.ms": "200",
        "heartbeat.action.query": f"UPDATE {database}.beat SET n = n + 1 WHERE id = 1",
    })
    proc = start_connector(tmp_path, config)
    try:
        # The action query's own UPDATE is a binlog event, which wakes the reader for the next heartbeat.
        wait_until(lambda: mariadb.query(f"SELECT n FROM {database}.beat")[0][0] >= 5, 120,
                   "the heartbeat action query to have run 5 times")
        # Every heartbeat makes a new change, so the stream never goes quiet: wait for the 5th change's record.
        wait_until(lambda: (proc.status() or {}).get("records_acked", 0) >= 6, 120, "5 updates to be acked")
    finally:
        assert proc.stop() == 0, proc.log_tail()
    updates = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
               if r.value is not None]
    ops = [u["op"] for u in updates]
    assert ops[0] == "r" and ops.count("u") >= 4
    ns = [u["after"]["n"] for u in updates if u["op"] == "u"]
    assert ns == list(range(1, len(ns) + 1))
