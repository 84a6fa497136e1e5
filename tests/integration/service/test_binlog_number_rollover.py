"""Binlog file numbers past 999999 (issue 24): after mariadb-bin.999999 the server writes mariadb-bin.1000000,
which sorts before it as text. A private MariaDB whose binlogs were renumbered to end at 999998 while it was
stopped; the connector streams across 999999 -> 1000000 (a schema change in the new file), stops, and resumes
there: no row lost, none repeated, the altered shape recovered from the schema history."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.integration.service.support import connector_config, new_prefix, restart_in_place, start_connector
from tests.support.kafka_dump import consume_all
from tests.support.servers import MariaDBServer, Profile
from tests.support.waiting import PROCESS_BOUND_S

pytestmark = pytest.mark.timeout(240)

LAST = 999_998


def _renumber(server: MariaDBServer) -> None:
    """Rename the stopped server's binlogs so the newest is number LAST, and rewrite the index to match."""
    files = server.binlog_files()
    first = LAST - len(files) + 1
    names = []
    for n, path in enumerate(files, start=first):
        target = path.with_name(f"{server.binlog_basename}.{n:06d}")
        path.rename(target)
        names.append(str(target))
    (server.datadir / f"{server.binlog_basename}.index").write_text("".join(f"{n}\n" for n in names))


@pytest.fixture(scope="module")
def renumbered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MariaDBServer]:
    with MariaDBServer(tmp_path_factory.mktemp("mariadb-rollover"), profile=Profile.DEFAULTS) as server:
        restart_in_place(server, down_s=0.2, while_down=lambda: _renumber(server))
        yield server


def test_streaming_and_resume_across_binlog_999999_to_1000000(renumbered, broker, unique_database, tmp_path) -> None:
    server = renumbered
    assert server.binlog_position()[0] == f"{server.binlog_basename}.999999"
    database = unique_database(server)
    server.run_sql("CREATE TABLE t (id INT PRIMARY KEY)", database=database)
    server.run_sql("INSERT INTO t VALUES (1)", database=database)
    prefix = new_prefix("roll")
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix])
    config = connector_config(tmp_path, server, broker, database, prefix)
    proc = start_connector(tmp_path, config)
    server.run_sql("INSERT INTO t VALUES (2); FLUSH BINARY LOGS;", database=database)
    assert server.binlog_position()[0] == f"{server.binlog_basename}.1000000"
    server.run_sql("INSERT INTO t VALUES (3); ALTER TABLE t ADD COLUMN note VARCHAR(10);"
                   "INSERT INTO t VALUES (4, 'four')", database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=PROCESS_BOUND_S)
    assert proc.status()["committed_offset"]["file"] == f"{server.binlog_basename}.1000000"
    assert proc.stop() == 0, proc.log_tail()

    server.run_sql("INSERT INTO t VALUES (5, 'five'); FLUSH BINARY LOGS; INSERT INTO t VALUES (6, 'six')",
                   database=database)
    proc = start_connector(tmp_path, config)  # the history's last record (the ALTER) is in 1000000
    server.run_sql("INSERT INTO t VALUES (7, 'seven')", database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=PROCESS_BOUND_S)
    assert proc.stop() == 0, proc.log_tail()

    rows = [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
            if r.value is not None]
    assert [(r["op"], r["after"]["id"]) for r in rows] == [("r", 1)] + [("c", n) for n in range(2, 8)]
    assert [r["source"]["file"].rsplit(".", 1)[1] for r in rows[1:]] == [
        "999999", "1000000", "1000000", "1000000", "1000001", "1000001"]
    assert rows[-1]["after"] == {"id": 7, "note": "seven"}
