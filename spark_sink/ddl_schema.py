"""Row schemas for schemaless JSON, rebuilt from the schema-change topic's ``tableChanges``.

With ``value.converter.schemas.enable=false`` a record carries no schema; Debezium's schema
change topic still describes every table (column type name, length, scale, optionality).
This maps each column the way Debezium's MySQL connector does with its default settings
(``decimal.handling.mode=precise``, ``bigint.unsigned.handling.mode=long``,
``time.precision.mode=adaptive_time_microseconds``, ``binary.handling.mode=bytes``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

import orjson

from spark_sink.connect_schema import ConnectField

__all__ = ["column_field", "schemas_from_history", "schema_change_payloads"]

_D = "io.debezium."
Builder = Callable[[str, Mapping[str, Any]], ConnectField]


def _plain(kind: str) -> Builder:
    return lambda name, col: ConnectField(name, kind)


def _named(kind: str, semantic: str) -> Builder:
    return lambda name, col: ConnectField(name, kind, semantic=semantic)


def _decimal(name: str, col: Mapping[str, Any]) -> ConnectField:
    return ConnectField(name, "bytes", semantic="org.apache.kafka.connect.data.Decimal",
                        parameters={"scale": str(col.get("scale") or 0),
                                    "connect.decimal.precision": str(col.get("length") or 10)})


def _bit(name: str, col: Mapping[str, Any]) -> ConnectField:
    length = col.get("length") or 1
    if length == 1:
        return ConnectField(name, "boolean")
    return ConnectField(name, "bytes", semantic=_D + "data.Bits", parameters={"length": str(length)})


def _datetime(name: str, col: Mapping[str, Any]) -> ConnectField:
    precise = (col.get("length") or 0) > 3  # adaptive: DATETIME(0-3) → ms, (4-6) → µs
    return ConnectField(name, "int64", semantic=_D + ("time.MicroTimestamp" if precise else "time.Timestamp"))


def _geometry(name: str, col: Mapping[str, Any]) -> ConnectField:
    return ConnectField(name, "struct", semantic=_D + "data.geometry.Geometry",
                        fields=(ConnectField("wkb", "bytes", optional=False), ConnectField("srid", "int32")))


def _point(name: str, col: Mapping[str, Any]) -> ConnectField:
    return ConnectField(name, "struct", semantic=_D + "data.geometry.Point",
                        fields=(ConnectField("x", "float64", optional=False), ConnectField("y", "float64", optional=False),
                                ConnectField("wkb", "bytes"), ConnectField("srid", "int32")))


_STRING = _plain("string")
_BYTES = _plain("bytes")
# MySQL type name (without UNSIGNED/ZEROFILL) → (signed builder, unsigned builder)
TYPES: dict[str, tuple[Builder, Builder]] = {
    "BOOLEAN": (_plain("int16"),) * 2, "BOOL": (_plain("int16"),) * 2,
    "TINYINT": (_plain("int16"), _plain("int16")),
    "SMALLINT": (_plain("int16"), _plain("int32")),
    "MEDIUMINT": (_plain("int32"), _plain("int32")),
    "INT": (_plain("int32"), _plain("int64")), "INTEGER": (_plain("int32"), _plain("int64")),
    "BIGINT": (_plain("int64"), _plain("int64")),
    "SERIAL": (_plain("int64"),) * 2,
    "DECIMAL": (_decimal,) * 2, "NUMERIC": (_decimal,) * 2, "DEC": (_decimal,) * 2, "FIXED": (_decimal,) * 2,
    "FLOAT": (_plain("float32"),) * 2,
    "DOUBLE": (_plain("float64"),) * 2, "REAL": (_plain("float64"),) * 2,
    "DOUBLE PRECISION": (_plain("float64"),) * 2,
    "BIT": (_bit,) * 2,
    "DATE": (_named("int32", _D + "time.Date"),) * 2,
    "TIME": (_named("int64", _D + "time.MicroTime"),) * 2,
    "DATETIME": (_datetime,) * 2,
    "TIMESTAMP": (_named("string", _D + "time.ZonedTimestamp"),) * 2,
    "YEAR": (_named("int32", _D + "time.Year"),) * 2,
    "ENUM": (_named("string", _D + "data.Enum"),) * 2,
    "SET": (_named("string", _D + "data.EnumSet"),) * 2,
    "JSON": (_named("string", _D + "data.Json"),) * 2,
    "GEOMETRY": (_geometry,) * 2, "LINESTRING": (_geometry,) * 2, "POLYGON": (_geometry,) * 2,
    "MULTIPOINT": (_geometry,) * 2, "MULTILINESTRING": (_geometry,) * 2,
    "MULTIPOLYGON": (_geometry,) * 2, "GEOMETRYCOLLECTION": (_geometry,) * 2,
    "GEOMCOLLECTION": (_geometry,) * 2, "POINT": (_point,) * 2,
    **{t: (_STRING,) * 2 for t in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT",
                                   "NCHAR", "NVARCHAR", "CHARACTER", "CHARACTER VARYING", "NATIONAL CHAR",
                                   "NATIONAL VARCHAR", "UUID", "INET4", "INET6")},
    **{t: (_BYTES,) * 2 for t in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB")},
}


def column_field(col: Mapping[str, Any]) -> ConnectField:
    """One ``io.debezium.connector.schema.Column`` document → its Connect field."""
    words = str(col["typeName"]).upper().replace("ZEROFILL", "").split()
    unsigned = "UNSIGNED" in words
    base = " ".join(w for w in words if w != "UNSIGNED")
    if base not in TYPES:
        raise ValueError(f"column {col['name']}: no Connect mapping for MySQL type {col['typeName']!r}")
    built = TYPES[base][1 if unsigned else 0](col["name"], col)
    return ConnectField(built.name, built.type, bool(col.get("optional", True)), built.semantic,
                        built.parameters, built.fields, built.items, built.keys)


def schemas_from_history(payloads: Iterable[Mapping[str, Any]], topic_prefix: str,
                         delimiter: str = ".") -> dict[str, ConnectField]:
    """Replay schema-change payloads (oldest first) → row schema per data topic."""
    tables: dict[str, ConnectField] = {}
    for payload in payloads:
        for change in payload.get("tableChanges") or ():
            db, table = (part.strip('"') for part in change["id"].split('"."'))
            topic = delimiter.join((topic_prefix, db, table))
            if change["type"] == "DROP" or not change.get("table"):
                tables.pop(topic, None)
                continue
            columns = sorted(change["table"]["columns"], key=lambda c: c["position"])
            tables[topic] = ConnectField(table, "struct", fields=tuple(column_field(c) for c in columns))
    return tables


def schema_change_payloads(values: Iterable[bytes | None]) -> list[dict[str, Any]]:
    """Payloads of schema-change topic values, JSON with or without embedded schema."""
    out = []
    for value in values:
        if value is None:
            continue
        doc = orjson.loads(value)
        out.append(doc["payload"] if "schema" in doc and "payload" in doc else doc)
    return out
