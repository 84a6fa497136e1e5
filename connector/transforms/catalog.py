"""Every transform and predicate class a Debezium/Connect configuration may name, as data: the ones
binlog-cdc implements (their options and how to build them) and the ones it refuses, each with what to
do instead. A class in neither table is refused as unknown; an option not listed is refused by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from connector.transforms.fields import InsertField, ReplaceField, Side
from connector.events.records import HeaderFormat
from connector.transforms.headers import HeaderCodec
from connector.config.modes import SchemaNameAdjustmentMode
from connector.transforms.flatten import Flatten
from connector.transforms.header_ops import DropHeaders, HeaderFrom, InsertHeader
from connector.transforms.json_expand import JsonExpander
from connector.transforms.logical_router import ByLogicalTableRouter
from connector.transforms.outbox import AdditionalField, EventRouter, InvalidOperation
from connector.transforms.reshape import ExtractField, HoistField, MaskField, SetSchemaMetadata, ValueToKey
from connector.transforms.cast import Cast, parse_spec
from connector.transforms.timestamps import TARGETS, TimestampConverter, compile_format
from connector.transforms.date_parse import compile_parser
from connector.transforms.timestamp_router import TimestampRouter
from connector.transforms.timezone import Rules, TimezoneConverter, parse_zone
from connector.transforms.header_to_value import HeaderToValue
from connector.transforms.record_size import EnforceRecordSize
from connector.transforms.partition_routing import HASH_FUNCTIONS, PartitionRouting
from connector.transforms.changed_fields import ExtractChangedRecordState
from connector.transforms.routing import (SCHEMA_CHANGE_TYPES, Filter, HasHeaderKey, RecordIsTombstone, RegexRouter,
                                          SchemaChangeEventFilter, TopicNameMatches, java_regex, java_replacement)
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
                           timestamp_field=o["timestamp.field"] or None, static_field=o["static.field"] or None, static_value=o["static.value"] or None,
                           replace_null_with_default=_bool("replace.null.with.default", o["replace.null.with.default"]))

    return Kind({"topic.field": "", "partition.field": "", "timestamp.field": "", "static.field": "", "static.value": "",
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

def _logical_router(o: Options, codec: HeaderCodec) -> ByLogicalTableRouter:
    key_regex = o["key.field.regex"].strip()
    if key_regex and not o["key.field.replacement"].strip():
        raise ValueError("key.field.replacement must be non-empty if key.field.regex is set.")
    size = o["logical.table.cache.size"].strip()
    if not size.isdigit() or int(size) < 1:
        # the size of Debezium's per-topic caches; binlog-cdc's are unbounded (one entry per table), so the
        # value changes nothing but must be valid
        raise ValueError(f"logical.table.cache.size={size!r} must be a positive integer")
    mode = o["schema.name.adjustment.mode"].strip().lower()
    return ByLogicalTableRouter(
        topic_regex=_regex("topic.regex", o["topic.regex"]), topic_replacement=java_replacement(o["topic.replacement"]),
        key_enforce_uniqueness=_bool("key.enforce.uniqueness", o["key.enforce.uniqueness"]),
        key_field_name=o["key.field.name"], key_field_regex=_regex("key.field.regex", key_regex) if key_regex else None,
        key_field_replacement=java_replacement(o["key.field.replacement"]) if key_regex else None,
        adjustment=SchemaNameAdjustmentMode(_choice("schema.name.adjustment.mode", mode,
                                                    ("none", "avro", "avro_unicode"))))


_BY_LOGICAL = Kind({"topic.regex": None, "topic.replacement": None, "key.enforce.uniqueness": "true",
                    "key.field.regex": "", "key.field.name": "__dbz__physicalTableIdentifier",
                    "key.field.replacement": "", "schema.name.adjustment.mode": "none",
                    "logical.table.cache.size": "16"}, _logical_router)


def _nonempty_list(name: str, text: str) -> list[str]:
    items = _list(text)
    if not items:
        raise ValueError(f"{name} must list at least one name")
    return items


def _mask(key: bool) -> Kind:
    # replacement: Kafka's default is null (mask with empty values); an empty string stands for it here
    return Kind({"fields": None, "replacement": "", "replace.null.with.default": "true"},
                lambda o, codec: MaskField(Side(key), _nonempty_list("fields", o["fields"]), o["replacement"] or None,
                                           _bool("replace.null.with.default", o["replace.null.with.default"])))


def _nonblank(name: str, text: str) -> str:
    if not text.strip():
        raise ValueError(f"{name} must not be empty")
    return text


def _set_metadata(key: bool) -> Kind:
    def build(o: Options, codec: HeaderCodec) -> SetSchemaMetadata:
        version = o["schema.version"].strip()
        if version and not version.lstrip("-").isdigit():
            raise ValueError(f"schema.version={version!r} must be an integer")
        if not o["schema.name"] and not version:
            raise ValueError("Neither schema name nor version configured")
        return SetSchemaMetadata(Side(key), o["schema.name"] or None, int(version) if version else None,
                                 _bool("replace.null.with.default", o["replace.null.with.default"]))

    return Kind({"schema.name": "", "schema.version": "", "replace.null.with.default": "true"}, build)


def _extract(key: bool) -> Kind:
    def build(o: Options, codec: HeaderCodec) -> ExtractField:
        if o["field.syntax.version"].strip().upper() != "V1":
            raise ValueError(f"field.syntax.version={o['field.syntax.version']!r}: binlog-cdc implements V1 (a "
                             "top-level field name); nested paths (V2) are not implemented, extract in two steps")
        return ExtractField(Side(key), _nonblank("field", o["field"]), _bool("replace.null.with.default", o["replace.null.with.default"]))

    return Kind({"field": None, "field.syntax.version": "V1", "replace.null.with.default": "true"}, build)


def _header_from(key: bool) -> Kind:
    def build(o: Options, codec: HeaderCodec) -> HeaderFrom:
        operation = _choice("operation", o["operation"], ("move", "copy"))
        return HeaderFrom(Side(key), _nonempty_list("fields", o["fields"]), _nonempty_list("headers", o["headers"]),
                          operation == "move", codec, _bool("replace.null.with.default", o["replace.null.with.default"]))

    return Kind({"fields": None, "headers": None, "operation": None, "replace.null.with.default": "true"}, build)


def _schema_change_filter(o: Options, codec: HeaderCodec) -> SchemaChangeEventFilter:
    types = [t.strip() for t in o["schema.change.event.exclude.list"].split(",")]
    bad = [t for t in types if t not in SCHEMA_CHANGE_TYPES]
    if bad:
        raise ValueError(f"schema.change.event.exclude.list: {', '.join(map(repr, bad))} not one of "
                         f"{', '.join(SCHEMA_CHANGE_TYPES)}")
    return SchemaChangeEventFilter(frozenset(types))


def _changed_state(o: Options, codec: HeaderCodec) -> ExtractChangedRecordState:
    if codec.format is not HeaderFormat.JSON and (o["header.changed.name"] or o["header.unchanged.name"]):
        raise ValueError("its list headers are written only with the JSON header converter "
                         "(debezium.format.header=json, Debezium Server's default)")
    return ExtractChangedRecordState(o["header.changed.name"] or None, o["header.unchanged.name"] or None, codec)


def _cast(key: bool) -> Kind:
    def build(o: Options, codec: HeaderCodec) -> Cast:
        casts, whole = parse_spec(o["spec"])
        return Cast(Side(key), casts, whole, _bool("replace.null.with.default", o["replace.null.with.default"]))

    return Kind({"spec": None, "replace.null.with.default": "true"}, build)


def _timestamp(key: bool) -> Kind:
    def build(o: Options, codec: HeaderCodec) -> TimestampConverter:
        target = o["target.type"].strip()
        if target not in TARGETS:
            raise ValueError(f"target.type={target!r} must be one of {', '.join(TARGETS)}")
        precision = _choice("unix.precision", o["unix.precision"], ("seconds", "milliseconds", "microseconds",
                                                                     "nanoseconds"))
        if target == "string" and not o["format"]:
            raise ValueError("TimestampConverter requires format option to be specified when using string timestamps")
        parser, parse_error = None, ""
        if o["format"]:
            try:
                parser = compile_parser(o["format"])
            except ValueError as exc:  # only string input needs the parser: say so when one arrives
                parse_error = str(exc)
        return TimestampConverter(Side(key), o["field"] or None, target,
                                  compile_format(o["format"]) if o["format"] else None, precision,
                                  _bool("replace.null.with.default", o["replace.null.with.default"]),
                                  parser, o["format"], parse_error)

    return Kind({"field": "", "target.type": None, "format": "", "unix.precision": "milliseconds",
                 "replace.null.with.default": "true"}, build)


def _header_to_value(o: Options, codec: HeaderCodec) -> HeaderToValue:
    if codec.format is not HeaderFormat.JSON:
        raise ValueError("headers are read back only from the JSON header converter (debezium.format.header=json, "
                         "Debezium Server's default)")
    operation = _choice("operation", o["operation"], ("move", "copy"))
    return HeaderToValue(_nonempty_list("headers", o["headers"]), _nonempty_list("fields", o["fields"]),
                         operation == "move")


def _partition_routing(o: Options, codec: HeaderCodec) -> PartitionRouting:
    num = o["partition.topic.num"].strip()
    if not num.isdigit() or int(num) < 1:
        raise ValueError(f"partition.topic.num={num!r} must be a positive integer")
    name = o["partition.hash.function"].strip().lower()
    if name not in HASH_FUNCTIONS:
        # Debezium silently falls back to java for an unknown name; a typo is refused here instead
        raise ValueError(f"partition.hash.function={o['partition.hash.function']!r} must be one of "
                         f"{', '.join(HASH_FUNCTIONS)}")
    return PartitionRouting(_nonempty_list("partition.payload.fields", o["partition.payload.fields"]), int(num),
                            HASH_FUNCTIONS[name])


def _record_size(o: Options, codec: HeaderCodec) -> EnforceRecordSize:
    def number(name: str, kind: type) -> Any:
        try:
            return kind(o[name].strip())
        except ValueError:
            raise ValueError(f"{name}={o[name]!r} must be {'an integer' if kind is int else 'a number'}") from None
    return EnforceRecordSize(number("max.bytes", int), number("compression.ratio", float),
                             number("min.field.size", int))


def _timezone(o: Options, codec: HeaderCodec) -> TimezoneConverter:
    include, exclude = _list(o["include.list"]), _list(o["exclude.list"])
    if include and exclude:
        raise ValueError("Both include and exclude lists are specified. Please specify only one.")
    return TimezoneConverter(parse_zone(o["converted.timezone"].strip()),
                             Rules.parse("include.list", include) if include else None,
                             Rules.parse("exclude.list", exclude) if exclude else None)


TRANSFORMS: dict[str, Kind] = {
    "TimestampRouter": Kind({"topic.format": "${topic}-${timestamp}", "timestamp.format": "yyyyMMdd"},
                            lambda o, codec: TimestampRouter(o["topic.format"], compile_format(o["timestamp.format"]))),
    "TimezoneConverter": Kind({"converted.timezone": None, "include.list": "", "exclude.list": ""}, _timezone),
    "partitions.PartitionRouting": Kind({"partition.payload.fields": None, "partition.topic.num": None,
                                         "partition.hash.function": "java"}, _partition_routing),
    "HeaderToValue": Kind({"headers": None, "fields": None, "operation": None}, _header_to_value),
    "EnforceRecordSize": Kind({"max.bytes": None, "compression.ratio": "1.0", "min.field.size": "25000"},
                              _record_size),
    "TimestampConverter$Key": _timestamp(True),
    "TimestampConverter$Value": _timestamp(False),
    "Cast$Key": _cast(True),
    "Cast$Value": _cast(False),
    "SchemaChangeEventFilter": Kind({"schema.change.event.exclude.list": None}, _schema_change_filter),
    "ExtractChangedRecordState": Kind({"header.changed.name": "", "header.unchanged.name": ""}, _changed_state),
    "outbox.EventRouter": _OUTBOX,
    "ByLogicalTableRouter": _BY_LOGICAL,
    "MaskField$Key": _mask(True),
    "MaskField$Value": _mask(False),
    "SetSchemaMetadata$Key": _set_metadata(True),
    "SetSchemaMetadata$Value": _set_metadata(False),
    "ValueToKey": Kind({"fields": None, "replace.null.with.default": "true"},
                       lambda o, codec: ValueToKey(_nonempty_list("fields", o["fields"]),
                                                   _bool("replace.null.with.default", o["replace.null.with.default"]))),
    "ExtractField$Key": _extract(True),
    "ExtractField$Value": _extract(False),
    "HoistField$Key": Kind({"field": None}, lambda o, codec: HoistField(Side(True), _nonblank("field", o["field"]))),
    "HoistField$Value": Kind({"field": None}, lambda o, codec: HoistField(Side(False), _nonblank("field", o["field"]))),
    "InsertHeader": Kind({"header": None, "value.literal": None},
                         lambda o, codec: InsertHeader.build(_nonblank("header", o["header"]), o["value.literal"], codec)),
    "DropHeaders": Kind({"headers": None},
                        lambda o, codec: DropHeaders(frozenset(_nonempty_list("headers", o["headers"])))),
    "Flatten$Key": Kind({"delimiter": "."}, lambda o, codec: Flatten(Side(True), o["delimiter"])),
    "Flatten$Value": Kind({"delimiter": "."}, lambda o, codec: Flatten(Side(False), o["delimiter"])),
    "HeaderFrom$Key": _header_from(True),
    "HeaderFrom$Value": _header_from(False),
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
        "ExtractSchemaToNewRecord",
        "SwapGeometryCoordinates", "tracing.ActivateTracingSpan", "VectorToJsonConverter")},
    DBZ + "Filter": _SCRIPT,
    "ContentBasedRouter": _SCRIPT,
}

REFUSED_PREDICATES: dict[str, str] = {}

# Options of implemented classes that binlog-cdc refuses, with the reason.
_NO_OFFSET = ("not implemented in binlog-cdc (Kafka fills it for sink records only: a source record has no Kafka "
              "offset); remove it")
REFUSED_OPTIONS: dict[tuple[str, str], str] = {
    (cls, "offset.field"): _NO_OFFSET for cls in ("InsertField$Key", "InsertField$Value")}
