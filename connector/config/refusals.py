"""Known Debezium / Kafka Connect properties whose behaviour binlog-cdc does not implement, as data.

Setting one stops the start with a problem naming it and saying what to do instead: a silently ignored
property is a wrong result (a configured `snapshot.locking.mode.custom.name` would still lock as before).
A value equal to Debezium's default asks for nothing, so it is accepted where listed in `allowed`.
`transforms.*` and `predicates.*` are checked class by class in connector/transforms/config.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

__all__ = ["REFUSALS", "Refusal", "is_refused_name", "refused_properties"]


@dataclass(frozen=True)
class Refusal:
    pattern: str  # full match on the property name
    fix: str
    allowed: tuple[str, ...] = ()  # values that ask for nothing beyond what binlog-cdc does (case-insensitive)

    def matches(self, name: str) -> bool:
        return re.fullmatch(self.pattern, name) is not None


REFUSALS: tuple[Refusal, ...] = (
    # post.processors (ReselectColumnsPostProcessor) is implemented: connector/config/post_processors.py
    # notification.enabled.channels (log, sink) and notification.sink.topic.name are implemented
    # (connector/notifications); jmx is refused by channel name in signal_settings.py
    Refusal(r"notification\.(?!enabled\.channels$|sink\.topic\.name$).+",
            "only notification.enabled.channels and notification.sink.topic.name are implemented; remove it"),
    # signal.* (source, kafka and file channels), incremental.snapshot.chunk.size and .watermarking.strategy and
    # read.only are implemented (connector/signals); the channels and strategies they refuse are refused there;
    # incremental.snapshot.allow.schema.changes is implemented (snapshot/incremental/source.py)
    Refusal(r"database\.jdbc\.driver", "binlog-cdc does not use JDBC; remove it",
            ("com.mysql.cj.jdbc.driver", "org.mariadb.jdbc.driver")),
    Refusal(r"database\.protocol", "binlog-cdc does not use JDBC; remove it", ("jdbc:mysql", "jdbc:mariadb")),
    Refusal(r"ddl\.parser\.type", "binlog-cdc has its own DDL parser; remove it", ("default", "antlr")),
    # event.converting.failure.handling.mode (fail, warn, skip) is implemented (connector/converters/enum_set.py)
    # topic.naming.strategy: Debezium's six MySQL strategies are implemented (connector/events/topic_names.py)
    Refusal(r"topic\.naming\.strategy", "a custom topic naming strategy is a Java class, which a Python connector "
            "cannot load; use one of io.debezium.schema.DefaultTopicNamingStrategy, DefaultUnicodeTopicNamingStrategy, "
            "SchemaTopicNamingStrategy, SchemaUnicodeTopicNamingStrategy, DefaultRegexTopicNamingStrategy or "
            "SchemaRegexTopicNamingStrategy, and route topics with transforms (RegexRouter)",
            tuple(f"io.debezium.schema.{n.lower()}topicnamingstrategy"
                  for n in ("Default", "DefaultUnicode", "Schema", "SchemaUnicode", "DefaultRegex", "SchemaRegex"))),
    Refusal(r"source\.struct\.version", "only source.struct.version=v2 exists in Debezium 3; remove it", ("v2",)),
    Refusal(r"tasks\.max", "a MySQL connector has exactly one task; set tasks.max=1", ("1",)),
    # Debezium 3.5+: with snapshot.max.threads > 1 one table is split into threads x multiplier primary-key ranges
    # (ChunkBoundaryCalculator); binlog-cdc's readers read whole tables, so only the default asks for nothing.
    Refusal(r"snapshot\.max\.threads\.multiplier", "binlog-cdc's snapshot readers read whole tables, one table "
            "per reader (snapshot.max.threads spreads tables, not key ranges of one table); remove it", ("1",)),
    Refusal(r"snapshot\.locking\.mode\.custom\.name", "custom snapshot locks are Java classes a Python connector "
            "cannot load; use snapshot.locking.mode=minimal, extended or none"),
    # errors.tolerance, errors.log.enable and errors.log.include.messages are implemented (dispatch/encoder.py)
    Refusal(r"errors\.deadletterqueue\..+", "a dead-letter queue is a Kafka Connect setting of sink connectors only "
            "(Connect has none for a source connector such as Debezium's MySQL connector, and Debezium Server none "
            "at all): with errors.tolerance=all a refused record is skipped, and logged with errors.log.enable=true; "
            "remove it", ("false",)),
    Refusal(r"header\.converter(\..+)?", "Kafka Connect JSON: headers are written by SimpleHeaderConverter; "
            "remove it (Debezium Server properties: debezium.format.header=json)",
            ("org.apache.kafka.connect.storage.simpleheaderconverter",)),
    # StringConverter is implemented (connector/serde/string_converter.py), Confluent's ProtobufConverter too
    # (connector/serde/protobuf.py); any other class is a Java converter a Python connector cannot load.
    Refusal(r"key\.converter", "only JsonConverter, Confluent's AvroConverter and ProtobufConverter and Kafka's "
            "StringConverter are implemented for keys; use one of them",
            ("org.apache.kafka.connect.json.jsonconverter", "io.confluent.connect.avro.avroconverter",
             "io.confluent.connect.protobuf.protobufconverter", "org.apache.kafka.connect.storage.stringconverter")),
    Refusal(r"value\.converter", "only JsonConverter, Confluent's AvroConverter and ProtobufConverter, Kafka's "
            "StringConverter and Debezium's CloudEventsConverter are implemented; use one of them",
            ("org.apache.kafka.connect.json.jsonconverter", "io.confluent.connect.avro.avroconverter",
             "io.confluent.connect.protobuf.protobufconverter", "org.apache.kafka.connect.storage.stringconverter",
             "io.debezium.converters.cloudeventsconverter")),
)


def _refusal(name: str) -> Refusal | None:
    for refusal in REFUSALS:
        if refusal.matches(name):
            return refusal
    return None


def is_refused_name(name: str) -> bool:
    """Whether `name` is a known property that binlog-cdc refuses (at least for some values)."""
    return _refusal(name) is not None


def refused_properties(raw: Mapping[str, str]) -> list[str]:
    """One problem per property set in `raw` whose behaviour is not implemented."""
    problems = []
    for name in sorted(raw):
        refusal = _refusal(name)
        value = raw[name].strip().lower()
        # an empty value leaves the property unset
        if refusal is not None and value and value not in refusal.allowed:
            problems.append(f"{name}={raw[name]}: {refusal.fix}")
    return problems
