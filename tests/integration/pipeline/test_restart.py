"""Stop and restart the connector while a writer keeps committing transactions: every change must
arrive exactly once, in order, and every transaction's BEGIN/END exactly once.

The connector is stopped with SIGTERM at arbitrary moments, so it usually stops in the middle of a
transaction; the restart must reconnect at the transaction's BEGIN and skip the events and rows the
stored offset says were already sent (Debezium's `event`/`row` resume contract).
"""
from __future__ import annotations

import json
import random
import time
import uuid

import pytest

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import write_connector_config
from tests.support.waiting import wait_until
from tests.support.kafka_dump import consume_all
from tests.support.writer import TransactionWriter

pytestmark = pytest.mark.timeout(300)


class Writer(TransactionWriter):
    """Commits transactions of several statements (multi-row inserts, updates, deletes) and records
    what each transaction changed, so the expected change stream is known exactly."""

    def __init__(self, server, database: str, compressed: bool = False) -> None:
        # compressed: each transaction becomes one zstd TRANSACTION_PAYLOAD event
        super().__init__(server, database, name="workload-writer", seed=7, pause_s=0.01,
                         session_setup=("SET SESSION binlog_transaction_compression = ON",) if compressed else ())
        self.expected: list[tuple[str, int]] = []
        self._next_id = 1
        self._live: list[int] = []

    def transaction(self, cur, rng: random.Random) -> None:
        changes: list[tuple[str, int]] = []
        live = self._live
        cur.execute("BEGIN")
        ids = list(range(self._next_id, self._next_id + 4))
        self._next_id += 4
        cur.execute("INSERT INTO items (id, v, n) VALUES " + ",".join(f"({i}, 'v{i}', 0)" for i in ids))
        changes += [("c", i) for i in ids]
        live += ids
        for i in rng.sample(live, min(2, len(live))):
            cur.execute("UPDATE items SET n = n + 1 WHERE id = %s", (i,))
            changes.append(("u", i))
        victim = live.pop(rng.randrange(len(live)))
        cur.execute("DELETE FROM items WHERE id = %s", (victim,))
        changes.append(("d", victim))
        cur.execute("COMMIT")
        self.expected += changes


@pytest.mark.parametrize("server_name", ["mariadb", "mysql", "mysql-compressed"])
def test_sigterm_restarts_mid_stream_lose_and_repeat_nothing(server_name, request, broker, unique_database,
                                                             tmp_path):
    server = request.getfixturevalue(server_name.partition("-")[0])
    database = unique_database(server)
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v VARCHAR(20), n INT NOT NULL)", database=database)
    prefix = f"restart{uuid.uuid4().hex[:8]}"
    data_topic = f"{prefix}.{database}.items"
    tx_topic = f"{prefix}.transaction"
    broker.create_topics([data_topic, tx_topic, prefix])
    config = write_connector_config(tmp_path, server, broker, database, prefix,
                                    provide_transaction_metadata="true")
    cmd = list(default_connector_cmd())

    def start() -> ConnectorProcess:
        proc = ConnectorProcess(cmd, config, tmp_path / "status.json", tmp_path / "connector.log").start()
        proc.wait_streaming(120)
        return proc

    proc = start()
    writer = Writer(server, database, compressed=server_name.endswith("-compressed"))
    writer.start()
    for _ in range(5):
        time.sleep(random.uniform(0.3, 0.8))  # pacing: stop at a random point of the writer's stream
        assert proc.stop() == 0, proc.log_tail()
        proc = start()
    # a loaded machine may have written little so far: the assertions below want more than 50 transactions
    wait_until(lambda: writer.committed > 50, 60, "50 transactions from the writer")
    writer.finish()
    proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert writer.committed > 50

    records = consume_all(broker.bootstrap_servers, {data_topic: 1, tx_topic: 1})
    data = [r for r in records if r.topic == data_topic]
    actual: list[tuple[str, int]] = []
    tombstones_after: list[int] = []
    for r in data:
        key = json.loads(r.key)["payload"]["id"]
        if r.value is None:
            assert actual and actual[-1] == ("d", key), f"tombstone for {key} not right after its delete"
            tombstones_after.append(key)
            continue
        actual.append((json.loads(r.value)["payload"]["op"], key))
    assert actual == writer.expected, _first_difference(actual, writer.expected)
    assert tombstones_after == [i for op, i in writer.expected if op == "d"]

    txs = [json.loads(r.value)["payload"] for r in records if r.topic == tx_topic]
    begins = [t["id"] for t in txs if t["status"] == "BEGIN"]
    ends = [t for t in txs if t["status"] == "END"]
    assert len(begins) == len(set(begins)) == writer.committed
    assert [t["id"] for t in ends] == begins
    # 4 inserts + 2 updates + 1 delete per transaction; a restarted transaction must still count all 7
    assert all(t["event_count"] == 7 for t in ends), [t["event_count"] for t in ends if t["event_count"] != 7]


def _first_difference(actual: list, expected: list) -> str:
    for i, (a, e) in enumerate(zip(actual, expected)):
        if a != e:
            return f"first difference at change {i}: actual {a}, expected {e} (actual {len(actual)}, expected {len(expected)})"
    return f"actual has {len(actual)} changes, expected {len(expected)}"
