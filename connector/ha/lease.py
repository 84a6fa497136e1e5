"""The active-instance lease: a Kafka consumer group on a single-partition topic; the member assigned partition 0
is active.

Kafka is the only coordinator. A member that dies, freezes or loses the network stops heartbeating; after the
session timeout (40% of `ha.takeover.ms`; 60% where the brokers' group.min.session.timeout.ms refuses that:
connector/config/ha_settings.py) the group coordinator drops it and a rebalance hands partition 0 to a
waiting member. The cooperative-sticky assignor keeps partition 0 where it is while standbys join or leave (the
eager assignors would revoke it from the active instance at every join). Nothing is ever produced to or
committed on the lease topic: membership is the lease.

A lease alone cannot stop a frozen instance that wakes up from writing for a moment: its client library sends
what it had queued before any of our code runs. The transactional producer does that (connector/ha/__init__.py);
the lease only decides who initialises it, and tells a former active instance to stop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from confluent_kafka import Consumer, KafkaError, Message, TopicPartition

from connector.config.ha_settings import HaSettings, LeaseSession
from connector.ha.state import HaState
from connector.kafka.admin import TopicAdmin, TopicSpec
from connector.kafka.errors import KafkaConfigError
from connector.kafka.producer_config import connection_config

__all__ = ["KafkaLease", "LeaseConsumer"]

log = logging.getLogger(__name__)
_POLL_S = 0.2  # callbacks (assign, revoke, lost) run inside poll; the heartbeats run in librdkafka's own thread
# Group errors a standby would otherwise wait on for ever: the broker refuses the session or the group
_REFUSED = frozenset({KafkaError.INVALID_SESSION_TIMEOUT, KafkaError.GROUP_AUTHORIZATION_FAILED,
                      KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.INVALID_GROUP_ID})


class LeaseConsumer(Protocol):
    """What the lease needs of confluent_kafka.Consumer."""

    def subscribe(self, topics: list[str], on_assign: Callable, on_revoke: Callable, on_lost: Callable) -> None: ...
    def poll(self, timeout: float) -> Message | None: ...
    def close(self) -> None: ...


class KafkaLease:
    """`acquire` waits (as a standby) until this instance holds the lease; `on_lost(reason)` is called, from the
    lease thread, if it loses it afterwards; `release` leaves the group so a standby takes over at once."""

    def __init__(self, settings: HaSettings, producer_config: Mapping[str, str], state: HaState,
                 on_lost: Callable[[str], None],
                 make_consumer: Callable[[dict[str, object]], LeaseConsumer] = Consumer) -> None:
        self._settings = settings
        self._make_consumer = make_consumer
        self._session = settings.lease_sessions[0]
        self._producer_config = dict(producer_config)
        self._state = state
        self._on_lost = on_lost
        self._held = threading.Event()
        self._stop = threading.Event()
        self._consumer: LeaseConsumer | None = None
        self._thread: threading.Thread | None = None
        self._refused: KafkaError | None = None

    def acquire(self, stopped: Callable[[float], bool]) -> bool:
        """Block until this instance is active (True) or `stopped(timeout)` says a shutdown was asked for (False)."""
        s = self._settings
        TopicAdmin(self._producer_config, log).ensure_topics([TopicSpec(s.lease_topic, partitions=1)])
        sessions = s.lease_sessions
        for n, session in enumerate(sessions):
            self._join(session)
            log.info("HA: instance %s is a standby, waiting for the lease (group %s, session %d ms, takeover within "
                     "%d ms)", s.instance_id, s.lease_topic, session.timeout_ms, s.takeover_ms)
            while not self._held.is_set() and self._refused is None:
                if stopped(_POLL_S):
                    return False
            if self._held.is_set():
                log.info("HA: instance %s is active after %.1f s as a standby; it resumes from the committed offsets",
                         s.instance_id, time.monotonic() - self._state.waiting_since)
                return True
            refused = self._refused
            assert refused is not None
            if refused.code() != KafkaError.INVALID_SESSION_TIMEOUT or n == len(sessions) - 1:
                break
            log.info("HA: the brokers refuse a %d ms session (group.min.session.timeout.ms); the lease uses %d ms",
                     session.timeout_ms, sessions[n + 1].timeout_ms)
            self._leave()
        raise KafkaConfigError(
            f"the HA lease group {s.lease_topic} was refused: {self._refused}; its session.timeout.ms is "
            f"{self._session.timeout_ms} ({', then '.join(str(x.timeout_ms) for x in sessions)} tried: 40% then 60% "
            f"of ha.takeover.ms), which the brokers' group.min.session.timeout.ms and group.max.session.timeout.ms "
            f"must allow, and the user needs READ on the group and topic",
            fix="raise ha.takeover.ms (10000 or more on Apache Kafka's defaults) or grant the ACLs")

    def _join(self, session: LeaseSession) -> None:
        """Subscribe a new lease consumer with `session` and start the thread that polls it."""
        s = self._settings
        self._session, self._refused = session, None
        consumer = self._make_consumer({
            **connection_config(self._producer_config),
            "group.id": s.lease_topic, "client.id": f"binlog-cdc-ha-{s.instance_id}",
            "session.timeout.ms": str(session.timeout_ms), "heartbeat.interval.ms": str(session.heartbeat_ms),
            "partition.assignment.strategy": "cooperative-sticky", "enable.auto.commit": "false",
            "auto.offset.reset": "latest", "logger": log,
        })
        consumer.subscribe([s.lease_topic], on_assign=self._assigned, on_revoke=self._revoked,
                           on_lost=self._lost)
        self._consumer = consumer
        self._stop.clear()
        self._thread = threading.Thread(target=self._poll_loop, args=(consumer,), name="ha-lease", daemon=True)
        self._thread.start()

    @property
    def held(self) -> bool:
        return self._held.is_set()

    def release(self) -> None:
        """Leave the group (a standby takes over without waiting for the session to expire)."""
        self._leave()

    def _leave(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None

    # -- the lease thread ---------------------------------------------------------------------------------
    def _poll_loop(self, consumer: LeaseConsumer) -> None:
        while not self._stop.is_set():
            msg = consumer.poll(_POLL_S)
            err = msg.error() if msg is not None else None
            if err is not None:
                if err.fatal() or err.code() in _REFUSED:
                    self._refused = err
                log.debug("HA lease consumer: %s", err)

    def _assigned(self, consumer: object, partitions: list[TopicPartition]) -> None:
        if any(p.partition == 0 for p in partitions) and not self._held.is_set():
            self._state.activate()
            self._held.set()

    def _revoked(self, consumer: object, partitions: list[TopicPartition]) -> None:
        self._give_up(partitions, "the lease was revoked (another instance holds it now)")

    def _lost(self, consumer: object, partitions: list[TopicPartition]) -> None:
        self._give_up(partitions, "the lease was lost: this instance did not reach Kafka for longer than the "
                                  f"session ({self._session.timeout_ms} ms; frozen or cut off)")

    def _give_up(self, partitions: list[TopicPartition], reason: str) -> None:
        if not self._held.is_set() or not any(p.partition == 0 for p in partitions) or self._stop.is_set():
            return
        self._held.clear()
        self._state.step_down()
        self._on_lost(reason)
