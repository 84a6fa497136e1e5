"""Format settings: Debezium Server `debezium.format.*` and Kafka Connect converter properties."""
from __future__ import annotations

import json

import pytest

from connector.config.loaders import load_config
from connector.errors import ConfigError
from connector.serde.avro import AvroSide, JsonSide, record_serializer

BASE = ("debezium.sink.type=kafka\ndebezium.sink.kafka.producer.bootstrap.servers=127.0.0.1:9092\n"
        "debezium.source.topic.prefix=p\ndebezium.source.database.hostname=h\ndebezium.source.database.user=u\n"
        "debezium.source.database.server.id=1\n")


def _server(tmp_path, extra: str):
    path = tmp_path / "application.properties"
    path.write_text(BASE + extra)
    return load_config(path, environ={}).kafka


def test_server_avro_value_and_key(tmp_path):
    kafka = _server(tmp_path, "debezium.format.value=avro\ndebezium.format.key=avro\n"
                              "debezium.format.value.schema.registry.url=http://r:8081\n"
                              "debezium.format.key.schema.registry.url=http://r:8081\n")
    assert (kafka.key_format, kafka.value_format) == ("avro", "avro")
    assert kafka.key_schema_registry_url == kafka.value_schema_registry_url == "http://r:8081"
    serializer = record_serializer(kafka.key_format, kafka.value_format,
                                   key_registry_url=kafka.key_schema_registry_url,
                                   value_registry_url=kafka.value_schema_registry_url)
    assert isinstance(serializer.key, AvroSide) and isinstance(serializer.value, AvroSide)
    assert serializer.key._registry is serializer.value._registry  # one client, one cache


def test_server_avro_needs_a_registry(tmp_path):
    with pytest.raises(ConfigError, match="debezium.format.value.schema.registry.url"):
        _server(tmp_path, "debezium.format.value=avro\n")


def test_server_json_without_schemas(tmp_path):
    kafka = _server(tmp_path, "debezium.format.value.schemas.enable=false\n")
    assert (kafka.key_schemas_enable, kafka.value_schemas_enable) == (True, False)
    assert record_serializer(kafka.key_format, kafka.value_format) is None  # the JSON text fast path


def test_connect_json_avro_converter(tmp_path):
    path = tmp_path / "connector.json"
    path.write_text(json.dumps({"name": "c", "config": {
        "connector.class": "io.debezium.connector.mysql.MySqlConnector", "topic.prefix": "p",
        "database.hostname": "h", "database.user": "u", "database.server.id": "1",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": "http://r:8081"}}))
    kafka = load_config(path, bootstrap="127.0.0.1:9092", environ={}).kafka
    assert (kafka.key_format, kafka.value_format, kafka.key_schemas_enable) == ("json", "avro", False)
    serializer = record_serializer(kafka.key_format, kafka.value_format,
                                   value_registry_url=kafka.value_schema_registry_url,
                                   key_schemas_enable=kafka.key_schemas_enable)
    assert serializer.key == JsonSide(False) and isinstance(serializer.value, AvroSide)
