"""An incremental snapshot's chunk metrics under Debezium's SnapshotMetricsMXBean names (ChunkId, ChunkFrom,
ChunkTo, TableFrom, TableTo, RowsScanned, TotalTableCount/RemainingTableCount, SnapshotPaused) in the status
file, through the CLI on MariaDB: paused after its first chunk, then resumed to the end."""
from __future__ import annotations

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(120)

SETUP = """
CREATE TABLE debezium_signal (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
CREATE TABLE t (id INT NOT NULL, k VARCHAR(8) NOT NULL, v INT, PRIMARY KEY (id, k));
INSERT INTO t VALUES (1,'a',0),(2,'b',0),(3,'c',0),(4,'d',0),(5,'e',0);
"""


def test_chunk_metrics_of_an_incremental_snapshot(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql(SETUP + "".join(f"GRANT INSERT, DELETE ON `{database}`.debezium_signal TO '{mariadb.user}'@'{h}';"
                                    for h in ("127.0.0.1", "localhost")), database=database)
    prefix = new_prefix("imet")
    broker.create_topics([prefix, f"{prefix}.{database}.t", f"{prefix}.{database}.debezium_signal"])
    config = connector_config(tmp_path, mariadb, broker, database, prefix, snapshot_mode="no_data",
                              signal_data_collection=f"{database}.debezium_signal",
                              incremental_snapshot_chunk_size="2")
    proc = start_connector(tmp_path, config)
    try:
        # one transaction: the pause is read right after the first chunk's window opens, so it stays paused there
        mariadb.run_sql("BEGIN; INSERT INTO debezium_signal VALUES ('s1', 'execute-snapshot', "
                        f"'{{\"data-collections\": [\"{database}.t\"]}}'); "
                        "INSERT INTO debezium_signal VALUES ('p1', 'pause-snapshot', NULL); COMMIT;",
                        database=database)

        def snapshot() -> dict:
            return (proc.status() or {}).get("snapshot") or {}

        wait_until(lambda: snapshot().get("SnapshotPaused") and snapshot().get("ChunkId"), 120,
                   "the incremental snapshot paused after its first chunk")
        opened = [r[0] for r in mariadb.query("SELECT id FROM debezium_signal WHERE id LIKE %s", ("%-open",),
                                              database=database)]
        m = snapshot()
        assert opened == [f"{m['ChunkId']}-open"]
        assert (m["ChunkFrom"], m["ChunkTo"], m["TableFrom"], m["TableTo"]) == ("[1, a]", "[2, b]", "[1, a]", "[5, e]")
        assert m["RowsScanned"] == {f"{database}.t": 2}
        assert (m["TotalTableCount"], m["RemainingTableCount"], m["SnapshotRunning"]) == (1, 1, True)

        mariadb.run_sql("INSERT INTO debezium_signal VALUES ('r1', 'resume-snapshot', NULL)", database=database)
        wait_until(lambda: snapshot().get("SnapshotCompleted"), 120, "the incremental snapshot to complete")
        m = snapshot()
        assert m["RowsScanned"] == {f"{database}.t": 5} and m["RemainingTableCount"] == 0
        assert [m[k] for k in ("ChunkId", "ChunkFrom", "ChunkTo", "TableFrom", "TableTo")] == [None] * 5
        assert not m["SnapshotPaused"] and not m["SnapshotSkipped"]
    finally:
        assert proc.stop() == 0, proc.log_tail()
