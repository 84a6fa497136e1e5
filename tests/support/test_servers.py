"""The test bed itself: servers come up as configured, stop without leftovers, and the
`reference` profiles reproduce the real-Debezium harness's binlog positions exactly."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from confluent_kafka import Producer

from tests.support.kafka_dump import consume_all
from tests.support.servers import MariaDBServer, MySQLServer, Profile
from tests.support.workload import Workload, WorkloadError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BASIC = Workload.load(FIXTURES / "workloads" / "basic.sql")


def golden_run_info(name: str) -> dict:
    return json.loads((FIXTURES / "golden" / name / "run_info.json").read_text())


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie still answers kill(0); it has no cmdline any more
    return Path(f"/proc/{pid}/cmdline").read_bytes() == b""


def test_workload_sections():
    assert "CREATE DATABASE inventory" in BASIC.setup
    assert len(BASIC.sections) == 2 and all("USE inventory" in s for s in BASIC.sections)


def test_workload_needs_one_stream_marker(tmp_path):
    (tmp_path / "w.sql").write_text("SELECT 1;\n")
    with pytest.raises(WorkloadError, match="exactly one"):
        Workload.load(tmp_path / "w.sql")


def test_mariadb_reference_profile_reproduces_golden_positions(tmp_path):
    with MariaDBServer(tmp_path / "db", profile=Profile.REFERENCE) as db:
        version, checksum, annotate, tz = db.query(
            "SELECT VERSION(), @@binlog_checksum, @@binlog_annotate_row_events, @@time_zone")[0]
        db.run_sql(BASIC.setup)
        position = db.binlog_position()
        pid = db.pid
    assert version == f"5.5.5-{db.version()}-log" and checksum == "NONE" and annotate == 0 and tz == "+00:00"
    golden = golden_run_info("basic")
    assert golden["mariadb"] == db.version(), "goldens were recorded with another MariaDB release"
    assert list(position) == golden["binlog_after_setup"] == ["mariadb-bin.000001", 6199]
    assert process_gone(pid)


def test_mariadb_defaults_profile_is_what_users_run(mariadb, unique_database):
    settings = dict(mariadb.query(
        "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('log_bin', 'binlog_format', 'binlog_row_image', "
        "'binlog_row_metadata', 'binlog_checksum', 'binlog_annotate_row_events')"))
    assert settings == {"log_bin": "ON", "binlog_format": "ROW", "binlog_row_image": "FULL",
                        "binlog_row_metadata": "FULL", "binlog_checksum": "CRC32", "binlog_annotate_row_events": "ON"}
    assert "MariaDB" in mariadb.query("SELECT VERSION()")[0][0]
    name = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10)); INSERT INTO t VALUES (1, 'ä😀');", name)
    with mariadb.connect(name, root=False) as conn, conn.cursor() as cur:  # the connector's user, over TCP
        cur.execute("SELECT s FROM t")
        assert cur.fetchall() == (("ä😀",),)
        cur.execute("SHOW MASTER STATUS")
        assert cur.fetchone()[0].startswith("mariadb-bin.")


@pytest.mark.mysql
def test_mysql_reference_profile_reproduces_golden_positions(tmp_path, mysql_distribution):
    with MySQLServer(tmp_path / "db", profile=Profile.REFERENCE, dist=mysql_distribution) as db:
        db.run_sql(BASIC.setup)
        position, gtids, uuid = db.binlog_position(), db.gtid_executed(), db.server_uuid()
        pid = db.pid
    golden = golden_run_info("basic-mysql")
    assert gtids == f"{uuid}:1-11"
    if golden["mysql"] != db.version():
        pytest.skip(f"sid moved: MySQL {db.version()} here, goldens from {golden['mysql']} (position {position})")
    assert list(position) == golden["binlog_after_setup"]
    assert process_gone(pid)


@pytest.mark.mysql
def test_mysql_connector_user_logs_in_over_tcp(mysql, unique_database):
    name = unique_database(mysql)
    mysql.run_sql("CREATE TABLE t (id INT PRIMARY KEY, j JSON); INSERT INTO t VALUES (1, '{\"a\": 1}');", name)
    with mysql.connect(name, root=False) as conn, conn.cursor() as cur:  # caching_sha2_password over TCP
        cur.execute("SELECT @@gtid_mode, @@binlog_row_metadata, j FROM t")
        assert cur.fetchone() == ("ON", "FULL", '{"a": 1}')
    assert mysql.binlog_position()[0].startswith("mysql-bin.")


def test_broker_round_trip_keeps_order_headers_and_tombstones(broker):
    broker.create_topics(["bed.roundtrip"])
    assert broker.topics()["bed.roundtrip"] == 1
    p = Producer({"bootstrap.servers": broker.bootstrap_servers, "linger.ms": 50})  # multi-record batches
    for i in range(20):
        p.produce("bed.roundtrip", key=f"k{i % 3}".encode(), value=None if i == 7 else f"v{i}".encode(),
                  headers=[("h", f"{i}".encode())])
    assert p.flush(15) == 0
    records = consume_all(broker.bootstrap_servers, {"bed.roundtrip": 1})
    assert [r.offset for r in records] == list(range(20))
    assert records[7].value is None and records[8].value == b"v8"
    assert records[19].headers == (("h", b"19"),) and records[5].key == b"k2"
