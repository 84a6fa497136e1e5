"""ProtobufConverter cases the goldens do not reach (Debezium's MySQL schemas have no unnamed structs, packed
arrays, -0.0 or pre-Gregorian dates in them), each worked out from ProtobufData 7.0.16 and the protobuf encoding."""
from __future__ import annotations

import pytest

from connector.serde.connect_schema import ConnectSchema, Field, Type, struct
from connector.serde.json_values import DataError
from connector.serde.protobuf import message_encoder
from connector.serde.protobuf_schema import DATE_NAME, proto_file

INT32 = ConnectSchema(Type.INT32)


def test_unnamed_structs_are_numbered_and_a_clash_with_the_field_name_gets_message_appended():
    inner = struct(None, [("x", INT32)], optional=True)
    same = struct("p.q.item", [("y", INT32)], optional=True)
    text = proto_file(struct(None, [("a", inner), ("item", same)])).text
    assert text == ('syntax = "proto3";\n\nmessage ConnectDefault1 {\n  ConnectDefault2 a = 1;\n'
                    '  itemMessage item = 2;\n\n  message ConnectDefault2 {\n    int32 x = 1;\n  }\n'
                    '  message itemMessage {\n    int32 y = 1;\n  }\n}\n')


def test_repeated_numbers_are_packed_strings_are_not_and_minus_zero_is_written():
    schema = struct("p.R", [("n", ConnectSchema(Type.ARRAY, items=INT32)),
                            ("s", ConnectSchema(Type.ARRAY, items=ConnectSchema(Type.STRING))),
                            ("f", ConnectSchema(Type.FLOAT64)), ("z", ConnectSchema(Type.FLOAT64)),
                            ("e", ConnectSchema(Type.ARRAY, items=INT32, optional=True))])
    proto = proto_file(schema)
    assert "  repeated int32 n = 1;\n  repeated string s = 2;\n" in proto.text
    encoded = message_encoder(proto.root, schema)({"n": [1, -1, 0], "s": ["a", ""], "f": -0.0, "z": 0.0, "e": []})
    packed = b"\x0a\x0c" + b"\x01" + b"\xff" * 9 + b"\x01" + b"\x00"  # -1 is ten bytes as an int32 varint
    assert encoded == packed + b"\x12\x01a" + b"\x12\x00" + b"\x19" + b"\x00" * 7 + b"\x80"


def test_dates_before_the_gregorian_reform_are_julian_as_java_util_calendar_has_them():
    schema = struct("p.D", [("d", ConnectSchema(Type.INT32, name=DATE_NAME, version=1))])
    encode = message_encoder(proto_file(schema).root, schema)
    assert encode({"d": 0}) == b"\x0a\x07\x08\xb2\x0f\x10\x01\x18\x01"  # 1970-01-01
    assert encode({"d": -141428}) == b"\x0a\x07\x08\xae\x0c\x10\x0a\x18\x04"  # 1582-10-04, the day before the 15th
    assert encode({"d": -719162}) == b"\x0a\x06\x08\x01\x10\x01\x18\x03"  # proleptic 0001-01-01 is Julian 01-03


@pytest.mark.parametrize("schema, message", [
    (struct("p.T", [("a-b", INT32)]), '"a-b" is not a valid identifier'),
    (struct("odd-name.T", [("a", INT32)]), '"odd-name" is not a valid identifier'),
    (struct("p.T", [("m", ConnectSchema(Type.MAP, keys=ConnectSchema(Type.STRING), values=INT32))]),
     "maps are not implemented"),
    (ConnectSchema(Type.STRING, name="p.K"), r"a string key or value \(not a struct\) is not implemented"),
    (struct("p.T", [("u", ConnectSchema(Type.INT64, parameters=(("io.confluent.connect.protobuf.Type", "uint32"),)))]),
     "io.confluent.connect.protobuf.Type"),
])
def test_what_binlog_cdc_does_not_write_fails_the_record_by_name(schema, message):
    with pytest.raises(DataError, match=message):
        proto_file(schema)


def test_null_takes_the_default_and_a_zero_value_is_left_out():
    schema = ConnectSchema(Type.STRUCT, name="p.V", fields=(
        Field("s", ConnectSchema(Type.STRING, optional=True, default="false")), Field("i", INT32)))
    encode = message_encoder(proto_file(schema).root, schema)
    assert encode({"s": None, "i": 0}) == b"\x0a\x05false"
    assert encode({"s": "", "i": 3}) == b"\x10\x03"


def test_a_float_beyond_float32_is_an_infinity_and_an_unpaired_surrogate_a_question_mark():
    schema = struct("p.F", [("f", ConnectSchema(Type.FLOAT32)), ("s", ConnectSchema(Type.STRING))])
    encode = message_encoder(proto_file(schema).root, schema)
    assert encode({"f": 1e39, "s": "a\udc80"}) == b"\x0d\x00\x00\x80\x7f" + b"\x12\x02a?"
