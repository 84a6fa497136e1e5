"""`KafkaSchemaHistory`-compatible store: a single-partition topic of pretty-printed records.

Records have a null key, go to partition 0 and carry `HistoryRecord.toString()` (Jackson's pretty
form) as value, exactly as Debezium writes them, so either implementation can read the other's
topic. Recovery reads from the beginning until partition EOF (`enable.partition.eof=true`): end
offsets from ListOffsets are not trusted (they are wrong on some brokers, e.g. Tansu).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Iterator, Mapping

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from schema_history.errors import HistoryStoreError
from schema_history.record import HistoryRecord

log = logging.getLogger(__name__)

LONG_MAX = 9223372036854775807
TOPIC_CONFIG = {"cleanup.policy": "delete", "retention.ms": str(LONG_MAX), "retention.bytes": "-1"}


class KafkaHistoryStore:
    def __init__(
        self,
        bootstrap_servers: str,
        topic: str,
        name: str,
        replication_factor: int = 1,
        producer_config: Mapping[str, Any] | None = None,
        consumer_config: Mapping[str, Any] | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        """`name` is `schema.history.internal.name` (default `<topic.prefix>-schemahistory`): the
        producer/consumer client id and the consumer group id."""
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic
        self.name = name
        self.replication_factor = replication_factor
        self.timeout_s = timeout_s
        self._producer_config = {
            "bootstrap.servers": bootstrap_servers,
            "client.id": name,
            "acks": "1",
            "enable.idempotence": False,
            "max.in.flight.requests.per.connection": 1,
            "batch.size": 32768,
            "linger.ms": 0,
            **dict(producer_config or {}),
        }
        self._consumer_config = {
            "bootstrap.servers": bootstrap_servers,
            "client.id": name,
            "group.id": name,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": True,
            "session.timeout.ms": 10000,
            # EOF is only reported after an empty fetch: keep that wait short for recovery reads
            "fetch.wait.max.ms": 100,
            **dict(consumer_config or {}),
        }
        self._producer: Producer | None = None
        # What was read so far and the offset after it: a store that lives on (an HA standby's, connector/daemon.py)
        # reads only records appended since. History records are only ever appended; never rewritten.
        self._values: list[bytes] = []
        self._next_offset = OFFSET_BEGINNING
        self._checked = False  # check_and_initialize passed: the topic exists with one partition

    @staticmethod
    def for_connector(bootstrap_servers: str, topic: str, topic_prefix: str, name: str | None = None,
                      **kwargs: Any) -> "KafkaHistoryStore":
        """The store as the connector configures it: `schema.history.internal.name` defaults to
        `<topic.prefix>-schemahistory`."""
        return KafkaHistoryStore(bootstrap_servers, topic, name or f"{topic_prefix}-schemahistory", **kwargs)

    # -- topic -----------------------------------------------------------------------------------
    def _admin(self) -> AdminClient:
        return AdminClient({"bootstrap.servers": self.bootstrap_servers, "client.id": self.name})

    def _partitions(self) -> int | None:
        # Ask for all topics: a metadata request naming the topic may auto-create it (with the
        # broker's default partition count) on brokers that allow auto-creation.
        meta = self._admin().list_topics(timeout=self.timeout_s)
        info = meta.topics.get(self.topic)
        if info is None or info.error is not None:
            return None
        return len(info.partitions)

    def check_and_initialize(self) -> None:
        if self._checked:
            return
        partitions = self._partitions()
        if partitions is None:
            log.info("Creating schema history topic %s (1 partition, retention forever)", self.topic)
            admin = self._admin()  # keep a reference: the futures die with their client
            futures = admin.create_topics(
                [NewTopic(self.topic, num_partitions=1, replication_factor=self.replication_factor, config=TOPIC_CONFIG)],
                operation_timeout=self.timeout_s,
            )
            try:
                futures[self.topic].result(self.timeout_s)
            except KafkaException as e:
                if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise HistoryStoreError(f"cannot create schema history topic {self.topic}: {e}") from e
            partitions = self._wait_for_topic()
        else:
            self._warn_about_topic_config()
        if partitions != 1:
            raise HistoryStoreError(
                f"schema history topic {self.topic} has {partitions} partitions; it must have exactly 1 "
                "(records must stay in order). Recreate it with one partition."
            )
        self._checked = True

    def _warn_about_topic_config(self) -> None:
        """Debezium warns (does not fail) when an existing topic may lose history records."""
        from confluent_kafka.admin import ConfigResource

        admin = self._admin()
        resource = ConfigResource(ConfigResource.Type.TOPIC, self.topic)
        try:
            configs = admin.describe_configs([resource])[resource].result(self.timeout_s)
        except KafkaException as e:
            log.warning("Cannot check the configuration of schema history topic %s: %s", self.topic, e)
            return
        policy = configs.get("cleanup.policy")
        if policy is not None and policy.value != "delete":
            log.warning("Schema history topic %s has cleanup.policy=%s; it should be 'delete'", self.topic, policy.value)
        retention = configs.get("retention.ms")
        five_years_ms = 5 * 365 * 24 * 3600 * 1000
        if retention is not None and retention.value not in (None, "-1") and int(retention.value) < five_years_ms:
            log.warning("Schema history topic %s has retention.ms=%s (< 5 years): history may be lost",
                        self.topic, retention.value)

    def _wait_for_topic(self) -> int:
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            partitions = self._partitions()
            if partitions:
                return partitions
            time.sleep(0.1)
        raise HistoryStoreError(f"schema history topic {self.topic} did not appear after creation")

    # -- writing ---------------------------------------------------------------------------------
    def append(self, record: HistoryRecord) -> None:
        if self._producer is None:
            self._producer = Producer(self._producer_config)
        errors: list[KafkaError] = []

        def on_delivery(err: KafkaError | None, msg: object) -> None:
            if err is not None:
                errors.append(err)

        self._producer.produce(self.topic, value=record.to_pretty_json().encode("utf-8"), key=None,
                               partition=0, on_delivery=on_delivery)
        remaining = self._producer.flush(self.timeout_s)
        if remaining:
            raise HistoryStoreError(f"schema history record not acknowledged within {self.timeout_s}s "
                                    f"(topic {self.topic})")
        if errors:
            raise HistoryStoreError(f"cannot write schema history record to {self.topic}: {errors[0]}")

    # -- reading ---------------------------------------------------------------------------------
    def _read_values(self) -> Iterator[bytes]:
        """Every record's value, oldest first: those read before, then the topic from where that reading ended."""
        known = len(self._values)
        for i in range(known):  # by index: a value read below is appended while this runs
            yield self._values[i]
        if not known and self._partitions() is None:
            return
        consumer = Consumer(self._consumer_config)
        try:
            consumer.assign([TopicPartition(self.topic, 0, self._next_offset)])
            deadline = time.monotonic() + self.timeout_s
            while True:
                msg = consumer.poll(0.2)
                if msg is None:
                    if time.monotonic() > deadline:
                        raise HistoryStoreError(f"no end of partition seen on {self.topic} within {self.timeout_s}s")
                    continue
                deadline = time.monotonic() + self.timeout_s
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        return
                    raise HistoryStoreError(f"error reading schema history topic {self.topic}: {err}")
                self._next_offset = msg.offset() + 1
                value = msg.value()
                if value is not None:
                    self._values.append(value)
                    yield value
        finally:
            consumer.close()

    def records(self) -> Iterator[HistoryRecord]:
        for value in self._read_values():
            yield HistoryRecord.from_json(value.decode("utf-8"))

    def raw_records(self) -> Iterator[str]:
        """The records' JSON text, unparsed (recovery parses only what follows a schema checkpoint)."""
        for value in self._read_values():
            yield value.decode("utf-8")

    def exists(self) -> bool:
        for _ in self._read_values():
            return True
        return False

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(self.timeout_s)
            self._producer = None
