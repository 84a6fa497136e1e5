"""Configuration loading: Debezium Server properties, Kafka Connect JSON, environment, errors."""
from __future__ import annotations

import json

import re

import pytest

from connector.config import load_config
from connector.config.loaders import env_to_properties, parse_java_properties
from connector.config.modes import DecimalHandlingMode, SnapshotMode
from connector.config.settings import HISTORY_FILE, OFFSETS_FILE, OFFSETS_KAFKA
from connector.errors import ConfigError
from connector.transforms.config import transform_settings

SERVER = """\
# Debezium Server
debezium.sink.type=kafka
debezium.sink.kafka.producer.bootstrap.servers=127.0.0.1:9092
debezium.source.connector.class=io.debezium.connector.mysql.MySqlConnector
debezium.source.database.hostname=db.example
debezium.source.database.user=debezium
debezium.source.database.password=s3cret
debezium.source.database.server.id=5401
debezium.source.topic.prefix=dbserver1
debezium.source.schema.history.internal.kafka.topic=history
"""


def write(tmp_path, text, name="application.properties"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_debezium_defaults_and_names(tmp_path):
    s = load_config(write(tmp_path, SERVER), environ={}).settings(transform_settings)
    assert s.topics.prefix == "dbserver1"
    assert s.database.port == 3306
    assert s.snapshot.mode is SnapshotMode.INITIAL
    assert s.events.decimal_handling_mode is DecimalHandlingMode.PRECISE
    assert s.events.skipped_operations == frozenset({"t"})
    assert s.events.tombstones_on_delete and s.events.include_schema_changes
    assert not s.events.provide_transaction_metadata
    # Debezium Server keeps offsets in data/offsets.dat by default
    assert s.offsets.store == OFFSETS_FILE and s.offsets.file_filename == "data/offsets.dat"
    assert s.history.kafka_bootstrap_servers == "127.0.0.1:9092"
    assert s.history.client_name == "dbserver1-schemahistory"
    assert s.partition_key == ["dbserver1", {"server": "dbserver1"}]


def test_secrets_never_printed(tmp_path):
    loaded = load_config(write(tmp_path, SERVER), environ={})
    s = loaded.settings(transform_settings)
    assert "s3cret" not in repr(s) and "s3cret" not in str(s.database)
    assert s.database.password.reveal() == "s3cret"
    assert loaded.redacted()["database.password"] == "********"


@pytest.mark.parametrize("name, masked", [
    ("database.password", True), ("schema.history.internal.kafka.sasl.jaas.config", True),
    ("x.credentials.json", True), ("database.connection.string", True), ("notification.sink.secret", True),
    ("database.user", False), ("database.hostname", False),
])
def test_debeziums_default_sanitize_pattern(name, masked):
    from connector.config.loaders import LoadedConfig
    from connector.config.settings import KafkaSettings

    loaded = LoadedConfig(source={name: "v"}, kafka=KafkaSettings(producer={}), warnings=[])
    assert (loaded.redacted()[name] == "********") is masked
    # a custom pattern replaces the default (Debezium's withMaskedPasswords)
    custom = LoadedConfig(source={name: "v", "custom.sanitize.pattern": r"database\.user"},
                          kafka=KafkaSettings(producer={}), warnings=[])
    assert (custom.redacted()[name] == "********") is (name == "database.user")


def test_every_problem_reported_at_once(tmp_path):
    text = SERVER.replace("debezium.source.database.server.id=5401\n", "") \
        .replace("debezium.source.topic.prefix=dbserver1\n", "") + "debezium.source.snapshot.mode=sometimes\n"
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text), environ={}).settings(transform_settings)
    message = str(err.value)
    assert "database.server.id is required" in message
    assert "topic.prefix is required" in message
    assert "snapshot.mode='sometimes'" in message and "initial" in message
    assert len(err.value.problems) == 3


def test_removed_snapshot_mode_names_the_new_one(tmp_path):
    with pytest.raises(ConfigError, match="use 'no_data' instead"):
        load_config(write(tmp_path, SERVER + "debezium.source.snapshot.mode=schema_only\n"), environ={}).settings(transform_settings)


def test_adaptive_time_precision_is_refused_like_debezium(tmp_path):
    # Debezium 3.6.3 (reference run): "The 'adaptive' time.precision.mode is no longer supported"
    with pytest.raises(ConfigError, match="time.precision.mode='adaptive'.*use 'adaptive_time_microseconds' instead"):
        load_config(write(tmp_path, SERVER + "debezium.source.time.precision.mode=adaptive\n"), environ={}).settings(transform_settings)


def test_unknown_properties_are_named(tmp_path):
    loaded = load_config(write(tmp_path, SERVER + "debezium.source.my.own.setting=x\nfoo.bar=1\n"), environ={})
    assert any("my.own.setting" in w for w in loaded.warnings)
    assert any("foo.bar" in w for w in loaded.warnings)


@pytest.mark.parametrize("typo, meant", [
    ("tabel.include.list", "table.include.list"),  # a swap: captured every table before (issue 24)
    ("Table.Include.List", "table.include.list"),
    ("snapshot.mdoe", "snapshot.mode"),
    ("database.hostnme", "database.hostname"),  # a JDBC pass-through name by its shape, but lower case
    ("signal.data.colection", "signal.data.collection"),  # the signal.* family pattern accepted it
])
def test_a_misspelt_property_stops_the_start_naming_the_property_meant(tmp_path, typo, meant):
    loaded = load_config(write(tmp_path, SERVER + f"debezium.source.{typo}=x\n"), environ={})
    assert not any(typo in w for w in loaded.warnings)
    with pytest.raises(ConfigError, match=re.escape(f"unknown property {typo}; did you mean {meant}?")):
        loaded.settings(transform_settings)


def test_a_misspelt_property_is_reported_with_the_other_problems(tmp_path):
    text = SERVER + "debezium.source.tabel.include.list=x\ndebezium.source.snapshot.mode=bogus\n"
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text), environ={}).settings(transform_settings)
    assert "tabel.include.list" in str(info.value) and "snapshot.mode" in str(info.value)
    assert len(info.value.problems) >= 2


@pytest.mark.parametrize("name", [
    "database.allowPublicKeyRetrieval", "database.sslMode",  # JDBC settings (camelCase), passed through
    "transforms.unwrp.type", "predicates.istomb.type",  # named by the user
    "schema.history.internal.producer.acks", "signal.kafka.consumer.max.poll.records",
    "column.truncate.to.10.chars", "my.own.setting",
])
def test_pass_through_and_distant_names_are_not_typos(name):
    from connector.config.loaders import typo_problems

    assert typo_problems({name: "x"}) == []


def test_jdbc_driver_properties_start_with_a_warning_naming_each(tmp_path):
    """Debezium passes database.<camelCase> to its JDBC driver; binlog-cdc has none, so it says so at start."""
    text = SERVER + ("debezium.source.database.connectionTimeZone=Europe/Berlin\n"
                     "debezium.source.database.allowPublicKeyRetrieval=true\n")
    loaded = load_config(write(tmp_path, text), environ={})
    jdbc = [w for w in loaded.warnings if "JDBC driver property" in w]
    assert [w.split()[0] for w in jdbc] == ["database.allowPublicKeyRetrieval", "database.connectionTimeZone"]
    assert "UTC session" in jdbc[1] and "UTC session" not in jdbc[0]
    assert not any("database.hostname" in w for w in loaded.warnings)  # a property of its own, not the driver's
    loaded.settings(transform_settings)  # accepted: the configuration carries over


def test_environment_overrides_file(tmp_path):
    env = {"DEBEZIUM_SOURCE_DATABASE_HOSTNAME": "other", "DEBEZIUM_SOURCE_SNAPSHOT_MODE": "no_data",
           "DEBEZIUM_SINK_KAFKA_PRODUCER_BOOTSTRAP_SERVERS": "k:1", "PATH": "/bin"}
    s = load_config(write(tmp_path, SERVER), environ=env).settings(transform_settings)
    assert s.database.hostname == "other"
    assert s.snapshot.mode is SnapshotMode.NO_DATA
    assert s.kafka.bootstrap_servers() == "k:1"
    assert env_to_properties({"DEBEZIUM_SOURCE_TABLE_INCLUDE_LIST": "a"}) == {"debezium.source.table.include.list": "a"}


def test_connect_json_with_kafka_flag(tmp_path):
    doc = {"name": "inventory-connector", "config": {
        "connector.class": "io.debezium.connector.mysql.MySqlConnector", "database.hostname": "h",
        "database.user": "u", "database.server.id": "184054", "topic.prefix": "p",
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename": "/tmp/h.dat",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false"}}
    path = write(tmp_path, json.dumps(doc), "connector.json")
    s = load_config(path, bootstrap="k:9092", producer_overrides={"linger.ms": "5"}, environ={}).settings(transform_settings)
    assert s.name == "inventory-connector"
    assert s.kafka.producer == {"bootstrap.servers": "k:9092", "linger.ms": "5"}
    assert s.history.store == HISTORY_FILE
    assert s.offsets.store == OFFSETS_KAFKA and s.offsets.topic == "connect-offsets"
    assert not s.kafka.value_schemas_enable and s.kafka.key_schemas_enable
    assert s.kafka.header_format == "simple"  # Connect's SimpleHeaderConverter


def test_missing_bootstrap_is_explained(tmp_path):
    text = SERVER.replace("debezium.sink.kafka.producer.bootstrap.servers=127.0.0.1:9092\n", "")
    with pytest.raises(ConfigError, match="bootstrap servers are missing"):
        load_config(write(tmp_path, text), environ={}).settings(transform_settings)


def test_unreadable_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read configuration file"):
        load_config(tmp_path / "nope.properties", environ={})


@pytest.mark.parametrize("text,expected", [
    ("a=b", {"a": "b"}),
    ("a = b c", {"a": "b c"}),
    ("a:b", {"a": "b"}),
    ("# c\n! d\na=1\\\n   2", {"a": "12"}),
    ("k\\:x=v\\u00e9\\t", {"k:x": "vé\t"}),
    ("regex=\\\\s*#[^\\\\n]*", {"regex": "\\s*#[^\\n]*"}),
])
def test_java_properties_syntax(text, expected):
    assert parse_java_properties(text) == expected


def test_issue_24_start_options(tmp_path):
    text = SERVER + ("debezium.source.custom.metric.tags=env=prod, team=cdc, env=test\n"
                     "debezium.source.binlog.net.read.timeout=30\ndebezium.source.streaming.delay.ms=500\n"
                     "debezium.source.gtid.ignore.on.recovery=true\n")
    s = load_config(write(tmp_path, text), environ={}).settings(transform_settings)
    assert s.metric_tags == (("env", "test"), ("team", "cdc"))  # in order, the last value of a repeated key
    assert s.database.binlog_session_statement() == "SET SESSION net_read_timeout=30"
    assert s.snapshot.streaming_delay_ms == 500 and s.gtid_ignore_on_recovery
    bad = SERVER + "debezium.source.custom.metric.tags=env,a-b=1\ndebezium.source.binlog.net.write.timeout=-1\n"
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, bad), environ={}).settings(transform_settings)
    assert "'env' is not a key=value pair" in str(err.value) and "must be zero or positive" in str(err.value)


def test_minimal_at_least_once_is_refused_as_debezium_3_6_3_refuses_it(tmp_path):
    text = SERVER + "debezium.source.snapshot.locking.mode=minimal_at_least_once\n"
    with pytest.raises(ConfigError, match="snapshot.locking.mode='minimal_at_least_once' is not one of: minimal, "):
        load_config(write(tmp_path, text), environ={}).settings(transform_settings)


def test_enforce_record_size_is_accepted_and_checks_its_options(tmp_path):
    text = SERVER + ("debezium.transforms=size\n"
                     "debezium.transforms.size.type=io.debezium.transforms.EnforceRecordSize\n"
                     "debezium.transforms.size.max.bytes=1000\n")
    load_config(write(tmp_path, text), environ={}).settings(transform_settings)
    with pytest.raises(ConfigError, match="Must be a positive integer"):
        load_config(write(tmp_path, text.replace("max.bytes=1000", "max.bytes=0")),
                    environ={}).settings(transform_settings)
