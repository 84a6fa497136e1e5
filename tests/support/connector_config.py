"""The connector configuration every end-to-end test and benchmark starts from: Debezium Server properties
for one captured database on a test server and broker, with file offsets and file schema history in `workdir`."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.conformance.config import write_properties


def connector_properties(workdir: Path, server: Any, broker: Any, database: str, prefix: str, *,
                         server_id: int | None = None, flush_interval_ms: int = 0,
                         **extra: str) -> dict[str, str]:
    """`extra` names source properties with dots written as underscores (`snapshot_mode="never"`);
    they override the defaults here."""
    props = {
        "debezium.sink.type": "kafka",
        "debezium.sink.kafka.producer.bootstrap.servers": broker.bootstrap_servers,
        "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "debezium.source.database.hostname": "127.0.0.1",
        "debezium.source.database.port": str(server.port),
        "debezium.source.database.user": server.user,
        "debezium.source.database.password": server.password,
        # Random, so that two connectors of one test run never share a replica id on the same server.
        "debezium.source.database.server.id": str(server_id if server_id is not None
                                                  else random.randint(1000, 100000)),
        "debezium.source.topic.prefix": prefix,
        "debezium.source.database.include.list": database,
        "debezium.source.offset.storage.file.filename": str(workdir / "offsets.dat"),
        "debezium.source.offset.flush.interval.ms": str(flush_interval_ms),
        "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "debezium.source.schema.history.internal.file.filename": str(workdir / "history.jsonl"),
    }
    props.update({f"debezium.source.{k.replace('_', '.')}": v for k, v in extra.items()})
    return props


def write_connector_config(workdir: Path, server: Any, broker: Any, database: str, prefix: str,
                           **extra: Any) -> Path:
    path = workdir / "application.properties"
    write_properties(path, connector_properties(workdir, server, broker, database, prefix, **extra))
    return path
