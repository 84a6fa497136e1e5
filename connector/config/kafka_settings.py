"""Settings of the Kafka sink: the producer's properties and the key/value/header converters (built in loaders.py
from Debezium Server's `debezium.sink.kafka.producer.*` and `debezium.format.*`, or Connect's converter keys)."""

from __future__ import annotations

from dataclasses import dataclass, field

from connector.config.registry import RegistryAccess

__all__ = ["KafkaSettings"]


@dataclass(frozen=True)
class KafkaSettings:
    """The sink. `producer` holds librdkafka properties (bootstrap.servers, security, ...)."""

    producer: dict[str, str]
    key_format: str = "json"
    value_format: str = "json"
    header_format: str = "json"
    key_schemas_enable: bool = True
    value_schemas_enable: bool = True
    # Confluent Schema Registry for the avro format (`schema.registry.url`, comma-separated list)
    key_schema_registry_url: str | None = None
    value_schema_registry_url: str | None = None
    # credentials and TLS of each side's registry client (connector/config/registry.py)
    key_registry_access: RegistryAccess = field(default_factory=RegistryAccess)
    value_registry_access: RegistryAccess = field(default_factory=RegistryAccess)
    # value_format=cloudevents: the converter's extension.attributes.enable (json.schemas.enable is
    # value_schemas_enable, the schema of its `data`)
    value_cloudevents_extensions: bool = True

    def bootstrap_servers(self) -> str | None:
        return self.producer.get("bootstrap.servers")

