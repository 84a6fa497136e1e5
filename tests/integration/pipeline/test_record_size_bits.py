"""EnforceRecordSize on a record over max.bytes with a BIT(n) column: Debezium 3.6.3 stops
("ClassCastException: class [B cannot be cast to class java.nio.ByteBuffer", reference harness run on a BIT(4)
table with max.bytes=1); binlog-cdc stops there too, naming the column (exit 2). The cuts themselves are the
goldens record_size*."""
from __future__ import annotations

import uuid

import pytest

from tests.support.connector_config import write_connector_config
from tests.support.connector_process import run_until_exit

pytestmark = pytest.mark.timeout(300)


def test_a_bit_column_in_an_oversized_record_stops_the_run(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE b (id INT PRIMARY KEY, flags BIT(4)); INSERT INTO b VALUES (1, b'0101');",
                    database=database)
    prefix = f"rs{uuid.uuid4().hex[:8]}"
    broker.create_topics([f"{prefix}.{database}.b", prefix])
    config = write_connector_config(tmp_path, mariadb, broker, database, prefix, transforms="size",
                                    transforms_size_type="io.debezium.transforms.EnforceRecordSize",
                                    transforms_size_max_bytes="1")
    rc, proc = run_until_exit(config, tmp_path)
    assert rc == 2, proc.log_tail(40)
    assert "field flags (io.debezium.data.Bits)" in proc.run_log(), proc.log_tail(40)
