"""include.query=true: each change's `source.query` is the SQL statement that made it.

MySQL writes the statement as a ROWS_QUERY event (session `binlog_rows_query_log_events=ON`); MariaDB
as an ANNOTATE_ROWS event (`binlog_annotate_row_events`, ON by default), which it sends only to a replica
that asks for it in its COM_BINLOG_DUMP flags, as Debezium's MariaDB connector does with include.query.
The query holds until the transaction commits (Debezium's `commitTransaction` clears it), snapshot
records have none, and neither have DDL records. Byte-exact goldens: `basic-query`, `basic-query-mysql`.
"""
from __future__ import annotations

import json

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(180)

TX = (
    "INSERT INTO notes (id, body) VALUES (2, 'Zoë ☃'), (3, 'x')",
    "UPDATE notes SET body = 'changed' WHERE id = 1",
)
SINGLE = "DELETE FROM notes WHERE id = 3"


@pytest.mark.parametrize("server_name", ["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def test_source_query_carries_each_statement(server_name, request, broker, unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(40)); "
                   "INSERT INTO notes VALUES (1, 'snap')", database=database)
    prefix = new_prefix("query")
    topic = f"{prefix}.{database}.notes"
    broker.create_topics([topic, prefix])
    config = connector_config(tmp_path, server, broker, database, prefix, include_query="true")
    proc = start_connector(tmp_path, config)
    conn = server.connect(database)
    with conn.cursor() as cur:
        if server_name == "mysql":
            cur.execute("SET SESSION binlog_rows_query_log_events = ON")
        cur.execute("BEGIN")
        for sql in TX:
            cur.execute(sql)
        cur.execute("COMMIT")
        cur.execute(SINGLE)
        cur.execute("ALTER TABLE notes ADD COLUMN extra INT NULL")
    conn.close()
    proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()

    records = consume_all(broker.bootstrap_servers, {topic: 1, prefix: 1})
    changes = [json.loads(r.value)["payload"] for r in records if r.topic == topic and r.value is not None]
    assert [(c["op"], c["source"]["query"]) for c in changes] == [
        ("r", None), ("c", TX[0]), ("c", TX[0]), ("u", TX[1]), ("d", SINGLE)]
    ddl = [json.loads(r.value)["payload"] for r in records if r.topic == prefix]
    alter = [d for d in ddl if d["ddl"].startswith("ALTER TABLE notes")]
    assert alter and alter[0]["source"]["query"] is None
