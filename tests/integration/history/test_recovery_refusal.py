"""snapshot.mode=recovery after a lost history, on MariaDB (file/pos offsets) and MySQL 9 (GTID offsets).

The stored offset may sit right at the last DDL the connector streamed (with GTIDs the restart set
even leaves that DDL's own GTID out): recovery must not take that DDL for one that ran after the stop.
A DDL that did run after the stop must make it refuse, naming the statement.
"""
from __future__ import annotations

import json
import uuid

import pytest

from tests.integration.history.support import (
    connector,
    data_values,
    wait_exit,
    write_config,
)

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_recovery_after_streamed_ddl_rebuilds_and_later_ddl_refuses(server_name, request, broker,
                                                                     unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY, a INT)", database=database)
    prefix = f"rr{uuid.uuid4().hex[:8]}"
    broker.create_topics([prefix, f"{prefix}.{database}.t"])
    config = write_config(tmp_path, server, broker, database, prefix)
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    server.run_sql("INSERT INTO t VALUES (1, 1); ALTER TABLE t ADD COLUMN b INT", database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    offsets = (tmp_path / "offsets.dat").read_bytes()
    assert (b"gtids" in offsets) == (server_name == "mysql")  # the two offset flavours under test

    history = tmp_path / "history.jsonl"
    history.unlink()  # lost; the ALTER streamed before the stop is part of the current tables
    recovery = write_config(tmp_path, server, broker, database, prefix, **{"snapshot.mode": "recovery"})
    proc = connector(tmp_path, recovery).start()
    proc.wait_streaming(120)
    server.run_sql("INSERT INTO t VALUES (2, 2, 2)", database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert data_values(broker, f"{prefix}.{database}.t")[-1]["after"] == {"id": 2, "a": 2, "b": 2}
    rebuilt = [json.loads(line) for line in history.read_text().splitlines()]
    assert any("`b` int" in (r.get("ddl") or "") for r in rebuilt)

    history.unlink()  # lost again, and this time a DDL runs while the connector is down
    server.run_sql("ALTER TABLE t ADD COLUMN z INT", database=database)
    proc = connector(tmp_path, recovery).start()
    assert wait_exit(proc) != 0
    log = (tmp_path / "connector.log").read_text()
    assert "snapshot.mode=recovery refused: DDL ran after the stored offset" in log, log[-2000:]
    assert "ALTER TABLE t ADD COLUMN z INT" in log


def _gtid_set(server) -> str:
    return str(server.query("SELECT @@GLOBAL.gtid_executed")[0][0]).replace("\n", "")


@pytest.mark.mysql
def test_recovery_after_gtid_failover_decides_by_gtids(mysql_distribution, broker, tmp_path):
    """After a failover the stored file/pos name the other server's binlog (here deliberately ahead of, then
    behind, the new server's file names): only the GTIDs can say what ran after the stop."""
    from tests.support.waiting import wait_until
    from tests.support.servers import MySQLServer, Profile

    with MySQLServer(tmp_path / "source", profile=Profile.DEFAULTS, dist=mysql_distribution) as source, \
            MySQLServer(tmp_path / "replica", profile=Profile.DEFAULTS, dist=mysql_distribution) as replica:
        source.run_sql("FLUSH BINARY LOGS; FLUSH BINARY LOGS; FLUSH BINARY LOGS;")  # names differ from the replica's
        replica.run_sql(
            "SET GLOBAL server_id = 2; "
            f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={source.port}, "
            f"SOURCE_USER='{source.user}', SOURCE_PASSWORD='{source.password}', GET_SOURCE_PUBLIC_KEY=1, "
            "SOURCE_AUTO_POSITION=1; START REPLICA")

        def replicated() -> bool:
            return bool(replica.query("SELECT GTID_SUBSET(%s, @@GLOBAL.gtid_executed)", (_gtid_set(source),))[0][0])

        source.run_sql("CREATE DATABASE rdb; CREATE TABLE rdb.t (id INT PRIMARY KEY, a INT)")
        wait_until(replicated, 120, "the replica to replicate the schema")
        prefix = f"rf{uuid.uuid4().hex[:8]}"
        broker.create_topics([prefix, f"{prefix}.rdb.t"])
        work = tmp_path / "connector"
        work.mkdir()
        history = work / "history.jsonl"

        proc = connector(work, write_config(work, replica, broker, "rdb", prefix)).start()
        proc.wait_streaming(120)
        source.run_sql("INSERT INTO rdb.t VALUES (1, 1)")
        wait_until(replicated, 120, "the replica to replicate the insert")
        proc.wait_caught_up(replica.binlog_position(), quiet_ms=500, timeout=120)
        assert proc.stop() == 0, proc.log_tail()

        # 1. fail over to the source, history lost, no DDL since: the source's binlog holds the CREATEs in a
        #    file named after the stored one, but their GTIDs are in the stored set, so recovery goes ahead
        history.unlink()
        proc = connector(work, write_config(work, source, broker, "rdb", prefix, **{"snapshot.mode": "recovery"}))
        proc.start()
        proc.wait_streaming(120)
        source.run_sql("INSERT INTO rdb.t VALUES (2, 2)")
        proc.wait_caught_up(source.binlog_position(), quiet_ms=500, timeout=120)
        assert proc.stop() == 0, proc.log_tail()
        assert data_values(broker, f"{prefix}.rdb.t")[-1]["after"] == {"id": 2, "a": 2}

        # 2. back to the replica (its file names now sort before the stored one), history lost again and a
        #    DDL ran meanwhile: its GTID is outside the stored set, so recovery refuses
        source.run_sql("ALTER TABLE rdb.t ADD COLUMN z INT")
        wait_until(replicated, 120, "the replica to replicate the ALTER")
        history.unlink()
        proc = connector(work, write_config(work, replica, broker, "rdb", prefix, **{"snapshot.mode": "recovery"}))
        proc.start()
        assert wait_exit(proc) != 0
        log = (work / "connector.log").read_text()
        assert "snapshot.mode=recovery refused: DDL ran after the stored offset" in log, log[-2000:]
        assert "ALTER TABLE rdb.t ADD COLUMN z INT" in log
