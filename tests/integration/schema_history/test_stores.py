"""One contract every `SchemaHistoryStore` passes (memory, file, Kafka on a real Tansu broker),
plus what is specific to each: Debezium's own files load, the Kafka topic's shape and refusal of
multi-partition topics."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition
from confluent_kafka.admin import ConfigResource

from schema_history import HistoryRecord, HistoryStoreError, SchemaChange
from schema_history.stores import FileHistoryStore, MemoryHistoryStore, SchemaHistoryStore
from schema_history.stores.kafka import KafkaHistoryStore

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"


def _record(i: int) -> HistoryRecord:
    change = SchemaChange(database_name="db", ddl=f"CREATE DATABASE d{i} /* ü \"q\" */")
    return HistoryRecord.of(change, {"server": "dbserver1"}, {"file": "mariadb-bin.000001", "pos": i}, 1000 + i)


@pytest.fixture(params=["memory", "file", "kafka"])
def make_store(request, tmp_path: Path) -> Iterator[Callable[[], SchemaHistoryStore]]:
    """A factory of stores over the same storage (to check what a restarted process sees)."""
    stores: list[SchemaHistoryStore] = []
    if request.param == "memory":
        shared = MemoryHistoryStore()
        factory = lambda: shared  # noqa: E731
    elif request.param == "file":
        factory = lambda: FileHistoryStore(tmp_path / "h" / "history.jsonl")  # noqa: E731
    else:
        broker = request.getfixturevalue("broker")
        topic = f"history-{uuid.uuid4().hex[:8]}"
        factory = lambda: KafkaHistoryStore.for_connector(broker.bootstrap_servers, topic, "dbserver1",  # noqa: E731
                                                          consumer_config={"session.timeout.ms": 6000})

    def make() -> SchemaHistoryStore:
        store = factory()
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


def test_store_contract(make_store) -> None:
    store = make_store()
    assert isinstance(store, SchemaHistoryStore)
    store.check_and_initialize()
    store.check_and_initialize()  # idempotent
    assert not store.exists()
    assert list(store.records()) == []
    written = [_record(i) for i in range(5)]
    for record in written:
        store.append(record)
    assert store.exists()
    assert list(store.records()) == written
    again = make_store()  # a new process over the same storage
    again.check_and_initialize()
    assert list(again.records()) == written
    again.append(_record(5))
    assert [r.position["pos"] for r in make_store().records()] == [0, 1, 2, 3, 4, 5]
    # a store that lives on (an HA standby's) sees what another process appended since it read, in order, once
    assert [r.position["pos"] for r in store.records()] == [0, 1, 2, 3, 4, 5]
    store.append(_record(6))
    assert store.exists()
    assert [r.position["pos"] for r in store.records()] == [0, 1, 2, 3, 4, 5, 6]


def test_file_store_loads_debezium_files_and_writes_them_identically(tmp_path: Path) -> None:
    golden = (GOLDEN / "ddl_heavy" / "schema_history.jsonl").read_text(encoding="utf-8")
    records = list(FileHistoryStore(GOLDEN / "ddl_heavy" / "schema_history.jsonl").records())
    assert len(records) == golden.count("\n")
    out = FileHistoryStore(tmp_path / "copy.jsonl")
    out.check_and_initialize()
    for record in records:
        out.append(record)
    assert (tmp_path / "copy.jsonl").read_text(encoding="utf-8") == golden


def test_kafka_topic_shape_and_record_format(broker) -> None:
    topic = f"history-{uuid.uuid4().hex[:8]}"
    store = KafkaHistoryStore(broker.bootstrap_servers, topic, "dbserver1-schemahistory")
    store.check_and_initialize()
    store.append(_record(1))
    store.close()
    assert broker.topics()[topic] == 1
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    admin = broker.admin()  # keep the client alive while its future runs
    configs = admin.describe_configs([resource])[resource].result(15)
    assert configs["cleanup.policy"].value == "delete"
    assert configs["retention.ms"].value == "9223372036854775807"
    assert configs["retention.bytes"].value == "-1"
    consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": "t", "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    messages = []
    while True:
        msg = consumer.poll(10)
        assert msg is not None
        if msg.error() and msg.error().code() == KafkaError._PARTITION_EOF:
            break
        messages.append(msg)
    consumer.close()
    assert len(messages) == 1
    assert messages[0].key() is None and messages[0].partition() == 0
    assert messages[0].value().decode("utf-8") == _record(1).to_pretty_json()


def test_kafka_client_ids_default_to_prefix_schemahistory() -> None:
    store = KafkaHistoryStore.for_connector("127.0.0.1:1", "t", "dbserver1")
    assert store.name == "dbserver1-schemahistory"
    assert store._producer_config["client.id"] == "dbserver1-schemahistory"
    assert store._consumer_config["group.id"] == store._consumer_config["client.id"] == "dbserver1-schemahistory"
    assert store._consumer_config["enable.partition.eof"] is True


def test_kafka_store_refuses_a_multi_partition_topic(broker) -> None:
    topic = f"history-{uuid.uuid4().hex[:8]}"
    broker.create_topics([topic], partitions=4)
    store = KafkaHistoryStore(broker.bootstrap_servers, topic, "dbserver1-schemahistory")
    with pytest.raises(HistoryStoreError, match="4 partitions"):
        store.check_and_initialize()


def test_checkpointed_history_recovers_through_every_store(make_store) -> None:
    """Stores that offer raw_records() (file, Kafka) hand recovery JSON text; the result is the same."""
    from schema_history import checkpoint
    from schema_history.history import SchemaHistory
    from schema_history.settings import SchemaHistorySettings

    def pos(n: int) -> dict:
        return {"file": "mariadb-bin.000001", "pos": 100 * n, "server_id": 1}

    writer = SchemaHistory(make_store(), "dbserver1", SchemaHistorySettings(checkpoint_interval=2))
    writer.initialize_storage()
    ddl = ["CREATE DATABASE db", "CREATE TABLE db.a (id INT)", "CREATE TABLE db.b (id INT)",
           "ALTER TABLE db.a ADD COLUMN x INT", "DROP TABLE db.b", "ALTER TABLE db.a ADD COLUMN y INT"]
    for n, statement in enumerate(ddl, 1):
        writer.apply_ddl(statement, None, pos(n))
    store = make_store()
    store.check_and_initialize()
    assert sum(checkpoint.is_checkpoint(r) for r in store.records()) == 3  # after statements 2, 4 and 6
    raw = getattr(store, "raw_records", None)
    if raw is not None:
        assert [HistoryRecord.from_json(t) for t in raw()] == list(store.records())
    for n in (3, 4, 6):
        reader = SchemaHistory(store, "dbserver1")
        state = reader.recover(pos(n))
        expected = {3: {"a": ["id"], "b": ["id"]}, 4: {"a": ["id", "x"], "b": ["id"]}, 6: {"a": ["id", "x", "y"]}}[n]
        assert {t.id.table: [c.name for c in t.columns] for t in state.tables} == expected
