"""docker/mysql/: my.cnf and the init SQL on a real MySQL (9.x from Debian sid, the nearest to 8.4
that runs without Docker), and `binlog-cdc validate` with the shipped configuration against it."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.connector_process import default_connector_cmd
from tests.containers.inventory import (APPLICATION_PROPERTIES, INVENTORY_ROWS, MY_CNF, init_scripts,
                                        load_inventory)
from tests.support.servers import MySQLServer

pytestmark = [pytest.mark.mysql, pytest.mark.timeout(300)]


def my_cnf_options() -> dict[str, str]:
    options = {}
    for line in MY_CNF.read_text().splitlines():
        match = re.match(r"^\s*([a-z_-]+)\s*=\s*(\S+)", line)
        if match:
            options[match.group(1).replace("-", "_")] = match.group(2)
    return options


class ShippedConfigMySQL(MySQLServer):
    """The test bed's MySQL with docker/mysql/my.cnf appended: later options win, as with conf.d."""

    def _write_cnf(self) -> None:
        super()._write_cnf()
        body = MY_CNF.read_text().split("[mysqld]", 1)[1]
        self.cnf.write_text(self.cnf.read_text() + body)


@pytest.fixture(scope="module")
def shipped_mysql(tmp_path_factory: pytest.TempPathFactory, mysql_distribution) -> Iterator[MySQLServer]:
    # mysql_distribution (tests/conftest.py) skips, or fails under CI=true, when MySQL cannot be fetched
    # An OS-assigned port: xdist may run this module's tests on two workers, each with its own server (a fixed port
    # made the second one fail to bind).
    with ShippedConfigMySQL(tmp_path_factory.mktemp("mysql-shipped-cnf"), dist=mysql_distribution) as server:
        yield server


def table_counts(server: MySQLServer) -> dict[str, int]:
    tables = [r[0] for r in server.query("SHOW TABLES", database="inventory")]
    return {t: server.query(f"SELECT COUNT(*) FROM `{t}`", database="inventory")[0][0] for t in tables}


def test_my_cnf_settings_are_in_effect(shipped_mysql: MySQLServer) -> None:
    options = my_cnf_options()
    assert {"binlog_format", "binlog_row_image", "binlog_row_metadata", "gtid_mode"} <= set(options)
    for name, expected in options.items():
        if name == "log_bin":
            assert shipped_mysql.query("SELECT @@log_bin_basename")[0][0].endswith("/" + expected)
            continue
        actual = str(shipped_mysql.query(f"SELECT @@GLOBAL.{name}")[0][0])
        assert actual.upper() in {expected.upper(), {"ON": "1", "OFF": "0"}.get(expected.upper(), "")}, name


def test_init_scripts_create_the_inventory_and_the_connector_account(shipped_mysql: MySQLServer) -> None:
    # the way the image's entrypoint runs them: each file through the mysql client, in name order
    for script in init_scripts():
        shipped_mysql.run_sql(script.read_text(encoding="utf-8"), what=script.name)
    assert table_counts(shipped_mysql) == INVENTORY_ROWS
    grants = " ".join(r[0] for r in shipped_mysql.query("SHOW GRANTS FOR 'debezium'@'%'"))
    for privilege in ("SELECT", "RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "REPLICATION CLIENT", "LOCK TABLES"):
        assert privilege in grants
    # the statement splitter the container fixtures use for servers that already run
    with shipped_mysql.connect() as conn:
        load_inventory(conn)
    assert table_counts(shipped_mysql) == INVENTORY_ROWS


def test_validate_accepts_the_shipped_configuration_against_this_server(shipped_mysql: MySQLServer, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEBEZIUM_")}
    env |= {"DEBEZIUM_SOURCE_DATABASE_HOSTNAME": shipped_mysql.host, "DEBEZIUM_SOURCE_DATABASE_PORT": str(shipped_mysql.port)}
    result = subprocess.run([default_connector_cmd()[0], "validate", str(APPLICATION_PROPERTIES)], capture_output=True,
                            text=True, timeout=120, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok: mysql "), result.stdout
