"""Topic administration for the connector's topics: create missing ones, read partitions and configs.

The admin client shares the producer's connection settings and never auto-creates a topic by asking
for its metadata (`allow.auto.create.topics=false`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from connector.kafka.errors import KafkaConfigError
from connector.kafka.producer_config import connection_config

__all__ = ["TopicAdmin", "TopicDescription", "TopicSpec"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TopicSpec:
    """A topic to create if missing; replication_factor -1 means the broker default (KIP-464)."""

    name: str
    partitions: int = 1
    replication_factor: int = -1
    config: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TopicDescription:
    name: str
    partitions: int
    configs: Mapping[str, str]


class TopicAdmin:
    """Lazily opens one AdminClient with the producer's connection settings (`producer_config`)."""

    def __init__(self, producer_config: Mapping[str, str], client_logger: logging.Logger) -> None:
        self._config = dict(producer_config)
        self._logger = client_logger
        self._admin: AdminClient | None = None

    def _client(self) -> AdminClient:
        if self._admin is None:
            # Metadata requests for one topic would otherwise auto-create it on brokers that allow it.
            self._admin = AdminClient({**connection_config(self._config), "allow.auto.create.topics": "false",
                                       "logger": self._logger})
        return self._admin

    def ensure_topics(self, specs: Iterable[TopicSpec], timeout_s: float = 30.0) -> list[str]:
        """Create the topics that do not exist yet; returns the names created. Existing topics are kept."""
        specs = list(specs)
        if not specs:
            return []
        new = [
            NewTopic(s.name, num_partitions=s.partitions, replication_factor=s.replication_factor,
                     config=dict(s.config))
            for s in specs
        ]
        created = []
        futures = self._client().create_topics(new, request_timeout=timeout_s)
        for name, future in futures.items():
            try:
                future.result(timeout=timeout_s)
                created.append(name)
                logger.info("Created topic %s", name)
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise KafkaConfigError(f"cannot create topic {name}: {exc.args[0]}") from exc
        return created

    def partition_count(self, topic: str, timeout_s: float = 10.0) -> int | None:
        """Partitions of `topic`, or None if it does not exist."""
        metadata = self._client().list_topics(topic=topic, timeout=timeout_s)
        found = metadata.topics.get(topic)
        if found is None or found.error is not None:
            return None
        return len(found.partitions)

    def describe_topic(self, name: str, timeout_s: float = 10.0) -> TopicDescription | None:
        """Partition count and topic configs, or None if the topic does not exist."""
        partitions = self.partition_count(name, timeout_s)
        if partitions is None:
            return None
        futures = self._client().describe_configs([ConfigResource(ResourceType.TOPIC, name)],
                                                  request_timeout=timeout_s)
        configs: dict[str, str] = {}
        for future in futures.values():
            entries = future.result(timeout=timeout_s)
            configs = {k: v.value for k, v in entries.items() if v.value is not None}
        return TopicDescription(name=name, partitions=partitions, configs=configs)
