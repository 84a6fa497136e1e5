"""Kafka's `org.apache.kafka.connect.storage.StringConverter` for our records: a key or value is its Java
`toString()`, UTF-8 encoded; null stays null (tombstones, keyless tables).

What the Connect objects of a Debezium record print (Kafka 4.3 `Struct.toString`, JDK 17), per Connect value:
* STRUCT, a `Struct`: `Struct{a=1,b=x}`, fields in schema order, null ones left out, no spaces;
* ARRAY, an `ArrayList`: `[a, b]`; MAP, a `HashMap`: `{k=v, k2=v2}` in HashMap iteration order;
* INT8..INT64, BOOLEAN, STRING: `Long.toString`, `true`/`false`, the text;
* FLOAT32 / FLOAT64, a Float / Double: `Float.toString` / `Double.toString`;
* BYTES, `ByteBuffer.wrap(byte[])`: `java.nio.HeapByteBuffer[pos=0 lim=N cap=N]`;
* BYTES `io.debezium.data.Bits`, a `byte[]`: `[B@<identity hash>`, which differs in every JVM (a stable stand-in
  of that shape here);
* BYTES `org.apache.kafka.connect.data.Decimal`, a `BigDecimal` at the column's scale: `BigDecimal.toString`
  (`1.50`, `0E-10`);
* Connect Date / Time / Timestamp, a `java.util.Date`: `Thu Jan 01 00:00:00 UTC 1970`, in the JVM's zone (UTC
  here, as in Debezium Server's image).

A null field of a struct is left out, even when its schema has a default (toString reads the raw values).
"""

from __future__ import annotations

import datetime as dt
import zlib
from decimal import Decimal
from typing import Any, Mapping, Sequence

from connector.java.hashmap import hashmap_order
from connector.java.key_text import big_decimal_text
from connector.java.text import java_double, java_float
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type

__all__ = ["StringSide", "connect_text"]

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_DATE, _TIME, _TIMESTAMP = ("org.apache.kafka.connect.data." + n for n in ("Date", "Time", "Timestamp"))
_BITS = "io.debezium.data.Bits"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _java_date(value: Any, schema_name: str) -> str:
    """`java.util.Date.toString()` in UTC: `EEE MMM dd HH:mm:ss zzz yyyy`."""
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    else:  # the Connect integer: days (Date) or milliseconds (Time, Timestamp) since the epoch
        moment = _EPOCH + (dt.timedelta(days=value) if schema_name == _DATE else dt.timedelta(milliseconds=value))
    moment = moment.astimezone(dt.timezone.utc)
    return (f"{_DAYS[moment.weekday()]} {_MONTHS[moment.month - 1]} {moment.day:02d} "
            f"{moment:%H:%M:%S} UTC {moment.year}")


def _decimal(value: Decimal | int, schema: ConnectSchema) -> str:
    scale = int(schema.parameter("scale") or 0)
    # the BigDecimal Debezium hands over carries the column's scale (DECIMAL(5,2) 1.5 is 1.50)
    return big_decimal_text(Decimal(value).quantize(Decimal(1).scaleb(-scale)))


def _bytes(value: Any, schema: ConnectSchema) -> str:
    if schema.name == DECIMAL_NAME:
        return _decimal(value, schema)
    size = len(value)
    if schema.name == _BITS:
        return f"[B@{zlib.crc32(bytes(value)) & 0x7FFFFFFF:x}"
    return f"java.nio.HeapByteBuffer[pos=0 lim={size} cap={size}]"


def _fields(schema: ConnectSchema, value: Any) -> list[tuple[str, ConnectSchema, Any]]:
    if isinstance(value, Mapping):
        return [(f.name, f.schema, value.get(f.name)) for f in schema.fields]
    return [(f.name, f.schema, v) for f, v in zip(schema.fields, value)]


def connect_text(schema: ConnectSchema | None, value: Any) -> str:
    """`String.valueOf` of the Java object a Connect value of `schema` is in a Debezium SourceRecord."""
    if value is None:
        return "null"
    if schema is None:
        return str(value)
    kind = schema.type
    if kind is Type.STRUCT:
        return "Struct{" + ",".join(f"{name}={connect_text(s, v)}" for name, s, v in _fields(schema, value)
                                    if v is not None) + "}"
    if kind is Type.ARRAY:
        return "[" + ", ".join(connect_text(schema.items, v) for v in value) + "]"
    if kind is Type.MAP:
        items: Mapping[Any, Any] = value
        keys: Sequence[Any] = (hashmap_order([str(k) for k in items]) if all(isinstance(k, str) for k in items)
                               else list(items))
        return "{" + ", ".join(f"{connect_text(schema.keys, k)}={connect_text(schema.values, items[k])}"
                               for k in keys) + "}"
    if schema.name in (_DATE, _TIME, _TIMESTAMP):
        return _java_date(value, schema.name)
    if kind is Type.BYTES:
        return _bytes(value, schema)
    if kind is Type.BOOLEAN:
        return "true" if value else "false"
    if kind is Type.FLOAT64:
        return java_double(float(value))
    if kind is Type.FLOAT32:
        return java_float(float(value))
    return str(value)


class StringSide:
    """One side's StringConverter (`converter.encoding` UTF-8, its default): `fromConnectData` is
    `value == null ? null : value.toString()`; the schema is not written."""

    def serialize(self, topic: str, schema: ConnectSchema | None, value: Any) -> bytes | None:
        if value is None:
            return None
        return connect_text(schema, value).encode("utf-8")
