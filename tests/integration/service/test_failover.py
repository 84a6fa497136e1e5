"""Failover by GTID: the connector reads a replica; the replica dies mid-stream and the connector is pointed
at the source, where it continues from its GTID set (COM_BINLOG_DUMP_GTID) with nothing lost or repeated,
although the replica's binlog file names and positions mean nothing on the source."""
from __future__ import annotations

import json
import time

import pytest

from tests.integration.pipeline.test_restart import Writer, _first_difference
from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.waiting import wait_until
from tests.support.kafka_dump import consume_all
from tests.support.servers import MySQLServer, Profile

pytestmark = pytest.mark.timeout(300)


def _gtid_set(server) -> str:
    return str(server.query("SELECT @@GLOBAL.gtid_executed")[0][0]).replace("\n", "")


def _caught_up(replica, source) -> bool:
    return bool(replica.query("SELECT GTID_SUBSET(%s, @@GLOBAL.gtid_executed)", (_gtid_set(source),))[0][0])


def test_failover_from_replica_to_source_by_gtid(mysql_distribution, broker, tmp_path):
    with MySQLServer(tmp_path / "source", profile=Profile.DEFAULTS, dist=mysql_distribution) as source, \
            MySQLServer(tmp_path / "replica", profile=Profile.DEFAULTS, dist=mysql_distribution) as replica:
        replica.run_sql(
            "SET GLOBAL server_id = 2; "
            f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={source.port}, "
            f"SOURCE_USER='{source.user}', SOURCE_PASSWORD='{source.password}', GET_SOURCE_PUBLIC_KEY=1, "
            "SOURCE_AUTO_POSITION=1; START REPLICA")
        source.run_sql("CREATE DATABASE fdb; CREATE TABLE fdb.items (id INT PRIMARY KEY, v VARCHAR(20), "
                       "n INT NOT NULL)")
        wait_until(lambda: _caught_up(replica, source), 120, "the replica to replicate the schema")

        prefix = new_prefix("failover")
        data_topic, tx_topic = f"{prefix}.fdb.items", f"{prefix}.transaction"
        broker.create_topics([data_topic, tx_topic, prefix])
        props = {"provide.transaction.metadata": "true"}
        config = connector_config(tmp_path, replica, broker, "fdb", prefix, **props)
        proc = start_connector(tmp_path, config)
        writer = Writer(source, "fdb")
        writer.start()
        try:
            wait_until(lambda: writer.committed >= 20, 60, "the writer to commit on the source")
            # an offset committed while reading the replica (the source's GTIDs, replicated)
            wait_until(lambda: str(((proc.status() or {}).get("committed_offset") or {}).get("gtids", ""))
                       .startswith(source.server_uuid()), 60, "a committed offset on the replica")
            # The replica dies while the source keeps committing.
            replica.stop()
            time.sleep(0.5)  # pacing: the writer commits on the source while nobody reads it
            assert proc.stop() == 0, proc.log_tail()
            committed = json.loads((tmp_path / "status.json").read_text())["committed_offset"]
            assert committed.get("gtids", "").startswith(source.server_uuid())

            config = connector_config(tmp_path, source, broker, "fdb", prefix, **props)
            proc = start_connector(tmp_path, config)
            more = writer.committed + 20
            wait_until(lambda: writer.committed >= more, 60, "more commits on the source after the failover")
            writer.finish()
            proc.wait_caught_up(source.binlog_position(), quiet_ms=1000, timeout=120)
        finally:
            writer.stop_requested.set()
            assert proc.stop() == 0, proc.log_tail()
        assert "connecting after GTIDs" in proc.log_tail(200)
        assert writer.committed > 20

    records = consume_all(broker.bootstrap_servers, {data_topic: 1, tx_topic: 1})
    actual = [(json.loads(r.value)["payload"]["op"], json.loads(r.key)["payload"]["id"])
              for r in records if r.topic == data_topic and r.value is not None]
    assert actual == writer.expected, _first_difference(actual, writer.expected)
    txs = [json.loads(r.value)["payload"] for r in records if r.topic == tx_topic]
    begins = [t["id"] for t in txs if t["status"] == "BEGIN"]
    assert len(begins) == len(set(begins)) == writer.committed
    assert [t["id"] for t in txs if t["status"] == "END"] == begins
    # the replica's and the source's records both name the source's GTIDs
    sources = {json.loads(r.value)["payload"]["source"]["gtid"].split(":")[0] for r in records
               if r.topic == data_topic and r.value is not None}
    assert len(sources) == 1
