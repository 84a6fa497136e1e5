"""snapshot.mode=configuration_based on restarts (first starts are compared with Debezium by the
snapshot-config-* goldens): the flags hold whether or not offsets exist, and snapshot.on.schema.error rebuilds a
lost schema history at the stored offset instead of failing."""
from __future__ import annotations

import json
import uuid

import pytest

from tests.integration.history.support import (
    connector,
    data_values,
    wait_exit,
    write_config,
)

pytestmark = pytest.mark.timeout(240)

CB = "snapshot.mode.configuration.based"


def test_restarts_follow_the_flags_and_schema_error_rebuilds_the_history(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE t (id INT PRIMARY KEY, a INT); INSERT INTO t VALUES (1, 1)", database=database)
    prefix = f"cb{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.{database}.t"
    broker.create_topics([prefix, topic])
    data_and_stream = {"snapshot.mode": "configuration_based", f"{CB}.snapshot.data": "true",
                       f"{CB}.snapshot.schema": "true", f"{CB}.start.stream": "true"}

    # data + schema + stream: a full snapshot at every start, offsets or not (Debezium's `always`)
    for round_ in (1, 2):
        proc = connector(tmp_path, write_config(tmp_path, mariadb, broker, database, prefix, **data_and_stream)).start()
        proc.wait_streaming(120)
        proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
        assert proc.stop() == 0, proc.log_tail()
        assert [v["op"] for v in data_values(broker, topic)] == ["r"] * round_

    # stream only, history lost: refused with the way out named ...
    history = tmp_path / "history.jsonl"
    history.unlink()
    stream_only = {"snapshot.mode": "configuration_based", f"{CB}.start.stream": "true"}
    proc = connector(tmp_path, write_config(tmp_path, mariadb, broker, database, prefix, **stream_only)).start()
    assert wait_exit(proc) != 0
    assert "schema history is empty or missing" in (tmp_path / "connector.log").read_text()

    # ... and rebuilt at the stored offset with snapshot.on.schema.error: no snapshot data, streaming goes on
    on_error = {**stream_only, f"{CB}.snapshot.on.schema.error": "true"}
    proc = connector(tmp_path, write_config(tmp_path, mariadb, broker, database, prefix, **on_error)).start()
    proc.wait_streaming(120)
    mariadb.run_sql("INSERT INTO t VALUES (2, 2)", database=database)
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    values = data_values(broker, topic)
    assert [v["op"] for v in values] == ["r", "r", "c"] and values[-1]["after"] == {"id": 2, "a": 2}
    assert any("CREATE TABLE `t`" in (json.loads(line).get("ddl") or "") for line in history.read_text().splitlines())
    assert "rebuilding the schema history from the current tables" in (tmp_path / "connector.log").read_text()


def test_data_without_schema_is_refused_before_connecting(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    config = write_config(tmp_path, mariadb, broker, database, f"cb{uuid.uuid4().hex[:8]}",
                          **{"snapshot.mode": "configuration_based", f"{CB}.snapshot.data": "true"})
    proc = connector(tmp_path, config).start()
    assert wait_exit(proc) == 2
    assert f"{CB}.snapshot.schema=true" in (tmp_path / "connector.log").read_text()
