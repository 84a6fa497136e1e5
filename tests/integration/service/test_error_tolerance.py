"""Kafka Connect's `errors.tolerance=all` for a source connector, through `binlog-cdc run`: a record a transform
refuses (Cast of a non-number) is skipped and logged (`errors.log.enable`), the others are delivered and the
connector keeps streaming; without it the same record stops the connector (exit 2)."""
from __future__ import annotations

import json

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(180)

CAST = {"transforms": "unwrap,cast", "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
        "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value", "transforms.cast.spec": "v:int32"}


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_a_refused_record_is_skipped_and_logged(server_name, request, broker, unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO t VALUES (1, '10')",
                   database=database)
    prefix = new_prefix("tol")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([prefix, topic])
    config = connector_config(tmp_path, server, broker, database, prefix, **CAST, **{
        "errors.tolerance": "all", "errors.log.enable": "true", "errors.log.include.messages": "true"})
    proc = start_connector(tmp_path, config)
    try:
        server.run_sql("INSERT INTO t VALUES (2, 'two'), (3, '30')", database=database)
        proc.wait_caught_up(server.binlog_position(), quiet_ms=200, timeout=120)
    finally:
        assert proc.stop() == 0, proc.log_tail()
    values = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})]
    assert values == [{"id": 1, "v": 10}, {"id": 3, "v": 30}]
    log = proc.run_log()
    assert "Error encountered in task 0. Executing stage 'TRANSFORMATION' with class 'Cast'" in log
    assert "where source record is = " in log and "'two'" in log


def test_without_tolerance_the_record_stops_the_connector(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))", database=database)
    prefix = new_prefix("tol0")
    broker.create_topics([prefix, f"{prefix}.{database}.t"])
    proc = start_connector(tmp_path, connector_config(tmp_path, mariadb, broker, database, prefix, **CAST))
    mariadb.run_sql("INSERT INTO t VALUES (2, 'two')", database=database)
    assert proc.wait_exit(120) == 2, proc.log_tail()
    assert "Cast on" in proc.run_log()
