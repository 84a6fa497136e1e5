"""read.only=true where no watermark can be read without writing: a server that says it is MySQL with
gtid_mode=OFF (here MariaDB disguised as the reference harness runs it). Debezium 3.6.3's MySQL connector stops
when streaming starts ("Read only connection requires GTID_MODE to be ON", reference harness run on
signals_control.sql with read.only=true); binlog-cdc stops there too, after the snapshot, with the fix.
On MariaDB itself read.only incremental snapshots work (test_concurrent_writer.py, test_new_tables.py)."""
from __future__ import annotations

import uuid

import pytest

from tests.support.connector_config import write_connector_config
from tests.support.connector_process import run_until_exit
from tests.support.kafka_dump import consume_all
from tests.support.servers import MariaDBServer, Profile

pytestmark = pytest.mark.timeout(300)


def test_read_only_on_mysql_without_gtids_stops_when_streaming_starts(broker, tmp_path):
    with MariaDBServer(tmp_path / "maria", profile=Profile.REFERENCE) as server:
        server.run_sql("CREATE DATABASE rodb; USE rodb; CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1);")
        prefix = f"ro{uuid.uuid4().hex[:8]}"
        broker.create_topics([f"{prefix}.rodb.t", prefix])
        config = write_connector_config(tmp_path, server, broker, "rodb", prefix, read_only="true")
        rc, proc = run_until_exit(config, tmp_path)
    assert rc == 2, proc.log_tail(40)
    assert "read.only=true" in proc.run_log() and "gtid_mode=OFF" in proc.run_log(), proc.log_tail(40)
    # as Debezium: the snapshot went out before streaming was refused
    assert len([r for r in consume_all(broker.bootstrap_servers, {f"{prefix}.rodb.t": 1}) if r.value]) == 1
