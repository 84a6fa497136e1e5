"""Shared pieces of the schema-history end-to-end tests: a connector config on a real server and broker."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.conformance.config import write_properties
from tests.conformance.connector_process import ConnectorProcess
from tests.conformance.run import default_connector_cmd
from tests.support.kafka_dump import consume_all


def write_config(workdir: Path, server: Any, broker: Any, database: str, prefix: str,
                 **extra: str) -> Path:
    props = {
        "debezium.sink.type": "kafka",
        "debezium.sink.kafka.producer.bootstrap.servers": broker.bootstrap_servers,
        "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "debezium.source.database.hostname": "127.0.0.1",
        "debezium.source.database.port": str(server.port),
        "debezium.source.database.user": server.user,
        "debezium.source.database.password": server.password,
        "debezium.source.database.server.id": str(random.randint(1000, 100000)),
        "debezium.source.topic.prefix": prefix,
        "debezium.source.database.include.list": database,
        "debezium.source.offset.storage.file.filename": str(workdir / "offsets.dat"),
        "debezium.source.offset.flush.interval.ms": "0",
        "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "debezium.source.schema.history.internal.file.filename": str(workdir / "history.jsonl"),
        **{f"debezium.source.{k.replace('_', '.')}": v for k, v in extra.items()},
    }
    path = workdir / "application.properties"
    write_properties(path, props)
    return path


def connector(workdir: Path, config: Path) -> ConnectorProcess:
    return ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json", workdir / "connector.log")


def wait_exit(proc: ConnectorProcess, timeout: float = 60) -> int:
    assert proc._proc is not None
    return proc._proc.wait(timeout)


def data_values(broker: Any, topic: str) -> list[dict[str, Any]]:
    """Payloads (op, before, after) of a data topic, tombstones left out."""
    return [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
            if r.value is not None]
