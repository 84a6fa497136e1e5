"""The connector CONFIG of a conformance run: the reference harness's engine.properties,
rewritten as a Debezium Server `application.properties` for `binlog-cdc run`.

Only the storage and sink lines differ from the harness (Kafka sink instead of the
embedded engine, and optionally Kafka-backed offsets / schema history); every Debezium
source property is the harness's, and `--prop key=value` overrides it (`key=` removes it).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

OFFSETS_TOPIC = "binlog-cdc-offsets"
HISTORY_TOPIC = "binlog-cdc-schema-history"
FILE_OFFSETS = "org.apache.kafka.connect.storage.FileOffsetBackingStore"
KAFKA_OFFSETS = "org.apache.kafka.connect.storage.KafkaOffsetBackingStore"
FILE_HISTORY = "io.debezium.storage.file.history.FileSchemaHistory"
KAFKA_HISTORY = "io.debezium.storage.kafka.history.KafkaSchemaHistory"


@dataclass(frozen=True)
class RunConfig:
    out_dir: Path
    db_port: int
    bootstrap_servers: str
    offsets: str = "file"    # file | kafka
    history: str = "file"    # file | kafka
    overrides: tuple[str, ...] = ()  # "key=value" / "key=" (remove), Debezium source keys

    @property
    def topic_prefix(self) -> str:
        return self.source_properties()["topic.prefix"]

    def source_properties(self) -> dict[str, str]:
        """The harness's engine.properties (connector part), storage adapted, overrides applied."""
        props = {
            "name": "dbz-ref",  # the offsets key is [name, partition]: same name as the goldens
            "connector.class": "io.debezium.connector.mysql.MySqlConnector",
            "tasks.max": "1",
            "database.hostname": "127.0.0.1",
            "database.port": str(self.db_port),
            "database.user": "debezium",
            "database.password": "dbz",
            "database.server.id": "5401",
            "database.ssl.mode": "disabled",
            "topic.prefix": "dbserver1",
            "snapshot.mode": "initial",
            "include.schema.changes": "true",
            "provide.transaction.metadata": "true",
            "tombstones.on.delete": "true",
            # the harness flushes every 1 s; we flush on every ack so a kill loses nothing
            "offset.flush.interval.ms": "0",
        }
        if self.offsets == "file":
            props.update({"offset.storage": FILE_OFFSETS,
                          "offset.storage.file.filename": str(self.out_dir / "offsets.dat")})
        else:
            props.update({"offset.storage": KAFKA_OFFSETS, "offset.storage.topic": OFFSETS_TOPIC,
                          "offset.storage.partitions": "1", "offset.storage.replication.factor": "1",
                          "bootstrap.servers": self.bootstrap_servers})
        if self.history == "file":
            props.update({"schema.history.internal": FILE_HISTORY,
                          "schema.history.internal.file.filename": str(self.out_dir / "schema_history.jsonl")})
        else:
            props.update({"schema.history.internal": KAFKA_HISTORY,
                          "schema.history.internal.kafka.topic": HISTORY_TOPIC,
                          "schema.history.internal.kafka.bootstrap.servers": self.bootstrap_servers})
        for kv in self.overrides:
            if "=" not in kv:
                raise ValueError(f"--prop expects key=value (or key= to remove), got {kv!r}")
            k, _, v = kv.partition("=")
            if v == "":
                props.pop(k, None)
            else:
                props[k] = v
        return props

    def application_properties(self) -> dict[str, str]:
        """Full Debezium Server configuration (debezium.sink.* / source.* / format.*)."""
        props = {"debezium.sink.type": "kafka",
                 "debezium.sink.kafka.producer.bootstrap.servers": self.bootstrap_servers}
        source = self.source_properties()
        formats = {"debezium.format.key": "json", "debezium.format.value": "json", "debezium.format.header": "json"}
        # the harness's converter properties (--prop value.converter.schemas.enable=false, Avro/ProtobufConverter + its
        # schema.registry.url) are Debezium Server format properties here
        for key in [k for k in source if k.startswith(("key.converter", "value.converter"))]:
            value = source.pop(key)
            side, _, rest = key.partition(".converter")
            if rest:
                formats[f"debezium.format.{side}{rest}"] = value
            else:
                formats[f"debezium.format.{side}"] = ("avro" if "AvroConverter" in value else "protobuf"
                                                      if "ProtobufConverter" in value else "cloudevents"
                                                      if "CloudEventsConverter" in value else "json")
        props.update({f"debezium.source.{k}": v for k, v in source.items()})
        props.update(formats)
        return props

    def write(self, path: Path) -> Path:
        write_properties(path, self.application_properties())
        return path


def write_properties(path: Path, props: dict[str, str]) -> None:
    """java.util.Properties syntax. Values only escape backslash and newline (`=` and `:`
    are literal after the separator), so a naive `key=value` reader also gets them right."""
    def esc_value(s: str) -> str:
        return s.replace("\\", "\\\\").replace("\n", "\\n")

    def esc_key(s: str) -> str:
        return esc_value(s).replace("=", "\\=").replace(":", "\\:")
    path.write_text("".join(f"{esc_key(k)}={esc_value(v)}\n" for k, v in props.items()), encoding="utf-8")
