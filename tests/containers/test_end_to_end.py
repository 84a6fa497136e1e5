"""The spine's end-to-end checks against real MySQL 8 (8.4 and 8.0 images) and real Apache Kafka.

The connector runs on the host as the image runs it: `binlog-cdc run docker/application.properties
--status-file ...`, pointed at the containers by DEBEZIUM_* environment variables only, so the
shipped configuration file and the environment convention are what is tested. Skipped without
a Docker engine (see conftest.py for running against servers that already exist).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource

from tests.containers.conftest import MySQLEndpoint
from tests.support.connector_process import ConnectorProcess, default_connector_cmd
from tests.containers.inventory import APPLICATION_PROPERTIES, HEALTHCHECK, INVENTORY_ROWS
from tests.support.kafka_dump import KafkaRecord, consume_all
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.containers, pytest.mark.timeout(900)]

JAVA_LONG_MAX = 9223372036854775807  # KafkaSchemaHistory's retention.ms: keep the history forever


def image_connector(workdir: Path, env: dict[str, str]) -> ConnectorProcess:
    """The connector as the image runs it: the shipped application.properties plus DEBEZIUM_* variables, in its
    own working directory (offsets and history files are relative to it)."""
    workdir.mkdir(parents=True, exist_ok=True)
    # The parent's own DEBEZIUM_* variables must not leak into the connector's configuration.
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DEBEZIUM_")} | env
    return ConnectorProcess(list(default_connector_cmd()), APPLICATION_PROPERTIES, workdir / "status.json",
                            workdir / "connector.log", env=environ, cwd=workdir)


def connector_env(mysql: MySQLEndpoint, kafka: str, prefix: str, server_id: int) -> dict[str, str]:
    """Only what differs from docker/application.properties, in Debezium Server's env convention."""
    return {
        "DEBEZIUM_SOURCE_DATABASE_HOSTNAME": mysql.host,
        "DEBEZIUM_SOURCE_DATABASE_PORT": str(mysql.port),
        "DEBEZIUM_SOURCE_DATABASE_SERVER_ID": str(server_id),
        "DEBEZIUM_SOURCE_TOPIC_PREFIX": prefix,
        "DEBEZIUM_SOURCE_SCHEMA_HISTORY_INTERNAL_KAFKA_TOPIC": f"schema-history.{prefix}",
        "DEBEZIUM_SOURCE_SCHEMA_HISTORY_INTERNAL_KAFKA_BOOTSTRAP_SERVERS": kafka,
        "DEBEZIUM_SINK_KAFKA_PRODUCER_BOOTSTRAP_SERVERS": kafka,
    }


def unique_prefix() -> str:
    return "it" + uuid.uuid4().hex[:10]


def topic_records(kafka: str, topic: str) -> list[KafkaRecord]:
    """Every committed record of `topic`, or [] while the topic does not exist yet."""
    metadata = AdminClient({"bootstrap.servers": kafka}).list_topics(topic, timeout=10)
    meta = metadata.topics.get(topic)
    if meta is None or meta.error is not None or not meta.partitions:
        return []
    return consume_all(kafka, {topic: len(meta.partitions)})


def wait_records(connector: ConnectorProcess, kafka: str, topic: str, count: int,
                 timeout: float = 120) -> list[KafkaRecord]:
    """The records of `topic` once there are at least `count` (then exactly `count` are expected)."""
    def enough() -> list[KafkaRecord] | None:
        connector.assert_running()
        records = topic_records(kafka, topic)
        return records if len(records) >= count else None

    records = wait_until(enough, timeout, f"{count} records on {topic}", interval=1.0)
    assert len(records) == count, f"{topic}: expected {count} records, got {len(records)}"
    return records


def payload(record: KafkaRecord) -> dict[str, Any] | None:
    return None if record.value is None else json.loads(record.value)["payload"]


def key_payload(record: KafkaRecord) -> dict[str, Any]:
    return json.loads(record.key)["payload"]


def healthcheck(status_file: Path) -> int:
    return subprocess.run([sys.executable, str(HEALTHCHECK), str(status_file)], capture_output=True).returncode


def test_snapshot_streaming_history_and_resume(mysql_server: MySQLEndpoint, kafka_bootstrap: str,
                                               tmp_path: Path) -> None:
    prefix = unique_prefix()
    env = connector_env(mysql_server, kafka_bootstrap, prefix, server_id=5401)
    connector = image_connector(tmp_path / "run", env).start()
    try:
        # 1. snapshot: one op=r record per row of every inventory table
        connector.wait_phase("streaming", timeout=180)
        assert healthcheck(connector.status_file) == 0, "the image's HEALTHCHECK must pass while streaming"
        for table, rows in INVENTORY_ROWS.items():
            records = wait_records(connector, kafka_bootstrap, f"{prefix}.inventory.{table}", rows)
            ops = {payload(r)["op"] for r in records}
            assert ops == {"r"}, f"{table}: snapshot records must all be op=r, got {ops}"
            assert len({r.key for r in records}) == rows, f"{table}: one record per primary key"
            assert {payload(r)["source"]["db"] for r in records} == {"inventory"}

        # 2. streaming: insert, update, delete (+ tombstone) of one customer, in commit order
        with mysql_server.connect("inventory") as db, db.cursor() as cur:
            cur.execute("INSERT INTO customers VALUES (1005, 'Alice', 'Example', 'alice@example.com')")
            cur.execute("UPDATE customers SET email = 'alice@example.org' WHERE id = 1005")
            cur.execute("DELETE FROM customers WHERE id = 1005")
        customers_topic = f"{prefix}.inventory.customers"
        customers = wait_records(connector, kafka_bootstrap, customers_topic, INVENTORY_ROWS["customers"] + 4)
        # one key, one partition: these four are in commit order whatever the topic's partition count
        changes = [r for r in customers if key_payload(r) == {"id": 1005}]
        assert len(changes) == 4
        created, updated, deleted, tombstone = (payload(r) for r in changes)
        assert (created["op"], created["before"], created["after"]["email"]) == ("c", None, "alice@example.com")
        assert (updated["op"], updated["before"]["email"], updated["after"]["email"]) == (
            "u", "alice@example.com", "alice@example.org")
        assert (deleted["op"], deleted["before"]["email"], deleted["after"]) == ("d", "alice@example.org", None)
        assert tombstone is None, "a delete is followed by a tombstone (tombstones.on.delete=true)"
        assert created["source"]["snapshot"] == "false" and created["source"]["file"].startswith("mysql-bin.")
        assert created["source"]["gtid"], "my.cnf turns GTIDs on, so streamed records carry one"

        # 3. the schema history topic on a real broker: one partition, delete policy, kept forever
        history_topic = f"schema-history.{prefix}"
        admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
        assert len(admin.list_topics(history_topic, timeout=10).topics[history_topic].partitions) == 1
        resource = ConfigResource(ConfigResource.Type.TOPIC, history_topic)
        config = admin.describe_configs([resource])[resource].result(timeout=30)
        assert config["cleanup.policy"].value == "delete"
        assert int(config["retention.ms"].value) == JAVA_LONG_MAX
        assert int(config["retention.bytes"].value) == -1
        history = [json.loads(r.value) for r in topic_records(kafka_bootstrap, history_topic)]
        assert history and all(h["source"] == {"server": prefix} for h in history)
        assert any("CREATE TABLE `customers`" in (h.get("ddl") or "") for h in history)

        # 4. graceful stop on SIGTERM, then resume from the stored offsets without a new snapshot
        assert connector.stop() == 0, "SIGTERM must end in exit status 0"
        assert (connector.status() or {}).get("phase") == "stopped"
        assert healthcheck(connector.status_file) == 1
        assert (tmp_path / "run" / "data" / "offsets.dat").is_file(), "offsets go to data/offsets.dat"
        with mysql_server.connect("inventory") as db, db.cursor() as cur:
            cur.execute("INSERT INTO customers VALUES (1006, 'Bob', 'Example', 'bob@example.com')")
        connector.start()
        connector.wait_phase("streaming", timeout=180)
        customers = wait_records(connector, kafka_bootstrap, customers_topic, INVENTORY_ROWS["customers"] + 5)
        resumed = [payload(r) for r in customers if key_payload(r) == {"id": 1006}]
        assert [(p["op"], p["after"]["email"]) for p in resumed] == [("c", "bob@example.com")]
        assert len([r for r in customers if key_payload(r) == {"id": 1005}]) == 4, "nothing re-sent after restart"
        products = topic_records(kafka_bootstrap, f"{prefix}.inventory.products")
        assert len(products) == INVENTORY_ROWS["products"], "a restart with offsets must not snapshot again"
        assert connector.stop() == 0
    finally:
        connector.kill()


def test_exactly_once_writes_in_kafka_transactions(mysql_server: MySQLEndpoint, kafka_bootstrap: str,
                                                   tmp_path: Path) -> None:
    """connector/kafka/writer.py's exactly-once mode: a transactional.id in the producer properties."""
    prefix = unique_prefix()
    env = connector_env(mysql_server, kafka_bootstrap, prefix, server_id=5402)
    env["DEBEZIUM_SINK_KAFKA_PRODUCER_TRANSACTIONAL_ID"] = f"{prefix}-tx"
    connector = image_connector(tmp_path / "run", env).start()
    try:
        connector.wait_phase("streaming", timeout=180)
        topic = f"{prefix}.inventory.products"
        records = wait_records(connector, kafka_bootstrap, topic, INVENTORY_ROWS["products"])  # read_committed
        assert {payload(r)["op"] for r in records} == {"r"}
        # A committed transaction leaves a control record (the commit marker) in the partition:
        # it takes an offset but is never delivered, so the end offset runs past the last record.
        consumer = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": f"{prefix}-watermarks"})
        try:
            _low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        finally:
            consumer.close()
        assert high > records[-1].offset + 1, "no transaction marker after the records: not written transactionally"
        assert connector.stop() == 0
    finally:
        connector.kill()
