"""Kafka unavailable mid-stream while the database keeps changing: the connector blocks (no crash, no offset
commit for unacknowledged records), stops promptly when asked, and delivers every change once Kafka is back.

Tansu keeps topics and producer state in memory, so a stopped Tansu comes back empty and refuses the
idempotent producer's old id (a real Kafka keeps both). Hence two tests: a frozen broker (SIGSTOP/SIGCONT,
state kept) that the running connector rides out, and a stopped one, after which the connector is restarted."""
from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.integration.service.support import start_connector
from tests.support.waiting import wait_until
from tests.support.connector_config import write_connector_config
from tests.support.kafka_dump import consume_all
from tests.support.tansu import TansuBroker

pytestmark = pytest.mark.timeout(300)


class InsertWriter(threading.Thread):
    """Inserts rows with increasing ids in small transactions while `running` is set."""

    def __init__(self, server, database: str) -> None:
        super().__init__(name="insert-writer", daemon=True)
        self.server, self.database = server, database
        self.running = threading.Event()
        self.idle = threading.Event()  # set while paused between transactions
        self.stop_requested = threading.Event()
        self.next_id = 1
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            conn = self.server.connect(self.database)
            with conn.cursor() as cur:
                while not self.stop_requested.is_set():
                    if not self.running.is_set():
                        self.idle.set()
                        self.running.wait(0.05)
                        continue
                    self.idle.clear()
                    if not self.running.is_set():  # paused between the check and clear(): stay idle
                        continue
                    ids = (self.next_id, self.next_id + 1)
                    cur.execute("INSERT INTO items (id, v) VALUES (%s, 'a'), (%s, 'b')", ids)
                    cur.execute("COMMIT")
                    self.next_id += 2
                    time.sleep(0.01)
            conn.close()
        except BaseException as exc:  # surfaced by the test
            self.error = exc


def _ids(bootstrap: str, topic: str) -> list[int]:
    return [json.loads(r.key)["payload"]["id"] for r in consume_all(bootstrap, {topic: 1}) if r.value is not None]


def _status(workdir: Path) -> dict:
    return json.loads((workdir / "status.json").read_text())


def _unacknowledged(workdir: Path, at_least: int) -> dict | None:
    """The status once at least `at_least` sent records wait for Kafka's acknowledgement, else None."""
    status = _status(workdir)
    return status if status["records_sent"] - status["records_acked"] >= at_least else None


@pytest.fixture
def setup(mariadb, unique_database, tmp_path: Path):
    """A table, a broker of the test's own, a writer (paused) and the connector streaming."""
    database = unique_database(mariadb)
    mariadb.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v VARCHAR(10))", database=database)
    prefix = f"brk{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.{database}.items"
    broker = TansuBroker(tmp_path / "kafka").start()
    broker.create_topics([topic, prefix])
    writer = InsertWriter(mariadb, database)
    writer.start()
    config = write_connector_config(tmp_path, mariadb, broker, database, prefix)
    proc = start_connector(tmp_path, config)
    try:
        yield broker, writer, proc, topic, config
    finally:
        writer.stop_requested.set()
        writer.running.set()
        writer.join(10)
        proc.stop()
        broker.stop()
    assert writer.error is None, writer.error


def _changes_acknowledged(mariadb, writer: InsertWriter, proc, count: int) -> int:
    """Let the writer make `count` more changes, pause it, wait until Kafka acknowledged all; the last id."""
    target = writer.next_id + count
    writer.running.set()
    wait_until(lambda: writer.next_id > target, 60, f"{count} changes")
    writer.running.clear()
    # the writer finishes the insert it is in; only then is the binlog position final
    wait_until(lambda: writer.idle.is_set(), 120, "the writer to pause")
    proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=1000, timeout=120)
    return writer.next_id - 1


def test_broker_unresponsive_blocks_then_delivers_everything(setup, mariadb, tmp_path: Path):
    """The broker process is frozen (SIGSTOP: connections stay open, nothing answers) while the database keeps
    changing, then thawed: the connector waits without committing offsets or crashing, then delivers every
    change in order, none twice, without a restart."""
    broker, writer, proc, topic, _ = setup
    before = _changes_acknowledged(mariadb, writer, proc, 200)
    committed = _status(tmp_path)["committed_offset"]
    os.kill(broker._proc.pid, signal.SIGSTOP)
    try:
        writer.running.set()
        wait_until(lambda: writer.next_id > before + 300, 60, "changes while the broker is frozen")
        # the connector has read (and tried to send) those changes: it had every chance to commit wrongly
        status = wait_until(lambda: _unacknowledged(tmp_path, 300), 60, "300 unacknowledged records")
        assert proc._proc is not None and proc._proc.poll() is None, proc.log_tail()
        assert status["committed_offset"] == committed, "offsets moved while Kafka acknowledged nothing"
        assert status["records_sent"] > status["records_acked"], status
    finally:
        os.kill(broker._proc.pid, signal.SIGCONT)
    last = _changes_acknowledged(mariadb, writer, proc, 200)
    assert _ids(broker.bootstrap_servers, topic) == list(range(1, last + 1))
    assert _status(tmp_path)["committed_offset"] != committed


def test_broker_stopped_then_connector_stops_promptly_and_resumes(setup, mariadb, tmp_path: Path):
    """The broker stops (Tansu loses its data with it, as a wiped cluster would): SIGTERM still ends the
    connector promptly with exit 0 and offsets at the last acknowledged record; started again against the
    restarted broker it delivers every change made since, none missing."""
    broker, writer, proc, topic, config = setup
    before = _changes_acknowledged(mariadb, writer, proc, 200)
    assert _ids(broker.bootstrap_servers, topic) == list(range(1, before + 1))
    committed = _status(tmp_path)["committed_offset"]
    broker.stop()
    writer.running.set()
    wait_until(lambda: writer.next_id > before + 300, 60, "changes while the broker is down")
    wait_until(lambda: _unacknowledged(tmp_path, 1), 60, "records the connector could not deliver")
    started = time.monotonic()
    assert proc.stop() == 0, proc.log_tail()
    # the final flush is bounded by offset.flush.timeout.ms + 5 s; the rest is headroom for a loaded machine
    assert time.monotonic() - started < 45, proc.log_tail()
    final = _status(tmp_path)
    assert final["phase"] == "stopped", final
    assert final["records_sent"] > final["records_acked"], final
    assert final["committed_offset"] == committed, final
    # The operator is told, anywhere in the log (librdkafka's reconnect lines can follow it): by the daemon's final
    # flush ("stopping with N record(s) not acknowledged by Kafka"), or, when the stop interrupted a send blocked on
    # the full window, by the writer's close ("Closing the Kafka producer with N records not acknowledged").
    log = proc.log_file.read_text(encoding="utf-8", errors="replace")
    assert "record(s) not acknowledged by Kafka" in log or "records not acknowledged; purging" in log, log[-3000:]

    broker.start()
    broker.create_topics([topic, topic.split(".")[0]])
    proc.start()
    proc.wait_streaming(120)
    last = _changes_acknowledged(mariadb, writer, proc, 200)
    assert _ids(broker.bootstrap_servers, topic) == list(range(before + 1, last + 1))
