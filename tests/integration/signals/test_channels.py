"""The kafka and file signal channels do what the source channel (the signal table) does: the same two signals
(an incremental snapshot of `customers`, a blocking snapshot of `orders`) sent through each channel give the
same records on the data topics. There is no golden for these channels (the reference harness has neither a
broker nor a signal file); the source channel's records are the ones the goldens signals_* pin to Debezium's."""
from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import write_connector_config
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(240)

SIGNALS = [
    ("sig-inc", "execute-snapshot", {"data-collections": ["{db}.customers"], "type": "incremental"}),
    ("sig-blk", "execute-snapshot", {"data-collections": ["{db}.orders"], "type": "blocking"}),
]
SETUP = """
CREATE TABLE debezium_signal (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL);
INSERT INTO customers VALUES (1,'ann'),(2,'bob'),(3,'cid'),(4,'dee'),(5,'eve');
CREATE TABLE orders (order_no VARCHAR(16) NOT NULL, line INT NOT NULL, qty INT, PRIMARY KEY (order_no, line));
INSERT INTO orders VALUES ('A-1',1,5),('A-1',2,1),('B-7',1,3);
"""


def _signals(database: str) -> list[tuple[str, str, str]]:
    return [(sid, kind, json.dumps(data).replace("{db}", database)) for sid, kind, data in SIGNALS]


def _records(broker, topic: str) -> list[tuple]:
    """(op, source.snapshot, key, after) of every record: what a consumer sees, without binlog positions (each run
    has its own binlog)."""
    out = []
    for r in consume_all(broker.bootstrap_servers, {topic: 1}):
        if r.value is None:
            continue
        payload = json.loads(r.value)["payload"]
        out.append((payload["op"], payload["source"]["snapshot"], json.loads(r.key)["payload"],
                    payload["after"]))
    return out


def _run(channel: str, server, broker, unique_database, tmp_path: Path) -> tuple[list, list]:
    # file-readonly: read.only=true, no signal table, the file channel: watermarks that write nothing (MariaDB: the
    # chunk view's binlog position)
    channel, _, read_only = channel.partition("-")
    tmp_path.mkdir()
    database = unique_database(server)
    server.run_sql(SETUP + f"GRANT INSERT, DELETE ON `{database}`.debezium_signal TO '{server.user}'@'127.0.0.1';\n"
                   f"GRANT INSERT, DELETE ON `{database}`.debezium_signal TO '{server.user}'@'localhost';",
                   database=database)
    prefix = f"sig{channel}{uuid.uuid4().hex[:8]}"
    topics = {t: f"{prefix}.{database}.{t}" for t in ("customers", "orders", "debezium_signal")}
    broker.create_topics([*topics.values(), prefix, f"{prefix}-signal"])
    signal_file = tmp_path / "signals.txt"
    config = write_connector_config(
        tmp_path, server, broker, database, prefix,
        signal_data_collection="" if read_only else f"{database}.debezium_signal",
        signal_enabled_channels=channel if read_only or channel == "source" else f"source,{channel}",
        incremental_snapshot_chunk_size="2", signal_poll_interval_ms="200", signal_file=str(signal_file),
        signal_kafka_bootstrap_servers=broker.bootstrap_servers, read_only="true" if read_only else "false")
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json",
                            tmp_path / "connector.log").start()
    try:
        proc.wait_streaming(120)
        signals = _signals(database)
        if channel == "source":
            for sid, kind, data in signals:
                server.run_sql(f"INSERT INTO debezium_signal VALUES ('{sid}', '{kind}', '{data}');", database=database)
        elif channel == "file":
            # another line first: not a signal, logged and skipped
            signal_file.write_text("not json\n" + "".join(json.dumps({"id": sid, "type": kind,
                                                                      "data": json.loads(data)}) + "\n"
                                                          for sid, kind, data in signals), encoding="utf-8")
        else:
            producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
            producer.produce(f"{prefix}-signal", key="another-connector", value='{"id": "x", "type": "log", '
                             '"data": {"message": "not for us"}}')
            for sid, kind, data in signals:
                producer.produce(f"{prefix}-signal", key=prefix,
                                 value=json.dumps({"id": sid, "type": kind, "data": json.loads(data)}))
            assert producer.flush(30) == 0

        def arrived() -> bool:
            st = proc.status() or {}
            return st.get("records_acked", 0) >= st.get("records_sent", -1) and \
                len(_records(broker, topics["customers"])) >= 10 and len(_records(broker, topics["orders"])) >= 6
        wait_until(arrived, 90, f"snapshot records through the {channel} channel")
        proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
        if channel == "file":
            assert signal_file.read_text(encoding="utf-8") == "", "read signals leave the file"
    finally:
        assert proc.stop() == 0, proc.log_tail()
    return _records(broker, topics["customers"]), _records(broker, topics["orders"])


def test_kafka_and_file_channels_trigger_what_the_signal_table_does(mariadb, broker, unique_database, tmp_path):
    runs = {channel: _run(channel, mariadb, broker, unique_database, tmp_path / channel)
            for channel in ("source", "file", "kafka", "file-readonly")}
    customers, orders = runs["source"]
    # the source channel's records, as in the goldens: 5 initial + 5 incremental reads; 3 initial + 3 blocking
    assert [(op, mark) for op, mark, _, _ in customers[5:]] == [("r", "incremental")] * 5
    assert [k["id"] for _, _, k, _ in customers[5:]] == [1, 2, 3, 4, 5]
    assert [mark for _, mark, _, _ in orders[3:]] == ["first", "true", "last"]
    for channel in ("file", "kafka", "file-readonly"):
        assert runs[channel] == runs["source"], f"the {channel} channel's records differ from the source channel's"
