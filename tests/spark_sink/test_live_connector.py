"""End to end: MariaDB → binlog-cdc connector → Kafka (Tansu) → Spark → Delta table equal to
``SELECT *``, through inserts, updates, deletes, a primary-key change, a TRUNCATE and an
ALTER TABLE ADD COLUMN, with the Spark query stopped and restarted from its checkpoint
between rounds.

While the connector is still being built this test skips (with the connector's stderr)
when the connector cannot deliver the snapshot; set SPARK_SINK_LIVE_STRICT=1 to make that a
failure instead.
"""

from __future__ import annotations

import os
import random
import time
from decimal import Decimal
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import DeltaTable  # noqa: E402

from spark_sink.mirror import main as mirror  # noqa: E402
from tests.support.connector_process import ConnectorProcess, default_connector_cmd  # noqa: E402

# The suite's 600 s is not enough at load 15 on 2 cores: the Spark session took 105 s to start and each drain
# a minute or more (with worker restarts); on a quiet machine the test takes ~4 min.
pytestmark = [pytest.mark.spark, pytest.mark.timeout(1500)]

SETUP = """
CREATE TABLE items (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(50) NOT NULL,
  amount DECIMAL(12,3),
  seen DATETIME(6),
  tags SET('red','green','blue'),
  doc JSON
);
INSERT INTO items VALUES (1, 'one', 1.5, '2024-01-01 10:00:00.123456', 'red', '{"a": 1}'),
                         (2, 'two', -2.25, '1999-12-31 23:59:59.999999', 'red,blue', NULL),
                         (3, 'three', NULL, NULL, '', '[1, 2]');
"""
ROUNDS = [
    """INSERT INTO items VALUES (4, 'four', 4, '2030-05-05 05:05:05', 'green', '{}');
       UPDATE items SET name = 'uno', amount = 100.001 WHERE id = 1;
       DELETE FROM items WHERE id = 2;
       UPDATE items SET id = 30 WHERE id = 3;""",
    """ALTER TABLE items ADD COLUMN note VARCHAR(20) NULL;
       INSERT INTO items VALUES (5, 'five', 5.555, '2001-01-01 00:00:00', 'blue', '{"k": "v"}', NULL);
       UPDATE items SET note = 'later' WHERE id = 5;""",
    """TRUNCATE TABLE items;
       INSERT INTO items VALUES (6, 'six', 6, NULL, 'red,green', NULL, 'added');""",
]


def _select_star(server, database: str) -> dict[int, dict]:
    with server.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT * FROM items")
        columns = [d[0] for d in cur.description]
        return {row[0]: dict(zip(columns, row)) for row in cur.fetchall()}


def _lake(path: Path, columns: list[str]) -> dict[int, dict]:
    if not DeltaTable.is_deltatable(str(path)):
        return {}
    rows = DeltaTable(str(path)).to_pyarrow_table().to_pylist()
    out = {}
    for r in rows:
        row = {c: r.get(c) for c in columns}
        row["tags"] = ",".join(row["tags"]) if row["tags"] is not None else None
        out[r["id"]] = row
    return out


def _normalise(rows: dict[int, dict]) -> dict[int, dict]:
    import json
    return {k: {c: (json.loads(v) if c == "doc" and v is not None else v) for c, v in row.items()}
            for k, row in rows.items()}


def _connector(server, broker, database: str, prefix: str, workdir: Path) -> ConnectorProcess:
    props = {
        "debezium.sink.type": "kafka",
        "debezium.sink.kafka.producer.bootstrap.servers": broker.bootstrap_servers,
        "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        **{f"debezium.source.{k}": v for k, v in server.connector_properties().items()},
        "debezium.source.database.server.id": str(random.randint(10_000, 60_000)),
        "debezium.source.topic.prefix": prefix,
        "debezium.source.database.include.list": database,
        "debezium.source.skipped.operations": "none",
        "debezium.source.offset.storage.file.filename": str(workdir / "offsets.dat"),
        "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "debezium.source.schema.history.internal.file.filename": str(workdir / "history.jsonl"),
    }
    config = workdir / "application.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json",
                            workdir / "connector.log").start()


def _wait_for_table(path: Path, proc: ConnectorProcess, argv: list[str], spark, workdir: Path,
                    want, columns, deadline_s: float = 300.0) -> dict:
    end = time.monotonic() + deadline_s
    got: dict = {}
    while time.monotonic() < end:
        proc.assert_running()  # fails at once with the connector's log
        mirror(argv, spark)  # a fresh query each time: restarts from the checkpoint
        got = _normalise(_lake(path, columns))
        if got == want:
            return got
    reason = f"lake={got!r}\nconnector log tail:\n{proc.log_tail()}"
    if not got and not os.environ.get("SPARK_SINK_LIVE_STRICT"):
        pytest.skip("connector delivered nothing yet: " + reason)
    pytest.fail(f"lake != SELECT * after {deadline_s}s: want {want!r}\n{reason}")
    return got


def _topic_has_op(bootstrap: str, topic: str, op: str, deadline_s: float = 8.0) -> bool:
    """Whether a change record with `op` reaches the topic within the deadline (a plain consumer)."""
    import json

    from confluent_kafka import Consumer, KafkaError, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"probe-{random.random()}",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    try:
        # A truncate record has no key, so it may land on any partition of an auto-created topic.
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            for msg in consumer.consume(500, 0.5):
                if msg.error() is None and msg.value() and json.loads(msg.value())["payload"].get("op") == op:
                    return True
                if msg.error() is not None and msg.error().code() != KafkaError._PARTITION_EOF:
                    raise RuntimeError(str(msg.error()))
        return False
    finally:
        consumer.close()


@pytest.mark.parametrize("flavour", ["mariadb", "mysql"])
def test_live_connector_to_delta(request, spark, prefix, workdir, unique_database, flavour) -> None:
    server, broker = request.getfixturevalue(flavour), request.getfixturevalue("broker")
    database = unique_database(server)
    server.run_sql(SETUP, database=database)
    proc = _connector(server, broker, database, prefix, workdir)
    try:
        path = workdir / "lake" / database / "items"
        argv = ["--bootstrap-servers", broker.bootstrap_servers, "--topics-pattern", rf"{prefix}\.{database}\..*",
                "--target", str(workdir / "lake"), "--checkpoint", str(workdir / "ckpt"), "--drain"]
        columns = ["id", "name", "amount", "seen", "tags", "doc"]
        # Each mirror run is a streaming query (a Python source runner, planning, a Delta commit): polling the lake
        # with runs while the connector is still snapshotting cost several runs per round. Wait for the connector's
        # status to show everything up to the server's position sent and acked, then one run normally suffices.
        proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
        _wait_for_table(path, proc, argv, spark, workdir, _normalise(_select_star(server, database)), columns)
        for sql in ROUNDS:
            server.run_sql(sql, database=database)
            # The connector emits op=t for TRUNCATE (skipped.operations=none): wait for it rather than for a fixed
            # few seconds, which a loaded machine turned into an xfail that skipped the last round.
            if "TRUNCATE" in sql:
                assert _topic_has_op(broker.bootstrap_servers, f"{prefix}.{database}.items", "t", deadline_s=120), \
                    "no op=t record for TRUNCATE within 120 s (skipped.operations=none)"
            proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
            want = _normalise(_select_star(server, database))
            columns = list(next(iter(want.values())).keys())
            _wait_for_table(path, proc, argv, spark, workdir, want, columns)
        final = _select_star(server, database)
        assert set(final) == {6} and final[6]["note"] == "added"
        assert isinstance(final[6]["amount"], Decimal)
    finally:
        proc.stop(20)
