"""Test helper: JsonConverter output (schema JSON + payload) back into our Connect model.

The goldens hold JsonConverter text; parsing it gives the exact Connect schema Debezium had, so
the Avro conversion can be checked against AvroConverter's output for the same schema, and the
payload gives the Connect value (bytes and Decimals are base64 in JSON).
"""
from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

from connector.serde.connect_schema import DECIMAL_NAME, NO_DEFAULT, ConnectSchema, Field, Type

_TYPES = {t.value: t for t in Type}
_TYPES.update({"float32": Type.FLOAT32, "float64": Type.FLOAT64})


def parse_schema(doc: dict[str, Any]) -> ConnectSchema:
    t = _TYPES[doc["type"]]
    kwargs: dict[str, Any] = dict(optional=doc.get("optional", False), name=doc.get("name"),
                                  version=doc.get("version"), doc=doc.get("doc"),
                                  parameters=tuple((doc.get("parameters") or {}).items()))
    if t is Type.STRUCT:
        kwargs["fields"] = tuple(Field(f["field"], parse_schema(f)) for f in doc["fields"])
    elif t is Type.ARRAY:
        kwargs["items"] = parse_schema(doc["items"])
    elif t is Type.MAP:
        kwargs["keys"], kwargs["values"] = parse_schema(doc["keys"]), parse_schema(doc["values"])
    schema = ConnectSchema(t, **kwargs)
    if "default" in doc and doc["default"] is not None:
        from dataclasses import replace
        schema = replace(schema, default=parse_value(schema, doc["default"]))
    return schema


def parse_value(schema: ConnectSchema, value: Any) -> Any:
    """JSON payload → Connect value (structs as dicts)."""
    if value is None:
        return None
    if schema.name == DECIMAL_NAME:
        unscaled = int.from_bytes(base64.b64decode(value), "big", signed=True)
        return Decimal(f"{unscaled}E-{int(schema.parameter('scale') or 0)}")  # exact (scaleb rounds to 28 digits)
    if schema.type is Type.BYTES:
        return base64.b64decode(value)
    if schema.type is Type.STRUCT:
        return {f.name: parse_value(f.schema, value.get(f.name)) for f in schema.fields}
    if schema.type is Type.ARRAY:
        assert schema.items is not None
        return [parse_value(schema.items, v) for v in value]
    if schema.type is Type.MAP:
        assert schema.values is not None
        return {k: parse_value(schema.values, v) for k, v in value.items()}
    return value


__all__ = ["parse_schema", "parse_value", "NO_DEFAULT"]
