"""One side (key or value) of a converter that registers its schemas: Confluent's AvroConverter and ProtobufConverter.

Both name subjects by TopicNameStrategy (`<topic>-key` / `<topic>-value`). Per Connect schema object (table
schemas and the record-kind schemas live for the whole run, so identity is a safe key) the converter's schema
is compiled once; the registry is asked for its id once per (topic, compiled schema).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from connector.serde.connect_schema import ConnectSchema

__all__ = ["CompiledSchema", "RegisteredSide", "SchemaRegistry"]


class SchemaRegistry(Protocol):
    def register(self, subject: str, schema: str, schema_type: str | None = None) -> int: ...


class CompiledSchema(Protocol):
    @property
    def text(self) -> str: ...  # what is registered

    def encode(self, schema_id: int, value: Any) -> bytes: ...  # the whole record: wire-format header and data


class RegisteredSide:
    """`schema_type`: None for Avro (the registry's default, which AvroConverter leaves out), "PROTOBUF"."""

    def __init__(self, registry: SchemaRegistry, is_key: bool,
                 compile_schema: Callable[[ConnectSchema], CompiledSchema], schema_type: str | None) -> None:
        self._registry = registry
        self._suffix = "-key" if is_key else "-value"
        self._compile = compile_schema
        self._schema_type = schema_type
        self._compiled: dict[int, tuple[ConnectSchema, CompiledSchema]] = {}
        self._ids: dict[tuple[str, int], int] = {}

    def serialize(self, topic: str, schema: ConnectSchema | None, value: Any) -> bytes | None:
        if schema is None or value is None:  # null in, null out (tombstones, keyless tables)
            return None
        entry = self._compiled.get(id(schema))
        if entry is None or entry[0] is not schema:
            entry = (schema, self._compile(schema))
            self._compiled[id(schema)] = entry
        compiled = entry[1]
        key = (topic, id(compiled))
        schema_id = self._ids.get(key)
        if schema_id is None:
            schema_id = self._registry.register(topic + self._suffix, compiled.text, self._schema_type)
            self._ids[key] = schema_id
        return compiled.encode(schema_id, value)
