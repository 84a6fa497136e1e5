"""MariaDB GTID positions in offsets (Debezium's MariaDB connector class): what the offsets hold, and how a
restart on the same server connects (file/pos while it is the offset's GTID position there, else by GTID)."""
from __future__ import annotations

import json

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.waiting import PROCESS_BOUND_S, wait_until
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(180)

MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector"


def _gtid_pos_at(server, offset: dict) -> str:
    return str(server.query("SELECT BINLOG_GTID_POS(%s, %s)", (offset["file"], offset["pos"]))[0][0])


def _committed(tmp_path) -> dict:
    return json.loads((tmp_path / "status.json").read_text())["committed_offset"]


def test_offsets_carry_the_gtid_position_and_restarts_lose_and_repeat_nothing(mariadb, broker, unique_database,
                                                                             tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=database)
    prefix = new_prefix("mgtid")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix])
    config = connector_config(tmp_path, mariadb, broker, database, prefix, **{"connector.class": MARIADB_CONNECTOR})

    proc = start_connector(tmp_path, config)
    mariadb.run_sql("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2), (3);", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    offset = _committed(tmp_path)
    # Between transactions: `gtids` is the server's GTID position at the offset's file/pos.
    assert offset["gtids"] == _gtid_pos_at(mariadb, offset)

    # Same server, consistent offset: file/pos. A standalone DDL then leaves the offset's `gtids` before it
    # (as Debezium's), so the next restart connects by GTID and gets the DDL again: it is recorded once.
    proc = start_connector(tmp_path, config)
    mariadb.run_sql("INSERT INTO t VALUES (4); ALTER TABLE t ADD COLUMN v INT", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert "connecting by GTID" not in proc.run_log()
    after_ddl = _committed(tmp_path)
    assert after_ddl["gtids"] != _gtid_pos_at(mariadb, after_ddl)

    proc = start_connector(tmp_path, config)
    mariadb.run_sql("INSERT INTO t VALUES (5, 50)", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert "connecting by GTID" in proc.run_log()

    records = consume_all(broker.bootstrap_servers, {topic: 1, prefix: 1})
    rows = [json.loads(r.value)["payload"] for r in records if r.topic == topic and r.value is not None]
    assert [(p["op"], p["after"]["id"]) for p in rows] == [("c", 1), ("c", 2), ("c", 3), ("c", 4), ("c", 5)]
    assert rows[-1]["after"]["v"] == 50
    ddl = [json.loads(r.value)["payload"]["ddl"] for r in records if r.topic == prefix]
    assert sum("ADD COLUMN" in d for d in ddl) == 1
    history = (tmp_path / "history.jsonl").read_text()
    assert history.count("ADD COLUMN v INT") == 1


def _purge_all_but_current(server) -> None:
    """FLUSH, then PURGE up to the new file; MariaDB keeps a binlog until its binlog checkpoint has passed it."""
    server.run_sql("FLUSH BINARY LOGS")
    current = server.binlog_position()[0]

    def purged() -> bool:
        server.run_sql(f"PURGE BINARY LOGS TO '{current}'")
        return server.query("SHOW BINARY LOGS")[0][0] == current

    wait_until(purged, 120, f"the binlogs before {current} to be purged", interval=0.3)


@pytest.mark.parametrize("own_server", ["mariadb"], indirect=True)
def test_purged_file_resumes_by_gtid_unless_unseen_transactions_were_purged(own_server, broker, tmp_path):
    from tests.support.connector_process import run_cli

    server = own_server
    server.run_sql("CREATE DATABASE pdb; CREATE TABLE pdb.t (id INT PRIMARY KEY)")
    prefix = new_prefix("mpurge")
    topic = f"{prefix}.pdb.t"
    broker.create_topics([topic, prefix])
    # Heartbeats commit offsets between transactions (a data record's offset names the position before its
    # transaction, which would then have to be read again).
    config = connector_config(tmp_path, server, broker, "pdb", prefix, **{"connector.class": MARIADB_CONNECTOR,
                                                                          "heartbeat.interval.ms": "100"})
    proc = start_connector(tmp_path, config)
    server.run_sql("INSERT INTO pdb.t VALUES (1)")
    gtid_pos = str(server.query("SELECT @@GLOBAL.gtid_binlog_pos")[0][0])
    wait_until(lambda: ((proc.status() or {}).get("committed_offset") or {}).get("gtids") == gtid_pos, 120,
               "an offset between transactions")
    assert proc.stop() == 0, proc.log_tail()

    # The offset's file is purged, but nothing the connector has not seen: the GTID position resumes.
    _purge_all_but_current(server)
    proc = start_connector(tmp_path, config)
    server.run_sql("INSERT INTO pdb.t VALUES (2)")
    gtid_pos = str(server.query("SELECT @@GLOBAL.gtid_binlog_pos")[0][0])
    wait_until(lambda: ((proc.status() or {}).get("committed_offset") or {}).get("gtids") == gtid_pos, 120,
               "the second insert to be committed")
    assert proc.stop() == 0, proc.log_tail()
    assert "connecting by GTID" in proc.run_log()

    # A transaction the connector never saw is purged: refuse, naming the fix.
    server.run_sql("INSERT INTO pdb.t VALUES (3)")
    _purge_all_but_current(server)
    run = run_cli("run", str(config), timeout=PROCESS_BOUND_S)
    assert run.returncode == 2, run.stderr[-2000:]
    assert "no longer on the server" in run.stderr and "snapshot.mode=when_needed" in run.stderr

    ids = [json.loads(r.value)["payload"]["after"]["id"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
           if r.value is not None]
    assert ids == [1, 2]
