"""Connect struct helpers the transforms share: schema copies as Kafka's `SchemaUtil` makes them, field
positions, and a per-schema cache so every transform compiles its work once per schema, not per record.

Struct values are sequences in field order (what `connector/events` builds); a Mapping is accepted and
turned into one. Schemas are immutable, so a compiled plan is keyed by the schema's identity; the cache
keeps the schema alive so its id is never reused while the entry lives.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Mapping, Sequence, TypeVar

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import NO_DEFAULT, ConnectSchema, Field, Type

__all__ = ["PerSchema", "as_row", "copy_basics", "field_index", "optional_copy", "with_default_for_null", "with_key",
           "with_topic", "with_value"]

T = TypeVar("T")


# The record with one part changed, built directly: `dataclasses.replace` introspects the fields on every call
# and was the largest single cost of an unwrap + router chain.
def with_value(record: ConnectRecord, schema: ConnectSchema | None, value: Any) -> ConnectRecord:
    return ConnectRecord(record.topic, record.partition, record.key_schema, record.key, schema, value, record.headers,
                         record.timestamp, record.offset_entries)


def with_key(record: ConnectRecord, schema: ConnectSchema | None, key: Any) -> ConnectRecord:
    return ConnectRecord(record.topic, record.partition, schema, key, record.value_schema, record.value,
                         record.headers, record.timestamp, record.offset_entries)


def with_topic(record: ConnectRecord, topic: str) -> ConnectRecord:
    return ConnectRecord(topic, record.partition, record.key_schema, record.key, record.value_schema, record.value,
                         record.headers, record.timestamp, record.offset_entries)


def copy_basics(schema: ConnectSchema, fields: Sequence[Field]) -> ConnectSchema:
    """`SchemaUtil.copySchemaBasics(schema, SchemaBuilder.struct())` plus `fields`: name, version, doc and
    parameters are kept; optional and default are not (a SchemaBuilder starts required, without default)."""
    return ConnectSchema(Type.STRUCT, optional=False, name=schema.name, version=schema.version, doc=schema.doc,
                         parameters=schema.parameters, fields=tuple(fields))


def optional_copy(schema: ConnectSchema) -> ConnectSchema:
    """`SchemaUtil.copySchemaBasics(schema).optional().build()`: same type, name, version, doc and parameters,
    optional, no default (and, for a struct, no fields: Kafka copies only the basics)."""
    return ConnectSchema(schema.type, optional=True, name=schema.name, version=schema.version, doc=schema.doc,
                         parameters=schema.parameters, default=NO_DEFAULT, items=schema.items, keys=schema.keys,
                         values=schema.values)


def field_index(schema: ConnectSchema, name: str) -> int | None:
    for i, f in enumerate(schema.fields):
        if f.name == name:
            return i
    return None


def as_row(schema: ConnectSchema, value: Any) -> Sequence[Any]:
    """A struct value as a sequence in field order."""
    if type(value) is list or type(value) is tuple:  # the usual case, without the slower ABC check
        return value
    if isinstance(value, Mapping):
        return [value.get(f.name) for f in schema.fields]
    return value


def with_default_for_null(schema: ConnectSchema, row: Sequence[Any]) -> list[Any]:
    """`Struct.get` for every field: a null value of a field with a default reads as that default."""
    return [f.schema.default if v is None and f.schema.has_default else v for f, v in zip(schema.fields, row)]


class PerSchema(Generic[T]):
    """`build(schema)` computed once per schema object (None included) and reused for every record."""

    def __init__(self, build: Callable[[ConnectSchema | None], T]) -> None:
        self._build = build
        self._plans: dict[int, tuple[ConnectSchema | None, T]] = {}

    def __call__(self, schema: ConnectSchema | None) -> T:
        hit = self._plans.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        plan = self._build(schema)
        self._plans[id(schema)] = (schema, plan)
        return plan

