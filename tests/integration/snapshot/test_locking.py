"""Snapshot lock strategies against real servers, with a writer running during the snapshot.

A connector user without RELOAD cannot take FLUSH TABLES WITH READ LOCK, nor FLUSH TABLES t WITH READ
LOCK (both servers require RELOAD, or MySQL's FLUSH_TABLES, for any FLUSH TABLES): the snapshot must
fall back to `LOCK TABLES t READ` and still be consistent. Consistency is checked on the emitted
stream itself: the writer only ever increments `v`, inserts new keys and deletes existing ones, so a
snapshot whose rows and binlog position disagree shows up as a value going backwards, a create of a
key already read, or a change to a key never seen; and replaying the stream must give the final
`SELECT`.
"""
from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_process import ConnectorError, ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.capture_run import capture_while_writing
from tests.support.connector_config import connector_properties
from tests.support.kafka_dump import consume_all
from tests.support.writer import TransactionWriter

pytestmark = pytest.mark.timeout(240)

ROWS = 20000
BASE_GRANTS = "SELECT, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT"


class Writer(TransactionWriter):
    """Increments `v` of random rows, inserts new keys and deletes old ones until stopped."""

    def __init__(self, server, database: str) -> None:
        super().__init__(server, database, name="snapshot-writer", seed=11, pause_s=0.002)
        self._next_id = ROWS + 1

    def transaction(self, cur, rng: random.Random) -> None:
        cur.execute("BEGIN")
        for _ in range(3):
            cur.execute("UPDATE items SET v = v + 1 WHERE id = %s", (rng.randint(1, self._next_id - 1),))
        cur.execute("INSERT INTO items (id, v, pad) VALUES (%s, 0, 'new')", (self._next_id,))
        self._next_id += 1
        cur.execute("DELETE FROM items WHERE id = %s", (rng.randint(1, self._next_id - 1),))
        cur.execute("COMMIT")


def _create_user(server, user: str, grants: str) -> None:
    hosts = ("127.0.0.1", "localhost")
    server.run_sql("".join(f"DROP USER IF EXISTS '{user}'@'{h}';\nCREATE USER '{user}'@'{h}' IDENTIFIED BY 'pw';\n"
                           f"GRANT {grants} ON *.* TO '{user}'@'{h}';\n" for h in hosts), what="user set-up")


def _config(path: Path, server, broker, database: str, prefix: str, user: str, password: str = "pw",
            **extra: str) -> Path:
    props = connector_properties(path.parent, server, broker, database, prefix, min_row_count_to_stream_results="100",
                                 database_user=user, database_password=password, **extra)
    write_properties(path, props)
    return path


def _load(server, database: str) -> None:
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL, pad VARCHAR(40) NOT NULL)",
                   database=database)
    values = ",".join(f"({i}, 0, 'row-{i}')" for i in range(1, ROWS + 1))
    server.run_sql(f"INSERT INTO items VALUES {values};", database=database)


def _check_stream(records, final: dict[int, int]) -> dict[str, int]:
    """Replays the change stream, asserting it is consistent; returns per-op counts."""
    state: dict[int, int] = {}
    ops: dict[str, int] = {}
    for r in records:
        if r.value is None:
            continue
        payload = json.loads(r.value)["payload"]
        op = payload["op"]
        ops[op] = ops.get(op, 0) + 1
        key = json.loads(r.key)["payload"]["id"]
        if op in ("r", "c"):
            assert key not in state, f"{op} for id {key} already present (snapshot and position disagree)"
            state[key] = payload["after"]["v"]
        elif op == "u":
            assert key in state, f"update of id {key} never read"
            assert payload["after"]["v"] > state[key], f"id {key}: v went from {state[key]} to {payload['after']['v']}"
            state[key] = payload["after"]["v"]
        elif op == "d":
            assert key in state, f"delete of id {key} never read"
            del state[key]
    assert state == final, f"{len(state)} keys replayed, {len(final)} in the table"
    return ops


def _run_with_writer(server, broker, tmp_path: Path, database: str, user: str, **extra: str):
    prefix = f"snl{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.{database}.items"
    broker.create_topics([topic, prefix])
    config = _config(tmp_path / "application.properties", server, broker, database, prefix, user, **extra)
    writer = Writer(server, database)
    capture_while_writing(server, config, tmp_path, writer)
    final = {int(i): int(v) for i, v in server.query("SELECT id, v FROM items", database=database)}
    records = [r for r in consume_all(broker.bootstrap_servers, {topic: 1}) if r.topic == topic]
    return writer, _check_stream(records, final), (tmp_path / "connector.log").read_text()


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_user_without_reload_falls_back_to_table_locks(server_name, request, broker, unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    _load(server, database)
    user = f"noreload{uuid.uuid4().hex[:4]}"
    _create_user(server, user, BASE_GRANTS + ", LOCK TABLES")
    writer, ops, log = _run_with_writer(server, broker, tmp_path, database, user)
    assert "LOCK TABLES ... READ" in log and "Releasing table read locks" in log, log[-3000:]
    assert ops["r"] >= ROWS - writer.committed  # every row read once
    assert ops.get("u", 0) > 0 and writer.committed > 50


def test_lock_free_snapshot_with_writer_is_consistent(mariadb, broker, unique_database, tmp_path):
    """`none` on MariaDB: the view's exact binlog position (binlog_snapshot_file/position)."""
    database = unique_database(mariadb)
    _load(mariadb, database)
    user = f"nolock{uuid.uuid4().hex[:4]}"
    _create_user(mariadb, user, BASE_GRANTS)
    writer, ops, log = _run_with_writer(mariadb, broker, tmp_path, database, user, snapshot_locking_mode="none")
    assert "Lock-free snapshot: the consistent view starts at binlog position" in log
    assert ops.get("u", 0) > 0


@pytest.mark.parametrize("mode, message", [
    ("minimal", "no lock could be taken for a consistent snapshot"),
    ("minimal_percona_no_table_locks", "forbids table locks"),
])
def test_no_lock_possible_is_a_clear_error(mode, message, mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL, pad VARCHAR(40) NOT NULL)",
                    database=database)
    user = f"nolock{uuid.uuid4().hex[:4]}"
    _create_user(mariadb, user, BASE_GRANTS)
    prefix = f"snl{uuid.uuid4().hex[:8]}"
    config = _config(tmp_path / "application.properties", mariadb, broker, database, prefix, user,
                     snapshot_locking_mode=mode)
    proc = ConnectorProcess(list(default_connector_cmd()), config, tmp_path / "status.json",
                            tmp_path / "connector.log").start()
    with pytest.raises(ConnectorError):
        proc.wait_streaming(120)
    assert proc.stop() == 2
    assert message in proc.run_log(), proc.log_tail()
