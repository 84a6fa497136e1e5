"""Issue 28, item 1: an interrupted initial snapshot that cannot be resumed (its binlog position was purged while
the connector was down) is taken again from the start, as Debezium does — but without ghost rows: before the new
snapshot reads any row, the rows the earlier attempt sent that are gone at the new position get their deletes
(snapshot/ghost_rows.py). kill -9 mid-snapshot, delete and update rows the killed attempt had already sent, purge
the binlog, restart: replaying the topic gives exactly the table."""
from __future__ import annotations

import json
import os
import signal
import time
import uuid
from pathlib import Path

import pytest

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.integration.snapshot.test_locking import _config
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(300)

ROWS = 40000


def _purge_to_newest(server, stored_file: str) -> None:
    server.run_sql("FLUSH BINARY LOGS; FLUSH BINARY LOGS;")
    newest = server.query("SHOW BINARY LOGS")[-1][0]
    kill = getattr(server, "_kill_dump_threads", None)
    if kill is not None:
        kill()  # a dump thread whose client is gone still pins its binlog file until the server notices
    deadline = time.monotonic() + 30
    # MariaDB keeps a file until InnoDB's binlog checkpoint has moved past it: retry for a while
    while stored_file in [row[0] for row in server.query("SHOW BINARY LOGS")]:
        assert time.monotonic() < deadline, "PURGE BINARY LOGS did not remove the interrupted snapshot's binlog"
        server.run_sql(f"FLUSH BINARY LOGS; PURGE BINARY LOGS TO '{newest}';")
        newest = server.query("SHOW BINARY LOGS")[-1][0]
        time.sleep(0.5)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_snapshot_taken_again_after_a_purge_deletes_what_the_first_attempt_sent(server_name, request, broker,
                                                                                 unique_database, tmp_path: Path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL, pad VARCHAR(40) NOT NULL)",
                   database=database)
    for start in range(1, ROWS + 1, 5000):
        values = ",".join(f"({i}, 0, 'row-{i}')" for i in range(start, min(start + 5000, ROWS + 1)))
        server.run_sql(f"INSERT INTO items VALUES {values};", database=database)
    prefix = f"gho{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.{database}.items"
    broker.create_topics([topic, prefix])
    # the default configuration: no signal table
    config = _config(tmp_path / "application.properties", server, broker, database, prefix, server.user,
                     server.password)
    cmd = list(default_connector_cmd())
    log_file = tmp_path / "connector.log"
    proc = ConnectorProcess(cmd, config, tmp_path / "status.json", log_file).start()

    def mid_snapshot() -> bool:
        """8,000 rows read and 1,000 acknowledged by Kafka (under load the reads run far ahead of the deliveries:
        killed at reads alone, the attempt may have delivered none of the rows deleted below)."""
        assert proc._proc.poll() is None, proc.log_tail()
        status = proc.status() or {}
        scanned = (status.get("snapshot") or {}).get("RowsScanned", {}).get(f"{database}.items", 0)
        return scanned >= 8000 and status.get("records_acked", 0) >= 1000

    wait_until(mid_snapshot, 120, "8,000 rows read and 1,000 acknowledged", interval=0.05, state=proc.status)
    os.kill(proc.pid, signal.SIGKILL)
    proc._proc.wait()
    offsets = (tmp_path / "offsets.dat").read_text(errors="replace")
    assert "snapshot_resume_table" in offsets
    stored_file = next(f for f in (r[0] for r in server.query("SHOW BINARY LOGS")) if f in offsets)
    # What the killed attempt put in Kafka (rows scanned run ahead of rows delivered, by how much depends on the
    # machine's load): exactly the keys the sweep must find gone.
    sent = {json.loads(r.key)["payload"]["id"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
            if r.topic == topic and r.value is not None}
    deleted_while_down = set(range(1, 301)) | set(range(5000, 5100))

    # while it is down: delete and update rows the killed attempt sent (ids 1..8000 were read), and later ones
    server.run_sql("DELETE FROM items WHERE id <= 300; DELETE FROM items WHERE id BETWEEN 5000 AND 5099;"
                   "UPDATE items SET v = 7 WHERE id BETWEEN 400 AND 499; DELETE FROM items WHERE id > 39900;",
                   database=database)
    _purge_to_newest(server, stored_file)

    proc = ConnectorProcess(cmd, config, tmp_path / "status.json", log_file).start()
    proc.wait_streaming(180)
    server.run_sql("DELETE FROM items WHERE id = 1000; INSERT INTO items VALUES (1, 9, 'back');", database=database)
    proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
    assert proc.stop() == 0, proc.log_tail()
    log = log_file.read_text()
    assert "sent their deletes (snapshot/ghost_rows.py)" in log, log[-3000:]

    state: dict[int, int] = {}
    deletes = 0
    for r in consume_all(broker.bootstrap_servers, {topic: 1}):
        if r.topic != topic or r.value is None:
            continue
        payload = json.loads(r.value)["payload"]
        key = json.loads(r.key)["payload"]["id"]
        if payload["op"] == "d":
            deletes += 1
            assert payload["before"]["id"] == key and payload["before"]["pad"], payload  # the row the consumer held
            state.pop(key, None)
        else:
            state[key] = payload["after"]["v"]
    final = {int(i): int(v) for i, v in server.query("SELECT id, v FROM items", database=database)}
    ghosts = sorted(set(state) - set(final))
    assert not ghosts, f"{len(ghosts)} ghost rows, e.g. {ghosts[:10]}"
    assert state == final
    # the rows deleted while it was down that the first attempt had sent (the later deletes happened before
    # either attempt read them), and the one deleted while streaming
    expected = len(sent & deleted_while_down) + 1
    assert sent & deleted_while_down, f"the killed attempt sent none of the rows deleted later ({len(sent)} rows)"
    assert deletes == expected, (deletes, expected)
