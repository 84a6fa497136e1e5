"""Converter options (issue 16): each is implemented, accepted with the only value binlog-cdc honours, or refused
by name with what to do; nothing is accepted and ignored."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from connector.config.loaders import load_connect_json, load_server_properties
from connector.config.refusals import refused_properties
from connector.errors import ConfigError
from connector.transforms.config import transform_settings
from tests.support.waiting import PROCESS_BOUND_S

SERVER = {"debezium.sink.type": "kafka"}
AVRO = {**SERVER, "debezium.format.value": "avro", "debezium.format.value.schema.registry.url": "http://r:8081"}
PROTOBUF = {**SERVER, "debezium.format.value": "protobuf", "debezium.format.value.schema.registry.url": "http://r:8081"}


@pytest.mark.parametrize("props", [
    {"debezium.format.value.schemas.enable": "false", "debezium.format.schemas.cache.size": "10"},
    {"debezium.format.key.decimal.format": "base64", "debezium.format.replace.null.with.default": "true"},
    {"debezium.format.header.schemas.enable": "true"},
    # a shared option one converter implements and the other lacks: Debezium Server hands it to both
    {"debezium.format.value": "avro", "debezium.format.schema.registry.url": "http://r:8081"},
    {**AVRO, "debezium.format.value.auto.register.schemas": "true", "debezium.format.value.schemas.cache.config": "5"},
    # ProtobufConverter: its defaults, and the options that act only when reading records back
    {**PROTOBUF, "debezium.format.value.skip.known.types": "true",
     "debezium.format.value.wrapper.for.nullables": "false", "debezium.format.value.optional.for.proto2": "false",
     "debezium.format.value.enhanced.protobuf.schema.support": "true"},
])
def test_implemented_options_are_accepted(props):
    loaded = load_server_properties({**SERVER, **props})
    assert not [w for w in loaded.warnings if "converter" in w]


@pytest.mark.parametrize("props, message", [
    ({"debezium.format.value.frobnicate": "1"},
     "debezium.format.value.frobnicate is not implemented by binlog-cdc (it writes the value as JSON"),
    ({"debezium.format.frobnicate": "1"}, "debezium.format.frobnicate is not implemented"),
    ({"debezium.format.decimal.format": "NUMERIC"},
     "debezium.format.decimal.format=NUMERIC: binlog-cdc's JSON converter always does decimal.format=BASE64"),
    ({"debezium.format.value.replace.null.with.default": "false"}, "always does replace.null.with.default=true"),
    ({"debezium.format.header.schemas.enable": "false"}, "writes JSON headers with their schema"),
    ({"debezium.format.header": "simple", "debezium.format.header.schemas.enable": "true"},
     "SimpleHeaderConverter takes no options"),
    # the key is JSON: its converter has no registry
    ({"debezium.format.key.schema.registry.url": "http://r:8081"}, "debezium.format.key.schema.registry.url is not"),
    ({**AVRO, "debezium.format.value.schemas.enable": "false"}, "value.schemas.enable is not implemented"),
    ({**AVRO, "debezium.format.value.use.latest.version": "true"}, "always does use.latest.version=false"),
    ({**AVRO, "debezium.format.value.enhanced.avro.schema.support": "true"},
     "AvroConverter options implemented: schema.registry.url"),
    ({**PROTOBUF, "debezium.format.value.wrapper.for.nullables": "true"},
     "binlog-cdc's Protobuf converter always does wrapper.for.nullables=false"),
    ({**PROTOBUF, "debezium.format.value.skip.known.types": "false"}, "always does skip.known.types=true"),
    ({**PROTOBUF, "debezium.format.value.enhanced.avro.schema.support": "true"},
     "ProtobufConverter options implemented: schema.registry.url"),
])
def test_unimplemented_options_stop_the_start_by_name(props, message):
    with pytest.raises(ConfigError) as err:
        load_server_properties({**SERVER, **props})
    assert message in str(err.value) and "remove" in str(err.value)
    assert len(err.value.problems) == 1


BASE_CONNECT = {"connector.class": "io.debezium.connector.mysql.MySqlConnector", "database.hostname": "h",
                "topic.prefix": "p", "database.server.id": "5"}


def _connect(config: dict[str, str]):
    return load_connect_json({"name": "c", "config": config}, None, {})


def test_connect_converter_options_and_classes():
    loaded = _connect({"value.converter": "org.apache.kafka.connect.json.JsonConverter",
                       "value.converter.schemas.enable": "false", "key.converter.schemas.cache.size": "5"})
    assert not loaded.kafka.value_schemas_enable and loaded.kafka.key_schemas_enable
    with pytest.raises(ConfigError, match=r"value.converter.foo is not implemented .*remove it"):
        _connect({"value.converter.foo": "1"})
    with pytest.raises(ConfigError, match=r"key.converter.decimal.format=NUMERIC: .*always does decimal.format=BASE64"):
        _connect({"key.converter.decimal.format": "NUMERIC"})
    # another class would have been written as JSON: refused by name when the settings are built (refusals.py)
    with pytest.raises(ConfigError, match=r"key.converter"):
        _connect({**BASE_CONNECT, "key.converter": "io.apicurio.registry.utils.converter.AvroConverter"}).settings(
            transform_settings)


def test_protobuf_converter_needs_a_registry_and_is_taken_from_either_format():
    loaded = _connect({**BASE_CONNECT, "key.converter": "io.confluent.connect.protobuf.ProtobufConverter",
                       "key.converter.schema.registry.url": "http://user:pw@r:8081"})
    assert (loaded.kafka.key_format, loaded.kafka.key_schema_registry_url) == ("protobuf", "http://r:8081")
    assert loaded.kafka.key_registry_access.basic_auth is not None
    assert refused_properties(loaded.source) == []  # the class is not refused by name (refusals.py)
    assert load_server_properties(PROTOBUF).kafka.value_format == "protobuf"
    with pytest.raises(ConfigError, match=r"debezium.format.value=protobuf needs a Schema Registry"):
        load_server_properties({**SERVER, "debezium.format.value": "protobuf"})
    with pytest.raises(ConfigError, match=r"with the Protobuf converter set encode.workers=0"):
        _connect({**BASE_CONNECT, "value.converter": "io.confluent.connect.protobuf.ProtobufConverter",
                  "value.converter.schema.registry.url": "http://r:8081", "encode.workers": "2"}).settings(
            transform_settings)


def test_cli_validate_refuses_an_unimplemented_converter_option(tmp_path: Path):
    config = tmp_path / "application.properties"
    config.write_text("debezium.sink.type=kafka\n"
                      "debezium.sink.kafka.producer.bootstrap.servers=localhost:9\n"
                      "debezium.source.connector.class=io.debezium.connector.mysql.MySqlConnector\n"
                      "debezium.source.database.hostname=localhost\n"
                      "debezium.source.topic.prefix=p\n"
                      "debezium.source.database.server.id=5\n"
                      "debezium.format.value.decimal.format=NUMERIC\n")
    run = subprocess.run([str(Path(sys.executable).with_name("binlog-cdc")), "validate", str(config)],
                         capture_output=True, text=True, timeout=PROCESS_BOUND_S)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "debezium.format.value.decimal.format=NUMERIC" in run.stderr and "(ignored)" not in run.stderr
