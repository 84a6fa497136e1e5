"""The `set-binlog-position` signal (Debezium 3.6's MySQL SetBinlogPositionSignal) through `binlog-cdc run`: the
offset takes the given file and position (MariaDB) or GTID set (MySQL) and a heartbeat record carries it to the
committed offsets, which the next start streams from; a malformed signal is logged with Debezium's reason."""
from __future__ import annotations

import json

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_the_signal_sets_the_committed_offset(server_name, request, broker, unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1)", database=database)
    prefix = new_prefix("sbp")
    heartbeats = f"__debezium-heartbeat.{prefix}"
    broker.create_topics([prefix, f"{prefix}.{database}.t", heartbeats])
    signals = tmp_path / "signals.txt"
    config = connector_config(tmp_path, server, broker, database, prefix, **{
        "signal.enabled.channels": "file", "signal.file": str(signals), "signal.poll.interval.ms": "200"})
    file, _ = server.binlog_position()
    if server_name == "mysql":
        uuid = server.query("SELECT @@server_uuid")[0][0]
        data, expected = {"gtid_set": f"{uuid}:1-2"}, {"gtids": f"{uuid}:1-2"}
    else:
        data, expected = {"binlog_filename": file, "binlog_position": 4}, {"file": file, "pos": 4}
    proc = start_connector(tmp_path, config)
    try:
        bad = {"id": "bad", "type": "set-binlog-position", "data": {"binlog_filename": file}}
        good = {"id": "sbp-1", "type": "set-binlog-position", "data": data}
        signals.write_text(json.dumps(bad) + "\n" + json.dumps(good) + "\n")

        def committed() -> dict:
            return (proc.status() or {}).get("committed_offset") or {}

        wait_until(lambda: all(committed().get(k) == v for k, v in expected.items()), 120,
                   f"the committed offset to take {expected}", state=committed)
    finally:
        assert proc.stop() == 0, proc.log_tail()
    log = proc.run_log()
    assert "signal 'bad' ignored: Binlog position must be specified when filename is provided" in log
    assert "Successfully updated binlog position. Restart the connector for changes to take effect." in log
    [beat] = consume_all(broker.bootstrap_servers, {heartbeats: 1})
    assert json.loads(beat.key)["payload"] == {"serverName": prefix}
