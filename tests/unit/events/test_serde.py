"""Connect schema JSON and JsonConverter payload rules (debezium-contract.md §d1)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type, struct
from connector.serde.json_converter import JsonConverter
from connector.serde.json_values import DataError, decimal_unscaled_bytes

S = ConnectSchema


def test_schema_key_order_and_field_last() -> None:
    enum = S(Type.STRING, optional=True, name="io.debezium.data.Enum", version=1, doc="d",
             parameters=(("allowed", "a,b"),), default="a")
    schema = struct("x.Value", [("e", enum), ("n", S(Type.INT32))], version=3)
    assert schema.json == (
        '{"type":"struct","fields":['
        '{"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,"doc":"d",'
        '"parameters":{"allowed":"a,b"},"default":"a","field":"e"},'
        '{"type":"int32","optional":false,"field":"n"}],'
        '"optional":false,"name":"x.Value","version":3}'
    )


def test_array_and_map_schema() -> None:
    arr = S(Type.ARRAY, optional=True, items=S(Type.STRING))
    assert arr.json == '{"type":"array","items":{"type":"string","optional":false},"optional":true}'
    m = S(Type.MAP, keys=S(Type.STRING), values=S(Type.INT64, optional=True))
    assert m.json == ('{"type":"map","keys":{"type":"string","optional":false},'
                      '"values":{"type":"int64","optional":true},"optional":false}')
    assert m.writer({"a": 1, "b": None}) == '{"a":1,"b":null}'
    m2 = S(Type.MAP, keys=S(Type.INT32), values=S(Type.STRING))
    assert m2.writer({1: "x"}) == '[[1,"x"]]'


def test_default_rendered_with_value_rules() -> None:
    dec = S(Type.BYTES, optional=True, name=DECIMAL_NAME, version=1,
            parameters=(("scale", "2"), ("connect.decimal.precision", "10")), default=Decimal("1.50"))
    assert dec.json.endswith('"default":"AJY="}')
    f = S(Type.FLOAT64, optional=True, default=2.5e10)
    assert f.json == '{"type":"double","optional":true,"default":2.5E10}'


def test_null_rule_default_then_null_then_error() -> None:
    with_default = S(Type.STRING, optional=True, default="false")
    assert with_default.writer(None) == '"false"'
    assert S(Type.STRING, optional=True).writer(None) == "null"
    with pytest.raises(DataError):
        S(Type.STRING).writer(None)


def test_struct_payload_in_schema_order_with_nulls() -> None:
    schema = struct("s", [("a", S(Type.INT64)), ("b", S(Type.STRING, optional=True)), ("c", S(Type.BOOLEAN))])
    assert schema.writer([1, None, True]) == '{"a":1,"b":null,"c":true}'
    assert schema.writer({"c": False, "a": 2}) == '{"a":2,"b":null,"c":false}'


def test_converter_envelope_and_schemaless() -> None:
    schema = struct("k", [("id", S(Type.INT32))])
    assert JsonConverter().to_bytes(schema, [7]) == b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"k"},"payload":{"id":7}}'
    assert JsonConverter(schemas_enable=False).to_bytes(schema, [7]) == b'{"id":7}'
    assert JsonConverter().to_bytes(None, None) is None  # tombstone: no bytes at all


def test_bytes_are_standard_base64_with_padding() -> None:
    assert S(Type.BYTES).writer(b"\xde\xad\xbe\xef") == '"3q2+7w=="'
    assert S(Type.BYTES).writer(b"") == '""'
    assert S(Type.BYTES).writer(bytearray(b"\x00")) == '"AA=="'


@pytest.mark.parametrize(
    ("value", "scale", "unscaled"),
    [
        (Decimal("0.00"), 2, b"\x00"),
        (Decimal("-0.01"), 2, b"\xff"),
        (Decimal("-1.28"), 2, b"\x80"),  # BigInteger(-128).toByteArray() is one byte
        (Decimal("1.28"), 2, b"\x00\x80"),
        (Decimal("-99999999.99"), 2, bytes.fromhex("fdabf41c01")),
        (Decimal("1234.56"), 2, bytes.fromhex("01e240")),
        (Decimal("1.5"), 3, bytes.fromhex("05dc")),  # rescaled to the schema's scale
        (Decimal("18446744073709551615"), 0, bytes.fromhex("00ffffffffffffffff")),
        (Decimal("12345678901234567890123456789012345.123456789012345678901234567890"), 30,
         (12345678901234567890123456789012345123456789012345678901234567890).to_bytes(27, "big", signed=True)),
    ],
)
def test_decimal_unscaled_twos_complement(value: Decimal, scale: int, unscaled: bytes) -> None:
    assert decimal_unscaled_bytes(value, scale) == unscaled


def test_schema_json_is_cached_per_instance() -> None:
    schema = struct("s", [("a", S(Type.INT64))])
    assert schema.json is schema.json
    assert schema.writer is schema.writer


def test_decimal_unscaled_value_truncates_toward_zero_like_the_digit_tuple() -> None:
    """The ratio-based unscaled value equals the digit-tuple arithmetic it replaced (value * 10**scale, truncated
    toward zero), on seeded random decimals of up to 65 digits and every relation of exponent and scale."""
    import random

    def by_digits(value: Decimal, scale: int) -> int:
        sign, digits, exponent = value.as_tuple()
        assert isinstance(exponent, int)
        unscaled = int("".join(map(str, digits)) or "0")
        shift = exponent + scale
        unscaled = unscaled * 10**shift if shift >= 0 else unscaled // 10 ** (-shift)
        return -unscaled if sign else unscaled

    rng = random.Random(27)
    for _ in range(20_000):
        value = Decimal(rng.randint(-10**65, 10**65)).scaleb(-rng.randint(0, 30))
        scale = rng.randint(0, 30)
        unscaled = int.from_bytes(decimal_unscaled_bytes(value, scale), "big", signed=True)
        assert unscaled == by_digits(value, scale), (value, scale)
    with pytest.raises(DataError):
        decimal_unscaled_bytes(Decimal("NaN"), 2)
