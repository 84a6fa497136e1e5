"""KafkaWriter configuration (no broker needed): defaults, Java-property translation, key hashing."""

from __future__ import annotations

import logging

import pytest

from connector.kafka.producer_config import buffer_memory
from connector.kafka.writer import (
    KafkaConfigError,
    KafkaWriter,
    build_producer_config,
    connection_config,
    java_default_partition,
    java_murmur2,
)


def test_defaults_match_the_java_producer() -> None:
    config = build_producer_config({"bootstrap.servers": "b:9092"})
    # enable.sparse.connections=false: librdkafka connects to the brokers the metadata names at once, so the
    # idempotent producer id (requested only over such a connection, retried every 500 ms) is there 0.5 s after
    # the start instead of ~1 s (measured on Tansu); the Java producer has no such wait
    assert config == {"bootstrap.servers": "b:9092", "acks": "all", "enable.idempotence": "true",
                      "partitioner": "murmur2_random", "enable.sparse.connections": "false"}


def test_debezium_server_overrides_win() -> None:
    config = build_producer_config({"bootstrap.servers": "b:9092", "acks": "1", "enable.idempotence": "false",
                                    "linger.ms": "20", "compression.type": "zstd"})
    assert config["acks"] == "1" and config["enable.idempotence"] == "false"
    assert config["linger.ms"] == "20" and config["compression.type"] == "zstd"


def test_java_only_properties_are_translated_or_ignored(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        config = build_producer_config({
            "bootstrap.servers": "b:9092",
            "key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
            "max.request.size": "2097152",
            "sasl.mechanism": "PLAIN",
            "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                                'username="alice" password="s3cret";',
            "partitioner.class": "org.apache.kafka.clients.producer.internals.DefaultPartitioner",
        })
    assert "key.serializer" not in config and "key.serializer" in caplog.text
    assert config["message.max.bytes"] == "2097152"
    assert config["sasl.mechanisms"] == "PLAIN"
    assert config["sasl.username"] == "alice" and config["sasl.password"] == "s3cret"
    assert config["partitioner"] == "murmur2_random"
    assert "s3cret" not in caplog.text


def test_unsupported_properties_are_all_reported_together() -> None:
    with pytest.raises(KafkaConfigError) as caught:
        build_producer_config({"ssl.truststore.location": "/x.jks",
                               "partitioner.class": "com.example.MyPartitioner",
                               "sasl.jaas.config": "com.example.Login required;"})
    message = str(caught.value)
    for expected in ("ssl.truststore.location", "cannot be read", "com.example.MyPartitioner",
                     "sasl.jaas.config", "bootstrap.servers is required"):
        assert expected in message


def test_typos_fail_loudly() -> None:
    with pytest.raises(KafkaConfigError, match="lingr.ms"):
        KafkaWriter({"bootstrap.servers": "127.0.0.1:1", "lingr.ms": "5"}, max_in_flight_records=10)
    with pytest.raises(KafkaConfigError, match="max_in_flight_records"):
        KafkaWriter({"bootstrap.servers": "127.0.0.1:1"}, max_in_flight_records=0)


def test_connection_config_keeps_only_how_to_reach_the_cluster() -> None:
    config = build_producer_config({"bootstrap.servers": "b:9092", "security.protocol": "SASL_SSL",
                                    "sasl.username": "u", "ssl.ca.location": "/ca.pem", "linger.ms": "5"})
    assert connection_config(config) == {"bootstrap.servers": "b:9092", "security.protocol": "SASL_SSL",
                                         "sasl.username": "u", "ssl.ca.location": "/ca.pem"}


@pytest.mark.parametrize("text, expected", [
    # Kafka's UtilsTest.testMurmur2 vectors.
    ("21", -973932308),
    ("foobar", -790332482),
    ("a-little-bit-long-string", -985981536),
    ("a-little-bit-longer-string", -1486304829),
    ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
    ("abc", 479470107),
    # Checked with org.apache.kafka.common.utils.Utils.murmur2 from kafka-clients 4.3.0.
    ('["dbz-ref",{"server":"dbserver1"}]', -1720726815),
])
def test_murmur2_matches_kafka(text: str, expected: int) -> None:
    assert java_murmur2(text.encode()) == expected


def test_default_partition_is_positive_modulo() -> None:
    assert java_default_partition(b'["dbz-ref",{"server":"dbserver1"}]', 25) == (
        (-1720726815 & 0x7FFFFFFF) % 25)


def test_buffer_memory_bounds_the_writer_and_is_not_passed_to_librdkafka() -> None:
    # The Java producer's buffer.memory (default 32 MB) is the writer's bound on un-acknowledged bytes.
    assert buffer_memory({"bootstrap.servers": "b:9092"}) == 33_554_432
    assert buffer_memory({"buffer.memory": "1048576"}) == 1_048_576
    assert "buffer.memory" not in build_producer_config({"bootstrap.servers": "b:9092", "buffer.memory": "1048576"})
    with pytest.raises(KafkaConfigError, match="buffer.memory=-1 must be a positive number of bytes"):
        build_producer_config({"bootstrap.servers": "b:9092", "buffer.memory": "-1"})
    with pytest.raises(KafkaConfigError, match="buffer.memory=lots"):
        KafkaWriter({"bootstrap.servers": "127.0.0.1:1", "buffer.memory": "lots"}, max_in_flight_records=10)
