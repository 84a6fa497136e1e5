"""schema.history.internal.checkpoint.interval end to end: the connector writes checkpoints into the
history file while streaming DDL, and a restart recovers from the newest one (real MariaDB + broker)."""
from __future__ import annotations

import json
import uuid

import pytest

from schema_history import checkpoint
from schema_history.record import HistoryRecord
from tests.integration.history.support import connector, data_values, write_config

pytestmark = pytest.mark.timeout(180)


def test_restart_recovers_from_checkpoint(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=database)
    prefix = f"cp{uuid.uuid4().hex[:8]}"
    broker.create_topics([prefix, f"{prefix}.{database}.t"])
    config = write_config(tmp_path, mariadb, broker, database, prefix,
                          **{"schema.history.internal.checkpoint.interval": "3"})
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    mariadb.run_sql("".join(f"ALTER TABLE t ADD COLUMN c{i} INT DEFAULT {i};" for i in range(7)), database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    records = [HistoryRecord.from_json(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert sum(checkpoint.is_checkpoint(r) for r in records) == 2  # after ALTER 3 and ALTER 6

    mariadb.run_sql("ALTER TABLE t DROP COLUMN c0; INSERT INTO t (id) VALUES (1);", database=database)
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    log = (tmp_path / "connector.log").read_text()
    assert "Schema history checkpoint at record" in log and "replaying the 1 records after it" in log, log[-2000:]
    [row] = data_values(broker, f"{prefix}.{database}.t")
    assert row["after"] == {"id": 1, **{f"c{i}": i for i in range(1, 7)}}
    # checkpoints never reach the schema change topic
    from tests.support.kafka_dump import consume_all
    ddls = [json.loads(r.value)["payload"]["ddl"] for r in consume_all(broker.bootstrap_servers, {prefix: 1})]
    assert not any(checkpoint.PREFIX in d for d in ddls)


def test_last_ddl_named_in_table_map_errors_survives_recovery_from_checkpoint(mariadb, broker, unique_database,
                                                                             tmp_path):
    """The last DDL of a table is not part of Debezium's table changes: the checkpoint carries it, so a
    restart that recovers from the checkpoint still names it when a TABLE_MAP disagrees."""
    import re

    from tests.integration.history.support import wait_exit

    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE drift (id INT PRIMARY KEY)", database=database)
    prefix = f"cp{uuid.uuid4().hex[:8]}"
    broker.create_topics([prefix, f"{prefix}.{database}.drift"])
    hidden = "ALTER TABLE drift ADD COLUMN hidden INT"
    config = write_config(tmp_path, mariadb, broker, database, prefix,
                          **{"schema.history.internal.checkpoint.interval": "1",
                             "schema.history.internal.ddl.filter": re.escape(hidden)})
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    mariadb.run_sql("ALTER TABLE drift ADD COLUMN a INT COMMENT 'x'", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()

    mariadb.run_sql(f"{hidden}; INSERT INTO drift VALUES (1, 1, 1);", database=database)
    proc = connector(tmp_path, config).start()
    assert wait_exit(proc) != 0
    log = (tmp_path / "connector.log").read_text()
    assert "Schema history checkpoint at record" in log and "replaying the 0 records after it" in log, log[-2000:]
    assert "last DDL applied to this table: ALTER TABLE drift ADD COLUMN a INT COMMENT 'x'" in log, log[-2000:]
