"""Binlog expiry: the time left before the committed position is purged is a metric and a warning; a position
purged while the connector was stopped makes the next start fail with a message naming
snapshot.mode=when_needed, and with that mode the connector takes a new snapshot."""
from __future__ import annotations

import json

import pytest

from tests.support.connector_process import run_cli
from tests.integration.service.support import (
    connector_config, metric, metrics_port, new_prefix, scrape, start_connector)
from tests.support.waiting import PROCESS_BOUND_S, wait_until
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(240)

EXPIRE_S = 8


@pytest.mark.parametrize("own_server", ["mariadb", "mysql"], indirect=True)
def test_purge_estimate_warning_and_purged_position(own_server, broker, tmp_path):
    server = own_server
    server.run_sql(f"CREATE DATABASE pdb; CREATE TABLE pdb.t (id INT PRIMARY KEY); "
                   f"SET GLOBAL binlog_expire_logs_seconds = {EXPIRE_S}")
    prefix = new_prefix("purge")
    topic = f"{prefix}.pdb.t"
    broker.create_topics([topic, prefix])
    port = metrics_port()
    config = connector_config(tmp_path, server, broker, "pdb", prefix, **{
        "binlog.purge.check.interval.ms": "300", "metrics.port": str(port), "metrics.host": "127.0.0.1"})
    proc = start_connector(tmp_path, config)
    try:
        server.run_sql("INSERT INTO pdb.t VALUES (1)")
        proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=120)
        committed_file = proc.status()["committed_offset"]["file"]
        # In the active binlog the position has at least the whole expiry period left.
        wait_until(lambda: metric(scrape(port)[1], "BinlogPurgeSecondsLeft") == EXPIRE_S, 120,
                   "the estimate for the active binlog")
        server.run_sql("FLUSH BINARY LOGS")  # the committed position's file is now closed and ageing
        wait_until(lambda: 0 <= metric(scrape(port)[1], "BinlogPurgeSecondsLeft") < EXPIRE_S - 1, 120,
                   "the estimate to count down")
        wait_until(lambda: "may be purged in about" in proc.log_tail(200), 120, "the purge warning")
        assert proc.status()["committed_offset"]["file"] == committed_file
    finally:
        assert proc.stop() == 0, proc.log_tail()

    current = server.binlog_position()[0]
    server.run_sql(f"PURGE BINARY LOGS TO '{current}'")
    run = run_cli("run", str(config), timeout=PROCESS_BOUND_S)
    assert run.returncode == 2
    assert "no longer on the server" in run.stderr and "snapshot.mode=when_needed" in run.stderr

    config = connector_config(tmp_path, server, broker, "pdb", prefix, **{"snapshot.mode": "when_needed"})
    proc = start_connector(tmp_path, config)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    ops = [json.loads(r.value)["payload"]["op"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
           if r.value is not None]
    assert ops == ["c", "r"]  # streamed once, then read again by the new snapshot
