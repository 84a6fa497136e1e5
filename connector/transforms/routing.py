"""Kafka Connect's record-level transforms and predicates: `RegexRouter`, `Filter`; `TopicNameMatches`,
`HasHeaderKey`, `RecordIsTombstone`, and the predicate guard (`transforms.<name>.predicate` + `negate`).

Java regexes are compiled once as Python regexes (the configuration refuses one Python cannot compile);
`matches()` is a full match; a `replaceFirst` replacement's `$1`/`${name}` become `\\g<1>`/`\\g<name>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from connector.events.kinds import ConnectRecord
from connector.java.regex import java_regex, java_replacement
from connector.transforms.structs import with_topic

__all__ = ["Filter", "Guarded", "HasHeaderKey", "Predicate", "RecordIsTombstone", "RegexRouter",
           "SCHEMA_CHANGE_TYPES", "SchemaChangeEventFilter", "TopicNameMatches", "java_regex", "java_replacement"]

SCHEMA_CHANGE_TYPES = ("CREATE", "ALTER", "DROP", "TRUNCATE", "DATABASE")


class Predicate(Protocol):
    def test(self, record: ConnectRecord) -> bool: ...


class _Transform(Protocol):
    def apply(self, record: ConnectRecord) -> ConnectRecord | None: ...


class RegexRouter:
    """Topics are few and records many: each topic's outcome is worked out once (`Match.expand` parses the
    replacement template on every call)."""

    def __init__(self, regex: re.Pattern[str], replacement: str) -> None:
        self.regex = regex
        self.replacement = replacement  # already in Python syntax
        self._topics: dict[str, str | None] = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        try:
            topic = self._topics[record.topic]
        except KeyError:
            match = self.regex.fullmatch(record.topic)
            topic = self._topics[record.topic] = None if match is None else match.expand(self.replacement)
        return record if topic is None else with_topic(record, topic)


@dataclass(frozen=True)
class Filter:
    """Drops every record it is applied to (used behind a predicate)."""

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return None


@dataclass(frozen=True)
class SchemaChangeEventFilter:
    """Debezium's: drops schema-change records whose first table change has an excluded type (no table
    change: DATABASE; no tableChanges at all: dropped)."""

    excluded: frozenset[str]

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = record.value_schema
        if record.value is None or schema is None or not schema.name or not schema.name.endswith(
                (".SchemaChangeValue", ".SchemaChangeKey")):
            return record
        index = next((i for i, f in enumerate(schema.fields) if f.name == "tableChanges"), None)
        changes = None if index is None else _field(schema, record.value, index)
        if changes is None:
            return None
        if not changes:
            kind = "DATABASE"
        else:
            item = schema.fields[index].schema.items  # type: ignore[index]
            assert item is not None
            kind = _field(item, changes[0], next(i for i, f in enumerate(item.fields) if f.name == "type"))
        return None if kind in self.excluded else record


def _field(schema, value, index: int):  # type: ignore[no-untyped-def]
    return value.get(schema.fields[index].name) if isinstance(value, dict) else value[index]


@dataclass(frozen=True)
class TopicNameMatches:
    pattern: re.Pattern[str]

    def test(self, record: ConnectRecord) -> bool:
        return self.pattern.fullmatch(record.topic) is not None


@dataclass(frozen=True)
class HasHeaderKey:
    name: str

    def test(self, record: ConnectRecord) -> bool:
        return any(key == self.name for key, _ in record.headers)


@dataclass(frozen=True)
class RecordIsTombstone:
    def test(self, record: ConnectRecord) -> bool:
        return record.value is None


@dataclass(frozen=True)
class Guarded:
    """A transform applied only where its predicate holds (or does not, with `negate`), as Connect's
    `TransformationStage`."""

    transform: _Transform
    predicate: Predicate
    negate: bool

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if self.predicate.test(record) != self.negate:
            return self.transform.apply(record)
        return record
