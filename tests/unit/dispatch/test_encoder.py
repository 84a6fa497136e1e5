"""The one encoding seam: every record kind, the JSON fast path on and off, transforms per kind."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from connector.dispatch.encoder import RecordEncoder
from connector.transforms.chain import IdentityTransform
from connector.events.kinds import ConnectRecord, LogicalRecord, RecordKind
from connector.kafka.writer import OutRecord
from connector.serde.avro import JsonSide, RecordSerializer
from connector.serde.connect_schema import ConnectSchema
from tests.unit.events.record_samples import sample_records


@dataclass(frozen=True)
class JsonOnly:
    """A record that fails if anyone asks for its Connect form: proves the fast path builds no values."""

    inner: LogicalRecord

    @property
    def kind(self) -> RecordKind:
        return self.inner.kind

    @property
    def topic(self) -> str:
        return self.inner.topic

    @property
    def partition(self) -> int | None:
        return self.inner.partition

    @property
    def headers(self) -> list[tuple[str, bytes]]:
        return self.inner.headers

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]:
        return self.inner.json(key_schemas, value_schemas)

    def connect(self) -> ConnectRecord:
        raise AssertionError(f"the fast path built Connect values for a {self.kind.value} record")


@dataclass(frozen=True)
class Reroute:
    """A test transform: renames the topic and adds a header (as RegexRouter + InsertHeader would)."""

    suffix: str

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return replace(record, topic=record.topic + self.suffix,
                       headers=[*record.headers, ("routed", self.suffix.encode())])


class DropAll:
    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return None


@dataclass
class Recording:
    """An in-memory converter side that records what it was asked to serialise, in order."""

    name: str
    calls: list[str]
    seen: list[Any] = field(default_factory=list)

    def serialize(self, topic: str, schema: ConnectSchema | None, value: Any) -> bytes | None:
        self.calls.append(self.name)
        self.seen.append((topic, schema, value))
        return None if value is None else f"{self.name}:{topic}".encode()


@pytest.mark.parametrize("schemas", [True, False])
def test_fast_path_is_every_kinds_json_and_builds_no_connect_values(schemas: bool) -> None:
    encoder = RecordEncoder(key_schemas_enable=schemas, value_schemas_enable=schemas)
    for record in sample_records(schemas):
        assert encoder.direct(record.kind)
        out = encoder.encode(JsonOnly(record))
        assert out == OutRecord(record.topic, *record.json(schemas, schemas), record.headers, record.partition)


@pytest.mark.parametrize("schemas", [True, False])
def test_identity_transforms_on_every_kind_change_no_byte(schemas: bool) -> None:
    fast = RecordEncoder(key_schemas_enable=schemas, value_schemas_enable=schemas)
    slow = RecordEncoder(key_schemas_enable=schemas, value_schemas_enable=schemas,
                         transforms={kind: [IdentityTransform(), IdentityTransform()] for kind in RecordKind})
    for record in sample_records(schemas):
        assert not slow.direct(record.kind)
        assert slow.encode(record) == fast.encode(record), record


def test_json_converters_given_explicitly_leave_the_fast_path_but_not_the_bytes() -> None:
    explicit = RecordEncoder(RecordSerializer(JsonSide(True), JsonSide(True)))
    fast = RecordEncoder()
    for record in sample_records(True):
        assert not explicit.direct(record.kind)
        assert explicit.encode(record) == fast.encode(record)


def test_a_transform_runs_only_for_its_kind_and_in_order() -> None:
    encoder = RecordEncoder(transforms={RecordKind.DATA: [Reroute(".a"), Reroute(".b")]})
    for record in sample_records(True):
        out = encoder.encode(record)
        assert out is not None
        if record.kind is RecordKind.DATA:
            assert out.topic == record.topic + ".a.b"
            assert out.headers[-2:] == [("routed", b".a"), ("routed", b".b")]
            assert out.headers[:-2] == record.headers
            assert (out.key, out.value) == record.json(True, True)
        else:
            assert encoder.direct(record.kind) and out == RecordEncoder().encode(record)


def test_a_transform_returning_none_drops_the_record() -> None:
    encoder = RecordEncoder(transforms={RecordKind.TOMBSTONE: [DropAll()], RecordKind.HEARTBEAT: []})
    dropped = [r for r in sample_records(True) if encoder.encode(r) is None]
    assert [r.kind for r in dropped] == [RecordKind.TOMBSTONE]
    assert encoder.direct(RecordKind.HEARTBEAT)  # an empty chain is no chain


def test_other_converters_get_the_connect_form_key_first() -> None:
    calls: list[str] = []
    key, value = Recording("key", calls), Recording("value", calls)
    encoder = RecordEncoder(RecordSerializer(key, value))
    records = sample_records(True)
    outs = [encoder.encode(r) for r in records]
    assert not any(encoder.direct(kind) for kind in RecordKind)
    assert calls == ["key", "value"] * len(records)
    for record, out, (_, key_schema, key_value), (_, value_schema, value_value) in zip(records, outs, key.seen,
                                                                                     value.seen):
        connect = record.connect()
        assert (key_schema, key_value, value_schema, value_value) == (connect.key_schema, connect.key,
                                                                      connect.value_schema, connect.value)
        assert out is not None and out.partition == record.partition and out.headers == record.headers
        assert out.value == (None if connect.value is None else f"value:{record.topic}".encode())


def test_rendered_records_only_where_the_fast_path_holds() -> None:
    context = [("h", b"v")]
    to_record = RecordEncoder().rendered(RecordKind.DATA, "p.db.t", context)
    assert to_record is not None and to_record(b"k", b"v") == OutRecord("p.db.t", b"k", b"v", context)
    assert RecordEncoder(transforms={RecordKind.DATA: [IdentityTransform()]}).rendered(
        RecordKind.DATA, "p.db.t", context) is None
    assert RecordEncoder(RecordSerializer(JsonSide(), JsonSide())).rendered(RecordKind.DATA, "p.db.t", context) is None
