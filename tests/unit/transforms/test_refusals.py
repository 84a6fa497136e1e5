"""Honest configuration: every Debezium MySQL property is implemented or refused by name; transforms and
predicates are checked class by class and option by option at start."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from connector.config.fields import BY_NAME, PATTERN_PROPERTIES, is_known
from connector.config.loaders import load_server_properties
from connector.config.refusals import REFUSALS, is_refused_name, refused_properties
from connector.errors import ConfigError
from connector.transforms.config import transform_settings

PROPERTIES_TSV = Path("/work/shared/debezium-properties.tsv")
BASE = {
    "debezium.sink.type": "kafka",
    "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:9092",
    "debezium.source.database.hostname": "db",
    "debezium.source.database.user": "u",
    "debezium.source.database.server.id": "5401",
    "debezium.source.topic.prefix": "dbserver1",
    "debezium.source.schema.history.internal.kafka.topic": "history",
}


def settings_problems(extra: dict[str, str]) -> list[str]:
    try:
        load_server_properties({**BASE, **extra}).settings(transform_settings)
    except ConfigError as exc:
        return exc.problems
    return []


def debezium_properties() -> list[str]:
    names = []
    for line in PROPERTIES_TSV.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) > 1 and parts[0] == "mysql":
            # documentation placeholders (`_length_`, `_hashAlgorithm_`) become concrete names
            names.append(re.sub(r"_length_", "12", re.sub(r"_hashAlgorithm_", "SHA-256", re.sub(r"_salt_", "s", parts[1]))))
    return names


@pytest.mark.skipif(not PROPERTIES_TSV.exists(), reason="the shared Debezium property list is not on this machine")
def test_every_debezium_property_is_implemented_or_refused_by_name() -> None:
    names = debezium_properties()
    assert len(names) > 90
    for name in names:
        implemented = name in BY_NAME or any(p.fullmatch(name) for p in PATTERN_PROPERTIES)
        assert implemented or is_refused_name(name), f"{name}: neither implemented nor refused"
        assert is_known(name)
        if is_refused_name(name):
            problems = settings_problems({f"debezium.source.{name}": "some-other-value"})
            assert any(p.startswith(f"{name}=some-other-value: ") for p in problems), (name, problems)


def test_a_refused_property_at_its_debezium_default_asks_for_nothing() -> None:
    assert refused_properties({"tasks.max": "1", "read.only": "false", "converters": "",
                               "incremental.snapshot.chunk.size": "1024", "snapshot.max.threads.multiplier": "1"}) == []
    assert refused_properties({"snapshot.max.threads.multiplier": "4"})[0].startswith(
        "snapshot.max.threads.multiplier=4: binlog-cdc's snapshot readers read whole tables")
    assert refused_properties({"tasks.max": "2"}) == ["tasks.max=2: a MySQL connector has exactly one task; "
                                                      "set tasks.max=1"]


@pytest.mark.parametrize("name", ["notification.jmx.enabled"])
def test_issue_16_families_stop_the_start_by_name(name: str) -> None:
    problems = settings_problems({f"debezium.source.{name}": "x"})
    assert len(problems) == 1 and problems[0].startswith(f"{name}=x: ")


@pytest.mark.parametrize("extra, expected", [
    ({"converters": "x"}, "x.type='': required (converters lists x)"),
    ({"converters": "x", "x.type": "com.acme.MyConverter"},
     "x.type='com.acme.MyConverter': only Debezium's TinyIntOneToBooleanConverter, JdbcSinkDataTypesConverter and "
     "ZeroDateFallbackConverter"),
    ({"converters": "z", "z.type": "io.debezium.connector.binlog.converters.ZeroDateFallbackConverter",
      "z.fallback.datetime": "1970-01-01T00:00"}, "z.fallback.datetime='1970-01-01T00:00': binlog-cdc takes"),
    ({"converters": "j", "j.type": "io.debezium.connector.binlog.converters.JdbcSinkDataTypesConverter",
      "j.selector": "x"}, "j.selector: not an option of JdbcSinkDataTypesConverter"),
    ({"converters": "b", "b.type": "io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter",
      "b.lenght.checker": "false"}, "b.lenght.checker: not an option of TinyIntOneToBooleanConverter"),
])
def test_unimplemented_custom_converters_and_options_stop_the_start_by_name(extra, expected) -> None:
    problems = settings_problems({f"debezium.source.{k}": v for k, v in extra.items()})
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_every_refusal_says_what_to_do() -> None:
    for refusal in REFUSALS:
        assert re.search(r"remove|use|set|route", refusal.fix), refusal.pattern


def test_unknown_keys_keep_their_warning_and_do_not_stop() -> None:
    loaded = load_server_properties({**BASE, "debezium.source.no.such.thing": "1"})
    assert loaded.warnings == ["unknown connector property no.such.thing (ignored)"]
    loaded.settings(transform_settings)


UNWRAP = "io.debezium.transforms.ExtractNewRecordState"


def chain(**props: str) -> dict[str, str]:
    return {f"debezium.{k.replace('__', '.')}": v for k, v in props.items()}


OUTBOX = "io.debezium.transforms.outbox.EventRouter"


@pytest.mark.parametrize("extra, expected", [
    ({"debezium.transforms": "u", "debezium.transforms.u.type": "io.debezium.transforms.ExtractSchemaToNewRecord"},
     "transforms.u.type=io.debezium.transforms.ExtractSchemaToNewRecord: not implemented in binlog-cdc yet"),
    ({"debezium.transforms": "o", "debezium.transforms.o.type": OUTBOX,
      "debezium.transforms.o.table.fields.additional.placement": "type:nowhere"},
     "transforms.o.table.fields.additional.placement: 'type:nowhere' has placement 'nowhere'; use header, envelope"),
    ({"debezium.transforms": "o", "debezium.transforms.o.type": OUTBOX,
      "debezium.transforms.o.table.json.payload.null.behavior": "keep"},
     "transforms.o.table.json.payload.null.behavior='keep' must be one of ignore, optional_bytes"),
    ({"debezium.transforms": "t", "debezium.transforms.t.type": "org.apache.kafka.connect.transforms.TimestampRouter",
      "debezium.transforms.t.timestamp.field": "x"},
     "transforms.t.timestamp.field: not an option of TimestampRouter in binlog-cdc"),
    ({"debezium.transforms": "x", "debezium.transforms.x.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
      "debezium.transforms.x.field": "a.b", "debezium.transforms.x.field.syntax.version": "V2"},
     "transforms.x.field.syntax.version='V2': binlog-cdc implements V1"),
    ({"debezium.transforms": "h", "debezium.transforms.h.type": "org.apache.kafka.connect.transforms.InsertHeader",
      "debezium.transforms.h.header": "h", "debezium.transforms.h.value.literal": "2024-01-01"},
     "transforms.h.value.literal='2024-01-01': binlog-cdc takes true/false, an integer, or a word"),
    ({"debezium.transforms": "h", "debezium.transforms.h.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
      "debezium.transforms.h.fields": "a,b", "debezium.transforms.h.headers": "a", "debezium.transforms.h.operation": "copy"},
     "transforms.h.'fields' config must have the same number of elements as 'headers' config."),
    ({"debezium.transforms": "r", "debezium.transforms.r.type": "io.debezium.transforms.ByLogicalTableRouter",
      "debezium.transforms.r.topic.regex": "(.*)", "debezium.transforms.r.topic.replacement": "x",
      "debezium.transforms.r.key.field.regex": "(.*)"},
     "transforms.r.key.field.replacement must be non-empty if key.field.regex is set."),
    ({"debezium.transforms": "o", "debezium.transforms.o.type": OUTBOX,
      "debezium.transforms.o.tracing.span.context.field": "tracingspancontext"},
     "transforms.o.tracing.span.context.field: not an option of outbox.EventRouter"),
    ({"debezium.transforms": "u", "debezium.transforms.u.type": "io.debezium.transforms.Filter"},
     "transforms.u.type=io.debezium.transforms.Filter: runs Groovy/JavaScript"),
    ({"debezium.transforms": "u", "debezium.transforms.u.type": "com.acme.Mine"},
     "transforms.u.type=com.acme.Mine is not a transform binlog-cdc knows"),
    ({"debezium.transforms": "u", "debezium.transforms.u.type": UNWRAP, "debezium.transforms.u.drop.tombstones": "x"},
     "transforms.u.drop.tombstones: not an option of ExtractNewRecordState"),
    ({"debezium.transforms": "u", "debezium.transforms.u.type": UNWRAP,
      "debezium.transforms.u.delete.tombstone.handling.mode": "keep"},
     "transforms.u.delete.tombstone.handling.mode='keep' must be one of drop, tombstone, rewrite"),
    ({"debezium.transforms": "u", "debezium.transforms.u.type": UNWRAP, "debezium.transforms.u.predicate": "p"},
     "transforms.u.predicate=p: no such predicate"),
    ({"debezium.transforms": "u", "debezium.transforms.u.type": UNWRAP, "debezium.transforms.u.negate": "true"},
     "transforms.u.negate=true needs transforms.u.predicate"),
    ({"debezium.transforms": "u"}, "transforms.u.type is required"),
    ({"debezium.transforms.v.type": UNWRAP}, "transforms.v.type: transform 'v' is not listed in transforms="),
    ({"debezium.transforms": "r", "debezium.transforms.r.type": "org.apache.kafka.connect.transforms.RegexRouter",
      "debezium.transforms.r.regex": "a"}, "transforms.r.replacement is required by RegexRouter"),
    ({"debezium.transforms": "i", "debezium.transforms.i.type": "org.apache.kafka.connect.transforms.InsertField$Value",
      "debezium.transforms.i.offset.field": "o"}, "transforms.i.offset.field: not implemented in binlog-cdc"),
    ({"debezium.predicates": "p", "debezium.predicates.p.type":
      "org.apache.kafka.connect.transforms.predicates.TopicNameMatches"},
     "predicates.p.pattern is required by TopicNameMatches"),
])
def test_a_bad_transform_configuration_is_one_problem_naming_the_property(extra, expected) -> None:
    problems = settings_problems(extra)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_debezium_server_and_connect_spellings_give_the_same_chain() -> None:
    server = load_server_properties({**BASE, "debezium.transforms": "unwrap",
                                     "debezium.transforms.unwrap.type": UNWRAP,
                                     "debezium.transforms.unwrap.add.fields": "op,table"}).settings(transform_settings)
    source = load_server_properties({**BASE, "debezium.source.transforms": "unwrap",
                                     "debezium.source.transforms.unwrap.type": UNWRAP,
                                     "debezium.source.transforms.unwrap.add.fields": "op,table"}).settings(transform_settings)
    assert server.transforms == source.transforms
    (spec,) = server.transforms.transforms
    assert spec.cls == "ExtractNewRecordState" and dict(spec.options)["add.fields"] == "op,table"
    assert dict(spec.options)["delete.tombstone.handling.mode"] == "tombstone"  # defaults filled in
