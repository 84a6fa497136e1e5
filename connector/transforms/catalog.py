"""Every transform and predicate class a Debezium/Connect configuration may name, as data: the ones
binlog-cdc implements (their options and how to build them) and the ones it refuses, each with what to
do instead. A class in neither table is refused as unknown; an option not listed is refused by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from connector.transforms.fields import InsertField, ReplaceField, Side
from connector.transforms.headers import HeaderCodec
from connector.transforms.json_expand import JsonExpander
from connector.transforms.outbox import AdditionalField, EventRouter, InvalidOperation
from connector.transforms.routing import (Filter, HasHeaderKey, RecordIsTombstone, RegexRouter, TopicNameMatches,
                                          java_regex, java_replacement)
from connector.transforms.unwrap import DeleteHandling, ExtractNewRecordState, FieldReference

__all__ = ["PREDICATES", "REFUSED_OPTIONS", "REFUSED_PREDICATES", "REFUSED_TRANSFORMS", "TRANSFORMS", "Kind", "short_name"]

Options = Mapping[str, str]
KAFKA = "org.apache.kafka.connect.transforms."
DBZ = "io.debezium.transforms."


def short_name(cls: str) -> str:
    """`org.apache.kafka.connect.transforms.InsertField$Value` → `InsertField$Value`; Debezium's sub-packages
    keep their package (`outbox.EventRouter`)."""
    for prefix in (KAFKA + "predicates.", KAFKA, DBZ, "io.debezium.connector.mysql.transforms."):
        if cls.startswith(prefix):
            return cls[len(prefix):]
    return cls


@dataclass(frozen=True)
class Kind:
    """An implemented class: its options (name → default, None = required) and its factory."""

    options: Mapping[str, str | None]
    build: Callable[[Options, HeaderCodec], Any]


def _bool(name: str, text: str) -> bool:
    if text.strip().lower() not in ("true", "false"):
        raise ValueError(f"{name}={text!r} must be true or false")
    return text.strip().lower() == "true"


def _list(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def _regex(name: str, text: str) -> re.Pattern[str]:
    try:
        return java_regex(text)
    except re.error as exc:
        raise ValueError(f"{name}={text!r} is not a regular expression binlog-cdc can compile ({exc})") from None


def _unwrap(o: Options, codec: HeaderCodec) -> ExtractNewRecordState:
    mode_text = o["delete.tombstone.handling.mode"].strip().lower()
    try:
        mode = DeleteHandling(mode_text)
    except ValueError:
        raise ValueError(f"delete.tombstone.handling.mode={mode_text!r} must be one of "
                         f"{', '.join(m.value for m in DeleteHandling)}") from None
    return ExtractNewRecordState(
        mode=mode,
        add_fields=[FieldReference.parse(o["add.fields.prefix"], f) for f in _list(o["add.fields"])],
        add_headers=[FieldReference.parse(o["add.headers.prefix"], f) for f in _list(o["add.headers"])],
        route_by_field=o["route.by.field"] or None,
        drop_fields_header=o["drop.fields.header.name"] or None,
        drop_fields_from_key=_bool("drop.fields.from.key", o["drop.fields.from.key"]),
        drop_fields_keep_schema_compatible=_bool("drop.fields.keep.schema.compatible",
                                                 o["drop.fields.keep.schema.compatible"]),
        replace_null_with_default=_bool("replace.null.with.default", o["replace.null.with.default"]),
        header_codec=codec)


_UNWRAP = Kind({"delete.tombstone.handling.mode": "tombstone", "route.by.field": "", "add.fields.prefix": "__",
                "add.fields": "", "add.headers.prefix": "__", "add.headers": "", "drop.fields.header.name": "",
                "drop.fields.from.key": "false", "drop.fields.keep.schema.compatible": "true",
                "replace.null.with.default": "true"}, _unwrap)


def _insert(key: bool) -> Kind:
    def build(o: Options, codec: HeaderCodec) -> InsertField:
        if o["static.field"] and not o["static.value"]:
            raise ValueError("static.field needs static.value")
        return InsertField(Side(key), topic_field=o["topic.field"] or None, partition_field=o["partition.field"] or None,
                           static_field=o["static.field"] or None, static_value=o["static.value"] or None,
                           replace_null_with_default=_bool("replace.null.with.default", o["replace.null.with.default"]))

    return Kind({"topic.field": "", "partition.field": "", "static.field": "", "static.value": "",
                 "replace.null.with.default": "true"}, build)


def _replace(key: bool) -> Kind:
    def build(o: Options, codec: HeaderCodec) -> ReplaceField:
        renames = {}
        for pair in _list(o["renames"]):
            old, sep, new = pair.partition(":")
            if not sep or not old or not new:
                raise ValueError(f"renames: {pair!r} is not old:new")
            renames[old] = new
        return ReplaceField(Side(key), exclude=_list(o["exclude"]), include=_list(o["include"]), renames=renames,
                            replace_null_with_default=_bool("replace.null.with.default", o["replace.null.with.default"]))

    return Kind({"exclude": "", "include": "", "renames": "", "replace.null.with.default": "true"}, build)


def _router(o: Options, codec: HeaderCodec) -> RegexRouter:
    return RegexRouter(_regex("regex", o["regex"]), java_replacement(o["replacement"]))


def _choice(name: str, text: str, allowed: tuple[str, ...]) -> str:
    value = text.strip().lower()
    if value not in allowed:
        raise ValueError(f"{name}={text!r} must be one of {', '.join(allowed)}")
    return value


def _outbox(o: Options, codec: HeaderCodec) -> EventRouter:
    null_behavior = _choice("table.json.payload.null.behavior", o["table.json.payload.null.behavior"],
                            ("ignore", "optional_bytes"))
    expand = _bool("table.expand.json.payload", o["table.expand.json.payload"])
    return EventRouter(
        event_id=o["table.field.event.id"], event_key=o["table.field.event.key"],
        payload=o["table.field.event.payload"], timestamp=o["table.field.event.timestamp"] or None,
        schema_version=o["table.field.event.schema.version"] or None, route_by=o["route.by.field"],
        route_regex=_regex("route.topic.regex", o["route.topic.regex"]),
        route_replacement=java_replacement(o["route.topic.replacement"]),
        tombstone_on_empty=_bool("route.tombstone.on.empty.payload", o["route.tombstone.on.empty.payload"]),
        invalid_op=InvalidOperation(_choice("table.op.invalid.behavior", o["table.op.invalid.behavior"],
                                            ("warn", "error", "fatal"))),
        additional=AdditionalField.parse_list(o["table.fields.additional.placement"]),
        missing_is_error=_choice("table.field.additional.missing", o["table.field.additional.missing"],
                                 ("error", "ignore")) == "error",
        expander=JsonExpander(null_behavior == "optional_bytes") if expand else None, header_codec=codec)


_OUTBOX = Kind({"table.field.event.id": "id", "table.field.event.key": "aggregateid", "table.field.event.type": "type",
                "table.field.event.payload": "payload", "table.field.event.timestamp": "",
                "table.fields.additional.placement": "", "table.field.additional.missing": "error",
                "table.field.event.schema.version": "", "route.by.field": "aggregatetype",
                "route.topic.regex": "(?<routedByValue>.*)", "route.topic.replacement": "outbox.event.${routedByValue}",
                "route.tombstone.on.empty.payload": "false", "table.op.invalid.behavior": "warn",
                "table.expand.json.payload": "false", "table.json.payload.null.behavior": "ignore"}, _outbox)

TRANSFORMS: dict[str, Kind] = {
    "outbox.EventRouter": _OUTBOX,
    "ExtractNewRecordState": _UNWRAP,
    "RegexRouter": Kind({"regex": None, "replacement": None}, _router),
    "Filter": Kind({}, lambda o, codec: Filter()),
    "InsertField$Key": _insert(True),
    "InsertField$Value": _insert(False),
    "ReplaceField$Key": _replace(True),
    "ReplaceField$Value": _replace(False),
}

PREDICATES: dict[str, Kind] = {
    "TopicNameMatches": Kind({"pattern": None}, lambda o, codec: TopicNameMatches(_regex("pattern", o["pattern"]))),
    "HasHeaderKey": Kind({"name": None}, lambda o, codec: HasHeaderKey(o["name"])),
    "RecordIsTombstone": Kind({}, lambda o, codec: RecordIsTombstone()),
}

_LATER = "not implemented in binlog-cdc yet"
_KAFKA_LATER = (f"{_LATER}; apply it downstream (Kafka Streams / a sink connector's transforms) or "
                "remove it from the chain")
_SCRIPT = ("runs Groovy/JavaScript through JSR 223, which a Python connector cannot run; use "
           "org.apache.kafka.connect.transforms.Filter with a predicate (TopicNameMatches, HasHeaderKey, "
           "RecordIsTombstone), or filter/route downstream")

REFUSED_TRANSFORMS: dict[str, str] = {
    **{name: _KAFKA_LATER for name in (
        "MaskField$Key", "MaskField$Value", "ValueToKey", "ExtractField$Key", "ExtractField$Value",
        "Flatten$Key", "Flatten$Value", "Cast$Key", "Cast$Value", "TimestampConverter$Key",
        "TimestampConverter$Value", "TimestampRouter", "SetSchemaMetadata$Key", "SetSchemaMetadata$Value",
        "HoistField$Key", "HoistField$Value", "InsertHeader", "DropHeaders", "HeaderFrom$Key", "HeaderFrom$Value")},
    **{name: _KAFKA_LATER for name in (
        "ExtractChangedRecordState", "ByLogicalTableRouter", "HeaderToValue",
        "TimezoneConverter", "SchemaChangeEventFilter", "partitions.PartitionRouting", "ExtractSchemaToNewRecord",
        "SwapGeometryCoordinates", "tracing.ActivateTracingSpan", "VectorToJsonConverter")},
    DBZ + "Filter": _SCRIPT,
    "ContentBasedRouter": _SCRIPT,
}

REFUSED_PREDICATES: dict[str, str] = {}

# Options of implemented classes that binlog-cdc refuses, with the reason.
_NO_TIMESTAMP = ("not implemented in binlog-cdc (a source record has no Kafka offset, and record timestamps are "
                 "not modelled); remove it")
REFUSED_OPTIONS: dict[tuple[str, str], str] = {
    (cls, opt): _NO_TIMESTAMP for cls in ("InsertField$Key", "InsertField$Value")
    for opt in ("offset.field", "timestamp.field")}
