"""Kafka Connect `JsonConverter.fromConnectData` for our schemas: (schema, value) → bytes.

`schemas.enable=true` (Debezium's and the reference's setting) wraps the payload as
`{"schema":<schema JSON>,"payload":<payload>}`; `false` writes the payload alone. A null schema with a
null value (a tombstone) gives `None`, i.e. a Kafka record with no value bytes, never `"null"`.
The schema JSON and every struct's field prefixes are computed once per schema (see connect_schema).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connector.serde.connect_schema import ConnectSchema

__all__ = ["JsonConverter"]


@dataclass(frozen=True)
class JsonConverter:
    schemas_enable: bool = True

    def to_bytes(self, schema: ConnectSchema | None, value: Any) -> bytes | None:
        return None if (text := self.to_text(schema, value)) is None else text.encode("utf-8")

    def to_text(self, schema: ConnectSchema | None, value: Any) -> str | None:
        if schema is None:
            if value is None:
                return None
            raise TypeError("schemaless values are not produced by this connector")
        payload = schema.writer(value)
        if self.schemas_enable:
            return '{"schema":' + schema.json + ',"payload":' + payload + "}"
        return payload

    def envelope_prefix(self, schema: ConnectSchema) -> str:
        """Constant text before the payload, for callers that assemble the payload themselves."""
        return '{"schema":' + schema.json + ',"payload":' if self.schemas_enable else ""

    def envelope_suffix(self) -> str:
        return "}" if self.schemas_enable else ""
