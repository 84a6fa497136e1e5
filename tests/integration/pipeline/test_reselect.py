"""post.processors with Debezium's ReselectColumnsPostProcessor, through `binlog-cdc run` on both servers.

The goldens `reselect` / `reselect-mysql` show Debezium 3.6.3's own output on FULL row images (a NULL column
re-selected by primary key; a row gone: a warning, the record as it was). Here what Debezium cannot show: a
session logging NOBLOB images (Debezium 3.6.3 stops on their first update, "internal schema size N, but row size
M"), whose TEXT/BLOB columns the re-select fills in, and `reselect.error.handling.mode=fail` stopping with one
line that names the table, the binlog position and the fix.
"""
from __future__ import annotations

import json
import re
import threading
import time
import uuid

import pytest

from connector.config.loaders import load_config
from connector.daemon import build_reselector, connection_params, table_schema_builder
from connector.errors import Where
from connector.transforms.config import transform_settings
from schema_history.model import Column, Table, TableId
from tests.conformance.config import write_properties
from tests.support.connector_config import connector_properties
from tests.support.connector_process import ConnectorProcess, default_connector_cmd
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(240)

RESELECT = "io.debezium.processors.reselect.ReselectColumnsPostProcessor"
DDL = "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), body TEXT, pic BLOB, n INT);"


def _start(tmp_path, server, broker, database: str, **extra: str) -> tuple[ConnectorProcess, str]:
    prefix = "rs" + uuid.uuid4().hex[:8]
    broker.create_topics([f"{prefix}.{database}.t", prefix])  # one partition: records in order
    config = tmp_path / "c.properties"
    write_properties(config, connector_properties(tmp_path, server, broker, database, prefix, post_processors="r",
                                                  **{"post.processors.r.type": RESELECT}, **extra))
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "s.json", tmp_path / "c.log").start()
    proc.wait_streaming(120)
    return proc, prefix


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_noblob_images_get_their_missing_columns_from_the_table(server_name, request, broker, unique_database,
                                                                 tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql(DDL + "INSERT INTO t VALUES (1, 'one', 'long text', 'blob', 1), (2, 'two', 'other', NULL, 2);",
                   database=database)
    # the column list selects body (and not pic) of this table: pic stays as the binlog gave it
    proc, prefix = _start(tmp_path, server, broker, database,
                          **{"post.processors.r.reselect.columns.include.list": rf"{database}\.t:(body|name)"})
    try:
        server.run_sql("SET SESSION binlog_row_image = 'NOBLOB'; UPDATE t SET n = 10 WHERE id = 1;"
                       "UPDATE t SET n = 20, name = NULL WHERE id = 2;", database=database)
        proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
    finally:
        assert proc.stop() == 0
    topic = f"{prefix}.{database}.t"
    records = [json.loads(r.value) for r in consume_all(broker.bootstrap_servers, {topic: 1}) if r.value]
    updates = [r["payload"] for r in records if r["payload"]["op"] == "u"]
    assert len(updates) == 2, [r["payload"] for r in records]
    assert [u["after"] for u in updates] == [
        # body re-selected; pic (a BLOB the NOBLOB image left out) not in the include list: null as logged
        {"id": 1, "name": "one", "body": "long text", "pic": None, "n": 10},
        # name is NULL in the table too: re-selected, still null
        {"id": 2, "name": None, "body": "other", "pic": None, "n": 20},
    ]
    # the before images are never touched
    assert updates[0]["before"]["body"] is None


def test_fail_mode_stops_with_one_line_naming_table_position_and_fix(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql(DDL, database=database)
    proc, _ = _start(tmp_path, mariadb, broker, database,
                     **{"post.processors.r.reselect.error.handling.mode": "fail"})
    try:
        # the row is gone when its insert is read: nothing to re-select
        mariadb.run_sql("START TRANSACTION; INSERT INTO t (id) VALUES (7); DELETE FROM t WHERE id = 7; COMMIT;",
                        database=database)
        rc = proc.wait_exit(120)
    finally:
        proc.stop()
    assert rc == 2
    log = proc.run_log()
    assert "Traceback" not in log, log[-3000:]
    errors = re.findall(r"ERROR binlog-cdc: (.*)", log)
    assert len(errors) == 1, log[-3000:]
    assert f"Failed to find row in table {database}.t with key Struct{{id=7}}." in errors[0]
    assert re.search(rf"at \S+-bin\.\d+:\d+ table {database}\.t", errors[0]), errors[0]
    assert "reselect.error.handling.mode=warn" in errors[0]


def _reselector_for(tmp_path, server, broker, database: str):
    """The daemon's own re-select wiring for `database`.t, and the table's schema as the dispatcher builds it."""
    config = tmp_path / "c.properties"
    write_properties(config, connector_properties(tmp_path, server, broker, database, "rs", post_processors="r",
                                                  **{"post.processors.r.type": RESELECT}))
    settings = load_config(config).settings(transform_settings)
    table = Table(TableId(database, "t"),
                  (Column("id", 1, 4, "INT", "INT", optional=False), Column("name", 2, 12, "VARCHAR", "VARCHAR",
                                                                            length=20)),
                  primary_key_column_names=("id",))
    return build_reselector(settings, connection_params(settings)), table_schema_builder(settings).build(table)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_reselect_never_returns_the_row_from_before_the_change(server_name, request, broker, unique_database,
                                                               tmp_path):
    """Both servers hand a transaction's events to binlog readers before its engine commit is visible: a plain
    SELECT by key can still see the row before the change being processed. Here the change's transaction is held
    open (its row lock taken, not yet visible) when the re-select runs, as it is for microseconds in that window."""
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)); INSERT INTO t VALUES (2, 'two');",
                   database=database)
    reselector, ts = _reselector_for(tmp_path, server, broker, database)
    writer = server.connect(database)
    try:
        with writer.cursor() as cur:
            cur.execute("SET autocommit = 0")
            cur.execute("UPDATE t SET name = NULL WHERE id = 2")  # the change whose record is re-selected
        commit = threading.Timer(0.3, writer.commit)
        commit.start()
        assert reselector.apply(ts, [2, None], [2, None], Where()) == [2, None]  # not [2, 'two']
        commit.join()  # the locks go before the client has the commit's answer: the connection is busy till then
        # A later transaction holding the row past the lock wait: the plain read after it sees the committed row.
        with writer.cursor() as cur:
            cur.execute("UPDATE t SET name = 'later' WHERE id = 2")
        started = time.monotonic()
        assert reselector.apply(ts, [2, None], [2, None], Where()) == [2, None]
        assert 0.9 <= time.monotonic() - started < 30
        assert reselector.queries == 2
    finally:
        writer.rollback()
        writer.close()
        reselector.close()
