#!/usr/bin/env python3
"""`make demo`: the Debezium tutorial, locally, with binlog-cdc in place of Kafka Connect.

 1. starts a private MariaDB 10.11 (the `defaults` profile: what users run) holding the
    tutorial's `inventory` database (docker/mysql/init/10-inventory.sql, as in the Docker
    set-up), and a Tansu Kafka broker;
 2. writes a Debezium Server configuration and starts `binlog-cdc run` on it;
 3. once the snapshot is done, updates a customer, places an order and deletes an address;
 4. prints every topic with its record count and a few records, then stops everything.
Everything lives in a temporary directory (or --workdir) on free loopback ports.
"""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the test bed's server helpers live in tests/support

from tests.conformance.config import write_properties  # noqa: E402
from tests.support.connector_process import ConnectorError, ConnectorProcess  # noqa: E402
from tests.conformance.output import event_lines  # noqa: E402
from tests.support.kafka_dump import consume_all  # noqa: E402
from tests.support.servers import MariaDBServer, Profile, ServerError, TansuBroker  # noqa: E402

CHANGES = """USE inventory;
UPDATE customers SET first_name = 'Anne Marie' WHERE id = 1004;
INSERT INTO orders VALUES (DEFAULT, '2026-11-20', 1004, 3, 109);
DELETE FROM addresses WHERE id = 16;
"""
TABLES = ("products", "products_on_hand", "customers", "addresses", "orders", "geom")


def config(work: Path, db: MariaDBServer, broker: TansuBroker) -> dict[str, str]:
    source = {"connector.class": "io.debezium.connector.mysql.MySqlConnector", "name": "inventory-connector",
              **db.connector_properties(), "database.server.id": "184054", "topic.prefix": "dbserver1",
              "database.include.list": "inventory", "snapshot.mode": "initial",
              "include.schema.changes": "true", "tombstones.on.delete": "true",
              "offset.storage.file.filename": str(work / "offsets.dat"), "offset.flush.interval.ms": "0",
              "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
              "schema.history.internal.file.filename": str(work / "schema_history.jsonl")}
    return {"debezium.sink.type": "kafka",
            "debezium.sink.kafka.producer.bootstrap.servers": broker.bootstrap_servers,
            **{f"debezium.source.{k}": v for k, v in source.items()},
            "debezium.format.key": "json", "debezium.format.value": "json"}


def describe(line: dict) -> str:
    """One record as the tutorial shows it: key payload, op, before -> after."""
    key = (line["key"] or {}).get("payload") if isinstance(line["key"], dict) else line["key"]
    value = line["value"]
    if value is None:
        return f"  key={json.dumps(key)}  (tombstone)"
    p = value.get("payload") if isinstance(value, dict) else value
    if isinstance(p, dict) and "op" in p:
        return f"  key={json.dumps(key)} op={p['op']} before={json.dumps(p.get('before'))} after={json.dumps(p.get('after'))}"
    if isinstance(p, dict) and "ddl" in p:
        return f"  schema change: {p['ddl'][:100]}"
    return f"  {json.dumps(p)[:160]}"


def demo(work: Path, show: int, connector_cmd: list[str]) -> int:
    with MariaDBServer(work / "mariadb", profile=Profile.DEFAULTS) as db, TansuBroker(work / "tansu") as broker:
        print(f"MariaDB {db.version()} on 127.0.0.1:{db.port}, Tansu on {broker.bootstrap_servers}")
        db.run_sql((REPO / "docker" / "mysql" / "init" / "10-inventory.sql").read_text(encoding="utf-8"))
        # single-partition topics, as Apache Kafka's default num.partitions=1 would create them
        broker.create_topics(["dbserver1", *(f"dbserver1.inventory.{t}" for t in TABLES)])
        cfg = work / "application.properties"
        write_properties(cfg, config(work, db, broker))
        print(f"binlog-cdc run {cfg}   (log: {work / 'connector.log'})")
        connector = ConnectorProcess(connector_cmd, cfg,
                                     work / "status.json", work / "connector.log").start()
        try:
            connector.wait_streaming(120)
            st = connector.wait_caught_up(db.binlog_position(), 1000, 120)
            print(f"snapshot done: {st.get('records_sent')} records; applying changes:\n{CHANGES}")
            db.run_sql(CHANGES)
            st = connector.wait_caught_up(db.binlog_position(), 1000, 120)
            print(f"streamed; {st.get('records_sent')} records in total")
        finally:
            rc = connector.stop()
        lines = event_lines(consume_all(broker.bootstrap_servers, broker.topics()))
        for topic in sorted({x["topic"] for x in lines}):
            records = [x for x in lines if x["topic"] == topic]
            print(f"\n{topic}: {len(records)} record(s)")
            for x in records[-show:]:
                print(describe(x))
        print(f"\nconnector exit code {rc}")
        return 0 if rc == 0 else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=None, help="keep everything here instead of a temp dir")
    ap.add_argument("--show", type=int, default=3, help="records printed per topic (the last ones)")
    ap.add_argument("--connector-cmd", default=str(Path(sys.executable).parent / "binlog-cdc"),
                    help="the binlog-cdc command (default: the venv's)")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="binlog-cdc-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return demo(work.absolute(), args.show, shlex.split(args.connector_cmd))
    except (ConnectorError, ServerError, TimeoutError) as e:
        print(f"demo failed: {e}", file=sys.stderr)
        return 1
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
