"""A single-node Apache Kafka (the official `apache/kafka` image, KRaft) for testcontainers.

testcontainers' own KafkaContainer drives Confluent's image; this one drives Apache's. The
broker must advertise the host port Docker maps, which is only known after the container
starts, so the container waits for an env file that `start()` writes once the port is known
(the same trick as testcontainers' KafkaContainer), then runs the image's own start script.
"""

from __future__ import annotations

import io
import re
import tarfile
import time

from testcontainers.core.container import DockerContainer
from testcontainers.core.wait_strategies import LogMessageWaitStrategy

APACHE_KAFKA_IMAGE = "apache/kafka:4.1.0"
_ENV_FILE = "/tmp/binlog-cdc-tc.env"
_CLIENT_PORT = 9092      # mapped to the host, advertised as host:mapped-port
_BROKER_PORT = 19092     # inter-broker traffic inside the container
_CONTROLLER_PORT = 9093


class ApacheKafkaContainer(DockerContainer):
    def __init__(self, image: str = APACHE_KAFKA_IMAGE, cluster_id: str = "EFTJqHcWUP-UEVTxGRBqFA") -> None:
        super().__init__(image)
        self.with_exposed_ports(_CLIENT_PORT)
        for key, value in {
            "CLUSTER_ID": cluster_id,
            "KAFKA_NODE_ID": "1",
            "KAFKA_PROCESS_ROLES": "broker,controller",
            "KAFKA_CONTROLLER_QUORUM_VOTERS": f"1@localhost:{_CONTROLLER_PORT}",
            "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER",
            "KAFKA_LISTENERS": f"CLIENT://:{_CLIENT_PORT},BROKER://:{_BROKER_PORT},CONTROLLER://:{_CONTROLLER_PORT}",
            "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "CLIENT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "KAFKA_INTER_BROKER_LISTENER_NAME": "BROKER",
            "KAFKA_NUM_PARTITIONS": "1",
            "KAFKA_AUTO_CREATE_TOPICS_ENABLE": "true",
            "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
            "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
            "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1",
            "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR": "1",
            "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR": "1",
            "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0",
        }.items():
            self.with_env(key, value)
        # eclipse-temurin's entrypoint execs this; /etc/kafka/docker/run is the image's own CMD.
        self.with_command(["sh", "-c", f"while [ ! -f {_ENV_FILE} ]; do sleep 0.1; done; "
                                       f". {_ENV_FILE}; exec /etc/kafka/docker/run"])

    def start(self, timeout: float = 120) -> "ApacheKafkaContainer":
        super().start()
        host, port = self.get_container_host_ip(), self.get_exposed_port(_CLIENT_PORT)
        advertised = f"CLIENT://{host}:{port},BROKER://localhost:{_BROKER_PORT}"
        self._put_file(_ENV_FILE, f"export KAFKA_ADVERTISED_LISTENERS={advertised}\n".encode())
        strategy = LogMessageWaitStrategy(re.compile(r"Kafka Server started"))
        strategy.with_startup_timeout(int(timeout))
        strategy.wait_until_ready(self)
        return self

    def bootstrap_servers(self) -> str:
        return f"{self.get_container_host_ip()}:{self.get_exposed_port(_CLIENT_PORT)}"

    def _put_file(self, path: str, content: bytes) -> None:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            info = tarfile.TarInfo(name=path.lstrip("/"))
            info.size, info.mtime, info.mode = len(content), int(time.time()), 0o644
            tar.addfile(info, io.BytesIO(content))
        self.get_wrapped_container().put_archive("/", buf.getvalue())
