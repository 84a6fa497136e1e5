"""Debezium's `HeaderToValue`: headers copied (or moved) into the value struct as fields.

Record headers travel already converted, so a header is read back from the JsonConverter form the
run writes them in (`debezium.format.header=json`, Debezium Server's default): its schema and value.
As Debezium's: a record without a value, or without any of the headers, passes unchanged; the new fields
follow the record's header order, a field the value already has keeps its schema; the new schema is
cached by the value schema alone (so the first record's headers decide it); `move` removes every header
of those names. Nested field names (`a.b`) are refused at start.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.transforms.structs import as_row, copy_basics, with_default_for_null

__all__ = ["HeaderToValue", "decode_json_header"]


def _schema(doc: dict[str, Any]) -> ConnectSchema:
    kind = Type(doc["type"])
    fields = tuple(Field(f["field"], _schema(f)) for f in doc.get("fields", ()))
    items = _schema(doc["items"]) if "items" in doc else None
    keys = _schema(doc["keys"]) if "keys" in doc else None
    values = _schema(doc["values"]) if "values" in doc else None
    schema = ConnectSchema(kind, optional=bool(doc.get("optional", False)), name=doc.get("name"),
                           version=doc.get("version"), doc=doc.get("doc"),
                           parameters=tuple((doc.get("parameters") or {}).items()), fields=fields, items=items,
                           keys=keys, values=values)
    if "default" in doc:
        schema = ConnectSchema(kind, optional=schema.optional, name=schema.name, version=schema.version,
                               doc=schema.doc, parameters=schema.parameters,
                               default=_value(schema, doc["default"]), fields=fields, items=items, keys=keys,
                               values=values)
    return schema


def _value(schema: ConnectSchema, payload: Any) -> Any:
    if payload is None:
        return None
    if schema.name == "org.apache.kafka.connect.data.Decimal":
        raise ValueError("HeaderToValue: a DECIMAL header cannot be read back; move another header")
    if schema.type is Type.STRUCT:
        return [_value(f.schema, payload.get(f.name)) for f in schema.fields]
    if schema.type is Type.ARRAY:
        assert schema.items is not None
        return [_value(schema.items, v) for v in payload]
    if schema.type is Type.MAP:
        assert schema.values is not None
        return {k: _value(schema.values, v) for k, v in payload.items()}
    if schema.type is Type.BYTES:
        return base64.b64decode(payload)
    if schema.type in (Type.FLOAT32, Type.FLOAT64):
        return float(payload)
    return payload


def decode_json_header(raw: bytes | None) -> tuple[ConnectSchema | None, Any]:
    """A header written by JsonConverter with schemas: (schema, value); (None, None) for a null header."""
    if raw is None:
        return None, None
    doc = json.loads(raw)
    if doc.get("schema") is None:
        return None, doc.get("payload")
    schema = _schema(doc["schema"])
    return schema, _value(schema, doc["payload"])


@dataclass(frozen=True)
class _Entry:
    field: str
    schema: ConnectSchema | None
    value: Any


class HeaderToValue:
    def __init__(self, headers: Sequence[str], fields: Sequence[str], move: bool) -> None:
        if len(headers) != len(fields):
            raise ValueError("'fields' config must have the same number of elements as 'headers' config.")
        nested = [f for f in fields if "." in f]
        if nested:
            raise ValueError(f"fields: nested field names ({', '.join(nested)}) are not implemented in binlog-cdc; "
                             "name top-level fields")
        self._field_of = dict(zip(headers, fields))
        self._move = move
        self._schemas: dict[int, tuple[ConnectSchema, ConnectSchema]] = {}  # Debezium's cache: by value schema

    def _new_schema(self, schema: ConnectSchema, entries: list[_Entry]) -> ConnectSchema:
        hit = self._schemas.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        fields = list(schema.fields)
        for e in entries:
            if all(f.name != e.field for f in fields):
                if e.schema is None:
                    raise ValueError(f"HeaderToValue: header for {e.field!r} has no schema")
                fields.append(Field(e.field, e.schema))
        new = copy_basics(schema, fields)
        self._schemas[id(schema)] = (schema, new)
        return new

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value is None:
            return record
        schema = record.value_schema
        if schema is None or schema.type is not Type.STRUCT:
            raise ValueError(f"HeaderToValue needs a struct value on {record.topic}")
        entries = []
        for key, raw in record.headers:
            field = self._field_of.get(key)
            if field is not None:
                entries.append(_Entry(field, *decode_json_header(raw)))
        if not entries:
            return record
        new_schema = self._new_schema(schema, entries)
        row = with_default_for_null(schema, as_row(schema, record.value))  # only non-null Struct.get values copied
        out: list[Any] = row + [None] * (len(new_schema.fields) - len(row))
        index = {f.name: i for i, f in enumerate(new_schema.fields)}
        for e in entries:
            i = index.get(e.field)
            if i is None:
                raise ValueError(f"HeaderToValue: {e.field!r} is not a field of the cached schema {new_schema.name} "
                                 "(Debezium fails the same way: its schema is kept from the first record)")
            out[i] = e.value
        headers = [h for h in record.headers if h[0] not in self._field_of] if self._move else record.headers
        return ConnectRecord(record.topic, record.partition, record.key_schema, record.key, new_schema, out, headers,
                             record.timestamp, record.offset_entries)

