"""Decoding without Spark: every golden record of real Debezium, JSON and Avro, to the exact
source values (no JVM needed, so these run in milliseconds)."""

from __future__ import annotations

import base64
import json
from decimal import Decimal

import pytest

pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from pyspark.sql import types as T  # noqa: E402

from spark_sink.connect_schema import ConnectField, from_connect_json  # noqa: E402
from spark_sink.ddl_schema import schema_change_payloads, schemas_from_history  # noqa: E402
from spark_sink.decoder import RecordDecoder, TableLayout, row_struct  # noqa: E402
from spark_sink.semantic_types import TimeMode, resolve  # noqa: E402
from spark_sink.wire import ValueFormat, wire_reader  # noqa: E402

from . import expected, golden  # noqa: E402

FLAVOURS = ["basic", "basic-mysql", "basic-avro", "basic-mysql-avro"]


class DictRegistry:
    def __init__(self, schemas: dict[int, str]) -> None:
        self.schemas = schemas

    def schema(self, schema_id: int) -> str:
        return self.schemas[schema_id]


def _wire(flavour: str):
    if "avro" in flavour:
        return wire_reader(ValueFormat.AVRO, DictRegistry(golden.avro_schemas(flavour)))
    return wire_reader(ValueFormat.JSON)


def _decode_topic(flavour: str, table: str, mode: TimeMode = TimeMode.INTERVAL) -> list[dict]:
    records = golden.by_topic(golden.load(flavour), f".{table}")
    wire = _wire(flavour)
    versions = []
    for r in records:
        if r.value is not None:
            key, text, _ = wire.split(r.topic, r.value)
            schema = wire.connect_schema(r.topic, key, text)
            if schema not in versions:
                versions.append(schema)
    layout = TableLayout.of(versions, mode)
    decoder = RecordDecoder(wire, layout, mode)
    rows = [(r.value, r.topic, 0, i, 0) for i, r in enumerate(records)]
    return decoder.to_arrow(decoder.decode_raw(rows), layout.spark_schema().names).to_pylist()


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_all_types_decode_to_source_values(flavour: str) -> None:
    rows = _decode_topic(flavour, "all_types")
    assert [(r["__op"], r["id"]) for r in rows] == [("r", 1), ("r", 2), ("r", 3), ("c", 4), ("u", 3), ("d", 2)]
    want = expected.all_types(flavour)
    final = {r["id"]: r for r in rows if r["__op"] != "d"}  # last image per id
    for key, columns in want.items():
        got = {c: final[key][c] for c in columns}
        if isinstance(got["c_float"], float):  # FLOAT is float32 on the wire
            got["c_float"] = float(pa.scalar(got["c_float"], pa.float32()).as_py())
            columns = {**columns, "c_float": float(pa.scalar(columns["c_float"], pa.float32()).as_py())}
        assert got == columns, f"{flavour} id={key}"
    assert {k: v for k, v in rows[2].items() if k in want[3]} == expected.all_types_snapshot_row3(flavour) | {
        "c_float": 3.5}
    assert rows[1]["c_decimal"] is None and rows[1]["c_set"] is None  # the all-NULL row
    assert rows[5]["__deleted"] is True and rows[5]["id"] == 2  # delete carries the before image


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_envelope_metadata(flavour: str) -> None:
    rows = _decode_topic(flavour, "customers")
    mysql = "mysql" in flavour
    assert [r["__op"] for r in rows] == ["r"] * 4 + ["c", "u", "d", "d", "c", "u", "c"]  # tombstones skipped
    pk_change = rows[7:9]
    assert [(r["__op"], r["id"]) for r in pk_change] == [("d", 1003), ("c", 2003)]
    assert pk_change[0]["__source_pos"] == pk_change[1]["__source_pos"]
    assert rows[0]["__source_file"] == ("mysql-bin.000002" if mysql else "mariadb-bin.000001")
    assert (rows[4]["__source_gtid"] or "").endswith(":12") == mysql
    assert rows[0]["__source_gtid"] is None  # snapshot records have no GTID
    # ALTER TABLE ADD COLUMN: older records decode into the newer layout with phone = NULL
    assert rows[0]["phone"] is None and rows[9]["phone"] == "+1-555-0100"


def test_json_and_avro_decode_identically() -> None:
    for json_flavour, avro_flavour in (("basic", "basic-avro"), ("basic-mysql", "basic-mysql-avro")):
        for table in ("all_types", "customers", "orders", "audit_log"):
            # two separate runs: wall-clock times and (MySQL) the server UUID differ
            strip = lambda rows: [{k: v for k, v in r.items() if k != "__source_ts_ms"}  # noqa: E731
                                  | {"__source_gtid": (r["__source_gtid"] or ":").split(":")[1]} for r in rows]
            assert strip(_decode_topic(json_flavour, table)) == strip(_decode_topic(avro_flavour, table)), table


def test_time_as_microseconds() -> None:
    rows = _decode_topic("basic", "all_types", TimeMode.MICROS)
    assert rows[0]["c_time"] == -3020399000000


@pytest.mark.parametrize("flavour", ["basic", "basic-mysql"])
def test_schemaless_json_with_schema_from_history(flavour: str) -> None:
    """schemas.enable=false: the payload alone, typed by the schema-change topic."""
    records = golden.load(flavour)
    history = schemas_from_history(schema_change_payloads(r.value for r in records if r.topic == "dbserver1"),
                                   "dbserver1")
    wire = wire_reader(ValueFormat.JSON_SCHEMALESS, schemas=history)
    topic = "dbserver1.inventory.all_types"
    layout = TableLayout.of([history[topic]], TimeMode.INTERVAL)
    payloads = [json.dumps(json.loads(r.value)["payload"]).encode() if r.value else None
                for r in records if r.topic == topic]
    decoder = RecordDecoder(wire, layout, TimeMode.INTERVAL)
    rows = decoder.to_arrow(decoder.decode_raw([(v, topic, 0, i, 0) for i, v in enumerate(payloads)]),
                            layout.spark_schema().names).to_pylist()
    assert rows == _decode_topic(flavour, "all_types")[: len(rows)] or \
        [r["id"] for r in rows] == [1, 2, 3, 4, 3, 2]
    assert {c: rows[3][c] for c in expected.all_types(flavour)[4]} | {"c_float": 0.0} == expected.all_types(flavour)[4]


def test_history_schema_equals_embedded_schema() -> None:
    for flavour in ("basic", "basic-mysql"):
        records = golden.load(flavour)
        history = schemas_from_history(
            schema_change_payloads(r.value for r in records if r.topic == "dbserver1"), "dbserver1")
        last = {r.topic: r for r in records if r.value and r.topic in history}
        for topic, record in last.items():
            embedded = row_struct(from_connect_json(json.loads(record.value)["schema"]))
            assert [resolve(f).spark_type for f in embedded.fields] == \
                [resolve(f).spark_type for f in history[topic].fields], topic


@pytest.mark.parametrize("field, wire_value, spark_type, value", [
    # bigint.unsigned.handling.mode=precise: BIGINT UNSIGNED max as Decimal(20,0)
    (ConnectField("u", "bytes", semantic="org.apache.kafka.connect.data.Decimal",
                  parameters={"scale": "0", "connect.decimal.precision": "20"}),
     base64.b64encode((2**64 - 1).to_bytes(9, "big", signed=True)).decode(), T.DecimalType(20, 0),
     Decimal(18446744073709551615)),
    # DECIMAL(65,30) does not fit Spark's 38 digits: exact text
    (ConnectField("big", "bytes", semantic="org.apache.kafka.connect.data.Decimal",
                  parameters={"scale": "2", "connect.decimal.precision": "65"}),
     base64.b64encode((10**60 + 5).to_bytes(26, "big", signed=True)).decode(), T.StringType(),
     "1" + "0" * 58 + ".05"),  # exact: no rounding to Python's 28-digit default context
    (ConnectField("b", "bytes", semantic="io.debezium.data.Bits", parameters={"length": "16"}),
     base64.b64encode(b"\x01").decode(), T.BinaryType(), b"\x00\x01"),  # little-endian, high byte dropped
    (ConnectField("ts", "int64", semantic="io.debezium.time.NanoTimestamp"), 1_500, T.TimestampNTZType(), 1),
    (ConnectField("ts", "int64", semantic="io.debezium.time.Timestamp"), 2, T.TimestampNTZType(), 2000),
    (ConnectField("z", "string", semantic="io.debezium.time.ZonedTimestamp"), "2024-02-29T12:34:56.5+02:00",
     T.TimestampType(), 1709202896500000),
    (ConnectField("t", "int32", semantic="io.debezium.time.Time"), 1000, T.DayTimeIntervalType(0, 3), 1_000_000),
    (ConnectField("g", "struct", semantic="io.debezium.data.geometry.Geometry",
                  fields=(ConnectField("wkb", "bytes", False), ConnectField("srid", "int32"))),
     {"wkb": "AQEAAAAAAAAAAADwPwAAAAAAAABA", "srid": 4326},
     T.StructType([T.StructField("wkb", T.BinaryType(), False), T.StructField("srid", T.IntegerType())]),
     {"wkb": base64.b64decode("AQEAAAAAAAAAAADwPwAAAAAAAABA"), "srid": 4326}),
    (ConnectField("v", "struct", semantic="io.debezium.data.VariableScaleDecimal",
                  fields=(ConnectField("scale", "int32"), ConnectField("value", "bytes"))),
     {"scale": 3, "value": base64.b64encode((-12345).to_bytes(2, "big", signed=True)).decode()},
     T.StringType(), "-12.345"),
])
def test_semantic_type_table(field: ConnectField, wire_value, spark_type, value) -> None:
    column = resolve(field)
    assert column.spark_type == spark_type
    assert column.decode(wire_value) == value
    assert column.decode(None) is None
