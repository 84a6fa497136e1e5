"""The outbox router and its JSON expansion on the cases the goldens (outbox, outbox-mysql) do not reach:
Debezium's failures (which must become one clear error, not a traceback) and its rarer options."""
from __future__ import annotations

import json

import pytest

from connector.events.kinds import ConnectRecord
from connector.events.records import HeaderFormat
from connector.serde.connect_schema import ConnectSchema, Type, struct
from connector.transforms.catalog import TRANSFORMS
from connector.transforms.headers import HeaderCodec
from connector.transforms.json_expand import ExpandError, JsonExpander

_S = ConnectSchema(Type.STRING)
_OS = ConnectSchema(Type.STRING, optional=True)
_I = ConnectSchema(Type.INT32, optional=True)
ROW = struct("dbserver1.app.outbox.Value", [("id", _S), ("aggregatetype", _S), ("aggregateid", _S),
                                            ("payload", _OS), ("part", _I), ("ver", _I)], optional=True)
ENVELOPE = struct("dbserver1.app.outbox.Envelope", [("before", ROW), ("after", ROW), ("op", _S)])
CODEC = HeaderCodec(HeaderFormat.JSON)


def router(**options: str):
    kind = TRANSFORMS["outbox.EventRouter"]
    return kind.build({**{k: v for k, v in kind.options.items() if v is not None}, **options}, CODEC)


def event(op: str, payload: str | None, *, part: int | None = None, ver: int | None = 1,
          kind: str = "Order") -> ConnectRecord:
    row = ["e-1", kind, "o-1", payload, part, ver]
    return ConnectRecord("dbserver1.app.outbox", None, None, None, ENVELOPE,
                         [None if op == "c" else row, None if op == "d" else row, op], [])


def test_expansion_types_follow_jacksons_tree() -> None:
    schema, value = JsonExpander(False).expand("payload", '{"i": 1, "l": 4294967296, "d": 1.0, "e": 2e0, '
                                                          '"s": "x", "b": true, "n": null, "a": [], "o": {"k": -1}}')
    assert [(f.name, f.schema.type) for f in schema.fields] == [
        ("i", Type.INT32), ("l", Type.INT64), ("d", Type.FLOAT64), ("e", Type.FLOAT64), ("s", Type.STRING),
        ("b", Type.BOOLEAN), ("o", Type.STRUCT)]  # null and the empty array are left out
    assert schema.fields[-1].schema.name == "payload.o" and schema.name == "payload"
    assert value == [1, 4294967296, 1.0, 2.0, "x", True, [-1]]
    assert schema.writer(value) == '{"i":1,"l":4294967296,"d":1.0,"e":2.0,"s":"x","b":true,"o":{"k":-1}}'


def test_expansion_nulls_as_optional_bytes_and_array_objects_merged() -> None:
    schema, value = JsonExpander(True).expand("p", '{"n": null, "xs": [{"a": 1}, {"a": 2, "b": "x"}]}')
    assert schema.fields[0].schema == ConnectSchema(Type.BYTES, optional=True)
    items = schema.fields[1].schema.items
    assert [f.name for f in items.fields] == ["a", "b"] and items.optional is False  # copySchemaBasics: required
    assert value == [None, [[1, None], [2, "x"]]]


@pytest.mark.parametrize("text", ['"a string"', '{"xs": [1, "a"]}', '{"xs": [1, 2.5]}', '{"xs": [null]}',
                                  '{"v": NaN}', "{broken"])
def test_text_debezium_cannot_expand_stays_a_string(text: str) -> None:
    with pytest.raises(ExpandError):
        JsonExpander(False).expand("payload", text)


def test_trailing_text_after_the_document_is_ignored_as_jackson_does() -> None:
    assert JsonExpander(False).expand("p", '{"a": 1} trailing')[1] == [1]


@pytest.mark.parametrize("text", ["[1, 2]", "[]", '{"big": 99999999999999999999}'])
def test_json_debezium_fails_on_is_an_error_not_a_string(text: str) -> None:
    with pytest.raises(ValueError) as info:
        JsonExpander(False).expand("payload", text)
    assert not isinstance(info.value, ExpandError)


def test_creates_are_routed_updates_and_deletes_and_tombstones_dropped() -> None:
    r = router()
    out = r.apply(event("c", "body"))
    assert (out.topic, out.key, out.value, out.value_schema) == ("outbox.event.Order", "o-1", "body", _OS)
    assert out.headers == [("id", b'{"schema":{"type":"string","optional":false},"payload":"e-1"}')]
    assert r.apply(event("u", "body")) is None and r.apply(event("d", "body")) is None
    tombstone = ConnectRecord("dbserver1.app.outbox", None, None, None, None, None, [])
    assert r.apply(tombstone) is None


def test_fatal_update_is_one_error_naming_the_fix() -> None:
    with pytest.raises(ValueError, match="table.op.invalid.behavior=warn"):
        router(**{"table.op.invalid.behavior": "fatal"}).apply(event("u", "x"))


def test_partition_placement_sets_the_kafka_partition() -> None:
    out = router(**{"table.fields.additional.placement": "part:partition"}).apply(event("c", "x", part=2))
    assert out.partition == 2 and out.value == "x"


def test_missing_additional_field_is_an_error_or_skipped() -> None:
    with pytest.raises(ValueError, match="table.field.additional.missing=ignore"):
        router(**{"table.fields.additional.placement": "nope:envelope"}).apply(event("c", "x"))
    out = router(**{"table.fields.additional.placement": "nope:envelope,part:envelope",
                    "table.field.additional.missing": "ignore"}).apply(event("c", "x", part=3))
    assert [f.name for f in out.value_schema.fields] == ["payload", "part"] and out.value == ["x", 3]


def test_a_schema_version_reused_with_another_payload_shape_stops_as_debezium_does() -> None:
    r = router(**{"table.field.event.schema.version": "ver", "table.expand.json.payload": "true",
                  "table.fields.additional.placement": "ver:envelope"})
    first = r.apply(event("c", '{"a": 1}'))
    assert first.value_schema.version == 1 and first.value_schema.name == "dbserver1.app.outbox.Order.Value"
    with pytest.raises(ValueError, match="bump the version"):
        r.apply(event("c", '{"b": "x"}'))


def test_wrong_timestamp_column_is_an_error() -> None:
    with pytest.raises(ValueError, match="table.field.event.timestamp=part"):
        router(**{"table.field.event.timestamp": "part"}).apply(event("c", "x"))


def test_other_records_pass_unchanged() -> None:
    ddl = ConnectRecord("dbserver1", None, None, None, struct("io.debezium.connector.mysql.SchemaChangeValue",
                                                               [("ddl", _S)]), ["CREATE"], [])
    assert router().apply(ddl) is ddl
    assert json.loads(ENVELOPE.json)["name"].endswith(".Envelope")
