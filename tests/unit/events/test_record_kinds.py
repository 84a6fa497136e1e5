"""Every record kind renders the same bytes two ways: its JSON fast path, and JsonConverter over its
Connect form (what transforms and other converters see)."""

from __future__ import annotations

import pytest

from connector.events.kinds import LogicalRecord, NotificationRecord, RecordKind
from connector.serde.json_converter import JsonConverter
from tests.unit.events.record_samples import sample_records as _samples

NOTE = NotificationRecord("inc-1", "STARTED", "Incremental Snapshot",
                          {"connector_name": "dbserver1", "data_collections": "inventory.customers"},
                          1_700_000_000_000, "dbserver1.notifications")


def sample_records(schemas: bool) -> list[LogicalRecord]:
    return [*_samples(schemas), NOTE]


@pytest.mark.parametrize("schemas", [True, False])
def test_json_fast_path_equals_json_converter_over_the_connect_form(schemas: bool) -> None:
    for record in sample_records(schemas):
        connect = record.connect()
        key, value = record.json(schemas, schemas)
        assert key == JsonConverter(schemas).to_bytes(connect.key_schema, connect.key), record
        assert value == JsonConverter(schemas).to_bytes(connect.value_schema, connect.value), record
        assert (connect.topic, connect.partition, connect.headers) == (record.topic, record.partition,
                                                                       record.headers)


def test_kinds_topics_partitions_and_the_null_cases() -> None:
    by_kind: dict[RecordKind, list[LogicalRecord]] = {}
    for record in sample_records(True):
        by_kind.setdefault(record.kind, []).append(record)
    assert [len(by_kind[k]) for k in RecordKind] == [5, 1, 1, 1, 2, 1, 1]
    assert all(r.partition == 0 for r in by_kind[RecordKind.SCHEMA_CHANGE] + by_kind[RecordKind.HEARTBEAT])
    assert all(r.partition is None for r in by_kind[RecordKind.DATA] + by_kind[RecordKind.TRANSACTION]
               + by_kind[RecordKind.NOTIFICATION])
    [tombstone] = by_kind[RecordKind.TOMBSTONE]
    assert tombstone.json(True, True)[1] is None and tombstone.json(True, True)[0].endswith(b'"payload":{"id":1001}}')
    [truncate] = by_kind[RecordKind.TRUNCATE]
    assert truncate.json(True, True)[0] is None and b'"op":"t"' in truncate.json(True, True)[1]
    keyless = by_kind[RecordKind.DATA][4]
    assert keyless.json(True, True)[0] is None and keyless.connect().key_schema is None
    begin, end = by_kind[RecordKind.TRANSACTION]
    assert b'"status":"BEGIN"' in begin.json(True, True)[1] and b'"event_count":3' in end.json(True, True)[1]
    assert begin.headers == [] and by_kind[RecordKind.HEARTBEAT][0].headers == []
