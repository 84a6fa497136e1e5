"""Debezium / Kafka Connect semantic types → Spark built-in expressions (JsonConverter values).

The engine-side twin of ``semantic_types``: for one Connect field, the Spark type ``from_json``
parses the wire value into (JsonConverter's spelling: bytes and decimals as base64 text,
temporal values as epoch integers, ZonedTimestamp as ISO text) and an expression turning it
into the value ``semantic_types`` produces, so both decoders give equal rows. Everything runs
in Spark's engine. The few values no expression can build (``VariableScaleDecimal``, decimals
wider than Spark's 38 digits, maps with non-string keys) are parsed as their JSON text and
decoded by an Arrow-batched Python UDF around the Python decoder of the same type.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

import orjson
from pyspark.sql import Column as SparkColumn
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.connect_schema import ConnectField
from spark_sink.semantic_types import SPARK_DECIMAL_MAX_PRECISION, TimeMode, resolve

__all__ = ["FieldExpr", "field_expr", "envelope_wire_type", "SOURCE_WIRE"]

Convert = Callable[[SparkColumn], SparkColumn]

# The part of Debezium's source block the sink keeps (see decoder.META_COLUMNS).
SOURCE_WIRE = T.StructType([
    T.StructField("ts_ms", T.LongType()), T.StructField("file", T.StringType()),
    T.StructField("pos", T.LongType()), T.StructField("row", T.IntegerType()),
    T.StructField("gtid", T.StringType()),
])


@dataclass(frozen=True)
class FieldExpr:
    """How one field is parsed (``wire_type``, for ``from_json``) and converted (``convert``)."""

    wire_type: T.DataType
    spark_type: T.DataType
    convert: Convert


def _epoch_ntz() -> SparkColumn:
    return F.expr("timestamp_ntz'1970-01-01 00:00:00'")


def _micros_to_ntz(micros: SparkColumn) -> SparkColumn:
    # Adding to the epoch keeps the wall clock (no session time zone) and covers
    # 1000-01-01 … 9999-12-31 exactly, where double arithmetic would round.
    return F.timestamp_add("MICROSECOND", micros, _epoch_ntz())


def _floor_div(c: SparkColumn, by: int) -> SparkColumn:
    # Python's // (floor) as the Python decoder does; Spark's div truncates toward zero.
    # Decimal division is exact (and has no remainder here); long / long would be a double.
    return ((c - F.pmod(c, F.lit(by))).cast(T.DecimalType(20, 0)) / F.lit(by)).cast("long")


def _micros_as_time(mode: TimeMode) -> Callable[[SparkColumn], SparkColumn]:
    if mode is TimeMode.MICROS:
        return lambda micros: micros.cast("long")
    return lambda micros: (micros * F.expr("INTERVAL '0.000001' SECOND")).cast(T.DayTimeIntervalType(0, 3))


_SIGN_NIBBLES = list("89ABCDEF")


def _signed(hex_text: SparkColumn, nbytes: SparkColumn) -> SparkColumn:
    """Two's-complement value of up to 8 big-endian bytes spelled as hex, as decimal(21,0)."""
    unsigned = F.conv(hex_text, 16, 10).cast(T.DecimalType(20, 0))
    powers = F.array(*[F.lit(Decimal(2 ** (8 * n))) for n in range(1, 9)])
    negative = F.substring(hex_text, 1, 1).isin(_SIGN_NIBBLES)
    return F.when(negative, unsigned - F.element_at(powers, nbytes)).otherwise(unsigned)


def unscaled(raw: SparkColumn) -> SparkColumn:
    """Big-endian two's-complement bytes (≤ 16, i.e. ≤ 38 digits) → decimal(38,0)."""
    h, n = F.hex(raw), F.octet_length(raw)
    high_bytes = n - 8
    high = _signed(h.substr(F.lit(1), high_bytes * 2), high_bytes)
    low = F.conv(h.substr(high_bytes * 2 + 1, F.lit(16)), 16, 10).cast(T.DecimalType(20, 0))
    wide = high * F.lit(Decimal(2 ** 64)) + low
    return F.when(n <= 8, _signed(h, n)).otherwise(wide).cast(T.DecimalType(38, 0))


def scaled_text(value: SparkColumn, scale: int) -> SparkColumn:
    """decimal(38,0) unscaled value → exact decimal text with `scale` digits after the point."""
    text = value.cast("string")
    if scale == 0:
        return text
    # Digits by text, not abs(): Spark 4.3 gave abs(-9999…993 as decimal(38,0)) = 1E37.
    digits = F.regexp_replace(text, "^-", "")
    padded = F.when(F.length(digits) <= scale, F.lpad(digits, scale + 1, "0")).otherwise(digits)
    whole = padded.substr(F.lit(1), F.length(padded) - scale)
    fraction = padded.substr(F.length(padded) - scale + 1, F.lit(scale))
    return F.concat(F.when(text.startswith("-"), F.lit("-")).otherwise(F.lit("")), whole, F.lit("."), fraction)


def _decimal(f: ConnectField, mode: TimeMode) -> FieldExpr | None:
    scale = int(f.parameters.get("scale", "0"))
    precision = int(f.parameters.get("connect.decimal.precision", SPARK_DECIMAL_MAX_PRECISION))
    if precision > SPARK_DECIMAL_MAX_PRECISION:
        return None  # up to 65 digits: beyond decimal(38,0) arithmetic, decoded in Python
    target = T.DecimalType(precision, scale)
    return FieldExpr(T.StringType(), target,
                     lambda c: scaled_text(unscaled(F.unbase64(c)), scale).cast(target))


def _bits(f: ConnectField, mode: TimeMode) -> FieldExpr:
    # Little-endian wire bytes, high zero bytes maybe dropped → MySQL's ceil(n/8) big-endian.
    width = 2 * ((int(f.parameters.get("length", "8")) + 7) // 8)

    def convert(c: SparkColumn) -> SparkColumn:
        h = F.hex(F.unbase64(c))
        padded = F.when(F.length(h) < width, F.rpad(h, width, "0")).otherwise(h)
        pairs = F.regexp_extract_all(padded, F.lit("(..)"), 1)
        return F.unhex(F.array_join(F.reverse(pairs), ""))
    return FieldExpr(T.StringType(), T.BinaryType(), convert)


def _enum_set(c: SparkColumn) -> SparkColumn:
    return F.when(c == "", F.array().cast("array<string>")).otherwise(F.split(c, ",", -1))


def _plain(wire: T.DataType, spark: T.DataType, convert: Convert) -> Callable[[ConnectField, TimeMode], FieldExpr]:
    return lambda f, mode: FieldExpr(wire, spark, convert)


def _time(to_micros: Convert) -> Callable[[ConnectField, TimeMode], FieldExpr]:
    def build(f: ConnectField, mode: TimeMode) -> FieldExpr:
        spark = T.LongType() if mode is TimeMode.MICROS else T.DayTimeIntervalType(0, 3)
        as_time = _micros_as_time(mode)
        return FieldExpr(T.LongType(), spark, lambda c: as_time(to_micros(c)))
    return build


_S, _L, _I = T.StringType(), T.LongType(), T.IntegerType()
_NTZ = T.TimestampNTZType()
_ident: Convert = lambda c: c  # noqa: E731

SEMANTIC: dict[str, Callable[[ConnectField, TimeMode], FieldExpr | None]] = {
    "org.apache.kafka.connect.data.Decimal": _decimal,
    "io.debezium.data.VariableScaleDecimal": lambda f, mode: None,  # scale per value: Python
    "io.debezium.time.Date": _plain(_I, T.DateType(), F.date_from_unix_date),
    "org.apache.kafka.connect.data.Date": _plain(_I, T.DateType(), F.date_from_unix_date),
    "io.debezium.time.Timestamp": _plain(_L, _NTZ, lambda c: _micros_to_ntz(c * 1000)),
    "org.apache.kafka.connect.data.Timestamp": _plain(_L, _NTZ, lambda c: _micros_to_ntz(c * 1000)),
    "io.debezium.time.MicroTimestamp": _plain(_L, _NTZ, _micros_to_ntz),
    "io.debezium.time.NanoTimestamp": _plain(_L, _NTZ, lambda c: _micros_to_ntz(_floor_div(c, 1000))),
    "io.debezium.time.ZonedTimestamp": _plain(_S, T.TimestampType(), lambda c: c.cast("timestamp")),
    "io.debezium.time.Time": _time(lambda c: c * 1000),
    "org.apache.kafka.connect.data.Time": _time(lambda c: c * 1000),
    "io.debezium.time.MicroTime": _time(_ident),
    "io.debezium.time.NanoTime": _time(lambda c: _floor_div(c, 1000)),
    "io.debezium.time.ZonedTime": _plain(_S, _S, _ident),
    "io.debezium.time.Year": _plain(_I, _I, _ident),
    "io.debezium.data.Json": _plain(_S, _S, _ident),
    "io.debezium.data.Enum": _plain(_S, _S, _ident),
    "io.debezium.data.EnumSet": _plain(_S, T.ArrayType(_S, False), _enum_set),
    "io.debezium.data.Bits": _bits,
    "io.debezium.data.Uuid": _plain(_S, _S, _ident),
    "io.debezium.data.Xml": _plain(_S, _S, _ident),
}

_PRIMITIVES: dict[str, T.DataType] = {
    "int8": T.ByteType(), "int16": T.ShortType(), "int32": T.IntegerType(), "int64": T.LongType(),
    "float32": T.FloatType(), "float64": T.DoubleType(), "boolean": T.BooleanType(),
    "string": T.StringType(),
}


def _python_fallback(f: ConnectField, mode: TimeMode) -> FieldExpr:
    # Parsed as the value's JSON text (from_json keeps nested JSON verbatim for a string field),
    # then the Python decoder of the same type, batched through Arrow.
    column = resolve(f, mode)
    decode = column.decode
    # from_json hands a JSON string over unquoted, and objects/arrays as their JSON text.
    load = (lambda text: text) if f.type in ("string", "bytes") else orjson.loads

    def run(text: str | None) -> Any:
        return None if text is None else decode(load(text))
    udf = F.udf(run, column.spark_type, useArrow=True)
    return FieldExpr(T.StringType(), column.spark_type, lambda c: udf(c))


def _struct(f: ConnectField, mode: TimeMode) -> FieldExpr:
    members = [(m.name, field_expr(m, mode)) for m in f.fields]
    wire = T.StructType([T.StructField(n, e.wire_type) for n, e in members])
    spark = T.StructType([T.StructField(n, e.spark_type, m.optional)
                          for (n, e), m in zip(members, f.fields)])

    def convert(c: SparkColumn) -> SparkColumn:
        built = F.struct(*[e.convert(c.getField(n)).alias(n) for n, e in members])
        return F.when(c.isNull(), F.lit(None)).otherwise(built)
    return FieldExpr(wire, spark, convert)


def field_expr(f: ConnectField, mode: TimeMode = TimeMode.INTERVAL) -> FieldExpr:
    """Parse type and conversion of one Connect field; call once per schema version."""
    if f.semantic in SEMANTIC:
        found = SEMANTIC[f.semantic](f, mode)
        return found if found is not None else _python_fallback(f, mode)
    if f.type in _PRIMITIVES:
        return FieldExpr(_PRIMITIVES[f.type], _PRIMITIVES[f.type], _ident)
    if f.type == "bytes":
        return FieldExpr(T.StringType(), T.BinaryType(), F.unbase64)
    if f.type == "struct":  # geometry (wkb, srid), Point (x, y, wkb, srid) and any other struct
        return _struct(f, mode)
    if f.type == "array" and f.items is not None:
        item = field_expr(f.items, mode)
        return FieldExpr(T.ArrayType(item.wire_type), T.ArrayType(item.spark_type, f.items.optional),
                         lambda c: F.transform(c, item.convert))
    if f.type == "map" and f.items is not None and (f.keys is None or f.keys.type == "string"):
        value = field_expr(f.items, mode)  # JsonConverter writes string-keyed maps as objects
        return FieldExpr(T.MapType(T.StringType(), value.wire_type),
                         T.MapType(T.StringType(), value.spark_type, f.items.optional),
                         lambda c: F.transform_values(c, lambda _, v: value.convert(v)))
    return _python_fallback(f, mode)


def envelope_wire_type(row: ConnectField, mode: TimeMode) -> tuple[T.StructType, dict[str, FieldExpr]]:
    """``from_json`` schema of a change payload with row schema `row`, and each column's expression."""
    columns = {m.name: field_expr(m, mode) for m in row.fields}
    image = T.StructType([T.StructField(n, e.wire_type) for n, e in columns.items()])
    wire = T.StructType([T.StructField("before", image), T.StructField("after", image),
                         T.StructField("op", T.StringType()), T.StructField("source", SOURCE_WIRE)])
    return wire, columns
