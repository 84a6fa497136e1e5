"""Settings of high availability: one active instance among those started with the same configuration
(connector/ha/)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

from connector.config.declared import prop, read_declared
from connector.config.reader import PropertyReader

__all__ = ["HaSettings", "LeaseSession", "ha_problems", "ha_settings"]


@dataclass(frozen=True)
class HaSettings:
    enabled: bool = prop("ha.enabled")
    takeover_ms: int = prop("ha.takeover.ms")
    lease_topic: str = ""  # ha.lease.topic, default `<topic.prefix>.ha-lease`
    instance_id: str = ""  # ha.instance.id, default `<hostname>-<pid>`

    @property
    def lease_sessions(self) -> tuple[LeaseSession, ...]:
        """The lease consumer's sessions, preferred first. A dead member is noticed a session (plus up to a
        heartbeat) after its last heartbeat; the rebalance then takes a heartbeat interval on Apache Kafka and half
        a session on Tansu (bench/tansu_ha_probe.py). 40% of the takeover bound leaves ~35% of it, after the group
        handed the lease over, for the fence (init_transactions) and the first write on either. Where the brokers'
        group.min.session.timeout.ms refuses it (6000 on Apache Kafka, 40% of the default 10 s is 4000), 60%:
        Apache Kafka's rebalance is quick, so session + heartbeat + fence still fit."""
        return LeaseSession.of(self.takeover_ms * 2 // 5), LeaseSession.of(self.takeover_ms * 3 // 5)


@dataclass(frozen=True)
class LeaseSession:
    """session.timeout.ms and heartbeat.interval.ms of the lease consumer."""

    timeout_ms: int
    heartbeat_ms: int

    @classmethod
    def of(cls, timeout_ms: int) -> LeaseSession:
        # six heartbeats a session: a missed one or two (a loaded machine) do not cost the lease
        return cls(timeout_ms, max(100, timeout_ms // 6))


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
