"""Byte equality with the reference goldens without a server: schemas built from the schema history,
payload values taken from the golden record (so this checks schemas, the JSON writer, schema-change,
transaction and header records; tests/integration/events checks the values from real servers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connector.config.modes import Operation
from connector.events.records import (
    HeaderFormat,
    SchemaChange,
    TableChangeEntry,
    context_headers,
    heartbeat_key_bytes,
    heartbeat_value_bytes,
    key_header,
    record_headers,
    schema_change_key_bytes,
    schema_change_value_bytes,
    transaction_begin_bytes,
    transaction_end_bytes,
    transaction_key_bytes,
)
from schema_history.model import TableId
from schema_history.table_json import table_from_history_json
from tests.unit.events.golden import (
    REFERENCE,
    load_records,
    payload_row,
    schema_builder,
    source_from,
    table_for,
    table_versions,
    tx_from,
)

LOCAL = Path(__file__).parents[2] / "fixtures" / "golden"
DIRS = [REFERENCE / "basic", REFERENCE / "basic-mysql", LOCAL / "types", LOCAL / "types-mysql",
        LOCAL / "types-modes", LOCAL / "types-mysql-modes", LOCAL / "types-names", LOCAL / "types-mysql-names",
        LOCAL / "types-mappers", LOCAL / "vector-mysql"]


@pytest.fixture(params=DIRS, ids=lambda p: p.name)
def golden_dir(request: pytest.FixtureRequest) -> Path:
    if not (request.param / "events.jsonl").exists():
        pytest.skip(f"{request.param} missing")
    return request.param


def test_data_records(golden_dir: Path) -> None:
    if golden_dir.name == "types-mappers":
        pytest.skip("golden values are already masked/hashed; tests/integration/events replays them from a server")
    builder = schema_builder(golden_dir)
    versions = table_versions(golden_dir)
    checked = 0
    for record in load_records(golden_dir):
        if record.value is None or "before" not in record.value["payload"]:
            continue
        ts = builder.build(table_for(record, versions, builder))
        payload = record.value["payload"]
        fields = ts.value_schema.fields
        before, after = payload_row(fields, payload["before"]), payload_row(fields, payload["after"])
        value = ts.value_bytes(Operation(payload["op"]), before, after, source_from(payload), tx_from(payload),
                               payload["ts_ns"])
        assert value.decode("utf-8") == record.value_raw, f"seq {record.seq}"
        key = ts.key_bytes(after or before)
        assert (None if key is None else key.decode("utf-8")) == record.key_raw, f"seq {record.seq}"
        checked += 1
    assert checked


def test_schema_change_records(golden_dir: Path) -> None:
    history = [json.loads(line) for line in (golden_dir / "schema_history.jsonl").read_text().splitlines()]
    position = 0
    checked = 0
    for record in load_records(golden_dir):
        if record.topic != "dbserver1":
            continue
        payload = record.value["payload"]
        while history[position].get("ddl") != payload["ddl"]:
            position += 1
        doc = history[position]
        position += 1
        changes = tuple(
            TableChangeEntry(c["type"], TableId.parse_identifier(c["id"]),
                             table_from_history_json(TableId.parse_identifier(c["id"]), c["table"], c.get("comment"))
                             if c.get("table") else None)
            for c in doc["tableChanges"]
        )
        change = SchemaChange(source_from(payload), payload["ts_ms"], payload["databaseName"], payload["ddl"],
                              changes, payload["schemaName"])
        assert schema_change_value_bytes(change).decode("utf-8") == record.value_raw, f"seq {record.seq}"
        assert schema_change_key_bytes(payload["databaseName"]).decode("utf-8") == record.key_raw
        checked += 1
    assert checked


def test_transaction_records(golden_dir: Path) -> None:
    checked = 0
    for record in load_records(golden_dir):
        if not record.topic.endswith(".transaction"):
            continue
        payload = record.value["payload"]
        if payload["status"] == "BEGIN":
            value = transaction_begin_bytes(payload["id"], payload["ts_ms"])
        else:
            # feed the collections in reverse: the Java HashMap order must come from the keys
            counts = {d["data_collection"]: d["event_count"] for d in reversed(payload["data_collections"])}
            value = transaction_end_bytes(payload["id"], payload["ts_ms"], counts)
        assert value.decode("utf-8") == record.value_raw, f"seq {record.seq}"
        assert transaction_key_bytes(payload["id"]).decode("utf-8") == record.key_raw
        checked += 1
    assert checked


def test_context_and_key_headers(golden_dir: Path) -> None:
    records = load_records(golden_dir)
    run_id = json.loads(records[0].headers[3][1])["payload"]
    builder = schema_builder(golden_dir)
    versions = table_versions(golden_dir)
    key_names = ("__debezium.newkey", "__debezium.oldkey")
    for i, record in enumerate(records):
        if record.topic.endswith(".transaction"):
            assert record.headers == [], "transaction BEGIN/END records carry no headers at all"
            continue
        key_headers = [(n, v) for n, v in record.headers if n in key_names]
        if key_headers:
            source = record if record.value else records[i - 1]  # a tombstone repeats its delete's headers
            ts = builder.build(table_for(source, versions, builder))
            key_headers = [
                (n, key_header(n, ts.key_schema, tuple(json.loads(raw)["payload"].values()))[1].decode("utf-8"))
                for n, raw in key_headers
            ]
        context = [(n, v.decode("utf-8")) for n, v in context_headers("dbserver1", run_id)]
        assert record.headers == record_headers(context, key_headers), f"seq {record.seq}"


def test_tombstones_have_no_value_and_the_delete_key(golden_dir: Path) -> None:
    records = load_records(golden_dir)
    for i, record in enumerate(records):
        if record.value is None:
            previous = records[i - 1]
            assert previous.value["payload"]["op"] == "d"
            assert record.key_raw == previous.key_raw
            assert record.headers == previous.headers


def test_simple_header_converter_format() -> None:
    headers = context_headers("dbserver1", "01a1", HeaderFormat.SIMPLE)
    assert headers == [
        ("__debezium.context.connectorLogicalName", b"dbserver1"),
        ("__debezium.context.taskId", b"0"),
        ("__debezium.context.connectorName", b"mysql"),
        ("__debezium.context.runId", b"01a1"),
    ]
    from connector.serde.connect_schema import ConnectSchema, Type, struct

    key_schema = struct("dbserver1.inventory.customers.Key", [("id", ConnectSchema(Type.INT32))])
    assert key_header("__debezium.newkey", key_schema, (1002,), HeaderFormat.SIMPLE) == ("__debezium.newkey", b'{"id":1002}')


def test_heartbeat_records() -> None:
    from tests.unit.events.golden import parse_line

    for name, topic in (("heartbeat.jsonl", "__debezium-heartbeat.dbserver1"),
                        ("heartbeat-named.jsonl", "shared-heartbeats")):
        lines = (LOCAL / "heartbeat" / name).read_text(encoding="utf-8").splitlines()
        assert len(lines) >= 2
        for line in lines:
            record = parse_line(line)
            assert record.topic == topic and record.headers == []
            assert heartbeat_key_bytes("dbserver1").decode() == record.key_raw
            assert heartbeat_value_bytes(record.value["payload"]["ts_ms"]).decode() == record.value_raw
    assert heartbeat_key_bytes("dbserver1") == (
        b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"serverName"}],'
        b'"optional":false,"name":"io.debezium.connector.common.ServerNameKey","version":1},'
        b'"payload":{"serverName":"dbserver1"}}'
    )
    assert heartbeat_value_bytes(1700000000000, schemas_enable=False) == b'{"ts_ms":1700000000000}'


def test_truncate_record() -> None:
    golden_dir = LOCAL / "basic-truncate"
    builder = schema_builder(golden_dir)
    versions = table_versions(golden_dir)
    [record] = [r for r in load_records(golden_dir) if r.value and r.value["payload"].get("op") == "t"]
    payload = record.value["payload"]
    table = next(t for t in reversed(versions) if t.id == TableId("inventory", "audit_log"))
    ts = builder.build(table)
    value = ts.value_bytes(Operation.TRUNCATE, None, None, source_from(payload), None, payload["ts_ns"])
    assert value.decode("utf-8") == record.value_raw
    assert record.key_raw is None  # a truncate has no key, whatever the table's primary key
