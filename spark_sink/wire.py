"""The three value spellings a change topic may use, reduced to (schema id, schema, payload).

* ``json``: JsonConverter with ``schemas.enable=true``: ``{"schema":{...},"payload":{...}}``.
  The schema text itself is the schema id, so each version is parsed once.
* ``json-schemaless``: ``schemas.enable=false``: the value is the payload; the schema comes
  from the caller (``schemas=``) or from the schema-change topic (``ddl_schema``).
* ``avro``: Confluent wire format (magic 0, 4-byte schema id, Avro binary), schemas fetched
  from a Schema Registry by id (``registry.HttpSchemaRegistry``) and cached per reader. Split
  with a registry (``ValueSplitter``), the Avro body is transcoded to the JsonConverter
  payload spelling (bytes and decimals as base64, logical types as their Connect integers),
  so Spark decodes every format with the same ``from_json`` expressions and gives the same
  values; Spark has no Avro reader without the ``spark-avro`` package.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from enum import StrEnum
from typing import Any, Callable, Mapping, Protocol

import fastavro
import orjson

from spark_sink.connect_schema import ConnectField, from_avro, from_connect_json
from spark_sink.registry import HttpSchemaRegistry

__all__ = ["ValueFormat", "SchemaRegistry", "HttpSchemaRegistry", "WireReader", "wire_reader", "ValueSplitter"]

_PAYLOAD_MARK = b',"payload":'
_SCHEMA_MARK = b'{"schema":'


class ValueFormat(StrEnum):
    JSON = "json"
    JSON_SCHEMALESS = "json-schemaless"
    AVRO = "avro"


class SchemaRegistry(Protocol):
    """Where Avro writer schemas come from: the schema text for a registry id."""

    def schema(self, schema_id: int) -> str: ...


def _strip_logical_types(schema: Any) -> Any:
    # Decode Avro to the same primitive spellings as JSON (unscaled decimal bytes, epoch
    # ints) so one set of decoders serves both formats.
    if isinstance(schema, dict):
        return {k: _strip_logical_types(v) for k, v in schema.items() if k != "logicalType"}
    if isinstance(schema, list):
        return [_strip_logical_types(s) for s in schema]
    return schema


class WireReader(Protocol):
    """Splits a raw Kafka value into (schema key, schema text if carried, body); the key
    names a schema version, the body is what ``payload`` decodes."""

    def split(self, topic: str, value: bytes) -> tuple[bytes, bytes | None, bytes]: ...
    def connect_schema(self, topic: str, key: bytes, schema_text: bytes | None) -> ConnectField: ...
    def payload(self, key: bytes, body: bytes) -> Any: ...


class _JsonReader:
    def split(self, topic: str, value: bytes) -> tuple[bytes, bytes | None, bytes]:
        # The first mark ends the schema (no Connect schema key is "payload"); a later one
        # may be a column named "payload" inside the payload.
        cut = value.find(_PAYLOAD_MARK)
        if cut < 0 or not value.startswith(_SCHEMA_MARK):
            raise ValueError(f"topic {topic}: value is not JSON with an embedded schema "
                             "(use value_format='json-schemaless' or 'avro')")
        schema = value[10:cut]
        # The schema text repeats in every record: a 16-byte digest stands for it downstream.
        return hashlib.blake2b(schema, digest_size=16).digest(), schema, value[cut + len(_PAYLOAD_MARK):-1]

    def connect_schema(self, topic: str, key: bytes, schema_text: bytes | None) -> ConnectField:
        if schema_text is None:
            raise KeyError(f"topic {topic}: schema version {key.hex()} not seen in this batch")
        if schema_text.startswith(_SCHEMA_MARK):  # as Spark splits it (json_decode.split_json)
            schema_text = schema_text[len(_SCHEMA_MARK):]
        return from_connect_json(orjson.loads(schema_text))

    def payload(self, key: bytes, body: bytes) -> Any:
        return orjson.loads(body)


class _SchemalessReader:
    def __init__(self, schemas: Mapping[str, ConnectField]) -> None:
        self.schemas = dict(schemas)

    def split(self, topic: str, value: bytes) -> tuple[bytes, bytes | None, bytes]:
        return topic.encode(), None, value

    def connect_schema(self, topic: str, key: bytes, schema_text: bytes | None) -> ConnectField:
        if topic not in self.schemas:
            raise KeyError(f"topic {topic}: schemaless JSON needs its schema: pass schemas="
                           "{topic: ConnectField} or read it from the schema-change topic")
        return self.schemas[topic]

    def payload(self, key: bytes, body: bytes) -> Any:
        return orjson.loads(body)


class _AvroReader:
    def __init__(self, registry: SchemaRegistry) -> None:
        self.registry = registry
        self._parsed: dict[bytes, Any] = {}

    def split(self, topic: str, value: bytes) -> tuple[bytes, bytes | None, bytes]:
        if len(value) < 5 or value[0] != 0:
            raise ValueError(f"topic {topic}: value is not in Confluent Avro wire format")
        return value[1:5], None, value[5:]

    def _writer(self, key: bytes) -> Any:
        if key not in self._parsed:
            text = self.registry.schema(int.from_bytes(key, "big"))
            self._parsed[key] = fastavro.parse_schema(_strip_logical_types(json.loads(text)))
        return self._parsed[key]

    def connect_schema(self, topic: str, key: bytes, schema_text: bytes | None) -> ConnectField:
        return from_avro(json.loads(self.registry.schema(int.from_bytes(key, "big"))))

    def payload(self, key: bytes, body: bytes) -> Any:
        return fastavro.schemaless_reader(io.BytesIO(body), self._writer(key))

    def json_body(self, key: bytes, body: bytes) -> bytes:
        """The Avro body as the JsonConverter payload of the same Connect value."""
        return orjson.dumps(self.payload(key, body), default=_base64)


def _base64(value: Any) -> str:
    # orjson hands over what it cannot write: Avro bytes/fixed (bytes, decimals, BIT, WKB),
    # which JsonConverter writes as base64 text.
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"Avro value of type {type(value).__name__} has no JSON spelling")


_READERS: dict[ValueFormat, Callable[..., WireReader]] = {
    ValueFormat.JSON: lambda registry, schemas: _JsonReader(),
    ValueFormat.JSON_SCHEMALESS: lambda registry, schemas: _SchemalessReader(schemas or {}),
    ValueFormat.AVRO: lambda registry, schemas: _AvroReader(registry),
}


def wire_reader(fmt: ValueFormat, registry: SchemaRegistry | None = None,
                schemas: Mapping[str, ConnectField] | None = None) -> WireReader:
    if fmt is ValueFormat.AVRO and registry is None:
        raise ValueError("value_format='avro' needs schema_registry_url (or a SchemaRegistry)")
    return _READERS[fmt](registry, schemas)


class ValueSplitter:
    """Values → (schema version key, schema text or None, body) while they stream past.

    The schema text is returned only for the first record of each version this splitter
    sees (discovery needs one copy; the rest would only fill caches and shuffles). For
    ``json`` the digest is computed once per version: a record whose value starts with the
    previous record's schema is that version (one ``memcmp``, no hashing of ~2 KB per record)."""

    def __init__(self, fmt: ValueFormat, registry: SchemaRegistry | None = None) -> None:
        self.fmt = ValueFormat(fmt)
        # With a registry, Avro bodies leave as JSON payloads (see the module doc).
        self._avro = _AvroReader(registry) if registry is not None and self.fmt is ValueFormat.AVRO else None
        self._seen: set[bytes] = set()
        self._head = b""  # b'{"schema":' + schema text + b',"payload":' of the last version
        self._key = b""

    def __call__(self, topic: str, value: bytes) -> tuple[bytes, bytes | None, bytes]:
        if self.fmt is ValueFormat.JSON:
            head = self._head
            # A value that starts with the head has the same schema text: the first
            # ',"payload":' ends the schema, and the head ends with that mark.
            if head and value.startswith(head):
                return self._key, None, value[len(head):-1]
            key, schema, body = _JsonReader().split(topic, value)
            self._head, self._key = value[:len(value) - len(body) - 1], key
        elif self.fmt is ValueFormat.AVRO:
            key, schema, body = _AvroReader.split(None, topic, value)  # type: ignore[arg-type]
            if self._avro is not None:
                body = self._avro.json_body(key, body)
        else:
            key, schema, body = topic.encode(), None, value
        if key in self._seen:
            return key, None, body
        self._seen.add(key)
        return key, schema if schema is not None else b"", body
