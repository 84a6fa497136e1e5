"""Delivery bookkeeping of the Kafka writer: records in flight, delivery callbacks, back-pressure, failures.

* **Back-pressure.** At most `max_in_flight` records, and at most `max_in_flight_bytes` bytes of keys and
  values, are un-acknowledged; the writer waits (serving callbacks) until the broker catches up, so a stopped
  broker or a run of big rows (16 MB BLOBs) stops the binlog reader instead of growing memory. A record
  larger than the byte bound is sent alone, once nothing else is in flight. `block_timeout_s` turns an endless wait into `KafkaBackpressureTimeout`, `should_stop` into
  `KafkaWriterInterrupted` (first shutdown signal).
* **Failures are fatal.** A record Kafka rejected is never acknowledged, so neither its offset nor any later
  one is committed; the first failure is kept and raised by the writer's next call.
* **Acknowledged means durable.** In exactly-once mode a delivered record's `on_ack` waits for its
  transaction (a generation number) to commit, and never runs if it aborts.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Callable

from confluent_kafka import KafkaError

from connector.kafka.errors import (
    KafkaBackpressureTimeout,
    KafkaDeliveryError,
    KafkaTransactionFatal,
    KafkaWriterError,
    KafkaWriterInterrupted,
)

__all__ = ["FENCED_CODES", "Deliveries", "is_fenced"]

# Another producer with our transactional.id took over: retrying would only fight it. _FATAL is what produce()
# answers once the instance has raised its fatal error (for a transactional producer: the fencing), and the error
# it returns does not carry the fatal flag: seen in .ci/run 16d when the fencing reached the old producer before
# its next produce() rather than in that record's delivery report.
FENCED_CODES = frozenset({
    KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH, KafkaError._FENCED,
    KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, KafkaError._FATAL,
})


def is_fenced(exc: BaseException) -> bool:
    """`exc` says a newer producer with our transactional.id fenced this one (a delivery or transaction failure)."""
    if isinstance(exc, KafkaTransactionFatal):
        return True
    err = getattr(exc, "error", None)  # KafkaDeliveryError carries the KafkaError
    return isinstance(err, KafkaError) and err.code() in FENCED_CODES


logger = logging.getLogger(__name__)

# Client errors worth an operator's attention; other transport hiccups are logged at INFO.
_NOTABLE_CLIENT_ERRORS = frozenset({
    KafkaError._ALL_BROKERS_DOWN, KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED,
    KafkaError._SSL, KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.CLUSTER_AUTHORIZATION_FAILED,
})


class Deliveries:
    """Shared by the producing thread and whichever thread serves callbacks; state changes under one lock."""

    def __init__(self, max_in_flight: int, *, transactional: bool, block_timeout_s: float | None,
                 should_stop: Callable[[], bool], clock: Callable[[], float],
                 max_in_flight_bytes: int | None = None) -> None:
        self._max_in_flight = max_in_flight
        self._max_bytes = max_in_flight_bytes
        self._transactional = transactional
        self._block_timeout_s = block_timeout_s
        self._should_stop = should_stop
        self._clock = clock
        self._lock = threading.Lock()
        self._in_flight = 0
        self._in_flight_bytes = 0
        self.failure: KafkaWriterError | None = None
        self._in_transaction = False
        self._generation = 0
        self._pending_acks: dict[int, list[Callable[[], None]]] = {}
        self._outcomes: OrderedDict[int, bool] = OrderedDict()

    # -- failures ---------------------------------------------------------------------------------------

    def fail(self, failure: KafkaWriterError) -> None:
        """Keep `failure` unless an earlier one is kept already (the first failure is the cause)."""
        with self._lock:
            if self.failure is None:
                self.failure = failure

    def raise_if_failed(self) -> None:
        with self._lock:
            failure = self.failure
        if failure is not None:
            raise failure

    # -- records in flight --------------------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    @property
    def in_flight_bytes(self) -> int:
        with self._lock:
            return self._in_flight_bytes

    def produced(self, size: int = 0, *, count: int = 1) -> None:
        # Counted before produce(): another thread polling may run the callback before produce() returns.
        with self._lock:
            self._in_flight += count
            self._in_flight_bytes += size

    def not_produced(self, size: int = 0) -> None:
        with self._lock:
            self._in_flight -= 1
            self._in_flight_bytes -= size

    def _full(self, size: int) -> bool:
        if self._in_flight >= self._max_in_flight:
            return True
        limit = self._max_bytes
        return limit is not None and self._in_flight > 0 and self._in_flight_bytes + size > limit

    def wait_for_room(self, poll: Callable[[float], object], size: int = 0) -> float | None:
        """Serve callbacks (`poll`) while the records in flight leave no room for one of `size` bytes; returns
        when the wait started, None if there was room at once."""
        # Unlocked reads on the per-record path: they only decide whether to wait, re-read under the lock.
        if not self._full(size):
            return None
        started = self._clock()
        while True:
            with self._lock:
                if not self._full(size):
                    return started
            poll(0.05)
            self.raise_if_failed()
            self.check_blocked(started, "un-acknowledged records")

    def wait_while_oversized(self, poll: Callable[[float], object]) -> None:
        """Serve callbacks (`poll`) while the bytes in flight exceed the bound, which only a record larger than the
        bound alone does (it is let through when nothing else is in flight)."""
        limit = self._max_bytes
        if limit is None or self._in_flight_bytes <= limit:  # unlocked: the usual case costs one comparison
            return
        started = self._clock()
        while True:
            with self._lock:
                if self._in_flight_bytes <= limit:
                    return
            poll(0.05)
            self.raise_if_failed()
            self.check_blocked(started, "an oversized record's acknowledgement")

    def check_blocked(self, started: float, on_what: str) -> None:
        if self._should_stop():
            raise KafkaWriterInterrupted(f"shutdown requested while waiting for {on_what}")
        if self._block_timeout_s is not None and self._clock() - started > self._block_timeout_s:
            raise KafkaBackpressureTimeout(
                f"Kafka acknowledged nothing for {self._block_timeout_s:g} s while {self.in_flight} records "
                f"were in flight (waiting for {on_what}); is the broker reachable?"
            )

    # -- callbacks ------------------------------------------------------------------------------------------

    def callback(self, topic: str, partition: int | None, on_ack: Callable[[], None],
                 size: int = 0) -> Callable[..., None]:
        """The `on_delivery` callback of one record of `size` bytes."""
        generation = self._generation

        def delivered(err: KafkaError | None, msg: object) -> None:
            with self._lock:
                self._in_flight -= 1
                self._in_flight_bytes -= size
            if err is None:
                if self._transactional:
                    self._transactional_ack(generation, on_ack)
                else:
                    on_ack()
                return
            self._not_delivered(topic, msg.partition() if msg is not None else partition, err)  # type: ignore[attr-defined]

        return delivered

    def _not_delivered(self, topic: str, partition: int | None, err: KafkaError) -> None:
        failure = KafkaDeliveryError(topic, partition, err)
        if err.code() in (KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT):
            # Dropped on purpose by close() or an aborted transaction: never acknowledged, so never
            # committed, but not a failure of the writer either.
            logger.debug("%s", failure)
            return
        # fenced: every record in flight fails alike; the first failure ends the run with one line
        logger.log(logging.DEBUG if err.code() in FENCED_CODES else logging.ERROR, "%s", failure)
        self.fail(failure)

    def group_callback(self, topic: str, count: int, size: int, on_ack: Callable[[], None]) -> Callable[..., None]:
        """The one `on_delivery` callback of a group of `count` records of `size` bytes in all (non-transactional
        producer): `on_ack()` once every one was delivered. Each delivery frees its place among the records in
        flight; the group's bytes are freed with its last record."""
        left = [count, False]  # records not delivered yet; whether one of them failed
        lock = self._lock

        def delivered(err: KafkaError | None, msg: object) -> None:
            with lock:
                self._in_flight -= 1
                left[0] -= 1
                done = not left[0]
                if done:
                    self._in_flight_bytes -= size
                if err is not None:
                    left[1] = True
            if err is None:
                if done and not left[1]:
                    on_ack()
                return
            self._not_delivered(topic, msg.partition() if msg is not None else None, err)  # type: ignore[attr-defined]

        return delivered

    def on_client_error(self, err: KafkaError) -> None:
        # Called from poll(); transport errors are retried by librdkafka, only fatal ones end the producer.
        if err.fatal():
            self.fail(KafkaDeliveryError("*", None, err))
        else:
            level = logging.WARNING if err.code() in _NOTABLE_CLIENT_ERRORS else logging.INFO
            logger.log(level, "Kafka client error (librdkafka retries): %s", err)

    # -- transactions (exactly-once mode) ---------------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        return self._in_transaction

    def transaction_began(self) -> None:
        with self._lock:
            self._generation += 1
            self._in_transaction = True

    def _transactional_ack(self, generation: int, on_ack: Callable[[], None]) -> None:
        # A delivered record of an open transaction is not durable yet: it becomes acknowledged when its
        # transaction commits, and never if it aborts (callbacks may be served late, by another thread).
        with self._lock:
            outcome = self._outcomes.get(generation)
            if outcome is None:
                self._pending_acks.setdefault(generation, []).append(on_ack)
                return
        if outcome:
            on_ack()

    def transaction_resolved(self, committed: bool) -> None:
        """The open transaction committed (its held acks run now) or aborted (they never will)."""
        with self._lock:
            generation = self._generation
            self._outcomes[generation] = committed
            while len(self._outcomes) > 64:  # late callbacks never lag more than a few transactions
                self._outcomes.popitem(last=False)
            acks = self._pending_acks.pop(generation, [])
            self._in_transaction = False
        if committed:
            for on_ack in acks:
                on_ack()
