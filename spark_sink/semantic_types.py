"""Debezium / Kafka Connect semantic types → Spark types and value decoders, as one table.

Each Connect field is resolved once per schema version into a ``Column``: its Spark type, the
Arrow type used to build the column, and a decoder from the wire value (JSON spelling: bytes
and decimals as base64 text; Avro spelling: raw bytes) to the value Arrow stores. Temporal
values stay integers (days, microseconds) so no Python datetime range limit applies
(MySQL's ``9999-12-31 23:59:59.999999`` and ``1000-01-01`` both round-trip).

Time-of-day columns (``MicroTime``, ``Time``, ``NanoTime``) become ``DayTimeIntervalType``
(MySQL TIME is a signed duration up to ±838 h, not a clock time) under ``TimeMode.INTERVAL``,
or microseconds as ``LongType`` under ``TimeMode.MICROS`` (what Delta and Parquet can store).
"""

from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass
from decimal import Context, Decimal
from enum import StrEnum
from typing import Any, Callable

import pyarrow as pa
from pyspark.sql import types as T

from spark_sink.connect_schema import ConnectField

__all__ = ["Column", "TimeMode", "resolve", "SPARK_DECIMAL_MAX_PRECISION"]

Decode = Callable[[Any], Any]
SPARK_DECIMAL_MAX_PRECISION = 38
# scaleb rounds to the context's precision (28 digits by default): MySQL DECIMAL has up to 65.
_EXACT = Context(prec=100)


class TimeMode(StrEnum):
    """How TIME columns are typed in Spark."""

    INTERVAL = "interval"  # DayTimeIntervalType(DAY, SECOND)
    MICROS = "micros"  # LongType, microseconds (signed)


@dataclass(frozen=True)
class Column:
    """One resolved column: Spark type, Arrow build type and wire-value decoder."""

    name: str
    spark_type: T.DataType
    arrow_type: pa.DataType
    decode: Decode
    nullable: bool = True
    passthrough: bool = False  # the wire value is already the stored value (no decode call needed)


def _raw_bytes(value: str | bytes) -> bytes:
    # JsonConverter writes bytes as base64; AvroConverter hands us the bytes themselves.
    return base64.b64decode(value) if isinstance(value, str) else bytes(value)


def _identity(value: Any) -> Any:
    return value


def _times(factor: int) -> Decode:
    return lambda v: v * factor


def _nanos_to_micros(v: int) -> int:
    return v // 1000


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _zoned_to_micros(text: str) -> int:
    # ZonedTimestamp is ISO-8601 with a zone ("2038-01-19T03:14:07Z", "...:56.123456+02:00").
    moment = dt.datetime.fromisoformat(text)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _decimal(scale: int) -> Decode:
    def decode(value: str | bytes | Decimal) -> Decimal:
        if isinstance(value, Decimal):
            return value
        unscaled = int.from_bytes(_raw_bytes(value), "big", signed=True)
        return Decimal(unscaled).scaleb(-scale, _EXACT)
    return decode


def _variable_scale_decimal(value: dict[str, Any]) -> str:
    unscaled = int.from_bytes(_raw_bytes(value["value"]), "big", signed=True)
    return str(Decimal(unscaled).scaleb(-int(value["scale"]), _EXACT))


def _bits(length: int) -> Decode:
    # Debezium writes BIT(n) little-endian and may drop high zero bytes; MySQL returns
    # ceil(n/8) bytes big-endian. Decode to MySQL's bytes so values compare with SELECT.
    width = (length + 7) // 8

    def decode(value: str | bytes) -> bytes:
        little = _raw_bytes(value)
        return little.ljust(width, b"\0")[::-1]
    return decode


def _enum_set(value: str) -> list[str]:
    return value.split(",") if value else []


# Plain Connect types: (spark type, arrow type, needs bytes decoding)
_PRIMITIVES: dict[str, tuple[T.DataType, pa.DataType]] = {
    "int8": (T.ByteType(), pa.int8()),
    "int16": (T.ShortType(), pa.int16()),
    "int32": (T.IntegerType(), pa.int32()),
    "int64": (T.LongType(), pa.int64()),
    "float32": (T.FloatType(), pa.float32()),
    "float64": (T.DoubleType(), pa.float64()),
    "boolean": (T.BooleanType(), pa.bool_()),
    "string": (T.StringType(), pa.string()),
    "bytes": (T.BinaryType(), pa.binary()),
}

_NTZ = (T.TimestampNTZType(), pa.timestamp("us"))
_TZ = (T.TimestampType(), pa.timestamp("us", tz="UTC"))
_DATE = (T.DateType(), pa.date32())
_STRING = (T.StringType(), pa.string())
_INT = (T.IntegerType(), pa.int32())


def _time_column(factor_to_micros: Decode) -> Callable[[ConnectField, TimeMode], tuple]:
    def build(f: ConnectField, mode: TimeMode) -> tuple:
        if mode is TimeMode.INTERVAL:
            return T.DayTimeIntervalType(0, 3), pa.duration("us"), factor_to_micros
        return T.LongType(), pa.int64(), factor_to_micros
    return build


def _decimal_column(f: ConnectField, mode: TimeMode) -> tuple:
    scale = int(f.parameters.get("scale", "0"))
    precision = int(f.parameters.get("connect.decimal.precision", SPARK_DECIMAL_MAX_PRECISION))
    if precision > SPARK_DECIMAL_MAX_PRECISION:  # MySQL allows DECIMAL(65,30): keep it exact as text
        to_decimal = _decimal(scale)
        return T.StringType(), pa.string(), lambda v: str(to_decimal(v))
    return T.DecimalType(precision, scale), pa.decimal128(precision, scale), _decimal(scale)


def _fixed(spark_arrow: tuple, decode: Decode) -> Callable[[ConnectField, TimeMode], tuple]:
    return lambda f, mode: (*spark_arrow, decode)


# Semantic (logical) name → builder(field, time mode) → (spark type, arrow type, decode)
SEMANTIC: dict[str, Callable[[ConnectField, TimeMode], tuple]] = {
    "org.apache.kafka.connect.data.Decimal": _decimal_column,
    "io.debezium.data.VariableScaleDecimal": _fixed(_STRING, _variable_scale_decimal),
    "io.debezium.time.Date": _fixed(_DATE, _identity),
    "org.apache.kafka.connect.data.Date": _fixed(_DATE, _identity),
    "io.debezium.time.Timestamp": _fixed(_NTZ, _times(1000)),
    "org.apache.kafka.connect.data.Timestamp": _fixed(_NTZ, _times(1000)),
    "io.debezium.time.MicroTimestamp": _fixed(_NTZ, _identity),
    "io.debezium.time.NanoTimestamp": _fixed(_NTZ, _nanos_to_micros),
    "io.debezium.time.ZonedTimestamp": _fixed(_TZ, _zoned_to_micros),
    "io.debezium.time.Time": _time_column(_times(1000)),
    "org.apache.kafka.connect.data.Time": _time_column(_times(1000)),
    "io.debezium.time.MicroTime": _time_column(_identity),
    "io.debezium.time.NanoTime": _time_column(_nanos_to_micros),
    "io.debezium.time.ZonedTime": _fixed(_STRING, _identity),
    "io.debezium.time.Year": _fixed(_INT, _identity),
    "io.debezium.data.Json": _fixed(_STRING, _identity),
    "io.debezium.data.Enum": _fixed(_STRING, _identity),
    "io.debezium.data.EnumSet": _fixed((T.ArrayType(T.StringType(), False), pa.list_(pa.string())),
                                       _enum_set),
    "io.debezium.data.Bits": lambda f, mode: (T.BinaryType(), pa.binary(),
                                              _bits(int(f.parameters.get("length", "8")))),
    "io.debezium.data.Uuid": _fixed(_STRING, _identity),
    "io.debezium.data.Xml": _fixed(_STRING, _identity),
}


def _nullable(decode: Decode) -> Decode:
    return lambda v: None if v is None else decode(v)


def resolve(f: ConnectField, mode: TimeMode = TimeMode.INTERVAL) -> Column:
    """Resolve one Connect field to its Spark column; call once per schema version."""
    if f.semantic in SEMANTIC:
        spark_type, arrow_type, decode = SEMANTIC[f.semantic](f, mode)
    elif f.type in _PRIMITIVES:
        spark_type, arrow_type = _PRIMITIVES[f.type]
        decode = _raw_bytes if f.type == "bytes" else _identity
    elif f.type == "struct":  # geometry (wkb, srid), Point (x, y, wkb, srid) and any other struct
        members = [resolve(m, mode) for m in f.fields]
        spark_type = T.StructType([T.StructField(m.name, m.spark_type, m.nullable) for m in members])
        arrow_type = pa.struct([pa.field(m.name, m.arrow_type, m.nullable) for m in members])
        decoders = [(m.name, m.decode) for m in members]
        decode = lambda v, ds=decoders: {n: d(v.get(n)) for n, d in ds}  # noqa: E731
    elif f.type == "array":
        item = resolve(f.items, mode)  # type: ignore[arg-type]
        spark_type = T.ArrayType(item.spark_type, item.nullable)
        arrow_type = pa.list_(item.arrow_type)
        decode = lambda v, d=item.decode: [d(x) for x in v]  # noqa: E731
    elif f.type == "map":
        key, value = resolve(f.keys or ConnectField("", "string"), mode), resolve(f.items, mode)  # type: ignore[arg-type]
        spark_type = T.MapType(key.spark_type, value.spark_type, value.nullable)
        arrow_type = pa.map_(key.arrow_type, value.arrow_type)
        decode = lambda v, k=key.decode, d=value.decode: [  # noqa: E731
            (k(a), d(b)) for a, b in (v.items() if isinstance(v, dict) else v)]
    else:
        raise ValueError(f"unsupported Connect type {f.type!r} for field {f.name!r}")
    return Column(f.name, spark_type, arrow_type, _nullable(decode), f.optional, decode is _identity)
