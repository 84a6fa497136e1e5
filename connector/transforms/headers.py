"""Connect headers added or read by transforms, in the run's header converter format.

Record headers travel as bytes already converted (`connector/events/records.py` writes the context
headers the same way): JsonConverter with schemas (Debezium Server's `debezium.format.header=json`) or
Kafka's SimpleHeaderConverter (a Connect worker's default).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from connector.events.records import HeaderFormat
from connector.serde.connect_schema import ConnectSchema, Type
from connector.java.text import java_double, java_float

__all__ = ["HeaderCodec", "find_header"]


@dataclass(frozen=True)
class HeaderCodec:
    format: HeaderFormat

    def encode(self, schema: ConnectSchema, value: Any) -> bytes | None:
        if self.format is HeaderFormat.JSON:
            return ('{"schema":' + schema.json + ',"payload":' + schema.writer(value) + "}").encode("utf-8")
        return None if value is None else _simple_text(schema, value).encode("utf-8")

    def decode_string_list(self, raw: bytes | None) -> list[str] | None:
        """A header holding a list of strings (`drop.fields.header.name`), or None if it holds something else."""
        if raw is None:
            return None
        try:
            doc = json.loads(raw)
        except ValueError:
            return None
        if self.format is HeaderFormat.JSON and isinstance(doc, dict):
            doc = doc.get("payload")
        if isinstance(doc, list) and all(isinstance(x, str) for x in doc):
            return doc
        return None


def _simple_text(schema: ConnectSchema, value: Any) -> str:
    # Kafka `Values.convertToString` for the primitive types a transform puts into a header
    if schema.type is Type.BOOLEAN:
        return "true" if value else "false"
    if schema.type is Type.FLOAT32:
        return java_float(value)
    if schema.type is Type.FLOAT64:
        return java_double(value)
    return str(value)


def find_header(headers: Sequence[tuple[str, bytes | None]], name: str) -> tuple[bool, bytes | None]:
    """(present, value) of the first header named `name` (Debezium's `getHeaderByName`)."""
    for key, value in headers:
        if key == name:
            return True, value
    return False, None
