"""The connector's only Kafka producer: ordered sends, delivery callbacks, back-pressure, fatal errors.

Discipline (confluent-kafka-python `examples/producer.py`): `produce(..., on_delivery=...)`, `poll(0)` after
every message, `BufferError` answered by polling, `flush()` before exit. On top of that:

* **Back-pressure.** At most `max_in_flight_records` records are un-acknowledged; `send` blocks (serving
  callbacks) until the broker catches up, so a stopped broker stops the binlog reader instead of growing
  memory. `block_timeout_s` turns an endless wait into `KafkaBackpressureTimeout`, `should_stop` into
  `KafkaWriterInterrupted` (first shutdown signal).
* **Failures are fatal.** A record that Kafka rejected (after librdkafka's own retries, bounded by
  `delivery.timeout.ms`) is never acknowledged, so its offset and every later one is never committed; the
  error is raised as `KafkaDeliveryError` from the next `send`/`poll`/`flush`.
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
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from connector.java.partitioner import java_default_partition, java_murmur2
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
from connector.kafka.producer_config import build_producer_config, connection_config

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


@dataclass(frozen=True, slots=True)
class OutRecord:
    """One Kafka record, already serialized. `value=None` is a tombstone; `partition=None` lets the
    partitioner choose from the key (Debezium pins the schema-change topic to partition 0)."""

    topic: str
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]] = field(default_factory=list)
    partition: int | None = None


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


# Another producer with our transactional.id took over: retrying would only fight it.
_FENCED_CODES = frozenset({
    KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH, KafkaError._FENCED,
    KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
})

PRODUCER_FIX = ("correct the producer property named (debezium.sink.kafka.producer.<name>, Java or librdkafka "
                "spelling; librdkafka may name its own alias, e.g. compression.codec for compression.type)")

# Client errors worth an operator's attention; other transport hiccups are logged at INFO.
_NOTABLE_CLIENT_ERRORS = frozenset({
    KafkaError._ALL_BROKERS_DOWN, KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED,
    KafkaError._SSL, KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.CLUSTER_AUTHORIZATION_FAILED,
})

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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_in_flight_records < 1:
            raise KafkaConfigError(f"max_in_flight_records must be >= 1, got {max_in_flight_records}")
        self._config = build_producer_config(producer_config)
        self._max_in_flight = max_in_flight_records
        self._block_timeout_s = block_timeout_s
        self._should_stop = should_stop or (lambda: False)
        self._clock = clock
        # False when another thread serves delivery callbacks (the daemon's ack poller): one poll per
        # record on the producing thread would only add a C call and GIL hand-offs to the hot path.
        self._poll_on_send = poll_on_send
        self._lock = threading.Lock()
        self._in_flight = 0
        self._failure: KafkaWriterError | None = None
        self._admin: AdminClient | None = None
        self._closed = False
        self._transactional = "transactional.id" in self._config
        self._transactions_ready = False
        self._in_transaction = False
        self._txn_generation = 0
        self._txn_started = 0.0
        self._txn_max_age_s = transaction_max_age_s
        self._txn_pending_acks: dict[int, list[Callable[[], None]]] = {}
        self._txn_outcomes: OrderedDict[int, bool] = OrderedDict()
        try:
            # librdkafka logs through Python logging instead of writing to stderr.
            self._producer = Producer({**self._config, "error_cb": self._on_client_error, "logger": _LIBRDKAFKA_LOG})
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
        with self._lock:
            return self._in_flight

    # -- sending -------------------------------------------------------------------------------------

    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None:
        """Produce `record`; blocks while `max_in_flight_records` are un-acknowledged.

        Raises the pending `KafkaDeliveryError` of an earlier record, if any, before sending anything.
        """
        # Unlocked reads on this per-record path (the snapshot sends ~20k records/s): `_failure` is only ever set
        # once, and `_in_flight` only decides whether to wait, re-read under the lock while waiting.
        if self._failure is not None:
            self._raise_if_failed()
        if self._transactional:
            if (self._in_transaction and self._txn_max_age_s is not None
                    and self._clock() - self._txn_started >= self._txn_max_age_s):
                self.commit_transaction()
            if not self._in_transaction:
                self.begin_transaction()
        started: float | None = None
        if self._in_flight >= self._max_in_flight:
            started = self._clock()
            while self.in_flight >= self._max_in_flight:
                self._producer.poll(0.05)
                self._raise_if_failed()
                self._check_blocked(started, "un-acknowledged records")
        kwargs = {"headers": record.headers} if record.headers else {}
        if record.partition is not None:
            kwargs["partition"] = record.partition
        callback = self._delivery_callback(record, on_ack)
        # Counted before produce(): another thread polling may run the callback before produce() returns.
        with self._lock:
            self._in_flight += 1
        while True:
            try:
                self._producer.produce(
                    record.topic, value=record.value, key=record.key, on_delivery=callback, **kwargs
                )
                break
            except BufferError:
                # librdkafka's own queue is full (queue.buffering.max.*): serve callbacks to drain it.
                try:
                    started = self._clock() if started is None else started
                    self._producer.poll(0.05)
                    self._raise_if_failed()
                    self._check_blocked(started, "the producer queue")
                except BaseException:
                    self._not_produced()
                    raise
            except KafkaException as exc:
                self._not_produced()
                failure = KafkaDeliveryError(record.topic, record.partition, exc.args[0])
                with self._lock:
                    if self._failure is None:
                        self._failure = failure
                raise failure from exc
        if self._poll_on_send:
            self._producer.poll(0)

    def _not_produced(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _delivery_callback(self, record: OutRecord, on_ack: Callable[[], None]) -> Callable[..., None]:
        generation = self._txn_generation

        def delivered(err: KafkaError | None, msg: object) -> None:
            with self._lock:
                self._in_flight -= 1
            if err is None:
                if self._transactional:
                    self._transactional_ack(generation, on_ack)
                else:
                    on_ack()
                return
            partition = msg.partition() if msg is not None else record.partition  # type: ignore[attr-defined]
            failure = KafkaDeliveryError(record.topic, partition, err)
            if err.code() in (KafkaError._PURGE_QUEUE, KafkaError._PURGE_INFLIGHT):
                # Dropped on purpose by close() or an aborted transaction: never acknowledged, so never
                # committed, but not a failure of the writer either.
                logger.debug("%s", failure)
                return
            logger.error("%s", failure)
            with self._lock:
                if self._failure is None:
                    self._failure = failure

        return delivered

    def _transactional_ack(self, generation: int, on_ack: Callable[[], None]) -> None:
        # A delivered record of an open transaction is not durable yet: it becomes acknowledged when its
        # transaction commits, and never if it aborts (callbacks may be served late, by another thread).
        with self._lock:
            outcome = self._txn_outcomes.get(generation)
            if outcome is None:
                self._txn_pending_acks.setdefault(generation, []).append(on_ack)
                return
        if outcome:
            on_ack()

    def _resolve_transaction(self, committed: bool) -> None:
        with self._lock:
            generation = self._txn_generation
            self._txn_outcomes[generation] = committed
            while len(self._txn_outcomes) > 64:  # late callbacks never lag more than a few transactions
                self._txn_outcomes.popitem(last=False)
            acks = self._txn_pending_acks.pop(generation, [])
            self._in_transaction = False
        if committed:
            for on_ack in acks:
                on_ack()

    def _on_client_error(self, err: KafkaError) -> None:
        # Called from poll(); transport errors are retried by librdkafka, only fatal ones end the producer.
        if err.fatal():
            with self._lock:
                if self._failure is None:
                    self._failure = KafkaDeliveryError("*", None, err)
        else:
            level = logging.WARNING if err.code() in _NOTABLE_CLIENT_ERRORS else logging.INFO
            logger.log(level, "Kafka client error (librdkafka retries): %s", err)

    def _check_blocked(self, started: float, on_what: str) -> None:
        if self._should_stop():
            raise KafkaWriterInterrupted(f"shutdown requested while waiting for {on_what}")
        if self._block_timeout_s is not None and self._clock() - started > self._block_timeout_s:
            raise KafkaBackpressureTimeout(
                f"Kafka acknowledged nothing for {self._block_timeout_s:g} s while {self.in_flight} records "
                f"were in flight (waiting for {on_what}); is the broker reachable?"
            )

    def _raise_if_failed(self) -> None:
        with self._lock:
            failure = self._failure
        if failure is not None:
            raise failure

    def poll(self, timeout_s: float = 0.0) -> None:
        """Serve delivery callbacks; raises a pending delivery failure."""
        self._producer.poll(timeout_s)
        self._raise_if_failed()

    def flush(self, timeout_s: float) -> int:
        """Wait up to `timeout_s` for every record to be acknowledged; returns how many are still pending.

        Raises the first delivery failure, after serving every callback that is ready. In transactional
        mode it commits the open transaction instead (which delivers everything or raises).
        """
        if self.transactional and self._in_transaction:
            self.commit_transaction(timeout_s)
            return 0
        deadline = self._clock() + timeout_s
        remaining = self._producer.flush(max(0.0, timeout_s))
        while remaining and self._clock() < deadline:
            remaining = self._producer.flush(max(0.0, deadline - self._clock()))
        self._raise_if_failed()
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
        remaining = producer.flush(max(0.0, timeout_s))
        if remaining:
            logger.warning("Closing the Kafka producer with %d records not acknowledged; purging them", remaining)
            producer.purge()
            producer.poll(0)
        if self.transactional and self._failure is not None:
            # Producer.close() would try to abort the failed (possibly fenced) transaction and can block
            # for ever; dropping the last reference destroys the client without that step.
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

    def _require_transactional(self) -> None:
        if not self.transactional:
            raise KafkaConfigError("transactions need transactional.id in the producer configuration")

    def _transaction_failure(self, action: str, exc: KafkaException, timeout_s: float) -> KafkaWriterError:
        err = exc.args[0]
        if err.fatal() or err.code() in _FENCED_CODES:
            failure: KafkaWriterError = KafkaTransactionFatal(
                f"{action} transaction failed fatally: {err}; if another connector instance uses "
                f"transactional.id={self._config['transactional.id']}, stop one of them"
            )
        else:
            self._abort_quietly(timeout_s)
            failure = KafkaTransactionAborted(f"{action} transaction failed, transaction aborted: {err}")
        with self._lock:
            if self._failure is None:
                self._failure = failure
        return failure

    def _abort_quietly(self, timeout_s: float) -> None:
        self._resolve_transaction(committed=False)
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
        self._raise_if_failed()
        if self._in_transaction:
            return
        try:
            if not self._transactions_ready:
                self._producer.init_transactions(timeout_s)
                self._transactions_ready = True
            self._producer.begin_transaction()
            with self._lock:
                self._txn_generation += 1
                self._in_transaction = True
            self._txn_started = self._clock()
        except KafkaException as exc:
            raise self._transaction_failure("begin", exc, timeout_s) from exc

    def commit_transaction(self, timeout_s: float = 30.0) -> None:
        """Make every record sent since `begin_transaction` visible at once (read_committed consumers), or
        none: on failure the transaction is aborted and `KafkaTransactionAborted` raised.
        Delivery callbacks of the committed records have run when this returns."""
        self._require_transactional()
        if not self._in_transaction:
            self._raise_if_failed()
            return
        earlier = self._failure
        if earlier is not None:
            err = getattr(earlier, "error", None)
            if isinstance(err, KafkaError) and (err.fatal() or err.code() in _FENCED_CODES):
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
        self._resolve_transaction(committed=True)
        self._raise_if_failed()

    def abort_transaction(self, timeout_s: float = 30.0) -> None:
        """Roll back the open transaction; none of its records become visible."""
        self._require_transactional()
        if not self._in_transaction:
            return
        try:
            self._producer.abort_transaction(timeout_s)
        except KafkaException as exc:
            raise self._transaction_failure("abort", exc, timeout_s) from exc
        finally:
            self._resolve_transaction(committed=False)

    # -- topics ----------------------------------------------------------------------------------------

    def _admin_client(self) -> AdminClient:
        if self._admin is None:
            # Metadata requests for one topic would otherwise auto-create it on brokers that allow it.
            self._admin = AdminClient({**connection_config(self._config), "allow.auto.create.topics": "false",
                                       "logger": _LIBRDKAFKA_LOG})
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
        futures = self._admin_client().create_topics(new, request_timeout=timeout_s)
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
        metadata = self._admin_client().list_topics(topic=topic, timeout=timeout_s)
        found = metadata.topics.get(topic)
        if found is None or found.error is not None:
            return None
        return len(found.partitions)

    def describe_topic(self, name: str, timeout_s: float = 10.0) -> TopicDescription | None:
        """Partition count and topic configs, or None if the topic does not exist."""
        partitions = self.partition_count(name, timeout_s)
        if partitions is None:
            return None
        futures = self._admin_client().describe_configs([ConfigResource(ResourceType.TOPIC, name)],
                                                        request_timeout=timeout_s)
        configs: dict[str, str] = {}
        for future in futures.values():
            entries = future.result(timeout=timeout_s)
            configs = {k: v.value for k, v in entries.items() if v.value is not None}
        return TopicDescription(name=name, partitions=partitions, configs=configs)

