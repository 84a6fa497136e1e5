"""MariaDB-only DDL that Debezium's MySQL connector cannot parse (it stops on `WITH SYSTEM VERSIONING` and
`CREATE SEQUENCE`), end to end on real MariaDB (schema_history.ddl.versioning, schema_history.ddl.sequences):

- a system-versioned table's hidden row_start/row_end columns are part of its schema (snapshot and binlog),
  and row_end joins the key, so the history row an UPDATE writes and the row_end update a DELETE writes
  carry keys of their own instead of overwriting the current row;
- ADD/DROP SYSTEM VERSIONING add and remove them; a restart recovers them from the history;
- a sequence is a table whose rows the binlog carries (NEXTVAL refilling its cache).
"""
from __future__ import annotations

import json
import uuid

import pytest

from tests.integration.history.support import connector, data_values, write_config
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(180)
MAX_END = "2038-01-19T03:14:07.999999Z"  # row_end of current rows on MariaDB 10.11


def _keys_and_values(broker, topic):
    out = []
    for r in consume_all(broker.bootstrap_servers, {topic: 1}):
        if r.value is not None:
            out.append((json.loads(r.key)["payload"], json.loads(r.value)["payload"]))
    return out


def test_system_versioned_tables_and_sequences(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE snap_sv (id INT PRIMARY KEY, v INT) WITH SYSTEM VERSIONING;"
                    "INSERT INTO snap_sv VALUES (1, 1);", database=database)
    prefix = f"sv{uuid.uuid4().hex[:8]}"
    tables = ["snap_sv", "sv", "plain", "seq1"]
    broker.create_topics([prefix, *(f"{prefix}.{database}.{t}" for t in tables)])
    config = write_config(tmp_path, mariadb, broker, database, prefix)
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    mariadb.run_sql(
        "CREATE TABLE sv (id INT PRIMARY KEY, v INT, w INT WITHOUT SYSTEM VERSIONING) WITH SYSTEM VERSIONING;"
        "INSERT INTO sv VALUES (1, 1, 1); UPDATE sv SET v = 2 WHERE id = 1; DELETE FROM sv WHERE id = 1;"
        "CREATE TABLE plain (id INT PRIMARY KEY, v INT); ALTER TABLE plain ADD SYSTEM VERSIONING;"
        "INSERT INTO plain VALUES (1, 1);"
        "CREATE SEQUENCE seq1 START WITH 10 INCREMENT BY 5; SELECT NEXTVAL(seq1);", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()

    [(key, snap)] = _keys_and_values(broker, f"{prefix}.{database}.snap_sv")
    assert snap["op"] == "r" and list(snap["after"]) == ["id", "v", "row_start", "row_end"]
    assert key == {"id": 1, "row_end": MAX_END}

    events = _keys_and_values(broker, f"{prefix}.{database}.sv")
    assert [(v["op"], k["row_end"] == MAX_END) for k, v in events] == [
        ("c", True),   # INSERT
        ("u", True),   # UPDATE: the current row ...
        ("c", False),  # ... and the old version, now history, under its own key
        ("d", True),   # DELETE: row_end of the current row moves to now (a key change: delete + create)
        ("c", False)]
    assert events[2][1]["after"]["v"] == 1 and events[4][1]["after"]["v"] == 2

    [(_, plain)] = _keys_and_values(broker, f"{prefix}.{database}.plain")
    assert plain["after"]["row_end"] == MAX_END and plain["after"]["v"] == 1
    [seq] = data_values(broker, f"{prefix}.{database}.seq1")
    assert seq["after"]["start_value"] == 10 and seq["after"]["increment"] == 5

    # a restart recovers the hidden columns from the history; DROP SYSTEM VERSIONING removes them
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    mariadb.run_sql("INSERT INTO plain VALUES (2, 2); ALTER TABLE plain DROP SYSTEM VERSIONING;"
                    "INSERT INTO plain VALUES (3, 3); DROP SEQUENCE seq1;", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    rows = [v["after"] for v in data_values(broker, f"{prefix}.{database}.plain")]
    assert rows[1:] == [{"id": 2, "v": 2, "row_start": rows[1]["row_start"], "row_end": MAX_END}, {"id": 3, "v": 3}]
