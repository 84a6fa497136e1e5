"""Producer properties as Debezium Server users write them (Java client names) turned into librdkafka's:
defaults that match the Java producer, renamed and ignored properties, and the ones that cannot be honoured."""
from __future__ import annotations

import logging
from typing import Mapping

from connector.kafka.errors import KafkaConfigError
from connector.kafka.security import SECURITY_KEYS, translate_security

logger = logging.getLogger("connector.kafka.writer")

# Producer defaults; the Java producer's acks/idempotence defaults (Kafka >= 3.0) and its key hashing.
_DEFAULTS: dict[str, str] = {
    "acks": "all",
    "enable.idempotence": "true",
    "partitioner": "murmur2_random",
    # librdkafka asks for the idempotent producer id only once a broker learned from the metadata is connected,
    # and retries every 500 ms; connecting lazily (on the first record) makes that ~1 s after the start, eagerly
    # 0.5 s: the first record of a start or an HA takeover gets out half a second sooner.
    "enable.sparse.connections": "false",
}

# Java producer property -> librdkafka property of the same meaning under another name.
_RENAMED: dict[str, str] = {
    "max.request.size": "message.max.bytes",
    "send.buffer.bytes": "socket.send.buffer.bytes",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
}

# Java-only properties that are safe to drop, with the reason logged.
_IGNORED: dict[str, str] = {
    "key.serializer": "records are serialized by the connector",
    "value.serializer": "records are serialized by the connector",
    "max.block.ms": "send blocks on back-pressure; see block_timeout_s",
    "metric.reporters": "JMX reporters do not exist here",
    "interceptor.classes": "Java interceptors cannot run here",
    "client.dns.lookup": "librdkafka resolves every address itself",
}

# The Java producer's buffer.memory (bytes of records it holds before send() blocks), and its default: the
# KafkaWriter bounds the un-acknowledged bytes by it (librdkafka's own queue bound defaults to 1 GB).
BUFFER_MEMORY = "buffer.memory"
BUFFER_MEMORY_DEFAULT = 33_554_432

# Java-only properties that change security or placement: dropping them silently would be wrong.
_REJECTED: dict[str, str] = {
    "ssl.truststore.certificates": "use ssl.truststore.location (JKS, PKCS12 or PEM file) or ssl.ca.pem",
    "ssl.keystore.certificate.chain": "use ssl.keystore.location or ssl.certificate.pem",
    "ssl.keystore.key": "use ssl.keystore.location or ssl.key.pem",
    "sasl.login.callback.handler.class": "Java callback handlers cannot run here",
    "sasl.client.callback.handler.class": "Java callback handlers cannot run here",
}

# Java partitioner classes that behave like librdkafka's murmur2_random for keyed records.
_JAVA_DEFAULT_PARTITIONERS = {
    "org.apache.kafka.clients.producer.internals.DefaultPartitioner",
    "org.apache.kafka.clients.producer.internals.BuiltInPartitioner",
    "org.apache.kafka.clients.producer.UniformStickyPartitioner",
}

# Keys a consumer/admin client for the same cluster needs (connection and security only).
_CONNECTION_PREFIXES = (
    "bootstrap.servers", "security.protocol", "ssl.", "sasl.", "socket.", "client.id", "broker.",
    "api.version", "reconnect.", "metadata.", "log_level", "debug", "enable.ssl.", "topic.metadata.",
)


def build_producer_config(overrides: Mapping[str, str]) -> dict[str, str]:
    """librdkafka producer properties: our defaults, then `overrides` (Java or librdkafka spellings).

    Security properties are translated by `security.py` (stores read into PEM). Raises `KafkaConfigError`
    listing every property that cannot be honoured; `.problems` holds them one by one.
    """
    config = dict(_DEFAULTS)
    security = translate_security({k: str(v) for k, v in overrides.items()})
    config.update(security.config)
    problems: list[str] = list(security.problems)
    for key, value in overrides.items():
        value = str(value)
        if key in SECURITY_KEYS:
            continue
        if key == BUFFER_MEMORY:
            if _positive_int(value) is None:
                problems.append(f"buffer.memory={value} must be a positive number of bytes")
        elif key in _IGNORED:
            logger.warning("Ignoring producer property %s: %s", key, _IGNORED[key])
        elif key in _REJECTED:
            problems.append(f"{key} is not supported by librdkafka: {_REJECTED[key]}")
        elif key == "partitioner.class":
            if value.strip() in _JAVA_DEFAULT_PARTITIONERS:
                config["partitioner"] = "murmur2_random"
            else:
                problems.append(f"partitioner.class={value} cannot run here; use partitioner=<librdkafka name>")
        else:
            config[_RENAMED.get(key, key)] = value
    if "bootstrap.servers" not in config:
        problems.append("bootstrap.servers is required")
    if problems:
        error = KafkaConfigError("invalid producer configuration: " + "; ".join(problems),
                                 fix="correct or remove the debezium.sink.kafka.producer.* properties named")
        error.problems = problems  # one by one, for `binlog-cdc validate`
        raise error
    return config


def buffer_memory(overrides: Mapping[str, str]) -> int:
    """The bound on un-acknowledged bytes: `buffer.memory` if set (checked by `build_producer_config`), else
    the Java producer's default."""
    value = overrides.get(BUFFER_MEMORY)
    return BUFFER_MEMORY_DEFAULT if value is None else (_positive_int(str(value)) or BUFFER_MEMORY_DEFAULT)


def _positive_int(text: str) -> int | None:
    try:
        number = int(text.strip())
    except ValueError:
        return None
    return number if number > 0 else None


def connection_config(producer_config: Mapping[str, str]) -> dict[str, str]:
    """The subset of a client config that says how to reach and authenticate to the cluster."""
    return {k: v for k, v in producer_config.items() if k.startswith(_CONNECTION_PREFIXES)}


def producer_config_problems(overrides: Mapping[str, str]) -> list[str]:
    """Every reason `build_producer_config` would refuse `overrides` (for `binlog-cdc validate` and the start,
    before anything connects); [] when it is usable."""
    try:
        build_producer_config(overrides)
    except KafkaConfigError as exc:
        return list(getattr(exc, "problems", None) or [str(exc)])
    return []
