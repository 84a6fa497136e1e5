"""What lake users expect (issue 25), in one end-to-end run to keep the suite's Spark time small: one MariaDB, one
connector run (`binlog-cdc run`) over a workload of updates, deletes, a multi-table transaction, DDL and a TRUNCATE,
then the mirror CLI's entry point once per option set, all in the session's one Spark JVM. Each feature's result is
checked against the database."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import DeltaTable  # noqa: E402

from spark_sink.mirror import main as mirror  # noqa: E402
from spark_sink.transactions import CommitPoint, commit_point, commit_points  # noqa: E402
from tests.integration.service.support import connector_config, new_prefix, start_connector  # noqa: E402
from tests.support.kafka_dump import KafkaRecord, consume_all  # noqa: E402
from tests.support.servers import MariaDBServer, Profile  # noqa: E402

pytestmark = [pytest.mark.spark, pytest.mark.timeout(1500)]

MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector"
SETUP = """CREATE TABLE accounts (id INT PRIMARY KEY, name VARCHAR(20), balance INT);
           CREATE TABLE ledger (id INT PRIMARY KEY, account INT, amount INT);
           INSERT INTO accounts VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cy', 30);"""
# Each statement its own transaction (autocommit), except the BEGIN ... COMMIT across both tables.
WORKLOAD = """UPDATE accounts SET balance = 11 WHERE id = 1;
              DELETE FROM accounts WHERE id = 2;
              BEGIN;
              UPDATE accounts SET balance = balance - 5 WHERE id = 1;
              INSERT INTO ledger VALUES (1, 1, -5);
              INSERT INTO accounts VALUES (4, 'dee', 5);
              INSERT INTO ledger VALUES (2, 4, 5);
              COMMIT;
              UPDATE accounts SET name = 'cyd' WHERE id = 3;
              TRUNCATE TABLE ledger;
              INSERT INTO ledger VALUES (3, 3, 7);
              ALTER TABLE accounts ADD COLUMN tier VARCHAR(5);
              UPDATE accounts SET tier = 'gold' WHERE id = 3;
              ALTER TABLE accounts RENAME COLUMN name TO full_name;
              ALTER TABLE accounts MODIFY balance BIGINT;
              UPDATE accounts SET balance = 5000000000 WHERE id = 4;
              ALTER TABLE ledger DROP COLUMN account;
              INSERT INTO ledger VALUES (4, 9);"""


def _database(server, table: str) -> tuple[list[str], dict[int, tuple]]:
    columns = [r[0] for r in server.query("SELECT column_name FROM information_schema.columns WHERE table_schema = "
                                          f"'ldb' AND table_name = '{table}' ORDER BY ordinal_position")]
    return columns, {r[0]: tuple(r[1:]) for r in server.query(f"SELECT * FROM ldb.{table}")}


def _delta(path: Path) -> list[dict]:
    return DeltaTable(str(path)).to_pyarrow_table().to_pylist()


def _columns(path: Path) -> list[str]:
    return [f.name for f in DeltaTable(str(path)).schema().fields if not f.name.startswith("__")]


def _files_on_disk(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*.parquet") if "_delta_log" not in p.parts}


def _active_files(path: Path) -> set[str]:
    return {str(Path(uri.removeprefix("file://")).relative_to(path)) for uri in DeltaTable(str(path)).file_uris()}


def _state(rows: list[dict], columns: Sequence[str]) -> dict[int, tuple]:
    return {r["id"]: tuple(r[c] for c in columns[1:]) for r in rows}


@pytest.fixture(scope="module")
def topics(broker, tmp_path_factory) -> tuple[str, dict[str, tuple[list[str], dict[int, tuple]]]]:
    """The connector's records of the workload on the broker (topic prefix) and the tables after it."""
    workdir = tmp_path_factory.mktemp("lake_features")
    with MariaDBServer(workdir / "db", profile=Profile.DEFAULTS) as server:
        server.run_sql("CREATE DATABASE ldb")
        server.run_sql(SETUP, database="ldb")
        prefix = new_prefix("lake")
        broker.create_topics([f"{prefix}.ldb.accounts", f"{prefix}.ldb.ledger", prefix, f"{prefix}.transaction"])
        props = {"connector.class": MARIADB_CONNECTOR, "provide.transaction.metadata": "true",
                 "skipped.operations": "none"}
        proc = start_connector(workdir, connector_config(workdir, server, broker, "ldb", prefix, **props))
        try:
            server.run_sql(WORKLOAD, database="ldb")
            proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=120)
        finally:
            assert proc.stop() == 0, proc.log_tail()
        return prefix, {t: _database(server, t) for t in ("accounts", "ledger")}


def _mirror(spark, broker, prefix: str, workdir: Path, *options: str) -> Path:
    lake = workdir / "lake"
    argv = ["--bootstrap-servers", broker.bootstrap_servers, "--topics-pattern", rf"{prefix}\.ldb\..*",
            "--target", str(lake), "--checkpoint", str(workdir / "ckpt"), "--drain", *options]
    assert mirror(argv, spark=spark) == 0
    return lake


def test_history_and_schema_evolve(spark, broker, topics, tmp_path) -> None:
    """``--history --schema-evolution evolve``: the tables follow every DDL (added, renamed, widened, dropped
    columns) and equal the database; the history keeps every version with its validity."""
    prefix, want = topics
    # Two micro-batches (16 records): versions stored by the first are closed by the second.
    lake = _mirror(spark, broker, prefix, tmp_path, "--history", "--schema-evolution", "evolve",
                   "--optimize-every", "1", "--vacuum-retention", "0", "--max-offsets-per-trigger", "12")
    # After each batch the tables it touched are compacted and vacuumed: no file outside a table's current version.
    # Which topic's records a batch of 12 takes is up to the broker's fetches, but with 16 records (11 + 5) at least
    # one table spans both batches, and its second MERGE (or the ledger's TRUNCATE) leaves files to remove.
    tables = [lake / "ldb" / "ledger", lake / "_history" / "ldb" / "ledger",
              lake / "ldb" / "accounts", lake / "_history" / "ldb" / "accounts"]
    for table in tables:
        assert _files_on_disk(table) == _active_files(table), table
    assert any("VACUUM END" in [c["operation"] for c in DeltaTable(str(t)).history()] for t in tables)
    for table in ("accounts", "ledger"):
        columns, rows = want[table]
        assert sorted(_columns(lake / "ldb" / table)) == sorted(columns)  # added columns come last
        assert _state(_delta(lake / "ldb" / table), columns) == rows
    assert want["accounts"] == (["id", "full_name", "balance", "tier"],
                                {1: ("ann", 6, None), 3: ("cyd", 30, "gold"), 4: ("dee", 5_000_000_000, None)})

    history = _delta(lake / "_history" / "ldb" / "accounts")
    for r in history:  # old versions keep the old column: a history is never rewritten by a rename
        r["full_name"] = r["full_name"] or r["name"]
    assert _state([r for r in history if r["__current"]], want["accounts"][0]) == want["accounts"][1]
    by_key: dict[int, list[dict]] = {}
    for r in sorted(history, key=lambda r: (r["__partition"], r["__offset"])):
        by_key.setdefault(r["id"], []).append(r)
    assert {k: [(r["full_name"], r["balance"], r["tier"]) for r in v] for k, v in by_key.items()} == {
        1: [("ann", 10, None), ("ann", 11, None), ("ann", 6, None)], 2: [("bob", 20, None)],
        3: [("cy", 30, None), ("cyd", 30, None), ("cyd", 30, "gold")],
        4: [("dee", 5, None), ("dee", 5_000_000_000, None)]}
    for versions in by_key.values():  # each version ends where the next begins; only a live key's last is open
        for older, newer in zip(versions, versions[1:]):
            assert (older["__valid_to"], older["__valid_to_position"]) == \
                   (newer["__valid_from"], newer["__valid_from_position"])
            assert not older["__current"]
        assert all(isinstance(r["__valid_from"], dt.datetime) for r in versions)
    deleted = by_key[2][0]  # closed by the DELETE: a position after its own, no newer version
    assert deleted["__valid_to"] is not None and not deleted["__current"]
    assert deleted["__valid_to_position"] != deleted["__valid_from_position"]
    ledger = _delta(lake / "_history" / "ldb" / "ledger")
    # the TRUNCATE ended both rows of the transaction; the rows inserted after it are current
    assert sorted((r["id"], r["__current"], r["__valid_to"] is None) for r in ledger) == [
        (1, False, False), (2, False, False), (3, True, True), (4, True, True)]


def test_schema_evolution_fail(spark, broker, topics, tmp_path, caplog) -> None:
    prefix, want = topics
    # fail: exit 2 with the first DDL after the columns the table was created with, and where it was
    argv = ["--bootstrap-servers", broker.bootstrap_servers, "--topics-pattern", rf"{prefix}\.ldb\..*",
            "--target", str(tmp_path / "fail" / "lake"), "--checkpoint", str(tmp_path / "fail" / "ckpt"),
            "--drain", "--schema-evolution", "fail"]
    assert mirror(argv, spark=spark) == 2
    line = next(r.getMessage() for r in caplog.records if "refused" in r.getMessage())
    assert line.startswith(f"schema change of {prefix}.ldb.accounts refused (--schema-evolution fail): "
                           "ALTER TABLE accounts ADD COLUMN tier VARCHAR(5) at mariadb-bin.0"), line
    assert "columns added ('tier',)" in line or "added" in line


def _boundaries(records: Sequence[KafkaRecord]) -> list[tuple[dict, dict]]:
    """The states ({id: balance} of accounts, {id: amount} of ledger) the source passed through, one after each
    transaction (records without one, snapshot rows and TRUNCATE, are each their own), in binlog order."""
    groups: dict[object, list] = {}
    for r in records:
        if r.value is None or not r.topic.endswith((".accounts", ".ledger")):
            continue
        p = json.loads(r.value)["payload"]
        group = p["transaction"]["id"] if p.get("transaction") else (r.topic, r.offset)
        groups.setdefault(group, []).append(((p["source"]["file"], p["source"]["pos"]), r, p))
    accounts: dict = {}
    ledger: dict = {}
    states = [({}, {})]
    for members in sorted(groups.values(), key=lambda m: min(x[0] for x in m)):
        for _, r, p in sorted(members, key=lambda x: (x[1].topic, x[1].offset)):
            table, column = (accounts, "balance") if r.topic.endswith(".accounts") else (ledger, "amount")
            if p["op"] == "t":
                table.clear()
            elif p["op"] == "d":
                table.pop(p["before"]["id"], None)
            else:
                table[p["after"]["id"]] = p["after"][column]
        states.append((dict(accounts), dict(ledger)))
    return states


def _at(lake: Path, point: CommitPoint) -> tuple[dict, dict]:
    """Both tables as of one commit point (a table not written yet is empty)."""
    def table(name: str, column: str) -> dict:
        version = point.versions.get(f"ldb/{name}")
        if version is None:
            return {}
        return {r["id"]: r[column] for r in
                DeltaTable(str(lake / "ldb" / name), version=version).to_pyarrow_table().to_pylist()}
    return table("accounts", "balance"), table("ledger", "amount")


def _copy(broker, records: Sequence[KafkaRecord], source: str, target: str) -> None:
    """The connector's records, byte for byte with their Kafka timestamps, under another topic prefix."""
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers, "enable.idempotence": True})
    for r in records:
        producer.produce(target + r.topic[len(source):], value=r.value, key=r.key, headers=list(r.headers),
                         partition=r.partition, timestamp=r.timestamp_ms)
    assert producer.flush(30) == 0


def test_transaction_consistent_tables(spark, broker, topics, tmp_path) -> None:
    """``--transaction-topic``: a transaction across both tables whose END is read before all its events (the
    ledger's second insert arrives in a later run) is held back with everything after it; each commit point in
    ``_transactions`` shows both tables at one transaction boundary of the source; the end state equals it. The
    same runs check ``--schema-evolution ignore`` and the maintenance command."""
    prefix, want = topics
    names = [f"{prefix}.ldb.accounts", f"{prefix}.ldb.ledger", f"{prefix}.transaction", prefix]
    records = consume_all(broker.bootstrap_servers, dict.fromkeys(names, 1))
    ends = [json.loads(r.value)["payload"] for r in records if r.topic == names[2]]
    both = next(e["id"] for e in ends if e["status"] == "END" and len(e["data_collections"]) == 2)
    ledger = [r for r in records if r.topic == names[1]]
    cut = next(i for i, r in enumerate(ledger) if r.value and json.loads(r.value)["payload"]["transaction"] ==
               {"id": both, "total_order": 4, "data_collection_order": 2})
    copy = new_prefix("txlake")
    broker.create_topics([copy + n[len(prefix):] for n in names])
    _copy(broker, [r for r in records if r not in ledger[cut:]], prefix, copy)
    # with --schema-evolution ignore (the DDL come from the copied schema-change topic): one mirror run less
    options = ("--transaction-topic", f"{copy}.transaction", "--schema-evolution", "ignore")
    lake = _mirror(spark, broker, copy, tmp_path, *options)
    first = commit_point(str(lake))
    assert first is not None and first.held_transactions >= 1
    assert _at(lake, first) == ({1: 11, 3: 30}, {})  # before the transaction: nothing of it, nor after it

    _copy(broker, ledger[cut:], prefix, copy)  # the rest: the transaction completes, what waited follows
    _mirror(spark, broker, copy, tmp_path, *options)
    boundaries = _boundaries(records)
    points = commit_points(str(lake))
    assert len(points) >= 2 and points[-1].held_transactions == 0
    for point in points:
        assert _at(lake, point) in boundaries, point
    assert _at(lake, points[-1]) == boundaries[-1]

    # ignore: the columns of the first version; the renamed column goes on under its old name; widened
    assert _columns(lake / "ldb" / "accounts") == ["id", "name", "balance"]
    assert _state(_delta(lake / "ldb" / "accounts"), ["id", "name", "balance"]) == \
        {1: ("ann", 6), 3: ("cyd", 30), 4: ("dee", 5_000_000_000)}
    assert _columns(lake / "ldb" / "ledger") == ["id", "account", "amount"]
    assert _state(_delta(lake / "ldb" / "ledger"), ["id", "account", "amount"]) == {3: (3, 7), 4: (None, 9)}

    # maintenance as a command: every table under the root compacted and vacuumed
    ledger_table = lake / "ldb" / "ledger"
    done = subprocess.run([sys.executable, "-m", "spark_sink.maintenance", "--target", str(lake),
                           "--vacuum-retention", "0"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _files_on_disk(ledger_table) == _active_files(ledger_table) and len(_active_files(ledger_table)) == 1
    assert _state(_delta(ledger_table), ["id", "account", "amount"]) == {3: (3, 7), 4: (None, 9)}


def test_iceberg_target(spark, broker, topics, tmp_path) -> None:
    """``--format iceberg`` (pyiceberg, local SQL catalog): updates, deletes, the multi-table transaction, TRUNCATE
    and the added and widened columns reach the tables, which equal the database; a batch the table has is
    skipped, and an older change of a key cannot replace the stored newer one (the ordering guard)."""
    pytest.importorskip("pyiceberg")
    from spark_sink.iceberg import BATCH_PROPERTY, IcebergTarget, local_catalog
    prefix, want = topics
    lake = _mirror(spark, broker, prefix, tmp_path, "--format", "iceberg", "--max-offsets-per-trigger", "12")
    catalog = local_catalog(str(lake))
    accounts, ledger = IcebergTarget(catalog, "ldb.accounts"), IcebergTarget(catalog, "ldb.ledger")

    def rows(target: IcebergTarget) -> dict[int, dict]:
        return {r["id"]: r for r in target.table().scan().to_arrow().to_pylist()}
    assert {k: (r["balance"], r["tier"]) for k, r in rows(accounts).items()} == \
        {k: v[1:] for k, v in want["accounts"][1].items()}  # lenient: full_name beside name, balance widened
    assert {k: r["amount"] for k, r in rows(ledger).items()} == {k: v[-1] for k, v in want["ledger"][1].items()}

    table = accounts.table()
    batch = int(table.properties[BATCH_PROPERTY])
    snapshots = len(table.snapshots())
    assert accounts.has_batch(batch) and not accounts.has_batch(batch + 1)
    stored = table.scan().to_arrow()
    newest = stored.filter(pa.compute.equal(stored["id"], 1))
    older = newest.set_column(newest.schema.get_field_index("__offset"), "__offset", pa.array([0], pa.int64()))
    older = older.set_column(older.schema.get_field_index("balance"), "balance", pa.array([-1], pa.int64()))
    accounts.apply(spark.createDataFrame(older), ["id"], truncate=False, batch_id=None, soft_delete=False)
    assert rows(accounts)[1]["balance"] == want["accounts"][1][1][1]  # the guard kept the newer row
    later = older.set_column(older.schema.get_field_index("__offset"), "__offset",
                             pa.array([newest["__offset"][0].as_py() + 100], pa.int64()))
    accounts.apply(spark.createDataFrame(later), ["id"], truncate=False, batch_id=batch + 1,
                   soft_delete=False)
    assert rows(accounts)[1]["balance"] == -1 and accounts.has_batch(batch + 1)
    assert len(accounts.table().snapshots()) > snapshots
