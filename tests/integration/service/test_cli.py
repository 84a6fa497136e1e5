"""`binlog-cdc offsets set` moves a stopped connector's position; `binlog-cdc validate` reports what a start
would find (stored offset, binlog expiry, purged positions)."""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.support.connector_process import default_connector_cmd
from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all
from tests.support.waiting import PROCESS_BOUND_S

pytestmark = pytest.mark.timeout(180)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*default_connector_cmd(), *args], capture_output=True, text=True, timeout=PROCESS_BOUND_S)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_offsets_set_skips_to_the_new_position(server_name, request, broker, unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=database)
    prefix = new_prefix("oset")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix])
    config = connector_config(tmp_path, server, broker, database, prefix)
    proc = start_connector(tmp_path, config)
    server.run_sql("INSERT INTO t VALUES (1)", database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()

    server.run_sql("INSERT INTO t VALUES (2); INSERT INTO t VALUES (3)", database=database)  # to be skipped
    file, pos = server.binlog_position()
    gtids = server.query("SELECT @@GLOBAL.gtid_executed")[0][0] if server_name == "mysql" else None
    server.run_sql("INSERT INTO t VALUES (4)", database=database)

    bad = cli("offsets", "set", str(config), "--file", file, "--pos", str(pos + 10_000_000))
    assert bad.returncode == 2 and "beyond the end" in bad.stderr
    args = ["offsets", "set", str(config), "--file", file, "--pos", str(pos)]
    if gtids:
        args += ["--gtids", gtids]
    moved = cli(*args)
    assert moved.returncode == 0, moved.stderr
    new = json.loads(moved.stdout)["new"]
    assert (new["file"], new["pos"]) == (file, pos)
    shown = json.loads(cli("offsets", "show", str(config)).stdout)
    assert shown[0]["value"]["pos"] == pos

    report = cli("validate", str(config))
    assert report.returncode == 0, report.stdout + report.stderr
    assert f'"pos":{pos}' in report.stdout and "binlog expiry" in report.stdout

    proc = start_connector(tmp_path, config)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    ids = [json.loads(r.value)["payload"]["after"]["id"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
           if r.value is not None]
    assert ids == [1, 4]


def test_validate_reports_a_purged_position(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    config = connector_config(tmp_path, mariadb, broker, database, new_prefix("val"))
    first = mariadb.query("SHOW BINARY LOGS")[0][0]
    moved = cli("offsets", "set", str(config), "--file", first, "--pos", "4")
    assert moved.returncode == 0, moved.stderr
    ghost = first.rsplit(".", 1)[0] + ".000000"
    assert cli("offsets", "set", str(config), "--file", ghost, "--pos", "4").returncode == 2
    assert cli("offsets", "set", str(config), "--file", ghost, "--pos", "4", "--no-check").returncode == 0
    report = cli("validate", str(config))
    assert report.returncode == 1
    assert "was purged" in report.stdout and "snapshot.mode=when_needed" in report.stdout
