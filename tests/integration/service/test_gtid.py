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


def _last_foreign_gtid(server) -> int:
    executed = str(server.query("SELECT @@GLOBAL.gtid_executed")[0][0]).replace("\n", "")
    for part in executed.split(","):
        uuid, *ranges = part.strip().split(":")
        if uuid.lower() == FOREIGN:
            return max(int(r.split("-")[-1]) for r in ranges)
    return 1000


@pytest.mark.parametrize("prop", ["gtid.source.excludes", "gtid.source.includes"])
def test_transactions_of_other_gtid_sources_are_skipped_and_never_replayed(prop, mysql, broker, unique_database,
                                                                           tmp_path):
    database = unique_database(mysql)
    mysql.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=database)
    own = mysql.server_uuid()
    prefix = new_prefix("gtidf")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix])
    pattern = "AAAAAAAA-.*" if prop == "gtid.source.excludes" else own
    # Foreign GTIDs already taken by other tests on this session server must not collide (the server would
    # silently skip a transaction whose GTID it has executed): number past them.
    base = _last_foreign_gtid(mysql) + 10
    # A foreign GTID before the snapshot: the snapshot's history records carry the server's whole GTID set,
    # later offsets only the followed sources', and recovery must still find the table (Debezium's comparator
    # filters both sides).
    _foreign_insert(mysql, database, base, [99])
    config = connector_config(tmp_path, mysql, broker, database, prefix, **{prop: pattern})
    proc = start_connector(tmp_path, config)
    mysql.run_sql("INSERT INTO t VALUES (1)", database=database)
    _foreign_insert(mysql, database, base + 1, [100, 101])
    mysql.run_sql("INSERT INTO t VALUES (2)", database=database)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=300, timeout=120)
    committed = proc.status()["committed_offset"]
    assert FOREIGN not in committed["gtids"] and own in committed["gtids"]
    # Stopped mid-way: the restart must neither replay the foreign transaction nor need it.
    assert proc.stop() == 0, proc.log_tail()
    _foreign_insert(mysql, database, base + 2, [102])
    mysql.run_sql("INSERT INTO t VALUES (3)", database=database)
    proc = start_connector(tmp_path, config)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    assert "connecting after GTIDs" in proc.run_log()

    values = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
              if r.value is not None]
    assert [(v["op"], v["after"]["id"]) for v in values] == [("r", 99), ("c", 1), ("c", 2), ("c", 3)]


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
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=300, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    sources = [json.loads(r.value)["payload"]["source"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
               if r.value is not None]
    assert len(sources) == 10
    for a, b in zip(sources[::2], sources[1::2]):
        assert a["gtid"] == b["gtid"] and a["ts_us"] == b["ts_us"]
        assert a["ts_ns"] == a["ts_us"] * 1000 and a["ts_ms"] == a["ts_us"] // 1000
    assert any(s["ts_us"] % 1_000_000 for s in sources)  # not whole seconds
    assert len({s["ts_us"] for s in sources}) == 5
