"""key.converter / value.converter = Kafka's StringConverter through `binlog-cdc run connector.json` on MariaDB.

The reference harness serialises with JsonConverter only, so there is no golden: the expected texts are what
Kafka 4.3's `Struct.toString` writes for the objects Debezium 3.6.3 puts in its records (read from Kafka's and
Debezium's source: connector/serde/string_converter.py has the table), for a snapshot read, a streamed update and
a delete with its tombstone.
"""
from __future__ import annotations

import json
import re
import uuid

import pytest

from tests.support.connector_config import connector_properties
from tests.support.connector_process import ConnectorProcess, default_connector_cmd
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(240)

STRING = "org.apache.kafka.connect.storage.StringConverter"
ROW = "Struct{{id=1,name={name},price=1.50,ratio=0.5,pic=java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]}}"


def test_records_are_their_structs_to_string(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(5,2), ratio DOUBLE, "
                    "pic BLOB, note TEXT); INSERT INTO t VALUES (1, 'ann', 1.5, 0.5, 'abc', NULL);",
                    database=database)
    prefix = "sc" + uuid.uuid4().hex[:8]
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix])
    source = "debezium.source."
    config = {k[len(source):]: v for k, v in connector_properties(tmp_path, mariadb, broker, database, prefix).items()
              if k.startswith(source)}
    config.update({"key.converter": STRING, "value.converter": STRING, "value.converter.converter.encoding": "UTF-8"})
    path = tmp_path / "connector.json"
    path.write_text(json.dumps({"name": "string-test", "config": config}))
    proc = ConnectorProcess(list(default_connector_cmd()), path, tmp_path / "s.json", tmp_path / "c.log")
    proc.cmd += ["--kafka", broker.bootstrap_servers]
    proc.start()
    try:
        proc.wait_streaming(120)
        mariadb.run_sql("UPDATE t SET name = 'Ann' WHERE id = 1; DELETE FROM t WHERE id = 1;", database=database)
        proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    finally:
        assert proc.stop() == 0, proc.log_tail()
    records = consume_all(broker.bootstrap_servers, {topic: 1})
    assert [r.key for r in records] == [b"Struct{id=1}"] * 4
    values = [None if r.value is None else r.value.decode() for r in records]
    assert values[3] is None  # the tombstone: null in, null out
    before, after = ROW.format(name="ann"), ROW.format(name="Ann")
    shapes = [
        rf"Struct\{{after={re.escape(before)},source=Struct\{{version=[^,]+,connector=mysql,name={prefix},"
        rf"ts_ms=\d+,snapshot=last,db={database},ts_us=\d+,ts_ns=\d+,table=t,server_id=0,file=[^,]+,pos=\d+,"
        rf"row=0\}},op=r,ts_ms=\d+,"
        rf"ts_us=\d+,ts_ns=\d+\}}",
        rf"Struct\{{before={re.escape(before)},after={re.escape(after)},source=Struct\{{version=[^,]+,"
        # streamed: no snapshot field (Debezium leaves it null; the JSON shows its schema default "false")
        rf"connector=mysql,name={prefix},ts_ms=\d+,db={database},ts_us=\d+,ts_ns=\d+,table=t,server_id=1,.*\}},op=u,ts_ms=\d+,ts_us=\d+,ts_ns=\d+\}}",
        rf"Struct\{{before={re.escape(after)},source=Struct\{{.*\}},op=d,ts_ms=\d+,ts_us=\d+,ts_ns=\d+\}}",
    ]
    for value, shape in zip(values, shapes):
        assert re.fullmatch(shape, value or ""), value
