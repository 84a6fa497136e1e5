"""Settings of what gets emitted, how values are represented, and the topics records go to."""

from __future__ import annotations

import re
from dataclasses import dataclass

from connector.config import modes
from connector.config.custom_converters import Rule
from connector.config.declared import prop
from connector.config.families import ColumnMapperSettings
from connector.java.regex import java_regex

__all__ = ["EventSettings", "TopicSettings"]


@dataclass(frozen=True)
class EventSettings:
    """What gets emitted and how values are represented."""

    decimal_handling_mode: modes.DecimalHandlingMode = prop("decimal.handling.mode")
    time_precision_mode: modes.TimePrecisionMode = prop("time.precision.mode")
    bigint_unsigned_handling_mode: modes.BigIntUnsignedHandlingMode = prop("bigint.unsigned.handling.mode")
    binary_handling_mode: modes.BinaryHandlingMode = prop("binary.handling.mode")
    schema_name_adjustment_mode: modes.SchemaNameAdjustmentMode = prop("schema.name.adjustment.mode")
    field_name_adjustment_mode: modes.FieldNameAdjustmentMode = prop("field.name.adjustment.mode")
    include_schema_comments: bool = prop("include.schema.comments")
    enable_time_adjuster: bool = prop("enable.time.adjuster")
    include_schema_changes: bool = prop("include.schema.changes")
    include_query: bool = prop("include.query")
    tombstones_on_delete: bool = prop("tombstones.on.delete")
    skipped_operations: frozenset[str] = prop("skipped.operations")
    skip_messages_without_change: bool = prop("skip.messages.without.change")
    provide_transaction_metadata: bool = prop("provide.transaction.metadata")
    extended_headers_enabled: bool = prop("extended.headers.enabled")
    event_processing_failure_handling_mode: modes.EventProcessingFailureHandlingMode = prop(
        "event.processing.failure.handling.mode")
    event_converting_failure_handling_mode: modes.EventConvertingFailureHandlingMode = prop(
        "event.converting.failure.handling.mode")
    inconsistent_schema_handling_mode: modes.InconsistentSchemaHandlingMode = prop("inconsistent.schema.handling.mode")
    column_propagate_source_type: tuple[str, ...] = prop("column.propagate.source.type", empty=())
    datatype_propagate_source_type: tuple[str, ...] = prop("datatype.propagate.source.type", empty=())
    column_mappers: tuple[ColumnMapperSettings, ...] = ()  # column.mask/truncate/hash families, in property order
    custom_converters: tuple[Rule, ...] = ()  # converters=... (TinyIntOneToBoolean, JdbcSinkDataTypes, ...)


@dataclass(frozen=True)
class TopicSettings:
    prefix: str = prop("topic.prefix", empty="")
    delimiter: str = prop("topic.delimiter")
    transaction: str = prop("topic.transaction")
    heartbeat_prefix: str = prop("topic.heartbeat.prefix")
    heartbeat_name: str | None = prop("topic.heartbeat.name")
    # one of TOPIC_NAMING_STRATEGIES (others are refused in refusals.py); data topics: connector/events/topic_names.py
    naming_strategy: str = prop("topic.naming.strategy")
    # the regex strategies' options (AbstractRegexTopicNamingStrategy); Java regex and replacement syntax
    regex: str | None = prop("topic.regex")
    replacement: str | None = prop("topic.replacement")
    key_enforce_uniqueness: bool = prop("topic.key.enforce.uniqueness")
    key_field_name: str = prop("topic.key.field.name")
    key_field_regex: str | None = prop("topic.key.field.regex")
    key_field_replacement: str | None = prop("topic.key.field.replacement")

    def regex_problems(self) -> list[str]:
        """AbstractRegexTopicNamingStrategy's validation: topic.regex and topic.replacement are required, a key
        field regex needs its replacement, and each regex must compile."""
        if not self.naming_strategy.strip().lower().endswith("regextopicnamingstrategy"):
            return []
        problems = []
        for name, regex, replacement in (("topic", self.regex, self.replacement),
                                         ("topic.key.field", self.key_field_regex, self.key_field_replacement)):
            if name == "topic" and not (regex or "").strip():
                problems.append(f"topic.regex is required with topic.naming.strategy={self.naming_strategy}")
                continue
            if (regex or "").strip() and not (replacement or "").strip():
                problems.append(f"{name}.replacement must be non-empty if {name}.regex is set.")
            if (regex or "").strip():
                try:
                    java_regex(regex or "")
                except re.error as exc:
                    problems.append(f"{name}.regex={regex!r} is not a valid regular expression ({exc})")
        return problems

    def schema_change_topic(self) -> str:
        return self.prefix

    def transaction_topic(self) -> str:
        return f"{self.prefix}{self.delimiter}{self.transaction}"

    def heartbeat_topic(self) -> str:
        return self.heartbeat_name or f"{self.heartbeat_prefix}{self.delimiter}{self.prefix}"
