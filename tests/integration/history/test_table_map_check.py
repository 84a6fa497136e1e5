"""Run-time verification of every TABLE_MAP against the in-memory schema (issue 4).

A user DDL filter that hides an ALTER from the schema history makes the history drift from the
server, as a mis-parsed or skipped statement would. The next TABLE_MAP of that table has more columns
than the history: by default the connector must stop before emitting a wrongly-shaped row, naming the
table, the binlog position and the last DDL it applied to the table; with
inconsistent.schema.handling.mode=warn it must skip that table's rows and go on with the others.
"""
from __future__ import annotations

import re
import uuid

import pytest

from tests.integration.history.support import connector, data_values, wait_exit, write_config

pytestmark = pytest.mark.timeout(180)
HIDDEN_ALTER = "ALTER TABLE drift ADD COLUMN b INT"


def _setup(server, unique_database):
    database = unique_database(server)
    server.run_sql("CREATE TABLE drift (id INT PRIMARY KEY, a INT); CREATE TABLE fine (id INT PRIMARY KEY);",
                   database=database)
    return database


@pytest.mark.parametrize("server_name,signals", [("mariadb", False), ("mysql", False), ("mariadb", True)],
                         ids=["mariadb", "mysql", "mariadb-signals"])
def test_table_map_mismatch_stops_naming_table_position_and_last_ddl(server_name, signals, request, broker,
                                                                      unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = _setup(server, unique_database)
    prefix = f"tm{uuid.uuid4().hex[:8]}"
    broker.create_topics([prefix, f"{prefix}.{database}.drift", f"{prefix}.{database}.fine"])
    # with a signal table the signal processor stands between streaming and the dispatcher: the check holds there too
    extra = {}
    if signals:
        server.run_sql("CREATE TABLE dbz_signal (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32), data TEXT)",
                       database=database)
        extra = {"signal.data.collection": f"{database}.dbz_signal"}
    config = write_config(tmp_path, server, broker, database, prefix,
                          **{"schema.history.internal.ddl.filter": re.escape(HIDDEN_ALTER)}, **extra)
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    server.run_sql(f"INSERT INTO drift VALUES (1, 1); {HIDDEN_ALTER}; INSERT INTO drift VALUES (2, 2, 2);",
                   database=database)
    rc = wait_exit(proc)
    log = (tmp_path / "connector.log").read_text()
    assert rc != 0
    m = re.search(r"TABLE_MAP does not match the schema history \((.*)\) at (\S+):(\d+) table (\S+): "
                  r"last DDL applied to this table: (.*)\. Fix: ", log)
    assert m, log[-3000:]
    assert m.group(4) == f"{database}.drift"
    assert "the binlog has 3 columns, the schema 2 (id, a)" in m.group(1)
    assert m.group(5).startswith("CREATE TABLE `drift`")
    # the position is the TABLE_MAP of the second insert: after the ALTER in the binlog
    alter_pos = _query_event_pos(server, HIDDEN_ALTER)
    assert m.group(2) == alter_pos[0] and int(m.group(3)) > alter_pos[1]
    # the row before the ALTER went out, the one after did not
    assert [p["after"]["id"] for p in data_values(broker, f"{prefix}.{database}.drift")] == [1]


def test_table_map_mismatch_warn_mode_skips_only_that_table(mariadb, broker, unique_database, tmp_path):
    database = _setup(mariadb, unique_database)
    prefix = f"tm{uuid.uuid4().hex[:8]}"
    broker.create_topics([prefix, f"{prefix}.{database}.drift", f"{prefix}.{database}.fine"])
    config = write_config(tmp_path, mariadb, broker, database, prefix,
                          **{"schema.history.internal.ddl.filter": re.escape(HIDDEN_ALTER),
                             "inconsistent.schema.handling.mode": "warn"})
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    mariadb.run_sql(f"{HIDDEN_ALTER}; INSERT INTO drift VALUES (2, 2, 2); INSERT INTO fine VALUES (7);"
                    "ALTER TABLE drift DROP COLUMN b; INSERT INTO drift VALUES (3, 3);", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=800, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    log = (tmp_path / "connector.log").read_text()
    assert "does not match the schema history" in log and "inconsistent.schema.handling.mode=warn" in log
    # drift rows come back once a TABLE_MAP agrees again: after DROP COLUMN b the server's table is
    # (id, a) again, which is what the history still holds (dropping an unknown column changes nothing)
    assert [p["after"]["id"] for p in data_values(broker, f"{prefix}.{database}.drift")] == [3]
    assert [p["after"]["id"] for p in data_values(broker, f"{prefix}.{database}.fine")] == [7]


def _query_event_pos(server, statement: str) -> tuple[str, int]:
    conn = server.connect()
    with conn.cursor() as cur:
        cur.execute("SHOW BINARY LOGS")
        logs = [r[0] for r in cur.fetchall()]
        for name in reversed(logs):
            cur.execute(f"SHOW BINLOG EVENTS IN '{name}'")
            for row in cur.fetchall():
                if row[2] == "Query" and statement in row[5]:
                    return name, row[1]
    raise AssertionError(f"{statement} not in the binlog")

