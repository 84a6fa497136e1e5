"""The engine decoder (``expressions``) against the Python decoder (``semantic_types``), one
wire value at a time: edge values the golden workload does not reach (negative and 16-byte
decimals, negative nanoseconds, BIT with dropped high bytes, empty SET, wide decimals)."""

from __future__ import annotations

import base64
import datetime as dt
import json
from decimal import Context, Decimal

import pytest

pytest.importorskip("pyspark")

from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

from spark_sink.connect_schema import ConnectField  # noqa: E402
from spark_sink.expressions import field_expr  # noqa: E402
from spark_sink.semantic_types import TimeMode, resolve  # noqa: E402


def _dec(value: int, nbytes: int) -> str:
    return base64.b64encode(value.to_bytes(nbytes, "big", signed=True)).decode()


def _decimal_field(precision: int, scale: int) -> ConnectField:
    return ConnectField("d", "bytes", semantic="org.apache.kafka.connect.data.Decimal",
                        parameters={"scale": str(scale), "connect.decimal.precision": str(precision)})


_EPOCH = dt.datetime(1970, 1, 1)
CASES = [
    (_decimal_field(10, 2), _dec(-12345, 2), Decimal("-123.45")),
    (_decimal_field(10, 2), _dec(5, 1), Decimal("0.05")),
    (_decimal_field(10, 2), _dec(-5, 1), Decimal("-0.05")),
    (_decimal_field(20, 0), _dec(2**64 - 1, 9), Decimal(2**64 - 1)),
    (_decimal_field(38, 10), _dec(-(10**37) + 7, 16), Decimal(-(10**37) + 7).scaleb(-10, Context(prec=100))),
    (_decimal_field(38, 0), _dec(10**38 - 1, 16), Decimal(10**38 - 1)),
    (_decimal_field(65, 30), _dec(-(10**60) - 5, 26), "-1" + "0" * 30 + "." + "0" * 29 + "5"),
    (ConnectField("b", "bytes", semantic="io.debezium.data.Bits", parameters={"length": "16"}),
     base64.b64encode(b"\x01").decode(), b"\x00\x01"),
    (ConnectField("b", "bytes", semantic="io.debezium.data.Bits", parameters={"length": "64"}),
     base64.b64encode(bytes(range(1, 9))).decode(), bytes(range(8, 0, -1))),
    (ConnectField("t", "int64", semantic="io.debezium.time.NanoTimestamp"), -1, _EPOCH - dt.timedelta(microseconds=1)),
    (ConnectField("t", "int64", semantic="io.debezium.time.MicroTimestamp"), 253402300799999999,
     dt.datetime(9999, 12, 31, 23, 59, 59, 999999)),
    (ConnectField("t", "int64", semantic="io.debezium.time.Timestamp"), -30610224000000, dt.datetime(1000, 1, 1)),
    (ConnectField("t", "int32", semantic="io.debezium.time.Date"), -354285, dt.date(1000, 1, 1)),
    (ConnectField("t", "int64", semantic="io.debezium.time.MicroTime"), -3020399000000,
     -dt.timedelta(hours=838, minutes=59, seconds=59)),
    (ConnectField("s", "string", semantic="io.debezium.data.EnumSet"), "", []),
    (ConnectField("s", "string", semantic="io.debezium.data.EnumSet"), "a,c", ["a", "c"]),
    (ConnectField("v", "struct", semantic="io.debezium.data.VariableScaleDecimal",
                  fields=(ConnectField("scale", "int32"), ConnectField("value", "bytes"))),
     {"scale": 3, "value": _dec(-12345, 2)}, "-12.345"),
    (ConnectField("f", "array", semantic="io.debezium.data.FloatVector", items=ConnectField("", "float32", False)),
     [1.5, -2.0], [1.5, -2.0]),
]


MICROS_FIELD = ConnectField("t", "int32", semantic="io.debezium.time.Time")


@pytest.fixture(scope="module")
def engine_values(spark) -> list:
    """Every case's wire value through its engine expression, in one Spark job: one JSON row with a member per
    case, parsed and converted column by column (a job per case cost ~3 s each on a loaded machine)."""
    exprs = [field_expr(field, TimeMode.INTERVAL) for field, _, _ in CASES]
    exprs.append(field_expr(MICROS_FIELD, TimeMode.MICROS))
    wires = [wire for _, wire, _ in CASES] + [-1000]
    doc = json.dumps({f"v{i}": wire for i, wire in enumerate(wires)})
    df = spark.createDataFrame([(doc,)], "j string")
    parsed = F.from_json("j", T.StructType([T.StructField(f"v{i}", e.wire_type) for i, e in enumerate(exprs)]))
    row = df.select(*[e.convert(parsed.getField(f"v{i}")).alias(f"v{i}") for i, e in enumerate(exprs)]).collect()[0]
    return list(row)


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{f.semantic or f.type}-{i}" for i, (f, _, _) in
                                                         enumerate(CASES)])
def test_engine_matches_python_decoder(engine_values, case: int) -> None:
    field, wire, want = CASES[case]
    expr = field_expr(field, TimeMode.INTERVAL)
    assert expr.spark_type == resolve(field, TimeMode.INTERVAL).spark_type
    assert engine_values[case] == want
    if not isinstance(want, (dt.date, dt.timedelta)):  # Python keeps temporal values as integers
        assert resolve(field).decode(wire) == want


def test_micros_time_mode(engine_values) -> None:
    assert engine_values[len(CASES)] == -1_000_000
