"""The SHOW CREATE TABLE fallback on Oracle MySQL 9 (GTIDs on), next to the MariaDB cases in test_live_fallback.

MySQL rejects what our parser cannot read (it has no Oracle mode), so the statement that cannot be applied
here is one that names a column the history lacks: a user DDL filter hid the ALTER that added it, and a later
`ALTER TABLE ... MODIFY` of that column cannot be applied (Debezium stops there with a ParsingException).
With no later DDL naming the table, the connector records the table's SHOW CREATE TABLE shape instead,
logs it with the binlog position, and rows carry the real columns, also after a restart.
"""
from __future__ import annotations

import json
import re
import uuid

import pytest

from tests.integration.history.support import (
    connector,
    data_values,
    wait_exit,
    write_config,
)
from tests.support.kafka_dump import consume_all

pytestmark = [pytest.mark.timeout(180), pytest.mark.mysql]
HIDDEN = "ALTER TABLE t ADD COLUMN c INT"
MODIFY = "ALTER TABLE t MODIFY c BIGINT NOT NULL DEFAULT 5"


def _prepare(mysql, unique_database, broker, tmp_path):
    database = unique_database(mysql)
    mysql.run_sql("CREATE TABLE t (id INT PRIMARY KEY, a INT)", database=database)
    prefix = f"lm{uuid.uuid4().hex[:8]}"
    broker.create_topics([prefix, f"{prefix}.{database}.t"])
    config = write_config(tmp_path, mysql, broker, database, prefix,
                          **{"schema.history.internal.ddl.filter": re.escape(HIDDEN)})
    return database, prefix, config


def test_unappliable_alter_takes_show_create_table_shape_on_mysql(mysql, broker, unique_database, tmp_path):
    database, prefix, config = _prepare(mysql, unique_database, broker, tmp_path)
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    mysql.run_sql(f"{HIDDEN}; {MODIFY}; INSERT INTO t VALUES (1, 2, 3);", database=database)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    log = (tmp_path / "connector.log").read_text()
    assert re.search(r"DDL at binlog \S+:\d+ cannot be parsed .* recorded the shape of " + re.escape(database)
                     + r"\.t from SHOW CREATE TABLE", log), log[-2000:]
    [row] = data_values(broker, f"{prefix}.{database}.t")
    assert row["after"] == {"id": 1, "a": 2, "c": 3}
    changes = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {prefix: 1})]
    [alter] = [c for c in changes if c["ddl"] == MODIFY]
    [table_change] = alter["tableChanges"]
    assert table_change["type"] == "ALTER"
    assert [(c["name"], c["typeName"], c["optional"], c.get("defaultValueExpression"))
            for c in table_change["table"]["columns"]] == [
        ("id", "INT", False, None), ("a", "INT", True, None), ("c", "BIGINT", False, "5")]
    assert alter["source"]["gtid"] is not None  # a GTID server: the position logged is still file:pos

    proc = connector(tmp_path, config).start()  # the recorded shape is what a restart recovers
    proc.wait_streaming(120)
    mysql.run_sql("INSERT INTO t VALUES (2, 3, 4)", database=database)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert data_values(broker, f"{prefix}.{database}.t")[-1]["after"] == {"id": 2, "a": 3, "c": 4}


def test_unappliable_alter_with_later_ddl_still_stops_on_mysql(mysql, broker, unique_database, tmp_path):
    database, _, config = _prepare(mysql, unique_database, broker, tmp_path)
    proc = connector(tmp_path, config).start()
    proc.wait_streaming(120)
    assert proc.stop() == 0
    mysql.run_sql(f"{HIDDEN}; {MODIFY}; ALTER TABLE t ADD COLUMN d INT;", database=database)
    proc = connector(tmp_path, config).start()
    assert wait_exit(proc) != 0
    log = (tmp_path / "connector.log").read_text()
    assert "a later statement at" in log and "cannot parse DDL (" in log, log[-2000:]
