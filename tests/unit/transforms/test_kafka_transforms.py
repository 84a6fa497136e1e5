"""Options and failure paths of ByLogicalTableRouter and the Kafka struct/header transforms that the goldens
(xform_kafka, xform_kafka-mysql) do not exercise: each either behaves as Kafka/Debezium or stops with one
line naming the fix."""
from __future__ import annotations

import json

import pytest

from connector.events.kinds import ConnectRecord
from connector.events.records import HeaderFormat
from connector.serde.connect_schema import ConnectSchema, Type, struct
from connector.transforms.catalog import TRANSFORMS
from connector.transforms.headers import HeaderCodec

_I = ConnectSchema(Type.INT32)
_OI = ConnectSchema(Type.INT32, optional=True, default=7)
_OS = ConnectSchema(Type.STRING, optional=True)
KEY = struct("dbserver1.inv.cust_1.Key", [("id", _I)])
ROW = struct("dbserver1.inv.cust_1.Value", [("id", _I), ("name", _OS), ("n", _OI)], optional=True)
ENVELOPE = struct("dbserver1.inv.cust_1.Envelope", [("before", ROW), ("after", ROW), ("op", ConnectSchema(Type.STRING))])
CODEC = HeaderCodec(HeaderFormat.JSON)


def build(cls: str, **options: str):
    kind = TRANSFORMS[cls]
    return kind.build({**{k: v for k, v in kind.options.items() if v is not None}, **options}, CODEC)


def change(before=None, after=(1, "a", None), op="c") -> ConnectRecord:
    return ConnectRecord("dbserver1.inv.cust_1", None, KEY, [1], ENVELOPE,
                         [None if before is None else list(before), None if after is None else list(after), op], [])


def test_logical_router_without_uniqueness_only_renames() -> None:
    r = build("ByLogicalTableRouter", **{"topic.regex": r"(.*)\.cust_\d+", "topic.replacement": "$1.customers",
                                         "key.enforce.uniqueness": "false"})
    out = r.apply(change())
    assert out.topic == "dbserver1.inv.customers" and out.key == [1]
    assert out.key_schema.name == "dbserver1.inv.customers.Key" and [f.name for f in out.key_schema.fields] == ["id"]
    assert out.value_schema.name == "dbserver1.inv.customers.Envelope"
    assert out.value_schema.fields[1].schema.name == "dbserver1.inv.customers.Value"
    assert out.value == change().value  # values are reused unchanged


def test_logical_router_default_key_field_is_the_old_topic_and_other_topics_pass() -> None:
    r = build("ByLogicalTableRouter", **{"topic.regex": r"(.*)\.cust_\d+", "topic.replacement": "$1.customers"})
    out = r.apply(change())
    assert out.key == [1, "dbserver1.inv.cust_1"] and out.key_schema.fields[1].name == "__dbz__physicalTableIdentifier"
    other = ConnectRecord("dbserver1.inv.other", None, KEY, [1], None, None, [])
    assert r.apply(other) is other


def test_logical_router_avro_name_adjustment() -> None:
    r = build("ByLogicalTableRouter", **{"topic.regex": ".*", "topic.replacement": "a-b.c",
                                         "schema.name.adjustment.mode": "avro"})
    assert r.apply(change()).key_schema.name == "a_b.c.Key"


def test_mask_field_replacement_and_defaults() -> None:
    row = struct("r", [("id", _I), ("name", _OS), ("n", _OI)])
    record = ConnectRecord("t", None, None, None, row, [5, None, None], [])
    out = build("MaskField$Value", fields="id,name,n", replacement="42").apply(record)
    # a null stays null, but a null with a default reads as the default first (Struct.get), then is masked
    assert out.value == [42, None, 42]
    with pytest.raises(ValueError, match="not a number"):
        build("MaskField$Value", fields="id", replacement="x").apply(record)
    assert build("MaskField$Value", fields="n", **{"replace.null.with.default": "false"}).apply(record).value == [5, None, None]


def test_transforms_that_kafka_would_make_schemaless_stop_with_the_fix() -> None:
    tombstone = ConnectRecord("t", None, KEY, [1], None, None, [])
    for cls, opts in (("HoistField$Value", {"field": "row"}), ("MaskField$Value", {"fields": "id"}),
                      ("ValueToKey", {"fields": "id"}), ("Flatten$Value", {}),
                      ("HeaderFrom$Value", {"fields": "id", "headers": "h", "operation": "copy"})):
        with pytest.raises(ValueError, match="RecordIsTombstone"):
            build(cls, **opts).apply(tombstone)


def test_extract_field_and_set_schema_metadata_pass_a_tombstone() -> None:
    tombstone = ConnectRecord("t", None, KEY, [1], None, None, [])
    assert build("ExtractField$Value", field="id").apply(tombstone) is tombstone
    assert build("SetSchemaMetadata$Value", **{"schema.name": "x"}).apply(tombstone) is tombstone
    out = build("ExtractField$Key", field="id").apply(tombstone)
    assert (out.key_schema, out.key) == (_I, 1)
    with pytest.raises(ValueError, match="Unknown field: nope"):
        build("ExtractField$Key", field="nope").apply(tombstone)


def test_flatten_leaves_of_a_null_struct_are_null_and_become_optional() -> None:
    out = build("Flatten$Value").apply(change())
    names = [f.name for f in out.value_schema.fields]
    assert names == ["before.id", "before.name", "before.n", "after.id", "after.name", "after.n", "op"]
    assert out.value == [None, None, None, 1, "a", 7, "c"]
    assert out.value_schema.fields[0].schema.optional and not out.value_schema.optional
    assert json.loads(out.value_schema.json)["fields"][2]["default"] == 7


def test_insert_header_types_its_literal_as_kafka() -> None:
    for literal, expected in (("42", "int8"), ("300", "int16"), ("true", "boolean"), ("x-y.z", "string")):
        out = build("InsertHeader", header="h", **{"value.literal": literal}).apply(change())
        assert json.loads(out.headers[-1][1])["schema"]["type"] == expected


def test_changed_record_state_lists_fields_of_updates_only() -> None:
    r = build("ExtractChangedRecordState", **{"header.changed.name": "c", "header.unchanged.name": "u"})
    upd = r.apply(change(before=(1, "a", None), after=(1, "b", None), op="u"))
    assert [json.loads(v)["payload"] for _, v in upd.headers] == [["name"], ["id", "n"]]
    create = r.apply(change())
    assert [json.loads(v)["payload"] for _, v in create.headers] == [[], []]


@pytest.mark.parametrize("value, target, expected", [
    (300, "int8", 44), (-129, "int8", 127), (1e12, "int32", 2**31 - 1), (float("nan"), "int64", 0),
    (True, "int16", 1), ("-12", "int32", -12), (" 1.5e1 ", "float64", 15.0), ("TRUE", "boolean", True),
    (2, "boolean", True), (0.1, "string", "0.1"), (False, "string", "false"), (b"\x00\xff", "string", "AP8="),
])
def test_cast_values_as_java(value, target, expected) -> None:
    from connector.transforms.cast import CAST_TYPES, cast_value

    assert cast_value(None, value, CAST_TYPES[target]) == expected


def test_cast_refuses_what_kafka_cannot_cast_and_parses_the_spec() -> None:
    row = struct("r", [("id", _I), ("name", _OS), ("n", _OI)])
    record = ConnectRecord("t", None, None, None, row, [5, "x1", None], [])
    with pytest.raises(ValueError, match="For input string"):
        build("Cast$Value", spec="name:int32").apply(record)
    out = build("Cast$Value", spec="n:string,id:float32").apply(record)
    assert out.value == [5.0, "x1", "7"]  # n: null reads as its default 7, cast to "7"
    assert json.loads(out.value_schema.json)["fields"][2] == {"type": "string", "optional": True, "default": "7",
                                                             "field": "n"}
    with pytest.raises(ValueError, match="only specify a single cast"):
        build("Cast$Value", spec="string,id:int8")
    whole = build("Cast$Key", spec="int64").apply(ConnectRecord("t", None, _I, 3, None, None, []))
    assert (whole.key_schema.type, whole.key) == (Type.INT64, 3)


def test_simple_date_format_subset() -> None:
    import datetime as dt

    from connector.transforms.timestamps import compile_format

    t = dt.datetime(2024, 3, 9, 0, 5, 7, 89000)
    assert compile_format("yyyy-MM-dd'T'HH:mm:ss.SSSX z Z")(t) == "2024-03-09T00:05:07.089Z UTC +0000"
    assert compile_format("h:mm a, EEEE d MMMM yy, k K S ''")(t) == "12:05 AM, Saturday 9 March 24, 24 0 89 '"
    with pytest.raises(ValueError, match="letter 'w' is not implemented"):
        compile_format("ww")


def test_timestamp_converter_refusals() -> None:
    with pytest.raises(ValueError, match="requires format option"):
        build("TimestampConverter$Value", field="a", **{"target.type": "string"})
    with pytest.raises(ValueError, match="target.type='date' must be one of"):
        build("TimestampConverter$Value", field="a", **{"target.type": "date"})
    row = struct("r", [("id", _I), ("s", _OS)])
    with pytest.raises(ValueError, match="a string field is parsed with `format`: format is not set"):
        build("TimestampConverter$Value", field="s", **{"target.type": "unix"}).apply(
            ConnectRecord("t", None, None, None, row, [1, "2024"], []))


def test_header_to_value_reads_json_headers_back_and_refuses_nested_fields() -> None:
    from connector.transforms.header_to_value import decode_json_header

    raw = CODEC.encode(struct("s", [("a", _OI), ("b", ConnectSchema(Type.BYTES, optional=True))]), [None, b"\x01"])
    schema, value = decode_json_header(raw)
    assert schema.name == "s" and schema.fields[0].schema.default == 7 and value == [7, b"\x01"]
    assert decode_json_header(None) == (None, None)
    with pytest.raises(ValueError, match="nested field names"):
        build("HeaderToValue", headers="h", fields="a.b", operation="copy")
    row = struct("r", [("id", _I)])
    record = ConnectRecord("t", None, None, None, row, [1], [("x", b"{}"), ("h", CODEC.encode(_I, 5))])
    out = build("HeaderToValue", headers="h", fields="f", operation="move").apply(record)
    assert out.value == [1, 5] and [k for k, _ in out.headers] == ["x"]
    plain = ConnectRecord("t", None, None, None, row, [1], [("x", b"{}")])
    assert build("HeaderToValue", headers="h", fields="f", operation="copy").apply(plain) is plain


def test_partition_routing_java_hash_codes() -> None:
    from decimal import Decimal

    from connector.transforms.partition_routing import java_hash

    s, b = ConnectSchema(Type.STRING), ConnectSchema(Type.BOOLEAN)
    dec = ConnectSchema(Type.BYTES, name="org.apache.kafka.connect.data.Decimal", parameters=(("scale", "2"),))
    assert java_hash(s, "abc") == 96354 and java_hash(s, "\U0001F600") == 31 * 0xD83D + 0xDE00  # UTF-16 units, as Java
    assert java_hash(ConnectSchema(Type.INT64), 1 << 32) == 1 and java_hash(ConnectSchema(Type.INT32), -5) == -5
    assert java_hash(b, True) == 1231 and java_hash(ConnectSchema(Type.FLOAT64), 1.5) == 1073217536
    assert java_hash(dec, Decimal("1.50")) == 31 * 150 + 2
    with pytest.raises(ValueError, match="no content hash"):
        java_hash(ConnectSchema(Type.BYTES), b"x")
    with pytest.raises(ValueError, match="only java is implemented"):
        build("partitions.PartitionRouting", **{"partition.payload.fields": "after.id", "partition.topic.num": "3",
                                                 "partition.hash.function": "murmur"})


def test_insert_field_timestamp_is_the_connect_timestamp_or_null_as_kafka() -> None:
    from dataclasses import replace

    from connector.serde.json_converter import JsonConverter
    from connector.serde.json_values import DataError

    ins = build("InsertField$Value", **{"timestamp.field": "ts", "static.field": "s", "static.value": "v",
                                        "topic.field": "t"})
    out = ins.apply(change())
    # Kafka's order: topic, partition, offset, timestamp, static; Timestamp's optional schema for `ts` / `ts?`
    assert [f.name for f in out.value_schema.fields[-3:]] == ["t", "ts", "s"]
    text = json.loads(JsonConverter().to_text(out.value_schema, out.value))
    assert text["schema"]["fields"][-2] == {"type": "int64", "optional": True, "name": "org.apache.kafka.connect.data.Timestamp",
                                            "version": 1, "field": "ts"}
    assert text["payload"]["ts"] is None and text["payload"]["s"] == "v"  # Debezium's records: no timestamp
    stamped = ins.apply(replace(change(), timestamp=1_700_000_000_123))  # e.g. after outbox.EventRouter
    assert stamped.value[-2] == 1_700_000_000_123 and stamped.timestamp == 1_700_000_000_123
    required = build("InsertField$Key", **{"timestamp.field": "ts!"})
    keyed = required.apply(replace(change(), timestamp=5))
    assert json.loads(JsonConverter().to_text(keyed.key_schema, keyed.key))["payload"] == {"id": 1, "ts": 5}
    nothing = required.apply(change())  # Kafka leaves the required field unset: the converter stops on it
    with pytest.raises(DataError, match="null value for a required field"):
        JsonConverter().to_text(nothing.key_schema, nothing.key)
