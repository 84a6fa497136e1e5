"""The connector's only Kafka producer: ordered sends, delivery callbacks, back-pressure, fatal errors.

Discipline (confluent-kafka-python `examples/producer.py`): `produce(..., on_delivery=...)`, `poll(0)` after
every message, `BufferError` answered by polling, `flush()` before exit. On top of that:

* **Back-pressure and failures** (connector/kafka/delivery.py): at most `max_in_flight_records` records, and
  the Java producer's `buffer.memory` bytes of keys and values (default 32 MB; `max_in_flight_bytes` lowers
  it), are un-acknowledged, `send` blocks (serving callbacks) until the broker catches up; a record Kafka rejected
  (after librdkafka's own retries, bounded by `delivery.timeout.ms`) is never acknowledged and its
  `KafkaDeliveryError` is raised from the next `send`/`poll`/`flush`.
* **Topics** are created and described by connector/kafka/admin.py (`ensure_topics`, `describe_topic`).
* **Debezium-compatible defaults.** `acks=all` and `enable.idempotence=true` like the Java producer, and
  `partitioner=murmur2_random` so keyed records land in the partition Kafka's Java `DefaultPartitioner`
  (which Debezium uses) would pick. Debezium Server's `debezium.sink.kafka.producer.*` values override
  them; Java-only properties are translated, ignored with a warning, or rejected with the fix
  (connector/kafka/producer_config.py).

Errors:
    KafkaWriterError
    ├── KafkaConfigError          bad producer property (terminal; message says which and what to use)
    ├── KafkaDeliveryError        Kafka rejected a record (terminal for the pipeline; names topic and error)
    ├── KafkaBackpressureTimeout  broker did not acknowledge in time (retriable: restart and resume)
    ├── KafkaWriterInterrupted    shutdown requested while blocked
    ├── KafkaTransactionAborted   exactly-once mode: the transaction was rolled back (retriable: restart)
    └── KafkaTransactionFatal     exactly-once mode: producer fenced or broken (terminal)

A writer that raised stays failed; the pipeline restarts from the last committed offset with a new one.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from confluent_kafka import KafkaError, KafkaException, Producer

from connector.java.partitioner import java_default_partition, java_murmur2
from connector.kafka.admin import TopicAdmin, TopicDescription, TopicSpec
from connector.kafka.delivery import FENCED_CODES, Deliveries
from connector.kafka.errors import (
    KafkaBackpressureTimeout,
    KafkaConfigError,
    KafkaDeliveryError,
    KafkaTransactionAborted,
    KafkaTransactionFatal,
    KafkaWriterClosed,
    KafkaWriterError,
    KafkaWriterInterrupted,
)
from connector.kafka.producer_config import buffer_memory, build_producer_config, connection_config

__all__ = [
    "OutRecord",
    "KafkaWriter",
    "TopicSpec",
    "TopicDescription",
    "KafkaWriterError",
    "KafkaConfigError",
    "KafkaDeliveryError",
    "KafkaBackpressureTimeout",
    "KafkaWriterInterrupted",
    "KafkaTransactionAborted",
    "KafkaTransactionFatal",
    "build_producer_config",
    "connection_config",
    "java_murmur2",
    "java_default_partition",
]

logger = logging.getLogger(__name__)
_LIBRDKAFKA_LOG = logging.getLogger(__name__ + ".librdkafka")


@dataclass(slots=True)
class OutRecord:
    """One Kafka record, already serialized. `value=None` is a tombstone; `partition=None` lets the
    partitioner choose from the key (Debezium pins the schema-change topic to partition 0). Not changed once
    built, but not `frozen`: a frozen dataclass's `__init__` sets each field through `object.__setattr__`, 0.3 µs
    more per record (one per row change and more)."""

    topic: str
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]] = field(default_factory=list)
    partition: int | None = None



# librdkafka's RD_KAFKA_PARTITION_UA: the partitioner chooses from the key
_UNASSIGNED = -1


def _produce(produce: Callable[..., None], record: OutRecord, callback: Callable[..., None]) -> None:
    """`Producer.produce` with positional arguments, confluent-kafka's order (topic, value, key, partition, callback,
    on_delivery, timestamp, headers): parsing them as keywords costs 0.44 µs more per record (0.97 against 0.53 µs
    in all, 4 KB values, confluent-kafka 2.16.1)."""
    partition = _UNASSIGNED if record.partition is None else record.partition
    if record.headers:
        produce(record.topic, record.value, record.key, partition, callback, None, 0, record.headers)
    else:
        produce(record.topic, record.value, record.key, partition, callback)


PRODUCER_FIX = ("correct the producer property named (debezium.sink.kafka.producer.<name>, Java or librdkafka "
                "spelling; librdkafka may name its own alias, e.g. compression.codec for compression.type)")


class _ClosedProducer:
    """Stands in for the producer after `close()`, so late calls fail clearly instead of crashing."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        raise KafkaWriterClosed(f"the Kafka writer is closed (called {name})")


class KafkaWriter:
    """Sends `OutRecord`s; calls `on_ack()` once Kafka acknowledged a record (from `poll`/`flush`/`send`).

    One producing thread (`send`); another thread may `poll` to serve callbacks while the producer idles.
    With `transactional.id`, `send` opens a transaction, `flush` (or a transaction older than
    `transaction_max_age_s`, checked at the next `send`) commits it, and `on_ack` runs only once the
    record's transaction committed, never if it aborted: an acknowledgement always means durable.
    """

    def __init__(
        self,
        producer_config: Mapping[str, str],
        max_in_flight_records: int,
        *,
        block_timeout_s: float | None = None,
        should_stop: Callable[[], bool] | None = None,
        transaction_max_age_s: float | None = None,
        poll_on_send: bool = True,
        max_in_flight_bytes: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_in_flight_records < 1:
            raise KafkaConfigError(f"max_in_flight_records must be >= 1, got {max_in_flight_records}")
        self._config = build_producer_config(producer_config)
        memory_bound = buffer_memory(producer_config)
        if max_in_flight_bytes is not None and max_in_flight_bytes > 0:
            memory_bound = min(memory_bound, max_in_flight_bytes)
        self._clock = clock
        # False when another thread serves delivery callbacks (the daemon's ack poller): one poll per
        # record on the producing thread would only add a C call and GIL hand-offs to the hot path.
        self._poll_on_send = poll_on_send
        self._closed = False
        self._transactional = "transactional.id" in self._config
        self._deliveries = Deliveries(max_in_flight_records, transactional=self._transactional,
                                      block_timeout_s=block_timeout_s, should_stop=should_stop or (lambda: False),
                                      clock=clock, max_in_flight_bytes=memory_bound)
        self._admin = TopicAdmin(self._config, _LIBRDKAFKA_LOG)
        self._transactions_ready = False
        self._txn_started = 0.0
        self._txn_max_age_s = transaction_max_age_s
        try:
            # librdkafka logs through Python logging instead of writing to stderr.
            self._producer = Producer({**self._config, "error_cb": self._deliveries.on_client_error,
                                       "logger": _LIBRDKAFKA_LOG})
        except (KafkaException, ValueError, TypeError) as exc:
            error = exc.args[0] if exc.args else exc
            reason = error.str() if isinstance(error, KafkaError) else str(error)
            raise KafkaConfigError(f"invalid producer configuration: {reason}",
                                   fix=PRODUCER_FIX) from exc

    @property
    def config(self) -> dict[str, str]:
        """The effective librdkafka producer configuration (without callbacks)."""
        return dict(self._config)

    @property
    def in_flight(self) -> int:
        """Records handed to the producer and not yet acknowledged or failed."""
        return self._deliveries.in_flight

    # -- sending -------------------------------------------------------------------------------------

    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None:
        """Produce `record`; blocks while `max_in_flight_records` are un-acknowledged.

        Raises the pending `KafkaDeliveryError` of an earlier record, if any, before sending anything.
        """
        deliveries = self._deliveries
        # Unlocked read on this per-record path (the snapshot sends ~20k records/s): a failure is set only once.
        if deliveries.failure is not None:
            deliveries.raise_if_failed()
        if self._transactional:
            if (deliveries.in_transaction and self._txn_max_age_s is not None
                    and self._clock() - self._txn_started >= self._txn_max_age_s):
                self.commit_transaction()
            if not deliveries.in_transaction:
                self.begin_transaction()
        # Key and value: what librdkafka copies and holds until the broker acknowledged (headers are small).
        size = (len(record.key) if record.key else 0) + (len(record.value) if record.value else 0)
        started = deliveries.wait_for_room(self._producer.poll, size)
        callback = deliveries.callback(record.topic, record.partition, on_ack, size)
        deliveries.produced(size)
        while True:
            try:
                _produce(self._producer.produce, record, callback)
                break
            except BufferError:
                # librdkafka's own queue is full (queue.buffering.max.*): serve callbacks to drain it.
                try:
                    started = self._clock() if started is None else started
                    self._producer.poll(0.05)
                    deliveries.raise_if_failed()
                    deliveries.check_blocked(started, "the producer queue")
                except BaseException:
                    deliveries.not_produced(size)
                    raise
            except KafkaException as exc:
                deliveries.not_produced(size)
                err = exc.args[0]
                failure: KafkaWriterError
                if self._transactional and isinstance(err, KafkaError) and (
                        err.fatal() or err.code() in FENCED_CODES or err.code() == KafkaError._STATE):
                    # A fenced transactional producer refuses produce() with a state error before any commit
                    # reports the fencing: the same terminal failure as a fenced commit.
                    failure = self._fenced(f"produce to {record.topic}", err)
                else:
                    failure = KafkaDeliveryError(record.topic, record.partition, err)
                deliveries.fail(failure)
                raise failure from exc
        if self._poll_on_send:
            self._producer.poll(0)

    def send_group(self, records: Sequence[OutRecord], on_ack: Callable[[], None]) -> None:
        """Produce `records` (a rows event's, in order) with one delivery callback for all of them: `on_ack()` runs
        once Kafka acknowledged every one, never if one failed. Failures as `send`. Back-pressure is checked once
        for the group's bytes, so a group may take the records in flight past `max_in_flight_records` by its own
        size (a rows event's, at most a few hundred records). A transactional producer takes `send`'s path."""
        if self._transactional or len(records) == 1:
            left = [len(records)]

            def one_acked() -> None:
                left[0] -= 1
                if not left[0]:
                    on_ack()

            for record in records:
                self.send(record, one_acked)
            return
        deliveries = self._deliveries
        if deliveries.failure is not None:
            deliveries.raise_if_failed()
        total = sum((len(r.key) if r.key else 0) + (len(r.value) if r.value else 0) for r in records)
        producer = self._producer
        started = deliveries.wait_for_room(producer.poll, total)
        callback = deliveries.group_callback(records[0].topic, len(records), total, on_ack)
        deliveries.produced(total, count=len(records))
        produce = producer.produce
        for record in records:
            while True:
                try:
                    _produce(produce, record, callback)
                    break
                except BufferError:
                    # librdkafka's own queue is full (queue.buffering.max.*): serve callbacks to drain it.
                    started = self._clock() if started is None else started
                    producer.poll(0.05)
                    deliveries.raise_if_failed()
                    deliveries.check_blocked(started, "the producer queue")
                except KafkaException as exc:
                    # the group never completes (its on_ack never runs); the writer stays failed
                    failure = KafkaDeliveryError(record.topic, record.partition, exc.args[0])
                    deliveries.fail(failure)
                    raise failure from exc
        if self._poll_on_send:
            producer.poll(0)

    def drain_oversized(self) -> None:
        """Between source events: wait until a record larger than the in-flight byte bound is acknowledged.

        librdkafka holds such a record until the broker acknowledges it, and confluent-kafka copies its value
        once more into the delivery report's Message: with the next record built meanwhile, a 16 MB BLOB update
        (a ~43 MB record) was alive three times (issue 17). Records within the bound never wait here, nor does a
        transactional producer (its records are acknowledged when the transaction commits)."""
        if not self._transactional:
            self._deliveries.wait_while_oversized(self._producer.poll)

    def poll(self, timeout_s: float = 0.0) -> None:
        """Serve delivery callbacks; raises a pending delivery failure."""
        self._producer.poll(timeout_s)
        self._deliveries.raise_if_failed()

    def flush(self, timeout_s: float) -> int:
        """Wait up to `timeout_s` for every record to be acknowledged; returns how many are still pending.

        Raises the first delivery failure, after serving every callback that is ready. In transactional
        mode it commits the open transaction instead (which delivers everything or raises).
        """
        if self.transactional and self._deliveries.in_transaction:
            self.commit_transaction(timeout_s)
            return 0
        deadline = self._clock() + timeout_s
        remaining = self._producer.flush(max(0.0, timeout_s))
        while remaining and self._clock() < deadline:
            remaining = self._producer.flush(max(0.0, deadline - self._clock()))
        self._deliveries.raise_if_failed()
        return remaining

    def close(self, timeout_s: float = 30.0) -> int:
        """Flush, then release the producer; returns the records left undelivered (0 on a clean close).

        Never raises: call `flush()` first (and commit offsets) if delivery failures must surface.
        Records still pending after `timeout_s` are purged; they were never acknowledged, so their offsets
        were never committed and they are re-read after a restart.
        """
        if self._closed:
            return 0
        self._closed = True
        producer = self._producer
        if self.transactional and self._deliveries.failure is not None:
            # A failed (possibly fenced) transactional producer delivers nothing more: its transaction can only
            # abort, so what it holds is purged, and no delivery callback is served. A fenced producer's callbacks
            # can run with confluent-kafka's pending exception set, which once left the deliveries' lock taken
            # and hung flush() in the next callback (.ci/run, test_a_second_instance_fences_the_first, 600 s).
            # Producer.close() would try to abort the transaction and can block for ever; dropping the last
            # reference destroys the client without that step.
            remaining = len(producer)
            if remaining:
                logger.warning("Closing the failed transactional Kafka producer with %d records not "
                               "acknowledged; purging them", remaining)
                producer.purge()
            self._producer = _ClosedProducer()
            del producer
            return remaining
        try:
            remaining = producer.flush(max(0.0, timeout_s))
        except Exception as exc:  # noqa: BLE001 - close never raises: the daemon calls it on its way out
            # A fenced transactional producer's flush once surfaced a callback's failure as SystemError ("<built-in
            # method __enter__ of _thread.lock object> returned a result with an exception set", .ci/run 17e):
            # what is still queued is purged below like any record left after the timeout.
            logger.warning("flushing the Kafka producer on close failed (%s); purging what is left", exc)
            remaining = len(producer)
        if remaining:
            logger.warning("Closing the Kafka producer with %d records not acknowledged; purging them", remaining)
            producer.purge()
            producer.poll(0)
        if self.transactional and self._deliveries.failure is not None:  # it failed during the flush
            self._producer = _ClosedProducer()
            del producer
        else:
            producer.close()
            self._producer = _ClosedProducer()
        return remaining

    # -- transactions (exactly-once mode, when producer_config has transactional.id) ------------------

    @property
    def transactional(self) -> bool:
        return self._transactional

    @property
    def failure(self) -> KafkaWriterError | None:
        """The first failure of a record sent (refused by produce() or in its delivery report), if any."""
        return self._deliveries.failure

    def _require_transactional(self) -> None:
        if not self.transactional:
            raise KafkaConfigError("transactions need transactional.id in the producer configuration")

    def _fenced(self, action: str, err: KafkaError) -> KafkaTransactionFatal:
        return KafkaTransactionFatal(
            f"{action} failed fatally: {err}; if another connector instance uses "
            f"transactional.id={self._config['transactional.id']}, stop one of them"
        )

    def _transaction_failure(self, action: str, exc: KafkaException, timeout_s: float) -> KafkaWriterError:
        err = exc.args[0]
        if err.fatal() or err.code() in FENCED_CODES:
            failure: KafkaWriterError = self._fenced(f"{action} transaction", err)
        else:
            self._abort_quietly(timeout_s)
            failure = KafkaTransactionAborted(f"{action} transaction failed, transaction aborted: {err}")
        self._deliveries.fail(failure)
        return failure

    def _abort_quietly(self, timeout_s: float) -> None:
        self._deliveries.transaction_resolved(committed=False)
        try:
            self._producer.abort_transaction(timeout_s)
        except KafkaException as exc:
            logger.error("Aborting the Kafka transaction failed too: %s", exc.args[0])

    def begin_transaction(self, timeout_s: float = 30.0) -> None:
        """Open a transaction (no-op if one is open); the first call initialises the transactional producer,
        which fences any older producer with the same transactional.id and aborts its open transaction.

        `send` opens one by itself and `flush` commits it, so a transactional.id alone makes every batch
        between flushes atomic; `TransactionalCommitter` adds the offsets to the same transaction.
        """
        self._require_transactional()
        self._deliveries.raise_if_failed()
        if self._deliveries.in_transaction:
            return
        try:
            if not self._transactions_ready:
                self._producer.init_transactions(timeout_s)
                self._transactions_ready = True
            self._producer.begin_transaction()
            self._deliveries.transaction_began()
            self._txn_started = self._clock()
        except KafkaException as exc:
            raise self._transaction_failure("begin", exc, timeout_s) from exc

    def commit_transaction(self, timeout_s: float = 30.0) -> None:
        """Make every record sent since `begin_transaction` visible at once (read_committed consumers), or
        none: on failure the transaction is aborted and `KafkaTransactionAborted` raised.
        Delivery callbacks of the committed records have run when this returns."""
        self._require_transactional()
        if not self._deliveries.in_transaction:
            self._deliveries.raise_if_failed()
            return
        earlier = self._deliveries.failure
        if earlier is not None:
            err = getattr(earlier, "error", None)
            if isinstance(err, KafkaError) and (err.fatal() or err.code() in FENCED_CODES):
                raise KafkaTransactionFatal(f"transaction cannot commit: {earlier}") from earlier
            self._abort_quietly(timeout_s)
            raise KafkaTransactionAborted(f"transaction aborted after an earlier failure: {earlier}") from earlier
        deadline = self._clock() + timeout_s
        while True:
            try:
                self._producer.commit_transaction(max(0.0, deadline - self._clock()))
                break
            except KafkaException as exc:
                err = exc.args[0]
                # A retriable commit error (e.g. timeout) leaves the commit in progress: try it again.
                if err.retriable() and not err.txn_requires_abort() and self._clock() < deadline:
                    continue
                raise self._transaction_failure("commit", exc, timeout_s) from exc
        # Serve the delivery reports still queued, then acknowledge everything this transaction carried.
        self._producer.poll(0)
        self._deliveries.transaction_resolved(committed=True)
        self._deliveries.raise_if_failed()

    def abort_transaction(self, timeout_s: float = 30.0) -> None:
        """Roll back the open transaction; none of its records become visible."""
        self._require_transactional()
        if not self._deliveries.in_transaction:
            return
        try:
            self._producer.abort_transaction(timeout_s)
        except KafkaException as exc:
            raise self._transaction_failure("abort", exc, timeout_s) from exc
        finally:
            self._deliveries.transaction_resolved(committed=False)

    # -- topics (connector/kafka/admin.py) -------------------------------------------------------------

    def ensure_topics(self, specs: Iterable[TopicSpec], timeout_s: float = 30.0) -> list[str]:
        """Create the topics that do not exist yet; returns the names created. Existing topics are kept."""
        return self._admin.ensure_topics(specs, timeout_s)

    def partition_count(self, topic: str, timeout_s: float = 10.0) -> int | None:
        """Partitions of `topic`, or None if it does not exist."""
        return self._admin.partition_count(topic, timeout_s)

    def describe_topic(self, name: str, timeout_s: float = 10.0) -> TopicDescription | None:
        """Partition count and topic configs, or None if the topic does not exist."""
        return self._admin.describe_topic(name, timeout_s)
