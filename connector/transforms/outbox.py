"""Debezium's outbox event router (`io.debezium.transforms.outbox.EventRouter`).

An insert (or snapshot read) into the outbox table becomes one event: topic from `route.by.field` through
`route.topic.regex`/`route.topic.replacement`, key from `table.field.event.key`, value the payload (or a
struct of the payload and the `envelope` additional fields), an `id` header plus the `header` additional
fields. Deletes, tombstones and updates are dropped (updates per `table.op.invalid.behavior`); records
that are not change events (schema changes, transaction markers, heartbeats) pass unchanged.

Debezium's quirks are kept: the value schema is cached by payload schema (so a later event whose payload
has the same schema reuses the name made from the first event's route value), or by schema version when
`table.field.event.schema.version` is set. The record timestamp (read by TimestampRouter) is the
`table.field.event.timestamp` column in ms, or the envelope's `ts_ms` when unset or null, as Debezium's.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.transforms.headers import HeaderCodec
from connector.transforms.json_expand import ExpandError, JsonExpander
from connector.transforms.structs import PerSchema, as_row, field_index

__all__ = ["AdditionalField", "EventRouter", "InvalidOperation", "Placement"]

log = logging.getLogger(__name__)

_STRING = ConnectSchema(Type.STRING)
_TIMESTAMPS = {"io.debezium.time.Timestamp", "io.debezium.time.MicroTimestamp", "io.debezium.time.NanoTimestamp"}


class Placement(str, Enum):
    HEADER = "header"
    ENVELOPE = "envelope"
    PARTITION = "partition"


class InvalidOperation(str, Enum):
    WARN = "warn"
    ERROR = "error"
    FATAL = "fatal"


@dataclass(frozen=True)
class AdditionalField:
    field: str
    placement: Placement
    alias: str

    @classmethod
    def parse_list(cls, text: str) -> list["AdditionalField"]:
        """`table.fields.additional.placement`: `column:placement[:alias],...`."""
        out = []
        for entry in (e for e in text.split(",") if e.strip()):
            parts = entry.split(":")
            if len(parts) not in (2, 3):
                raise ValueError(f"table.fields.additional.placement: {entry!r} is not column:placement[:alias]")
            try:
                placement = Placement(parts[1].strip().lower())
            except ValueError:
                raise ValueError(f"table.fields.additional.placement: {entry!r} has placement {parts[1]!r}; use "
                                 "header, envelope or partition") from None
            out.append(cls(parts[0].strip(), placement, parts[2].strip() if len(parts) == 3 else parts[0].strip()))
        return out


def java_trim_empty(text: str) -> bool:
    # String.trim() strips every char <= U+0020, not Unicode whitespace
    return not text.strip("".join(map(chr, range(33))))


@dataclass(frozen=True)
class _Row:
    """The outbox row's schema (`after`) with the positions the router reads, found once per table version."""

    schema: ConnectSchema
    index: dict[str, int]

    def field(self, name: str, what: str) -> tuple[int, ConnectSchema]:
        i = self.index.get(name)
        if i is None:
            raise ValueError(f"outbox.EventRouter: the outbox row {self.schema.name} has no {what} column {name!r}")
        return i, self.schema.fields[i].schema


class EventRouter:
    def __init__(self, *, event_id: str, event_key: str, payload: str, timestamp: str | None,
                 schema_version: str | None, route_by: str, route_regex: re.Pattern[str], route_replacement: str,
                 tombstone_on_empty: bool, invalid_op: InvalidOperation, additional: Sequence[AdditionalField],
                 missing_is_error: bool, expander: JsonExpander | None, header_codec: HeaderCodec) -> None:
        self._id, self._key, self._payload, self._ts = event_id, event_key, payload, timestamp
        self._version = schema_version
        self._route_by, self._regex, self._replacement = route_by, route_regex, route_replacement
        self._tombstone_on_empty = tombstone_on_empty
        self._invalid_op = invalid_op
        self._additional = tuple(additional)
        self._missing_is_error = missing_is_error
        self._expander = expander
        self._codec = header_codec
        self._headers_only = all(f.placement is not Placement.ENVELOPE for f in self._additional)
        self._envelopes = PerSchema(self._envelope)
        self._by_payload: dict[ConnectSchema, ConnectSchema] = {}  # Debezium's payloadSchemaCache
        self._by_version: dict[int | None, ConnectSchema] = {}  # Debezium's versionedValueSchema
        self._topics: dict[str, str] = {}

    def _envelope(self, schema: ConnectSchema | None) -> tuple[int, int, _Row, int | None] | None:
        if schema is None or not schema.name or not schema.name.endswith(".Envelope"):
            return None
        op, after = field_index(schema, "op"), field_index(schema, "after")
        assert op is not None and after is not None
        row = schema.fields[after].schema
        return op, after, _Row(row, {f.name: i for i, f in enumerate(row.fields)}), field_index(schema, "ts_ms")

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value is None:
            return None  # tombstones are dropped
        plan = self._envelopes(record.value_schema)
        if plan is None:
            return record  # schema changes, transaction markers, heartbeats
        op_index, after_index, row_plan, ts_index = plan
        envelope = as_row(record.value_schema, record.value)  # type: ignore[arg-type]
        op = envelope[op_index]
        if op == "d":
            return None
        if op == "u":
            self._unexpected(record)
            return None
        after = envelope[after_index]
        if after is None:
            raise ValueError(f"outbox.EventRouter: a {op!r} event on {record.topic} has no after row (a TRUNCATE "
                             "cannot be routed); keep skipped.operations=t or route only the outbox table")
        row = as_row(row_plan.schema, after)
        return self._route(record, row_plan, row, envelope[ts_index] if ts_index is not None else None)

    def _unexpected(self, record: ConnectRecord) -> None:
        if self._invalid_op is InvalidOperation.FATAL:
            raise ValueError(f"outbox.EventRouter: unexpected update on {record.topic} (table.op.invalid.behavior="
                             "fatal); outbox rows are inserted, not updated; set table.op.invalid.behavior=warn "
                             "to skip updates")
        level = logging.WARNING if self._invalid_op is InvalidOperation.WARN else logging.ERROR
        log.log(level, "outbox.EventRouter: unexpected update on %s ignored", record.topic)

    def _get(self, row: Sequence[Any], plan: _Row, name: str, what: str) -> tuple[Any, ConnectSchema]:
        # Struct.get: a null read where the column has a default gives the default
        i, schema = plan.field(name, what)
        value = row[i]
        return (schema.default if value is None and schema.has_default else value), schema

    def _route(self, record: ConnectRecord, plan: _Row, row: Sequence[Any], ts_ms: int | None) -> ConnectRecord:
        payload_index, payload_schema = plan.field(self._payload, "payload (table.field.event.payload)")
        self._check_timestamp(plan)
        event_id, id_schema = self._get(row, plan, self._id, "event id (table.field.event.id)")
        payload, _ = self._get(row, plan, self._payload, "payload")
        headers = list(record.headers)
        headers.append(("id", self._codec.encode(id_schema, event_id)))
        if self._expander is not None and isinstance(payload, str):
            try:
                payload_schema, payload = self._expander.expand(self._payload, payload)
            except ExpandError as exc:
                log.warning("outbox.EventRouter: JSON expansion failed on %s: %s", record.topic, exc)
        route_value, route_schema = self._get(row, plan, self._route_by, "route (route.by.field)")
        if route_schema.type is not Type.STRING or route_value is None:
            raise ValueError(f"outbox.EventRouter: route.by.field={self._route_by} must be a non-null string column; "
                             f"{record.topic} has {route_schema.type.value} {route_value!r}")
        value_schema = None if self._headers_only else self._value_schema(payload_schema, plan, row, route_value)
        value: Any = None
        partition: int | None = None  # Debezium's router sets the partition only from a `partition` field
        envelope_values: list[Any] = []
        for extra in self._additional:
            if extra.field not in plan.index:
                if not self._missing_is_error:
                    continue
                raise ValueError(f"outbox.EventRouter: table.fields.additional.placement names {extra.field!r}, which "
                                 f"{plan.schema.name} does not have; add the column or set "
                                 "table.field.additional.missing=ignore")
            field_value, field_schema = self._get(row, plan, extra.field, "additional")
            if extra.placement is Placement.ENVELOPE:
                envelope_values.append(field_value)
            elif extra.placement is Placement.HEADER:
                headers.append((extra.alias, self._codec.encode(field_schema, field_value)))
            else:
                if field_schema.type is not Type.INT32:
                    raise ValueError(f"outbox.EventRouter: partition column {extra.field!r} must be INT32, not "
                                     f"{field_schema.type.value}")
                partition = field_value
        if value_schema is not None:
            value = [payload, *envelope_values]
        empty = payload is None or (isinstance(payload, str) and java_trim_empty(payload))
        if empty and self._tombstone_on_empty:
            value_schema, value = None, None
        elif self._headers_only:
            value_schema, value = payload_schema, payload
        key, key_schema = self._get(row, plan, self._key, "event key (table.field.event.key)")
        topic = self._topics.get(route_value)
        if topic is None:  # each route value's topic worked out once (expand parses its template per call)
            match = self._regex.fullmatch(route_value)
            topic = self._topics[route_value] = match.expand(self._replacement) if match else route_value
        return replace(record, topic=topic, partition=partition, key_schema=key_schema, key=key,
                       value_schema=value_schema, value=value, headers=headers,
                       timestamp=self._timestamp(row, plan, ts_ms))

    def _timestamp(self, row: Sequence[Any], plan: _Row, ts_ms: int | None) -> int | None:
        if self._ts is None:
            return ts_ms
        # Struct.getInt64 reads the stored value, not the column default: a NULL falls back to ts_ms (reference run)
        i, schema = plan.field(self._ts, "timestamp (table.field.event.timestamp)")
        value = row[i]
        if value is None:
            return ts_ms
        divisor = {"io.debezium.time.MicroTimestamp": 1000, "io.debezium.time.NanoTimestamp": 1_000_000}.get(
            schema.name or "", 1)
        whole = abs(value) // divisor  # Java's long division truncates toward zero
        return whole if value >= 0 else -whole

    def _check_timestamp(self, plan: _Row) -> None:
        if self._ts is None:
            return
        _, schema = plan.field(self._ts, "timestamp (table.field.event.timestamp)")
        if schema.type is not Type.INT64 or schema.name not in _TIMESTAMPS:
            raise ValueError(f"outbox.EventRouter: table.field.event.timestamp={self._ts} must be a DATETIME/"
                             f"TIMESTAMP column Debezium emits as INT64 Timestamp/MicroTimestamp/NanoTimestamp, "
                             f"not {schema.name or schema.type.value}")

    def _value_schema(self, payload_schema: ConnectSchema, plan: _Row, row: Sequence[Any],
                      route_value: str) -> ConnectSchema:
        if self._version is None:
            hit = self._by_payload.get(payload_schema)
            if hit is None:
                hit = self._by_payload[payload_schema] = self._build(payload_schema, plan, route_value, None)
            return hit
        version, schema = self._get(row, plan, self._version, "schema version (table.field.event.schema.version)")
        if schema.type is not Type.INT32:
            raise ValueError(f"outbox.EventRouter: table.field.event.schema.version={self._version} must be an INT "
                             f"column, not {schema.type.value}")
        hit = self._by_version.get(version)
        if hit is None:
            hit = self._by_version[version] = self._build(payload_schema, plan, route_value, version)
        elif hit.fields[0].schema != payload_schema:
            raise ValueError(f"outbox.EventRouter: schema version {version} was first seen with another payload "
                             "schema (Debezium fails: Struct schemas do not match); bump the version column when "
                             "the payload changes shape")
        return hit

    def _build(self, payload_schema: ConnectSchema, plan: _Row, route_value: str,
               version: int | None) -> ConnectSchema:
        fields = [Field("payload", payload_schema)]
        for extra in self._additional:
            if extra.placement is Placement.ENVELOPE and extra.field in plan.index:
                fields.append(Field(extra.alias, plan.schema.fields[plan.index[extra.field]].schema))
        name = plan.schema.name
        if name is None:
            name = route_value
        elif "." in name:
            head, _, tail = name.rpartition(".")
            name = f"{head}.{route_value}.{tail}"
        else:
            name = f"{route_value}.{name}"
        return ConnectSchema(Type.STRUCT, optional=False, name=name, version=version, fields=tuple(fields))
