"""Kafka Connect schemas as plain data, read from the three places a sink meets them.

A change record carries its schema in one of three spellings: JsonConverter's embedded
``{"schema": ..., "payload": ...}``, Confluent AvroConverter's registered Avro schema (where
``connect.name`` / ``connect.parameters`` / ``connect.type`` keep the Connect details), or
nothing at all (schemaless JSON), in which case the caller supplies a ``ConnectField``.
Everything downstream (semantic types, decoding) only sees ``ConnectField``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["ConnectField", "from_connect_json", "from_avro", "row_fields"]


@dataclass(frozen=True)
class ConnectField:
    """One Connect schema node: a struct field, an array's items or a map's values."""

    name: str
    type: str  # Connect type: int8 int16 int32 int64 float32 float64 boolean string bytes array map struct
    optional: bool = True
    semantic: str | None = None  # Connect logical name, e.g. io.debezium.time.MicroTimestamp
    parameters: Mapping[str, str] = field(default_factory=dict)
    fields: tuple["ConnectField", ...] = ()  # struct members
    items: "ConnectField | None" = None  # array items / map values
    keys: "ConnectField | None" = None  # map keys

    def child(self, name: str) -> "ConnectField | None":
        for member in self.fields:
            if member.name == name:
                return member
        return None

    def __hash__(self) -> int:  # parameters is a dict; hash on what identifies the node
        return hash((self.name, self.type, self.semantic, self.fields, self.items))


# JsonConverter spells Connect types directly; "float"/"double" are its names for float32/64.
_JSON_TYPES = {"float": "float32", "double": "float64"}


def from_connect_json(schema: Mapping[str, Any], name: str = "") -> ConnectField:
    """Parse a JsonConverter schema object (``schemas.enable=true``)."""
    kind = _JSON_TYPES.get(schema["type"], schema["type"])
    return ConnectField(
        name=schema.get("field", name),
        type=kind,
        optional=bool(schema.get("optional", False)),
        semantic=schema.get("name"),
        parameters=dict(schema.get("parameters") or {}),
        fields=tuple(from_connect_json(f) for f in schema.get("fields", ())),
        items=from_connect_json(schema["items"]) if "items" in schema else (
            from_connect_json(schema["values"]) if "values" in schema else None),
        keys=from_connect_json(schema["keys"]) if "keys" in schema else None,
    )


# Avro primitive → Connect type; connect.type refines int (int8/int16) as AvroData writes it.
_AVRO_TYPES = {"int": "int32", "long": "int64", "float": "float32", "double": "float64",
               "boolean": "boolean", "string": "string", "bytes": "bytes", "fixed": "bytes"}


def from_avro(schema: Any, name: str = "", named: dict[str, Any] | None = None) -> ConnectField:
    """Parse an Avro schema written by Confluent's AvroData back into Connect terms."""
    named = {} if named is None else named
    optional = False
    if isinstance(schema, list):  # union: AvroData only writes [null, T] / [T, null]
        branches = [b for b in schema if b != "null"]
        optional = len(branches) < len(schema)
        schema = branches[0]
    if isinstance(schema, str):
        if schema in named:
            schema = named[schema]
        else:
            return ConnectField(name=name, type=_AVRO_TYPES[schema], optional=optional)
    kind = schema["type"]
    if kind == "record":
        full = schema["name"] if "." in schema["name"] or not schema.get("namespace") \
            else f'{schema["namespace"]}.{schema["name"]}'
        named[full] = named[schema["name"]] = schema
        members = tuple(from_avro(f["type"], f["name"], named) for f in schema["fields"])
        return ConnectField(name, "struct", optional, schema.get("connect.name"),
                            dict(schema.get("connect.parameters") or {}), members)
    if kind == "array":
        return ConnectField(name, "array", optional, schema.get("connect.name"), {},
                            items=from_avro(schema["items"], "", named))
    if kind == "map":
        return ConnectField(name, "map", optional, schema.get("connect.name"), {},
                            items=from_avro(schema["values"], "", named),
                            keys=ConnectField("", "string", False))
    if isinstance(kind, (dict, list)):
        inner = from_avro(kind, name, named)
        return ConnectField(inner.name, inner.type, optional or inner.optional, inner.semantic,
                            inner.parameters, inner.fields, inner.items, inner.keys)
    connect_type = schema.get("connect.type") or _AVRO_TYPES[kind]
    params = dict(schema.get("connect.parameters") or {})
    semantic = schema.get("connect.name")
    if schema.get("logicalType") == "decimal" and semantic is None:
        semantic = "org.apache.kafka.connect.data.Decimal"
        params.setdefault("scale", str(schema.get("scale", 0)))
        params.setdefault("connect.decimal.precision", str(schema.get("precision", 38)))
    return ConnectField(name, connect_type, optional, semantic, params)


def row_fields(envelope: ConnectField) -> tuple[ConnectField, ...]:
    """The table columns of a Debezium envelope: the members of ``after`` (or ``before``)."""
    row = envelope.child("after") or envelope.child("before")
    if row is None:
        raise ValueError(f"not a Debezium change envelope: {envelope.semantic or envelope.name}")
    return row.fields
