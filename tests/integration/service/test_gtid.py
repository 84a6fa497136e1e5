"""MySQL GTID mode: gtid.source.includes/excludes and original_commit_timestamp."""
from __future__ import annotations

import json

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(180)

FOREIGN = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


def _foreign_insert(server, database: str, n: int, ids: list[int]) -> None:
    """A transaction that looks replicated from another source: GTID FOREIGN:n."""
    server.run_sql(f"SET gtid_next = '{FOREIGN}:{n}'; BEGIN; "
                   + "".join(f"INSERT INTO {database}.t VALUES ({i}); " for i in ids)
                   + "COMMIT; SET gtid_next = 'AUTOMATIC';")


@pytest.mark.parametrize("prop", ["gtid.source.excludes", pytest.param("gtid.source.includes", marks=pytest.mark.xfail(
    reason="open: with includes, a TABLE_MAP check reports no schema history for the table (under investigation)",
    strict=False))])
def test_transactions_of_other_gtid_sources_are_skipped_and_never_replayed(prop, mysql, broker, unique_database,
                                                                           tmp_path):
    database = unique_database(mysql)
    mysql.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=database)
    own = mysql.server_uuid()
    prefix = new_prefix("gtidf")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix])
    pattern = "AAAAAAAA-.*" if prop == "gtid.source.excludes" else own
    # Foreign GTIDs already taken by other tests on this session server must not collide: number past them.
    base = 1000 + int(mysql.query(f"SELECT COUNT(*) FROM information_schema.schemata")[0][0]) * 100
    config = connector_config(tmp_path, mysql, broker, database, prefix, **{prop: pattern})
    proc = start_connector(tmp_path, config)
    mysql.run_sql("INSERT INTO t VALUES (1)", database=database)
    _foreign_insert(mysql, database, base + 1, [100, 101])
    mysql.run_sql("INSERT INTO t VALUES (2)", database=database)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=300, timeout=30)
    committed = proc.status()["committed_offset"]
    assert FOREIGN not in committed["gtids"] and own in committed["gtids"]
    # Stopped mid-way: the restart must neither replay the foreign transaction nor need it.
    assert proc.stop() == 0, proc.log_tail()
    _foreign_insert(mysql, database, base + 2, [102])
    mysql.run_sql("INSERT INTO t VALUES (3)", database=database)
    proc = start_connector(tmp_path, config)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=300, timeout=30)
    assert proc.stop() == 0, proc.log_tail()
    assert "connecting after GTIDs" in proc.log_tail(100)

    values = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
              if r.value is not None]
    assert [v["after"]["id"] for v in values] == [1, 2, 3]


def test_source_timestamps_are_the_original_commit_timestamp(mysql, broker, unique_database, tmp_path):
    """Debezium takes source.ts_ms/us/ns from the GTID event's original_commit_timestamp (µs), not from the
    binlog header's seconds: every row of a transaction shares it, and it has sub-second precision."""
    database = unique_database(mysql)
    mysql.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=database)
    prefix = new_prefix("octs")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix])
    proc = start_connector(tmp_path, connector_config(tmp_path, mysql, broker, database, prefix))
    for i in range(5):
        mysql.run_sql(f"INSERT INTO t VALUES ({10 * i}), ({10 * i + 1})", database=database)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=300, timeout=30)
    assert proc.stop() == 0, proc.log_tail()
    sources = [json.loads(r.value)["payload"]["source"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
               if r.value is not None]
    assert len(sources) == 10
    for a, b in zip(sources[::2], sources[1::2]):
        assert a["gtid"] == b["gtid"] and a["ts_us"] == b["ts_us"]
        assert a["ts_ns"] == a["ts_us"] * 1000 and a["ts_ms"] == a["ts_us"] // 1000
    assert any(s["ts_us"] % 1_000_000 for s in sources)  # not whole seconds
    assert len({s["ts_us"] for s in sources}) == 5
