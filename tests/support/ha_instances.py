"""`binlog-cdc run` instances of one HA configuration (ha.enabled), each as if on its own machine: its own directory
(status file, log), metrics port and `ha.instance.id`; /health says its role (standby, active, stepped-down)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conformance.config import KAFKA_HISTORY, KAFKA_OFFSETS, write_properties
from tests.support.connector_config import connector_properties
from tests.integration.service.support import metrics_port, scrape
from tests.support.connector_process import (
    ConnectorProcess,
    binlog_key,
    default_connector_cmd,
)
from tests.support.waiting import wait_until


def ha_properties(props: dict[str, str], prefix: str, bootstrap: str, takeover_ms: int) -> dict[str, str]:
    """`props` (tests/support/connector_config.py) made an HA configuration: exactly-once, offsets and schema
    history in Kafka (topics `<prefix>-offsets`, `<prefix>-history`), ha.enabled."""
    out = {k: v for k, v in props.items() if k != "debezium.source.offset.storage.file.filename"}
    out.update({
        "debezium.source.offset.storage": KAFKA_OFFSETS, "debezium.source.offset.storage.topic": f"{prefix}-offsets",
        "debezium.source.offset.storage.partitions": "1", "debezium.source.offset.storage.replication.factor": "1",
        "debezium.source.schema.history.internal": KAFKA_HISTORY,
        "debezium.source.schema.history.internal.kafka.topic": f"{prefix}-history",
        "debezium.source.schema.history.internal.kafka.bootstrap.servers": bootstrap,
        "debezium.sink.kafka.producer.transactional.id": f"{prefix}-txn",
        "debezium.source.ha.enabled": "true", "debezium.source.ha.takeover.ms": str(takeover_ms),
    })
    return out


def items_table_config(server: Any, broker: Any, database: str, prefix: str, workdir: Path, keys: int, server_id: int,
                       takeover_ms: int) -> tuple[str, dict[str, str]]:
    """`items (id, v)` with `keys` rows at v=0 in `database`, its topics, and the HA configuration capturing it: the
    data topic's name and the properties."""
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL);"
                   + "".join(f"INSERT INTO items VALUES ({k}, 0);" for k in range(keys)), database=database)
    topic = f"{prefix}.{database}.items"
    broker.create_topics([topic, prefix, f"{prefix}-offsets", f"{prefix}-history"])
    props = ha_properties(connector_properties(workdir, server, broker, database, prefix, server_id=server_id), prefix,
                          broker.bootstrap_servers, takeover_ms)
    return topic, props


class Instance:
    """One `binlog-cdc run` with its own directory (its machine), metrics port and instance id."""

    def __init__(self, root: Path, name: str, props: dict[str, str]) -> None:
        self.name, self.dir, self.port = name, root / name, metrics_port()
        self.dir.mkdir()
        config = self.dir / "application.properties"
        write_properties(config, {**props, "debezium.source.metrics.port": str(self.port),
                                  "debezium.source.ha.instance.id": name})
        self.proc = ConnectorProcess(list(default_connector_cmd()), config, self.dir / "status.json",
                                     self.dir / "connector.log").start()
        self.frozen = False

    def health(self) -> dict[str, Any]:
        try:
            code, body = scrape(self.port, "/health")
        except OSError:
            return {}
        return json.loads(body) if code in (200, 503) else {}

    def role(self) -> str | None:
        self.proc.assert_running()
        return self.health().get("role")

    def wait_role(self, role: str, timeout: float) -> None:
        wait_until(lambda: self.role() == role, timeout, f"{self.name} {role}", state=self.health)

    def caught_up(self, server: Any) -> bool:
        """Streaming, at the server's binlog end, every record sent acknowledged."""
        st = self.proc.status() or {}
        return (st.get("phase") == "streaming" and st.get("records_acked") == st.get("records_sent")
                and binlog_key(*server.binlog_position()) <= binlog_key(st.get("binlog_file"), st.get("binlog_pos")))


def active_of(instances: list[Instance]) -> Instance | None:
    """The one active instance among those not frozen (a frozen one cannot answer)."""
    return next((i for i in instances if not i.frozen and i.proc.pid is not None and i.role() == "active"), None)
