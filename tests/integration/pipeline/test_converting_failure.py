"""event.converting.failure.handling.mode through `binlog-cdc run` on MariaDB: fail, warn and skip on a value
Debezium 3.6.3's converter throws on.

The value: a member of an ENUM in a `CHARSET=binary` table, which the snapshot's driver returns as bytes
(MediaWiki's `cl_type`). Debezium's binlog converters take only a string there and throw (nullable columns too),
and TableSchemaBuilder applies the mode: fail stops; warn and skip leave the field unset, so the record carries the
column's default (null without one), logged at WARN or DEBUG. Goldens realworld-mysql (warn) and
converting_failure-skip show Debezium's records; here the logging and fail's stop. Streamed rows carry the
member's index and convert.
"""
from __future__ import annotations

import json
import re
import uuid

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_config import connector_properties
from tests.support.connector_process import ConnectorProcess, default_connector_cmd
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(240)

DDL = ("CREATE TABLE t (id INT PRIMARY KEY, kind ENUM('page','subcat') NOT NULL DEFAULT 'page', "
       "opt ENUM('x','y')) DEFAULT CHARSET=binary; INSERT INTO t VALUES (1, 'subcat', 'y');")
FAILED = "Failed to properly convert data value for 'kind' of type ENUM"


def _start(tmp_path, mariadb, broker, database: str, mode: str, *flags: str) -> tuple[ConnectorProcess, str]:
    prefix = "cf" + uuid.uuid4().hex[:8]
    broker.create_topics([f"{prefix}.{database}.t", prefix])
    config = tmp_path / "c.properties"
    write_properties(config, connector_properties(tmp_path, mariadb, broker, database, prefix,
                                                  **{"event.converting.failure.handling.mode": mode}))
    cmd = [*default_connector_cmd(), *flags]
    return ConnectorProcess(cmd, config, tmp_path / "s.json", tmp_path / "c.log").start(), prefix


@pytest.mark.parametrize("mode", ["warn", "skip"])
def test_warn_and_skip_write_the_default_and_log_at_their_level(mode, mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql(DDL, database=database)
    # DEBUG for skip: its line is logged at that level only
    proc, prefix = _start(tmp_path, mariadb, broker, database, mode,
                          *(["--log-level", "DEBUG"] if mode == "skip" else []))
    try:
        proc.wait_streaming(120)
        mariadb.run_sql("INSERT INTO t VALUES (2, 'subcat', 'x');", database=database)
        proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    finally:
        assert proc.stop() == 0
    topic = f"{prefix}.{database}.t"
    after = [json.loads(r.value)["payload"]["after"] for r in consume_all(broker.bootstrap_servers, {topic: 1})]
    assert after == [
        {"id": 1, "kind": "page", "opt": None},  # snapshot: the default, null for the nullable column
        {"id": 2, "kind": "subcat", "opt": "x"},  # streamed: the member's index converts
    ]
    log = proc.run_log()
    assert "Traceback" not in log, log[-3000:]
    warned = re.findall(r"WARNING \S+: (.*)", log)
    opt = "Failed to properly convert data value for 'opt' of type ENUM"
    if mode == "warn":
        assert any(FAILED in w for w in warned) and any(opt in w for w in warned), warned
    else:  # skip: nothing at WARN, both at DEBUG
        assert not any("convert" in w for w in warned), warned
        assert re.search(rf"DEBUG \S+: {re.escape(FAILED)}", log) and re.search(rf"DEBUG \S+: {re.escape(opt)}",
                                                                               log), log[-3000:]


def test_fail_stops_with_one_line_naming_the_column(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql(DDL, database=database)
    proc, _ = _start(tmp_path, mariadb, broker, database, "fail")
    try:
        rc = proc.wait_exit(120)
    finally:
        proc.stop()
    assert rc == 2
    log = proc.run_log()
    assert "Traceback" not in log, log[-3000:]
    errors = re.findall(r"ERROR binlog-cdc: (.*)", log)
    assert len(errors) == 1, log[-3000:]
    assert f"table {database}.t" in errors[0] and "column kind (ENUM" in errors[0], errors[0]
    assert "event.converting.failure.handling.mode=fail" in errors[0], errors[0]
