"""Debezium 3.6 start options that change no record (issue 24), through `binlog-cdc run` on both servers:
`binlog.net.read.timeout` / `binlog.net.write.timeout` are set on the binlog connection's session before its dump,
`streaming.delay.ms` waits between the snapshot and streaming, `custom.metric.tags` become labels of every metric.
Their records are covered by the golden recovery_options-mysql (recorded from Debezium with the same options)."""
from __future__ import annotations

import pytest

from tests.integration.service.support import (
    connector_config,
    metric,
    metrics_port,
    new_prefix,
    scrape,
    start_connector,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(180)


def dump_session_statements(server, user: str) -> list[str]:
    """The statements the server's general log saw on `user`'s binlog dump connections before the dump."""
    dumps = server.query("SELECT DISTINCT thread_id FROM mysql.general_log WHERE command_type LIKE 'Binlog Dump%%' "
                         "AND thread_id IN (SELECT thread_id FROM mysql.general_log WHERE command_type = 'Connect' "
                         "AND CONVERT(argument USING utf8mb4) LIKE %s)", (f"{user}@%",))
    if not dumps:
        return []
    ids = ",".join(str(int(t)) for (t,) in dumps)
    rows = server.query(f"SELECT CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE thread_id IN ({ids}) "
                        "AND command_type = 'Query'")
    return [r[0] for r in rows]


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_net_timeouts_streaming_delay_and_metric_tags(server_name, request, broker, unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1)", database=database)
    prefix = new_prefix("opt")
    broker.create_topics([prefix, f"{prefix}.{database}.t"])
    port = metrics_port()
    config = connector_config(tmp_path, server, broker, database, prefix, **{
        "binlog.net.read.timeout": "120", "binlog.net.write.timeout": "180", "streaming.delay.ms": "1000",
        "custom.metric.tags": "env=test, team=cdc", "metrics.port": str(port)})
    server.query("SET GLOBAL log_output = 'TABLE'")
    server.query("SET GLOBAL general_log = ON")
    try:
        proc = start_connector(tmp_path, config)
        try:
            server.run_sql("INSERT INTO t VALUES (2)", database=database)
            proc.wait_caught_up(server.binlog_position(), quiet_ms=200, timeout=120)
            wait_until(lambda: metric(scrape(port)[1], "Connected") == 1.0, 60, "the Connected metric")
            statements = dump_session_statements(server, server.user)
            _, text = scrape(port)
        finally:
            assert proc.stop() == 0, proc.log_tail()
    finally:
        server.query("SET GLOBAL general_log = OFF")
        server.query("TRUNCATE TABLE mysql.general_log")
    assert "SET SESSION net_read_timeout=120, net_write_timeout=180" in statements, statements
    # the exposition sorts labels by name
    assert f'debezium_mysql_streaming_Connected{{env="test",server="{prefix}",team="cdc"}} 1.0' in text, text
    assert metric(text, "IsGtidModeEnabled") == (1.0 if server_name == "mysql" else 0.0)
    # after the snapshot, before the binlog connection (Debezium's ChangeEventSourceCoordinator words it so)
    log = proc.run_log()
    assert "The connector will wait for 1s before initiating streaming" in log
    assert log.index("before initiating streaming") < log.index("binlog reader connecting")
