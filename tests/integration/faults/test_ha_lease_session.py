"""The HA lease's session (connector/config/ha_settings.py): 40% of ha.takeover.ms, so that a takeover fits the
bound on a broker that rebalances half a session after it drops a member (Tansu); where the brokers'
group.min.session.timeout.ms refuses that (Apache Kafka's default 6000 against 40% of the default 10 s), 60%, and
where both are refused, one error that names the sessions tried and the fix. Tansu accepts any session, so the
refusal is a lease consumer that answers what Apache Kafka's coordinator answers (INVALID_SESSION_TIMEOUT) below a
minimum; every session it accepts joins Tansu's group for real."""
from __future__ import annotations

import threading

import pytest
from confluent_kafka import Consumer, KafkaError, Message

from connector.config.ha_settings import HaSettings
from connector.ha import HaState, KafkaLease
from connector.ha.lease import LeaseConsumer
from connector.kafka.errors import KafkaConfigError
from tests.integration.service.support import new_prefix

pytestmark = pytest.mark.timeout(120)


class _RefusedSession:
    """A lease consumer whose group coordinator refuses its session, as Apache Kafka's below the minimum."""

    def subscribe(self, topics: list[str], on_assign: object, on_revoke: object, on_lost: object) -> None:
        pass

    def poll(self, timeout: float) -> Message | None:
        threading.Event().wait(min(timeout, 0.05))  # librdkafka's poll blocks; so does this one, briefly
        return Message(error=KafkaError(KafkaError.INVALID_SESSION_TIMEOUT))

    def close(self) -> None:
        pass


class MinSessionBroker:
    """Makes the lease's consumers: refused below `min_ms` (group.min.session.timeout.ms), real ones otherwise."""

    def __init__(self, min_ms: int) -> None:
        self.min_ms = min_ms
        self.sessions: list[int] = []

    def __call__(self, config: dict[str, object]) -> LeaseConsumer:
        session = int(str(config["session.timeout.ms"]))
        self.sessions.append(session)
        return _RefusedSession() if session < self.min_ms else Consumer(config)


def _lease(broker, make_consumer: MinSessionBroker) -> KafkaLease:
    settings = HaSettings(enabled=True, takeover_ms=10_000, lease_topic=f"{new_prefix('lease')}.ha-lease",
                          instance_id="east-1")
    return KafkaLease(settings, {"bootstrap.servers": broker.bootstrap_servers}, HaState("east-1"),
                      on_lost=lambda reason: None, make_consumer=make_consumer)


def test_a_refused_session_falls_back_to_the_longer_one(broker) -> None:
    consumers = MinSessionBroker(min_ms=6000)
    lease = _lease(broker, consumers)
    try:
        assert lease.acquire(threading.Event().wait)  # never stopped: returns once active
        assert lease.held and consumers.sessions == [4000, 6000]
    finally:
        lease.release()


def test_both_sessions_refused_is_one_error_with_the_fix(broker) -> None:
    consumers = MinSessionBroker(min_ms=7000)
    lease = _lease(broker, consumers)
    try:
        with pytest.raises(KafkaConfigError) as exc:
            lease.acquire(threading.Event().wait)
    finally:
        lease.release()
    assert consumers.sessions == [4000, 6000] and not lease.held
    text = str(exc.value)
    assert "INVALID_SESSION_TIMEOUT" in text and "4000, then 6000 tried" in text and "raise ha.takeover.ms" in text
