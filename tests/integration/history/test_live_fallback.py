"""Where the schema history asks the server (connector.schema.live), on real MariaDB:

- an ALTER TABLE the parser cannot read (MariaDB's Oracle-mode VARCHAR2) is recorded with the
  table's SHOW CREATE TABLE shape instead of stopping the connector, when no later DDL touches the
  table; with a later DDL pending it still stops;
- snapshot.mode=recovery rebuilds a lost history when no DDL ran after the stored offset, and
  refuses when one did.
"""
from __future__ import annotations

import json
import re
import uuid

import pytest

from tests.integration.history.support import connector, data_values, wait_exit, write_config
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(180)
ORACLE_ALTER = "ALTER TABLE t ADD COLUMN c VARCHAR2(5)"


def _start(tmp_path, server, broker, database, prefix, **extra):
    config = write_config(tmp_path, server, broker, database, prefix, **extra)
    proc = connector(tmp_path, config).start()
    return proc


def _prepare(mariadb, unique_database, broker):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY, a INT)", database=database)
    prefix = f"lf{uuid.uuid4().hex[:8]}"
    broker.create_topics([prefix, f"{prefix}.{database}.t"])
    return database, prefix


def test_unparseable_alter_takes_show_create_table_shape(mariadb, broker, unique_database, tmp_path):
    database, prefix = _prepare(mariadb, unique_database, broker)
    proc = _start(tmp_path, mariadb, broker, database, prefix)
    proc.wait_streaming(120)
    mariadb.run_sql(f"SET SESSION sql_mode = 'ORACLE'; {ORACLE_ALTER}; SET SESSION sql_mode = DEFAULT;"
                    "INSERT INTO t VALUES (1, 2, 'abc');", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    log = (tmp_path / "connector.log").read_text()
    assert re.search(r"DDL at binlog \S+:\d+ cannot be parsed .* recorded the shape of " + re.escape(database)
                     + r"\.t from SHOW CREATE TABLE", log), log[-2000:]
    [row] = data_values(broker, f"{prefix}.{database}.t")
    assert row["after"] == {"id": 1, "a": 2, "c": "abc"}
    changes = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {prefix: 1})]
    [alter] = [c for c in changes if c["ddl"] == ORACLE_ALTER]
    [table_change] = alter["tableChanges"]
    assert table_change["type"] == "ALTER"
    assert [(c["name"], c["typeName"], c.get("length")) for c in table_change["table"]["columns"]] == [
        ("id", "INT", 11), ("a", "INT", 11), ("c", "VARCHAR", 5)]  # MariaDB SHOW CREATE: int(11)
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert history[-1]["ddl"] == ORACLE_ALTER
    shape = lambda cols: [(c["name"], c["typeName"], c.get("length"), c["optional"]) for c in cols]  # noqa: E731
    assert shape(history[-1]["tableChanges"][0]["table"]["columns"]) == shape(table_change["table"]["columns"])
    # a restart recovers that shape from the history
    proc = _start(tmp_path, mariadb, broker, database, prefix)
    proc.wait_streaming(120)
    mariadb.run_sql("INSERT INTO t VALUES (2, 3, 'de')", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert data_values(broker, f"{prefix}.{database}.t")[-1]["after"] == {"id": 2, "a": 3, "c": "de"}


def test_unparseable_alter_with_later_ddl_still_stops(mariadb, broker, unique_database, tmp_path):
    database, prefix = _prepare(mariadb, unique_database, broker)
    proc = _start(tmp_path, mariadb, broker, database, prefix)
    proc.wait_streaming(120)
    assert proc.stop() == 0
    mariadb.run_sql(f"SET SESSION sql_mode = 'ORACLE'; {ORACLE_ALTER}; SET SESSION sql_mode = DEFAULT;"
                    "ALTER TABLE t ADD COLUMN d INT;", database=database)
    proc = _start(tmp_path, mariadb, broker, database, prefix)
    assert wait_exit(proc) != 0
    log = (tmp_path / "connector.log").read_text()
    assert "a later statement at" in log and "cannot parse DDL (" in log, log[-2000:]


def test_recovery_mode_rebuilds_history_or_refuses_after_ddl(mariadb, broker, unique_database, tmp_path):
    database, prefix = _prepare(mariadb, unique_database, broker)
    proc = _start(tmp_path, mariadb, broker, database, prefix)
    proc.wait_streaming(120)
    assert proc.stop() == 0
    history = tmp_path / "history.jsonl"
    history.unlink()  # the history is lost; no DDL since the stop: recovery may rebuild it
    proc = _start(tmp_path, mariadb, broker, database, prefix, **{"snapshot.mode": "recovery"})
    proc.wait_streaming(120)
    mariadb.run_sql("INSERT INTO t VALUES (5, 6)", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert data_values(broker, f"{prefix}.{database}.t")[-1]["after"] == {"id": 5, "a": 6}
    assert "CREATE TABLE `t`" in history.read_text()

    history.unlink()  # lost again, but this time a DDL ran after the stop
    mariadb.run_sql("ALTER TABLE t ADD COLUMN z INT", database=database)
    proc = _start(tmp_path, mariadb, broker, database, prefix, **{"snapshot.mode": "recovery"})
    assert wait_exit(proc) != 0
    log = (tmp_path / "connector.log").read_text()
    assert "snapshot.mode=recovery refused: DDL ran after the stored offset" in log, log[-2000:]
    assert "ALTER TABLE t ADD COLUMN z INT" in log
