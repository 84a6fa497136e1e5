"""`guardrail.collections.max` / `.limit.action` through `binlog-cdc run` (Debezium 3.6's GuardrailValidator, its
messages): `fail` stops the start with exit 2, `warn` logs and captures as usual."""
from __future__ import annotations

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.connector_process import ConnectorProcess, default_connector_cmd

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_fail_stops_the_start_over_the_captured_tables_limit(server_name, request, broker, unique_database,
                                                             tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE a (id INT PRIMARY KEY); CREATE TABLE b (id INT PRIMARY KEY); "
                   "CREATE TABLE c (id INT PRIMARY KEY)", database=database)
    config = connector_config(tmp_path, server, broker, database, new_prefix("gr"), **{
        "table.include.list": f"{database}\\.(a|b)", "guardrail.collections.max": "1",
        "guardrail.collections.limit.action": "fail",
        "schema.history.internal.store.only.captured.tables.ddl": "true"})
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json",
                            tmp_path / "connector.log").start()
    assert proc.wait_exit(120) == 2, proc.log_tail()
    assert ("Guardrail limit exceeded: 2 tables/collections configured for capture, but maximum allowed is 1. "
            "Fix: raise guardrail.collections.max") in proc.run_log()


def test_warn_logs_and_captures(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE a (id INT PRIMARY KEY); CREATE TABLE b (id INT PRIMARY KEY)", database=database)
    prefix = new_prefix("grw")
    broker.create_topics([prefix, f"{prefix}.{database}.a"])
    # the default store.only.captured.tables.ddl=false counts every table of the server: more than 1
    config = connector_config(tmp_path, mariadb, broker, database, prefix, **{
        "table.include.list": f"{database}\\.a", "guardrail.collections.max": "1"})
    proc = start_connector(tmp_path, config)
    assert proc.stop() == 0, proc.log_tail()
    log = proc.run_log()
    assert "tables/collections configured for capture, but maximum allowed is 1. Since " \
           "'schema.history.internal.store.only.captured.tables.ddl' is set to 'false'" in log
