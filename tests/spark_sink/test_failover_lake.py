"""The lake stays equal to the database through a failover (issue 25). The connector (`binlog-cdc run`) reads a
MariaDB replica whose binlog is `replica-bin.*`; the mirror CLI copies its changes into Delta; the replica dies and
the connector moves to the source by GTID, whose binlog is `mariadb-bin.*`: file names that sort *before* the
replica's. Changes to the same keys follow on the source; the mirror CLI runs again from its checkpoint, and the
lake must equal the source. Ordered by binlog file name (the old order), the merge guard kept every pre-failover
row and dropped the newer changes, silently."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import DeltaTable  # noqa: E402

from tests.integration.service.support import connector_config, new_prefix, start_connector  # noqa: E402
from tests.support.kafka_dump import consume_all  # noqa: E402
from tests.support.mariadb_replication import MariaDBReplica, gtid_pos, start_replication  # noqa: E402
from tests.support.servers import MariaDBServer, Profile  # noqa: E402
from tests.support.waiting import wait_until  # noqa: E402

from .test_mirror_cli import run_cli  # noqa: E402

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(2400)]

MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector"
SNAPSHOT = "INSERT INTO items VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3), (4, 'four', 4)"
BEFORE = """UPDATE items SET v = 'uno', n = 10 WHERE id = 1;
            DELETE FROM items WHERE id = 4;"""
AFTER = """UPDATE items SET v = 'one after', n = 100 WHERE id = 1;
           DELETE FROM items WHERE id = 2;
           UPDATE items SET n = n + 1 WHERE id = 3;
           INSERT INTO items VALUES (4, 'four again', 44), (5, 'five', 5);
           UPDATE items SET v = 'five twice' WHERE id = 5;"""


def _database(server) -> dict[int, tuple]:
    return {r[0]: (r[1], r[2]) for r in server.query("SELECT id, v, n FROM fdb.items")}


def _lake(path: Path) -> dict[int, tuple]:
    return {r["id"]: (r["v"], r["n"]) for r in DeltaTable(str(path)).to_pyarrow_table().to_pylist()}


def _mirror(bootstrap: str, prefix: str, workdir: Path, *options: str) -> str:
    done = run_cli(["--bootstrap-servers", bootstrap, "--topics-pattern", rf"{prefix}\.fdb\..*",
                    "--target", str(workdir / "lake"), "--checkpoint", str(workdir / "ckpt"), "--drain", *options],
                   workdir)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stderr


def test_lake_equals_the_database_after_a_failover_by_gtid(broker, tmp_path) -> None:
    table = tmp_path / "lake" / "fdb" / "items"
    with MariaDBServer(tmp_path / "source", profile=Profile.DEFAULTS) as source, \
            MariaDBReplica(tmp_path / "replica", profile=Profile.DEFAULTS) as replica:
        start_replication(source, replica)
        source.run_sql("CREATE DATABASE fdb; CREATE TABLE fdb.items (id INT PRIMARY KEY, v VARCHAR(20), n INT)")
        source.run_sql(SNAPSHOT, database="fdb")
        wait_until(lambda: gtid_pos(replica) == gtid_pos(source), 30, "the replica to catch up")
        assert replica.binlog_position()[0].startswith("replica-bin.")

        prefix = new_prefix("lakefo")
        broker.create_topics([f"{prefix}.fdb.items", prefix])
        props = {"connector.class": MARIADB_CONNECTOR, "skipped.operations": "none"}
        proc = start_connector(tmp_path, connector_config(tmp_path, replica, broker, "fdb", prefix, **props))
        try:  # the connector snapshots the replica (op=r), then streams what the source replicates to it
            source.run_sql(BEFORE, database="fdb")
            wait_until(lambda: gtid_pos(replica) == gtid_pos(source), 30, "the replica to catch up")
            proc.wait_caught_up(replica.binlog_position(), quiet_ms=500, timeout=120)
        finally:
            assert proc.stop() == 0, proc.log_tail()
        _mirror(broker.bootstrap_servers, prefix, tmp_path)
        assert _lake(table) == _database(source) == {1: ("uno", 10), 2: ("two", 2), 3: ("three", 3)}

        # Failover: the replica dies, the source takes the writes, the connector follows by GTID.
        replica.stop()
        source.run_sql(AFTER, database="fdb")
        proc = start_connector(tmp_path, connector_config(tmp_path, source, broker, "fdb", prefix, **props))
        try:
            proc.wait_caught_up(source.binlog_position(), quiet_ms=500, timeout=120)
        finally:
            assert proc.stop() == 0, proc.log_tail()
        assert "connecting by GTID" in proc.log_tail(200)
        want = _database(source)

    records = [r for r in consume_all(broker.bootstrap_servers, {f"{prefix}.fdb.items": 1}) if r.value is not None]
    files = [json.loads(r.value)["payload"]["source"]["file"] for r in records]
    switch = next(i for i, f in enumerate(files) if f.startswith("mariadb-bin."))
    assert 0 < switch and all(f.startswith("replica-bin.") for f in files[:switch]), files
    assert max(files[switch:]) < min(files[:switch])  # the newer changes sort first by file name

    # The second run also carries a user's --conf: it wins over the local-mode default (issue 25, the mirror CLI's
    # shuffle partitions = cores), also when the query restarts from a checkpoint (test_mirror_cli.py: the default).
    log = _mirror(broker.bootstrap_servers, prefix, tmp_path, "--conf", "spark.sql.shuffle.partitions=3")
    assert "spark.sql.shuffle.partitions=3" in log
    assert want == {1: ("one after", 100), 3: ("three", 4), 4: ("four again", 44), 5: ("five twice", 5)}
    assert _lake(table) == want
