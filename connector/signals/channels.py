"""The `file` and `kafka` signal channels, read on a thread of their own and handed to the streaming thread.

As Debezium's FileSignalChannel and KafkaSignalChannel, every `signal.poll.interval.ms`:
* file (`signal.file`, default `file-signals.txt`): every line is one JSON signal `{"id": ..., "type": ...,
  "data": {...}}`; once read, the file is emptied. A line that is not such a signal is logged and skipped.
* kafka (`signal.kafka.topic`, default `<topic.prefix>-signal`, partition 0, `signal.kafka.bootstrap.servers`,
  consumer group `signal.kafka.groupId`, `signal.consumer.*` passed to the consumer): a record counts only when
  its key is `topic.prefix`; its value is the same JSON. Beyond Debezium (which commits the group's offset only
  when it stops, so a crash replays every signal since), the offset is committed after each batch is read.
Signals are not acted on here: `SignalQueue` hands them to the streaming thread, which owns the incremental
snapshot and runs blocking snapshots (connector/signals/processor.py), so a signal from any channel does the
same as the same signal from the signal table.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections import deque
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

from connector.signals.actions import SignalRecord
from connector.streaming.pause import StopSignal

__all__ = ["FileChannel", "KafkaChannel", "SignalChannel", "SignalPoller", "SignalQueue", "parse_signal_json"]

log = logging.getLogger(__name__)


class SignalChannel(Protocol):
    name: str

    def read(self) -> list[SignalRecord]: ...

    def close(self) -> None: ...


def parse_signal_json(text: str, channel: str) -> SignalRecord:
    """One signal document; ValueError saying why it is not one."""
    doc = json.loads(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("id"), str) or not isinstance(doc.get("type"), str):
        raise ValueError("a signal is a JSON object with string `id` and `type`")
    data = doc.get("data")
    # Debezium hands `data` on as JSON text (JsonNode.toString)
    text_data = None if data is None else data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return SignalRecord(doc["id"], doc["type"], text_data, channel)


class FileChannel:
    name = "file"

    def __init__(self, path: Path) -> None:
        self._path = path
        log.info("Reading '%s' file for signals", path.absolute())

    def read(self) -> list[SignalRecord]:
        path = self._path
        if not path.is_file():
            return []
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            if lines:
                path.write_text("", encoding="utf-8")  # as Debezium: read signals leave the file
        except OSError as exc:
            log.warning("signal file %s cannot be read (%s); retrying at the next poll", path, exc)
            return []
        signals = []
        for line in lines:
            if not line.strip():
                continue
            try:
                signals.append(parse_signal_json(line, self.name))
            except ValueError as exc:
                log.warning("Skipped signal due to an error '%s': %s", line, exc)
        return signals

    def close(self) -> None:
        pass


class KafkaChannel:
    name = "kafka"

    def __init__(self, bootstrap_servers: str, topic: str, group_id: str, connector_name: str,
                 consumer_properties: Mapping[str, str], poll_timeout_ms: int = 0) -> None:
        from confluent_kafka import Consumer, TopicPartition  # only when the channel is enabled

        config: dict[str, Any] = {"bootstrap.servers": bootstrap_servers, "client.id": str(uuid.uuid4()),
                                  "group.id": group_id, "fetch.min.bytes": 1, "enable.auto.commit": False,
                                  "session.timeout.ms": 10000, "auto.offset.reset": "earliest"}
        config.update(consumer_properties)
        self._consumer = Consumer(config)
        self._topic = topic
        self._name = connector_name
        self._timeout_s = poll_timeout_ms / 1000
        log.info("Subscribing to signals topic '%s'", topic)
        self._consumer.assign([TopicPartition(topic, 0)])

    def read(self) -> list[SignalRecord]:
        messages = self._consumer.consume(num_messages=500, timeout=self._timeout_s)
        signals = []
        for msg in messages:
            if msg.error() is not None:
                log.warning("signal topic '%s': %s", self._topic, msg.error())
                continue
            key = msg.key().decode("utf-8", "replace") if msg.key() is not None else None
            if key != self._name:
                log.info("Signal key '%s' doesn't match the connector's name '%s'", key, self._name)
                continue
            value = msg.value()
            if not value:
                continue
            try:
                signals.append(parse_signal_json(value.decode("utf-8", "replace"), self.name))
            except ValueError as exc:
                log.warning("Skipped signal due to an error (offset %d): %s", msg.offset(), exc)
        if messages:
            try:
                self._consumer.commit(asynchronous=False)
            except Exception as exc:  # confluent_kafka.KafkaException; the signals were read either way
                log.warning("signal topic '%s': offset commit failed (%s)", self._topic, exc)
        return signals

    def close(self) -> None:
        self._consumer.close()


class SignalQueue:
    """Signals read by the poller, waiting for the streaming thread (thread-safe)."""

    def __init__(self) -> None:
        self._items: deque[SignalRecord] = deque()
        self._lock = threading.Lock()

    def put(self, records: Sequence[SignalRecord]) -> None:
        with self._lock:
            self._items.extend(records)

    def __bool__(self) -> bool:
        return bool(self._items)

    def take(self) -> list[SignalRecord]:
        with self._lock:
            items = list(self._items)
            self._items.clear()
        return items


class SignalPoller:
    """Reads every channel each `interval_s` on its own named thread, until the stop signal or `close()`."""

    def __init__(self, channels: Sequence[SignalChannel], queue: SignalQueue, token: StopSignal,
                 interval_s: float) -> None:
        self._channels = list(channels)
        self._queue = queue
        self._token = token
        self._interval_s = interval_s
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="signal-poller", daemon=True)

    def start(self) -> "SignalPoller":
        self._thread.start()
        return self

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop polling and wait for the thread (it closes the channels: the kafka one commits its offset)."""
        self._closed.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def poll_once(self) -> None:
        for channel in self._channels:
            try:
                records = channel.read()
            except Exception as exc:  # a broken channel must not end the others, nor the connector
                log.warning("signal channel %s: %s", channel.name, exc)
                continue
            for record in records:
                log.info("Processing signal: %s, %s, %s (channel %s)", record.id, record.type, record.data,
                         channel.name)
            self._queue.put(records)

    def _run(self) -> None:
        try:
            next_poll = 0.0
            while not self._token.requested and not self._closed.is_set():
                if time.monotonic() >= next_poll:
                    self.poll_once()
                    next_poll = time.monotonic() + self._interval_s
                # short waits: both the shutdown token and close() end the loop promptly
                self._closed.wait(min(self._interval_s, 0.2))
        finally:
            for channel in self._channels:
                try:
                    channel.close()
                except Exception as exc:  # closing is best effort at shutdown
                    log.warning("signal channel %s: closing failed (%s)", channel.name, exc)
