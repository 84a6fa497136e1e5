"""Tagged GTIDs (MySQL 8.3+, `SET gtid_next='AUTOMATIC:etl'`) through `binlog-cdc run` and `offsets show/set`
(issue 24): a tagged transaction before the first start (the snapshot's GTID set holds a tag: the connector
used to die right after the snapshot), tagged transactions streamed (their own GTIDs in source.gtid), a restart
from an offset whose GTID set holds tags (COM_BINLOG_DUMP_GTID's tagged encoding), and `offsets set --gtids`
with a tagged set.

A private server: tags in `gtid_executed` would reach the other tests of the worker's shared server."""
from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from connector.gtids.sets import GtidSet
from tests.support.connector_process import run_cli
from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all
from tests.support.servers import MySQLServer, Profile
from tests.support.waiting import PROCESS_BOUND_S

pytestmark = [pytest.mark.timeout(300), pytest.mark.mysql]


@pytest.fixture(scope="module")
def tagged_mysql(tmp_path_factory: pytest.TempPathFactory, mysql_distribution) -> Iterator[MySQLServer]:
    with MySQLServer(tmp_path_factory.mktemp("mysql-tagged"), profile=Profile.DEFAULTS,
                     dist=mysql_distribution) as server:
        yield server


def _tagged(tag: str, sql: str) -> str:
    return f"SET gtid_next = 'AUTOMATIC:{tag}'; {sql}; SET gtid_next = 'AUTOMATIC';"


def _values(broker, topic: str) -> list[dict]:
    return [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
            if r.value is not None]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, timeout=PROCESS_BOUND_S)


def test_tagged_transactions_stream_with_their_gtids_and_resume_from_a_tagged_offset(
        tagged_mysql, broker, unique_database, tmp_path) -> None:
    server = tagged_mysql
    database = unique_database(server)
    uuid = server.server_uuid()
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY, note VARCHAR(20))", database=database)
    server.run_sql(_tagged("etl", "INSERT INTO t VALUES (1, 'before start')"), database=database)
    prefix = new_prefix("tag")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix, f"{prefix}.transaction"])
    config = connector_config(tmp_path, server, broker, database, prefix, provide_transaction_metadata="true")

    proc = start_connector(tmp_path, config)  # died after the snapshot before (ValueError on 'etl')
    server.run_sql("INSERT INTO t VALUES (2, 'untagged')", database=database)
    server.run_sql(_tagged("Batch_A", "BEGIN; INSERT INTO t VALUES (3, 'a'); UPDATE t SET note = 'a2' WHERE id = 2; "
                                      "COMMIT"), database=database)
    server.run_sql(_tagged("etl", "DELETE FROM t WHERE id = 1"), database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=PROCESS_BOUND_S)
    # the last record's offset: the set before its transaction (etl:2), as Debezium's
    committed = proc.status()["committed_offset"]["gtids"]
    assert committed.startswith(f"{uuid}:1-") and committed.endswith(":batch_a:1-1:etl:1-1"), committed
    assert proc.stop() == 0, proc.log_tail()

    # Stopped: more tagged and untagged work, then a restart from the tagged offset.
    server.run_sql(_tagged("etl", "INSERT INTO t VALUES (4, 'while stopped')"), database=database)
    server.run_sql("INSERT INTO t VALUES (5, 'while stopped')", database=database)
    proc = start_connector(tmp_path, config)
    server.run_sql(_tagged("batch_a", "INSERT INTO t VALUES (6, 'after restart')"), database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=PROCESS_BOUND_S)
    assert proc.stop() == 0, proc.log_tail()
    # reconnected with the tagged set (COM_BINLOG_DUMP_GTID's tagged encoding), in MySQL's spelling
    assert f"connecting after GTIDs {GtidSet.parse(committed)}" in proc.log_tail(100), proc.log_tail(100)

    changes = [(v["op"], (v["after"] or v["before"])["id"], v["source"]["gtid"],
                v["transaction"]["id"] if v.get("transaction") else None) for v in _values(broker, topic)]
    streamed = [c for c in changes if c[0] != "r"]
    assert [c[0] for c in changes if c[0] == "r"] == ["r"]
    assert [(op, key) for op, key, *_ in streamed] == [("c", 2), ("c", 3), ("u", 2), ("d", 1), ("c", 4), ("c", 5),
                                                       ("c", 6)]
    gtids = [g for _, _, g, _ in streamed]
    assert gtids[1] == gtids[2] == f"{uuid}:batch_a:1"  # one transaction, MySQL's lowercase tag
    assert gtids[3] == f"{uuid}:etl:2" and gtids[4] == f"{uuid}:etl:3" and gtids[6] == f"{uuid}:batch_a:2"
    assert ":" not in gtids[0].removeprefix(uuid + ":") and ":" not in gtids[5].removeprefix(uuid + ":")
    assert all(tx == g for _, _, g, tx in streamed)  # the transaction id is the tagged GTID, as Debezium's

    # offsets show / set take tagged sets
    shown = json.loads(_cli("offsets", "show", str(config)).stdout)
    assert shown[0]["value"]["gtids"].endswith(":batch_a:1-1:etl:1-3")  # the set before the last transaction
    server.run_sql(_tagged("skip_me", "INSERT INTO t VALUES (7, 'skipped')"), database=database)
    file, pos = server.binlog_position()
    executed = str(server.query("SELECT @@GLOBAL.gtid_executed")[0][0]).replace("\n", "")
    assert ":skip_me:1" in executed
    bad = _cli("offsets", "set", str(config), "--file", file, "--pos", str(pos), "--gtids", f"{uuid}:1-3:bad tag:1")
    assert bad.returncode == 2 and "--gtids" in bad.stderr, bad.stderr
    moved = _cli("offsets", "set", str(config), "--file", file, "--pos", str(pos), "--gtids", executed)
    assert moved.returncode == 0, moved.stderr
    assert ":skip_me:1" in json.loads(moved.stdout)["new"]["gtids"]
    server.run_sql(_tagged("etl", "INSERT INTO t VALUES (8, 'after set')"), database=database)
    proc = start_connector(tmp_path, config)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=PROCESS_BOUND_S)
    assert proc.stop() == 0, proc.log_tail()
    after_set = [(v["after"]["id"], v["source"]["gtid"]) for v in _values(broker, topic)[len(changes):]]
    assert after_set == [(8, f"{uuid}:etl:4")]
