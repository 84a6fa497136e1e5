"""Kafka Connect's field transforms on struct keys/values: `InsertField$Key|$Value`, `ReplaceField$Key|$Value`.

As Kafka's: a null key/value passes unchanged; the new schema is `copySchemaBasics` of the old one (name,
version, doc, parameters; required) with the fields changed, built once per input schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.transforms.structs import PerSchema, as_row, copy_basics, with_default_for_null, with_key, with_value

__all__ = ["InsertField", "ReplaceField", "Side"]

_STRING = ConnectSchema(Type.STRING)
_OPTIONAL_STRING = ConnectSchema(Type.STRING, optional=True)
_INT32 = ConnectSchema(Type.INT32)
_OPTIONAL_INT32 = ConnectSchema(Type.INT32, optional=True)
_TIMESTAMP = ConnectSchema(Type.INT64, name="org.apache.kafka.connect.data.Timestamp", version=1)
_OPTIONAL_TIMESTAMP = ConnectSchema(Type.INT64, optional=True, name="org.apache.kafka.connect.data.Timestamp", version=1)


@dataclass(frozen=True)
class Side:
    """`$Key` or `$Value`: which schema/value a field transform reads and replaces."""

    key: bool

    def get(self, record: ConnectRecord) -> tuple[ConnectSchema | None, Any]:
        return (record.key_schema, record.key) if self.key else (record.value_schema, record.value)

    def struct(self, record: ConnectRecord, transform: str) -> tuple[ConnectSchema, Any] | None:
        """The struct to change, or None for a null key/value (passed unchanged, as Kafka's transforms do)."""
        schema, value = self.get(record)
        if value is None:
            return None
        if schema is None or schema.type is not Type.STRUCT:
            raise ValueError(f"{transform} needs a struct {'key' if self.key else 'value'} on topic {record.topic}")
        return schema, value

    def put(self, record: ConnectRecord, schema: ConnectSchema | None, value: Any) -> ConnectRecord:
        return with_key(record, schema, value) if self.key else with_value(record, schema, value)


def _field_spec(spec: str) -> tuple[str, bool]:
    """`name!` is required, `name?` or `name` optional (InsertField's InsertionSpec)."""
    if spec.endswith("!"):
        return spec[:-1], False
    return (spec[:-1] if spec.endswith("?") else spec), True


class InsertField:
    """topic.field, partition.field, timestamp.field, static.field + static.value, appended in Kafka's order
    (offset.field is refused at configuration: a source record has no Kafka offset).

    timestamp.field holds the record's Connect timestamp as a Connect Timestamp. Debezium leaves that
    timestamp null except after outbox.EventRouter, and Kafka then leaves the field unset: null under its
    optional schema, and a conversion error if the field was made required (`name!`)."""

    def __init__(self, side: Side, *, topic_field: str | None = None, partition_field: str | None = None,
                 timestamp_field: str | None = None, static_field: str | None = None,
                 static_value: str | None = None, replace_null_with_default: bool = True) -> None:
        self._side = side
        self._topic = _field_spec(topic_field) if topic_field else None
        self._partition = _field_spec(partition_field) if partition_field else None
        self._timestamp = _field_spec(timestamp_field) if timestamp_field else None
        self._static = _field_spec(static_field) if static_field else None
        self._static_value = static_value
        self._replace_null = replace_null_with_default
        self._schemas = PerSchema(self._schema)

    def _schema(self, schema: ConnectSchema | None) -> ConnectSchema:
        assert schema is not None
        extra = []
        if self._topic:
            extra.append(Field(self._topic[0], _OPTIONAL_STRING if self._topic[1] else _STRING))
        if self._partition:
            extra.append(Field(self._partition[0], _OPTIONAL_INT32 if self._partition[1] else _INT32))
        if self._timestamp:
            extra.append(Field(self._timestamp[0], _OPTIONAL_TIMESTAMP if self._timestamp[1] else _TIMESTAMP))
        if self._static:
            extra.append(Field(self._static[0], _OPTIONAL_STRING if self._static[1] else _STRING))
        return copy_basics(schema, (*schema.fields, *extra))

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        operand = self._side.struct(record, "InsertField")
        if operand is None:
            return record
        schema, value = operand
        row = as_row(schema, value)
        row = with_default_for_null(schema, row) if self._replace_null else list(row)
        if self._topic:
            row.append(record.topic)
        if self._partition:
            row.append(record.partition)
        if self._timestamp:
            row.append(record.timestamp)  # epoch ms, the value of a Connect Timestamp; None when there is none
        if self._static:
            row.append(self._static_value)
        return self._side.put(record, self._schemas(schema), row)


class ReplaceField:
    """`exclude`, `include` and `renames` (`old:new,...`), in Kafka's order: filter, then rename."""

    def __init__(self, side: Side, *, exclude: Sequence[str] = (), include: Sequence[str] = (),
                 renames: Mapping[str, str] | None = None, replace_null_with_default: bool = True) -> None:
        self._side = side
        self._exclude = frozenset(exclude)
        self._include = frozenset(include)
        self._renames = dict(renames or {})
        self._replace_null = replace_null_with_default
        self._plans = PerSchema(self._plan)

    def _keep(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def _plan(self, schema: ConnectSchema | None) -> tuple[ConnectSchema, tuple[int, ...]]:
        assert schema is not None
        keep = tuple(i for i, f in enumerate(schema.fields) if self._keep(f.name))
        fields = [Field(self._renames.get(schema.fields[i].name, schema.fields[i].name), schema.fields[i].schema)
                  for i in keep]
        return copy_basics(schema, fields), keep

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        operand = self._side.struct(record, "ReplaceField")
        if operand is None:
            return record
        schema, value = operand
        new_schema, keep = self._plans(schema)
        row = as_row(schema, value)
        if self._replace_null:
            row = with_default_for_null(schema, row)
        return self._side.put(record, new_schema, [row[i] for i in keep])
