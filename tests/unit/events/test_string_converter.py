"""Kafka's StringConverter: a Connect value's Java `toString()` (connector/serde/string_converter.py). The texts
are what Kafka 4.3's `Struct.toString` (`Struct{` + `name=value` of the non-null fields joined by `,` + `}`),
`AbstractCollection.toString` (`[a, b]`), `HeapByteBuffer.toString`, `BigDecimal.toString`, `Double.toString` and
`java.util.Date.toString` (UTC) write for the objects Debezium puts in its Structs; each text was checked by building
the same Struct with connect-api 4.3.0 on JDK 17 (the harness's jars) and printing it."""
from __future__ import annotations

from decimal import Decimal

import pytest

from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.serde.string_converter import StringSide, connect_text

S = ConnectSchema


def _decimal(scale: int) -> ConnectSchema:
    return S(Type.BYTES, name="org.apache.kafka.connect.data.Decimal", parameters=(("scale", str(scale)),))


ROW = S(Type.STRUCT, name="t.Value", optional=True, fields=(
    Field("id", S(Type.INT32)), Field("name", S(Type.STRING, optional=True)), Field("price", _decimal(2)),
    Field("ratio", S(Type.FLOAT64)), Field("pic", S(Type.BYTES, optional=True)), Field("ok", S(Type.BOOLEAN))))


def test_a_struct_lists_its_non_null_fields_in_schema_order_without_spaces():
    assert connect_text(ROW, [1, "ann", Decimal("1.5"), 0.5, b"abc", True]) == (
        "Struct{id=1,name=ann,price=1.50,ratio=0.5,pic=java.nio.HeapByteBuffer[pos=0 lim=3 cap=3],ok=true}")
    assert connect_text(ROW, {"id": 2, "price": 3, "ratio": 1e7, "ok": False}) == (
        "Struct{id=2,price=3.00,ratio=1.0E7,ok=false}")
    envelope = S(Type.STRUCT, fields=(Field("before", ROW), Field("after", ROW), Field("op", S(Type.STRING))))
    assert connect_text(envelope, [None, [3, None, Decimal("0.1"), 0.1, None, True], "c"]) == (
        "Struct{after=Struct{id=3,price=0.10,ratio=0.1,ok=true},op=c}")


@pytest.mark.parametrize("schema, value, text", [
    (_decimal(10), Decimal(0), "0E-10"),
    (_decimal(0), Decimal("-12"), "-12"),
    (S(Type.FLOAT32), 0.1, "0.1"),
    (S(Type.FLOAT64), 1.0, "1.0"),
    (S(Type.INT32, name="org.apache.kafka.connect.data.Date"), 0, "Thu Jan 01 00:00:00 UTC 1970"),
    (S(Type.INT64, name="org.apache.kafka.connect.data.Timestamp"), 1700000000000, "Tue Nov 14 22:13:20 UTC 2023"),
    (S(Type.INT32, name="org.apache.kafka.connect.data.Time"), 3723000, "Thu Jan 01 01:02:03 UTC 1970"),
    (S(Type.ARRAY, items=S(Type.STRING)), ["a", "b"], "[a, b]"),
    (S(Type.ARRAY, items=S(Type.STRUCT, fields=(Field("x", S(Type.INT8)),))), [[1], [2]],
     "[Struct{x=1}, Struct{x=2}]"),
])
def test_values_print_as_their_java_objects(schema, value, text):
    assert connect_text(schema, value) == text


def test_bits_are_a_byte_array_whose_identity_hash_is_a_stable_stand_in():
    text = connect_text(S(Type.BYTES, name="io.debezium.data.Bits"), b"\x05")
    assert text.startswith("[B@") and text == connect_text(S(Type.BYTES, name="io.debezium.data.Bits"), b"\x05")


def test_null_in_null_out_and_utf8():
    side = StringSide()
    assert side.serialize("t", ROW, None) is None
    assert side.serialize("t", S(Type.STRUCT, fields=(Field("n", S(Type.STRING)),)), ["é"]) == "Struct{n=é}".encode()
