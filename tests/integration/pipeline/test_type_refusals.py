"""MariaDB column types that Debezium 3.6.3 cannot capture are refused, with a message naming the table and
the fix (docs/DIFFERENCES.md):
- INET4 / INET6 / UUID: Debezium's MySQL DDL grammar rejects them ("mismatched input 'inet4'"), so its
  snapshot aborts; ours stops on the same CREATE TABLE;
- COMPRESSED columns: the snapshot works (the server decompresses), but neither binlog decoder can read
  their TABLE_MAP (Debezium: NullPointerException in mysql-binlog-connector-java), so streaming stops.
"""
from __future__ import annotations

import uuid

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_process import ConnectorProcess, default_connector_cmd, run_cli
from tests.support.connector_config import connector_properties
from tests.support.servers import MariaDBServer, Profile

pytestmark = pytest.mark.timeout(180)


def test_inet_and_uuid_columns_stop_the_snapshot_like_debezium(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    # sql_log_bin=0: the shared server's binlog is streamed by other tests, keep this DDL out of it
    mariadb.run_sql("SET sql_log_bin = 0; CREATE TABLE net_t (id INT PRIMARY KEY, ip4 INET4, ip6 INET6, u UUID);",
                    database=database)
    config = tmp_path / "c.properties"
    write_properties(config, connector_properties(tmp_path, mariadb, broker, database, "n" + uuid.uuid4().hex[:6]))
    result = run_cli("run", str(config))
    assert result.returncode != 0
    assert "unrecognized data type near 'inet4'" in result.stderr, result.stderr[-2000:]
    assert "CREATE TABLE `net_t`" in result.stderr


def test_compressed_columns_stop_streaming_with_the_fix_named(broker, tmp_path):
    # a private server: the TABLE_MAP of a COMPRESSED column stays in the binlog and would stop any
    # other connector reading past it
    with MariaDBServer(tmp_path / "maria", profile=Profile.DEFAULTS) as server:
        server.run_sql("CREATE DATABASE zdb; USE zdb; CREATE TABLE z (id INT PRIMARY KEY, c VARCHAR(100) COMPRESSED);"
                       "INSERT INTO z VALUES (1, REPEAT('ab', 40));")
        config = tmp_path / "c.properties"
        write_properties(config, connector_properties(tmp_path, server, broker, "zdb", "z" + uuid.uuid4().hex[:6]))
        proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "s.json", tmp_path / "c.log").start()
        try:
            proc.wait_streaming(120)  # the snapshot reads the decompressed text over SQL
            server.run_sql("INSERT INTO z VALUES (2, 'x');", database="zdb")
            rc = proc.wait_exit(60)
        finally:
            proc.stop()
        assert rc not in (0, None)
        log = proc.log_tail(80)
        assert "table zdb.z has a MariaDB COMPRESSED column" in log, log
        assert "remove the COMPRESSED attribute" in log
