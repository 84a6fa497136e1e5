"""MariaDB failover by GTID position: with Debezium's MariaDB connector class the offsets carry `gtids` in
MariaDB form (`domain-server-seq`). The connector reads a replica (log_slave_updates, gtid_strict_mode); the
replica dies mid-stream and the connector is pointed at the source, whose binlog files are named differently:
it connects with @slave_connect_state and continues with nothing lost or repeated, and from its first record
on the source, offsets and `source` blocks name the source's binlog files."""
from __future__ import annotations

import json
import time

import pytest

from tests.integration.pipeline.test_restart import Writer, _first_difference
from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.waiting import PROCESS_BOUND_S, wait_until
from tests.support.kafka_dump import consume_all
from tests.support.mariadb_replication import MariaDBReplica as _Replica
from tests.support.mariadb_replication import gtid_pos as _gtid_pos
from tests.support.mariadb_replication import start_replication as _start_replication
from tests.support.servers import MariaDBServer, Profile

pytestmark = pytest.mark.timeout(300)

MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector"


def _new_commit(workdir, previous: dict) -> dict | None:
    status = json.loads((workdir / "status.json").read_text()) if (workdir / "status.json").exists() else {}
    offset = status.get("committed_offset")
    return offset if offset and offset != previous else None


def test_mariadb_failover_from_replica_to_source_by_gtid_position(broker, tmp_path):
    with MariaDBServer(tmp_path / "source", profile=Profile.DEFAULTS) as source, \
            _Replica(tmp_path / "replica", profile=Profile.DEFAULTS) as replica:
        _start_replication(source, replica)
        source.run_sql("CREATE DATABASE fdb; CREATE TABLE fdb.items (id INT PRIMARY KEY, v VARCHAR(20), "
                       "n INT NOT NULL)")
        wait_until(lambda: _gtid_pos(replica) == _gtid_pos(source), 120, "the replica to replicate the schema")
        assert replica.binlog_position()[0].startswith("replica-bin.")

        prefix = new_prefix("mfailover")
        data_topic, tx_topic = f"{prefix}.fdb.items", f"{prefix}.transaction"
        broker.create_topics([data_topic, tx_topic, prefix])
        props = {"provide.transaction.metadata": "true", "connector.class": MARIADB_CONNECTOR}
        proc = start_connector(tmp_path, connector_config(tmp_path, replica, broker, "fdb", prefix, **props))
        writer = Writer(source, "fdb")
        writer.start()
        try:
            wait_until(lambda: writer.committed >= 20, 120, "the writer to commit on the source")
            # The writer keeps going, so "every record acknowledged" may never be seen at one instant: wait for
            # a committed offset on the replica instead.
            wait_until(lambda: str((_new_commit(tmp_path, {}) or {}).get("gtids", "")).startswith("0-1-"), 60,
                       "a committed offset on the replica")
            on_replica = json.loads((tmp_path / "status.json").read_text())["committed_offset"]
            assert on_replica["file"].startswith("replica-bin.") and on_replica["gtids"].startswith("0-1-")
            # The replica dies while the source keeps committing.
            replica.stop()
            time.sleep(0.5)
            assert proc.stop() == 0, proc.log_tail()
            committed = json.loads((tmp_path / "status.json").read_text())["committed_offset"]
            assert committed["file"].startswith("replica-bin.")

            proc = start_connector(tmp_path, connector_config(tmp_path, source, broker, "fdb", prefix, **props))
            first = wait_until(lambda: _new_commit(tmp_path, committed), 120, "a first offset commit on the source")
            assert first["file"].startswith("mariadb-bin."), first
            wait_until(lambda: writer.committed >= 60, 60, "more commits on the source")
            writer.finish()
            proc.wait_caught_up(source.binlog_position(), quiet_ms=1000, timeout=120)
        finally:
            writer.stop_requested.set()
            assert proc.stop() == 0, proc.log_tail()
        assert "connecting by GTID" in proc.log_tail(200)
        final = json.loads((tmp_path / "status.json").read_text())["committed_offset"]
        assert final["file"].startswith("mariadb-bin.")
        # The last record is the last transaction's END: its offset holds the position before that transaction.
        domain, server, seq = _gtid_pos(source).split("-")
        assert final["gtids"] == f"{domain}-{server}-{int(seq) - (1 if final.get('event') else 0)}"

    records = consume_all(broker.bootstrap_servers, {data_topic: 1, tx_topic: 1})
    data = [r for r in records if r.topic == data_topic and r.value is not None]
    actual = [(json.loads(r.value)["payload"]["op"], json.loads(r.key)["payload"]["id"]) for r in data]
    assert actual == writer.expected, _first_difference(actual, writer.expected)
    txs = [json.loads(r.value)["payload"] for r in records if r.topic == tx_topic]
    begins = [t["id"] for t in txs if t["status"] == "BEGIN"]
    assert len(begins) == len(set(begins)) == writer.committed
    assert [t["id"] for t in txs if t["status"] == "END"] == begins
    # Records name the replica's binlog up to the failover and the source's from the first one after it.
    files = [json.loads(r.value)["payload"]["source"]["file"].split(".")[0] for r in data]
    switch = files.index("mariadb-bin")
    assert 0 < switch and set(files[:switch]) == {"replica-bin"} and set(files[switch:]) == {"mariadb-bin"}


def test_server_id_of_a_registered_replica_is_refused(broker, tmp_path):
    """The connector on the source with the replica's server id would knock the replica off (and itself) at
    every reconnect: it refuses to start, naming the property."""
    from tests.support.connector_process import run_cli

    with MariaDBServer(tmp_path / "source", profile=Profile.DEFAULTS) as source, \
            _Replica(tmp_path / "replica", profile=Profile.DEFAULTS) as replica:
        _start_replication(source, replica)
        wait_until(lambda: 2 in {int(r[0]) for r in source.query("SHOW SLAVE HOSTS")}, 120,
                   "the replica to register with the source")
        source.run_sql("CREATE DATABASE sid")
        # MariaDB lists replicas only to REPLICATION MASTER ADMIN (MySQL's SHOW REPLICAS: REPLICATION SLAVE).
        for host in ("127.0.0.1", "localhost"):
            source.run_sql(f"GRANT REPLICATION MASTER ADMIN ON *.* TO '{source.user}'@'{host}'")
        prefix = new_prefix("sid")
        broker.create_topics([prefix])
        config = connector_config(tmp_path, source, broker, "sid", prefix, database_server_id="2")
        result = run_cli("run", str(config), timeout=PROCESS_BOUND_S)
        assert result.returncode != 0
        assert "database.server.id=2 is already used by a replica" in result.stdout + result.stderr
        config = connector_config(tmp_path, source, broker, "sid", prefix, database_server_id="7")
        proc = start_connector(tmp_path, config)
        assert proc.stop() == 0, proc.log_tail()
