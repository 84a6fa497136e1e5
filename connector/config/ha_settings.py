"""Settings of high availability: one active instance among those started with the same configuration
(connector/ha/)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

from connector.config.declared import prop, read_declared
from connector.config.reader import PropertyReader

__all__ = ["HaSettings", "ha_problems", "ha_settings"]


@dataclass(frozen=True)
class HaSettings:
    enabled: bool = prop("ha.enabled")
    takeover_ms: int = prop("ha.takeover.ms")
    lease_topic: str = ""  # ha.lease.topic, default `<topic.prefix>.ha-lease`
    instance_id: str = ""  # ha.instance.id, default `<hostname>-<pid>`

    @property
    def session_timeout_ms(self) -> int:
        """The lease consumer's session: a dead member is noticed after it, and the group rebalances after that
        (a heartbeat interval on Apache Kafka, half a session on Tansu), all within the takeover bound."""
        return self.takeover_ms * 3 // 5

    @property
    def heartbeat_interval_ms(self) -> int:
        return max(100, self.session_timeout_ms // 6)


def ha_settings(r: PropertyReader, prefix: str) -> HaSettings:
    return read_declared(HaSettings, r, lease_topic=r.get("ha.lease.topic") or f"{prefix}.ha-lease",
                         instance_id=r.get("ha.instance.id") or f"{socket.gethostname()}-{os.getpid()}")


def ha_problems(ha: HaSettings, transactional: bool, offsets_in_kafka: bool, history_in_kafka: bool) -> list[str]:
    """HA needs a transactional producer: only its epoch lets Kafka refuse the writes of a former active instance
    that comes back after a freeze or a network cut (records it had queued are sent by the client library before
    any check of ours could run), so without it two instances could write at once. Offsets and the schema history
    must be in Kafka too: a file stays on the machine that died."""
    if not ha.enabled:
        return []
    problems = []
    if not history_in_kafka:
        problems.append("ha.enabled=true needs the schema history in Kafka (schema.history.internal="
                        "io.debezium.storage.kafka.history.KafkaSchemaHistory): a standby on another machine "
                        "cannot read a history file")
    if transactional and offsets_in_kafka:
        return problems
    return [*problems, ("ha.enabled=true needs exactly-once delivery, whose transactional.id epochs fence a former active "
             "instance: set debezium.sink.kafka.producer.transactional.id (the same on every instance) and "
             "offset.storage.topic")]
