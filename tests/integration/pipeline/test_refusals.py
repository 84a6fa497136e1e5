"""The connector refuses to start, naming the cause and the fix, on servers or state it cannot
capture exactly: a binlog that is not ROW/FULL, a missing server id, a purged stored position."""
from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import connector_properties
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(180)


def _props(server, broker, prefix: str, workdir: Path, database: str) -> dict[str, str]:
    return connector_properties(workdir, server, broker, database, prefix, server_id=6401)


def _run_once(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*default_connector_cmd(), "run", str(config)], capture_output=True, text=True, timeout=120)


def test_missing_server_id_is_a_config_error(mariadb, broker, unique_database, tmp_path):
    props = _props(mariadb, broker, "p" + uuid.uuid4().hex[:6], tmp_path, unique_database(mariadb))
    del props["debezium.source.database.server.id"]
    write_properties(tmp_path / "c.properties", props)
    result = _run_once(tmp_path / "c.properties")
    assert result.returncode == 2
    assert "database.server.id is required" in result.stderr


def test_statement_binlog_format_is_refused(mariadb, broker, unique_database, tmp_path):
    write_properties(tmp_path / "c.properties", _props(mariadb, broker, "p" + uuid.uuid4().hex[:6], tmp_path,
                                                      unique_database(mariadb)))
    mariadb.run_sql("SET GLOBAL binlog_format='STATEMENT';")
    try:
        result = _run_once(tmp_path / "c.properties")
    finally:
        mariadb.run_sql("SET GLOBAL binlog_format='ROW';")
    assert result.returncode == 2
    assert "binlog_format is STATEMENT, not ROW" in result.stderr
    assert "SET GLOBAL binlog_format='ROW'" in result.stderr


def test_purged_position_is_refused_and_names_when_needed(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY);", database=database)
    config = tmp_path / "c.properties"
    write_properties(config, _props(mariadb, broker, "p" + uuid.uuid4().hex[:6], tmp_path, database))
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "s.json", tmp_path / "c.log").start()
    proc.wait_streaming(120)
    assert proc.stop() == 0
    stored = json.loads(subprocess.run([*default_connector_cmd(), "offsets", "show", str(config)],
                                       capture_output=True, text=True, check=True).stdout)[0]["value"]
    mariadb.run_sql("FLUSH BINARY LOGS; FLUSH BINARY LOGS;")
    # A dump thread whose client is gone still pins its binlog file until the server notices.
    mariadb._kill_dump_threads()
    # MariaDB keeps a file until InnoDB's binlog checkpoint has moved past it: retry for a while.

    def binlogs() -> list[str]:
        return [row[0] for row in mariadb.query("SHOW BINARY LOGS")]

    def purged() -> bool:
        if stored["file"] not in binlogs():
            return True
        mariadb.run_sql(f"FLUSH BINARY LOGS; PURGE BINARY LOGS TO '{binlogs()[-1]}';")
        return stored["file"] not in binlogs()

    wait_until(purged, 120, f"PURGE BINARY LOGS to remove the stored binlog file {stored['file']}", interval=0.5,
               state=binlogs)
    result = _run_once(config)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "no longer on the server" in result.stderr
    assert "snapshot.mode=when_needed" in result.stderr


def test_a_misspelt_property_stops_the_start_naming_the_property_meant(mariadb, broker, unique_database, tmp_path):
    """issue 24: `tabel.include.list` was a warning, and the connector captured every table."""
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY); CREATE TABLE other (id INT PRIMARY KEY);", database=database)
    props = _props(mariadb, broker, "p" + uuid.uuid4().hex[:6], tmp_path, database)
    props["debezium.source.tabel.include.list"] = f"{database}.t"
    props["debezium.source.my.own.setting"] = "x"  # far from every known name: still only a warning
    write_properties(tmp_path / "c.properties", props)
    for command in ("run", "validate"):
        result = subprocess.run([*default_connector_cmd(), command, str(tmp_path / "c.properties")],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert "unknown property tabel.include.list; did you mean table.include.list?" in result.stderr
        assert "my.own.setting" not in result.stderr.split("invalid configuration")[-1]
    assert not (tmp_path / "offsets.dat").exists()  # nothing was captured
