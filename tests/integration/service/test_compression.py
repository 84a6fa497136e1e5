"""MySQL binlog transaction compression (TRANSACTION_PAYLOAD events) end to end, with include.query.

The writer's session turns on `binlog_transaction_compression` (and `binlog_rows_query_log_events`), so
its transactions reach the connector as one zstd payload each, with the ROWS_QUERY events inside it.
Checked: every change arrives once, `source.pos` is the payload event's position (the inner events
have none, as in Debezium), `source.query` carries each statement, and a restart whose stored offset
points into the payload (`event`/`row` counts of inner events) neither loses nor repeats a row.
The byte-exact comparison with Debezium is the `basic-compressed-mysql` conformance golden.
MariaDB's own binlog compression (`log_bin_compress`, other event types) is not decoded: refused.
"""
from __future__ import annotations

import json

import pytest

from connector.config.loaders import load_config
from connector.daemon import make_offset_store
from tests.support.connector_process import run_cli
from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all
from connector.transforms.config import transform_settings

pytestmark = pytest.mark.timeout(240)

STATEMENTS = (
    "INSERT INTO items (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    "UPDATE items SET v = CONCAT(v, '!') WHERE id IN (1, 2)",
    "DELETE FROM items WHERE id = 3",
)
# (op, id, query) per change of the compressed transaction, in binlog order
CHANGES = [("c", 1, 0), ("c", 2, 0), ("c", 3, 0), ("u", 1, 1), ("u", 2, 1), ("d", 3, 2)]
LAST = "INSERT INTO items (id, v) VALUES (9, 'z')"


def _compressed_session(server, database: str):
    conn = server.connect(database)
    with conn.cursor() as cur:
        cur.execute("SET SESSION binlog_transaction_compression = ON")
        cur.execute("SET SESSION binlog_rows_query_log_events = ON")
    return conn


def _run(conn, statements: tuple[str, ...]) -> None:
    with conn.cursor() as cur:
        cur.execute("BEGIN")
        for sql in statements:
            cur.execute(sql)
        cur.execute("COMMIT")


def _data(records, topic: str) -> list[tuple[str, int, dict]]:
    out = []
    for r in records:
        if r.topic == topic and r.value is not None:
            payload = json.loads(r.value)["payload"]
            out.append((payload["op"], json.loads(r.key)["payload"]["id"], payload["source"]))
    return out


def _payload_positions(server, file: str) -> list[int]:
    rows = server.query(f"SHOW BINLOG EVENTS IN '{file}'")
    return [int(r[1]) for r in rows if r[2] == "Transaction_payload"]


@pytest.mark.mysql
def test_compressed_transaction_streams_and_resumes_inside_the_payload(mysql, broker, unique_database, tmp_path):
    database = unique_database(mysql)
    mysql.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v VARCHAR(20))", database=database)
    prefix = new_prefix("zstd")
    topic, tx_topic = f"{prefix}.{database}.items", f"{prefix}.transaction"
    broker.create_topics([topic, tx_topic, prefix])
    config = connector_config(tmp_path, mysql, broker, database, prefix, provide_transaction_metadata="true",
                              include_query="true")
    proc = start_connector(tmp_path, config)
    writer = _compressed_session(mysql, database)
    _run(writer, STATEMENTS)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()

    records = consume_all(broker.bootstrap_servers, {topic: 1, tx_topic: 1})
    first = _data(records, topic)
    assert [(op, key) for op, key, _ in first] == [(op, key) for op, key, _ in CHANGES]
    # One payload event holds the transaction: every change names its position, rows count within events.
    file = first[0][2]["file"]
    payload_pos = first[0][2]["pos"]
    assert payload_pos in _payload_positions(mysql, file)
    assert {s["pos"] for _, _, s in first} == {payload_pos}
    assert [s["row"] for _, _, s in first] == [0, 1, 2, 0, 1, 0]
    assert [s["query"] for _, _, s in first] == [STATEMENTS[q] for _, _, q in CHANGES]
    gtid = first[0][2]["gtid"]
    uuid, _, seq = gtid.rpartition(":")
    txs = [json.loads(r.value)["payload"] for r in records if r.topic == tx_topic]
    assert [(t["status"], t["id"]) for t in txs] == [("BEGIN", gtid), ("END", gtid)]
    assert txs[1]["event_count"] == len(CHANGES)

    # Restart inside the payload: BEGIN + 2 rows of the INSERT already sent (inner events BEGIN=0,
    # ROWS_QUERY=1, TABLE_MAP=2, WRITE_ROWS=3: `event` 3 completed events, `row` 2 of the 4th).
    settings = load_config(config, environ={}).settings(transform_settings)
    store = make_offset_store(settings)
    try:
        store.save({"transaction_id": gtid, f"transaction_data_collection_order_{database}.items": 2,
                    "file": file, "pos": payload_pos, "gtids": f"{uuid}:1-{int(seq) - 1}",
                    "server_id": first[0][2]["server_id"], "event": 3, "row": 2})
    finally:
        store.close()
    proc = start_connector(tmp_path, config)
    _run(writer, (LAST,))
    writer.close()
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()

    records = consume_all(broker.bootstrap_servers, {topic: 1, tx_topic: 1})
    again = _data(records, topic)[len(first):]
    assert [(op, key) for op, key, _ in again] == [(op, key) for op, key, _ in CHANGES[2:]] + [("c", 9)]
    assert [s["row"] for _, _, s in again[:-1]] == [2, 0, 1, 0]
    assert [s["query"] for _, _, s in again] == [STATEMENTS[q] for _, _, q in CHANGES[2:]] + [LAST]
    txs = [json.loads(r.value)["payload"] for r in records if r.topic == tx_topic][2:]
    # the transaction's BEGIN is not sent again; its END still counts every change
    assert [t["status"] for t in txs] == ["END", "BEGIN", "END"]
    assert txs[0]["id"] == gtid and txs[0]["event_count"] == len(CHANGES)


def test_mariadb_log_bin_compress_is_refused(mariadb, broker, unique_database, tmp_path):
    config = connector_config(tmp_path, mariadb, broker, unique_database(mariadb), new_prefix("mzip"))
    mariadb.run_sql("SET GLOBAL log_bin_compress = ON;")
    try:
        result = run_cli("run", str(config))
    finally:
        mariadb.run_sql("SET GLOBAL log_bin_compress = OFF;")
    assert result.returncode == 2, result.stderr[-2000:]
    assert "log_bin_compress=ON" in result.stderr and "SET GLOBAL log_bin_compress=OFF" in result.stderr
