"""Debezium's `ByLogicalTableRouter`: records of several physical tables (shards) onto one logical topic.

A topic that fully matches `topic.regex` is rewritten with `topic.replacement`. The key struct is renamed
`<new topic>.Key` and, with `key.enforce.uniqueness`, gains a required string field (`key.field.name`)
naming the physical table (the old topic, or `key.field.regex`/`key.field.replacement` applied to it).
A change event's envelope is renamed `<new topic>.Envelope` with `before`/`after` renamed
`<new topic>.Value`; other records (tombstones, schema changes, transaction markers) keep their value.
Schemas are built once per input schema; the values themselves are reused unchanged.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace

from connector.config.modes import SchemaNameAdjustmentMode
from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.serde.name_adjustment import adjust_schema_name
from connector.transforms.structs import PerSchema, as_row

__all__ = ["ByLogicalTableRouter"]

log = logging.getLogger(__name__)

_STRING = ConnectSchema(Type.STRING)


def _renamed(schema: ConnectSchema, name: str, fields: tuple[Field, ...]) -> ConnectSchema:
    # copySchemaExcludingName: version, doc, parameters and optionality kept; a new name; no default
    return ConnectSchema(Type.STRUCT, optional=schema.optional, name=name, version=schema.version, doc=schema.doc,
                         parameters=schema.parameters, fields=fields)


class ByLogicalTableRouter:
    def __init__(self, *, topic_regex: re.Pattern[str], topic_replacement: str, key_enforce_uniqueness: bool,
                 key_field_name: str, key_field_regex: re.Pattern[str] | None, key_field_replacement: str | None,
                 adjustment: SchemaNameAdjustmentMode) -> None:
        self._regex, self._replacement = topic_regex, topic_replacement
        self._unique = key_enforce_uniqueness
        self._key_field = key_field_name
        self._key_regex, self._key_replacement = key_field_regex, key_field_replacement
        self._adjustment = adjustment
        self._topics: dict[str, str | None] = {}
        self._physical: dict[str, str] = {}
        self._keys: dict[str, PerSchema[ConnectSchema]] = {}
        self._envelopes: dict[str, PerSchema[ConnectSchema | None]] = {}

    def _new_topic(self, topic: str) -> str | None:
        if topic not in self._topics:
            match = self._regex.fullmatch(topic)
            self._topics[topic] = match.expand(self._replacement) if match else None
        return self._topics[topic]

    def _physical_id(self, topic: str) -> str:
        found = self._physical.get(topic)
        if found is None:
            match = self._key_regex.fullmatch(topic) if self._key_regex is not None else None
            found = match.expand(self._key_replacement or "") if match else topic
            self._physical[topic] = found
        return found

    def _key_schema(self, new_topic: str) -> PerSchema[ConnectSchema]:
        plans = self._keys.get(new_topic)
        if plans is None:
            def build(schema: ConnectSchema | None) -> ConnectSchema:
                assert schema is not None
                extra = (Field(self._key_field, _STRING),) if self._unique else ()
                return _renamed(schema, adjust_schema_name(new_topic + ".Key", self._adjustment),
                                (*schema.fields, *extra))
            plans = self._keys[new_topic] = PerSchema(build)
        return plans

    def _envelope_schema(self, new_topic: str) -> PerSchema[ConnectSchema | None]:
        plans = self._envelopes.get(new_topic)
        if plans is None:
            def build(schema: ConnectSchema | None) -> ConnectSchema | None:
                if schema is None or not schema.name or not schema.name.endswith(".Envelope"):
                    return None
                before = next(f.schema for f in schema.fields if f.name == "before")
                row = _renamed(before, adjust_schema_name(new_topic + ".Value", self._adjustment), before.fields)
                fields = tuple(Field(f.name, row) if f.name in ("before", "after") else f for f in schema.fields)
                return _renamed(schema, adjust_schema_name(new_topic + ".Envelope", self._adjustment), fields)
            plans = self._envelopes[new_topic] = PerSchema(build)
        return plans

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        new_topic = self._new_topic(record.topic)
        if new_topic is None:
            return record
        if not new_topic:
            log.warning("ByLogicalTableRouter: topic.regex turned %s into an empty topic name; record kept on it",
                        record.topic)
            return record
        key_schema, key = record.key_schema, record.key
        if key is not None:
            if key_schema is None or key_schema.type is not Type.STRUCT:
                raise ValueError(f"ByLogicalTableRouter needs a struct key on {record.topic}")
            key_schema = self._key_schema(new_topic)(record.key_schema)
            row = list(as_row(record.key_schema, key))  # type: ignore[arg-type]
            key = [*row, self._physical_id(record.topic)] if self._unique else row
        value_schema = record.value_schema
        if record.value is not None:
            value_schema = self._envelope_schema(new_topic)(record.value_schema) or record.value_schema
        return replace(record, topic=new_topic, key_schema=key_schema, key=key, value_schema=value_schema)
