"""Shared pieces of the schema-history end-to-end tests: a connector config on a real server and broker."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import write_connector_config
from tests.support.kafka_dump import consume_all


def write_config(workdir: Path, server: Any, broker: Any, database: str, prefix: str,
                 **extra: str) -> Path:
    return write_connector_config(workdir, server, broker, database, prefix, **extra)


def connector(workdir: Path, config: Path) -> ConnectorProcess:
    return ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json", workdir / "connector.log")


def wait_exit(proc: ConnectorProcess, timeout: float = 60) -> int:
    assert proc._proc is not None
    return proc._proc.wait(timeout)


def data_values(broker: Any, topic: str) -> list[dict[str, Any]]:
    """Payloads (op, before, after) of a data topic, tombstones left out."""
    return [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
            if r.value is not None]
