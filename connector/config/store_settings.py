"""Settings of the two stores the connector keeps: the schema history and the offsets."""

from __future__ import annotations

from dataclasses import dataclass, field

from connector.config.declared import prop, read_declared
from connector.config.reader import PropertyReader

__all__ = ["HISTORY_FILE", "HISTORY_KAFKA", "HISTORY_MEMORY", "OFFSETS_FILE", "OFFSETS_KAFKA", "OFFSETS_MEMORY",
           "HistorySettings", "OffsetSettings", "history_store", "offset_settings"]

HISTORY_KAFKA = "io.debezium.storage.kafka.history.KafkaSchemaHistory"
HISTORY_FILE = "io.debezium.storage.file.history.FileSchemaHistory"
HISTORY_MEMORY = "io.debezium.relational.history.MemorySchemaHistory"
OFFSETS_FILE = "org.apache.kafka.connect.storage.FileOffsetBackingStore"
OFFSETS_KAFKA = "org.apache.kafka.connect.storage.KafkaOffsetBackingStore"
OFFSETS_MEMORY = "org.apache.kafka.connect.storage.MemoryOffsetBackingStore"


@dataclass(frozen=True)
class HistorySettings:
    store: str = HISTORY_KAFKA  # one of HISTORY_*, from schema.history.internal
    kafka_topic: str | None = prop("schema.history.internal.kafka.topic")
    kafka_bootstrap_servers: str | None = prop("schema.history.internal.kafka.bootstrap.servers")
    file_filename: str | None = prop("schema.history.internal.file.filename")
    client_name: str = ""  # schema.history.internal.name, default <topic.prefix>-schemahistory
    skip_unparseable_ddl: bool = prop("schema.history.internal.skip.unparseable.ddl")
    store_only_captured_tables_ddl: bool = prop("schema.history.internal.store.only.captured.tables.ddl")
    store_only_captured_databases_ddl: bool = prop("schema.history.internal.store.only.captured.databases.ddl")
    ddl_filter: str | None = prop("schema.history.internal.ddl.filter")
    prefer_ddl: bool = prop("schema.history.internal.prefer.ddl")
    checkpoint_interval: int = prop("schema.history.internal.checkpoint.interval")  # beyond Debezium
    consumer_overrides: dict[str, str] = field(default_factory=dict)
    producer_overrides: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OffsetSettings:
    store: str = OFFSETS_FILE  # one of OFFSETS_*, from offset.storage or which of file/topic is given
    file_filename: str | None = None  # offset.storage.file.filename, or the default file
    topic: str | None = None  # offset.storage.topic, default connect-offsets
    partitions: int = prop("offset.storage.partitions")
    replication_factor: int = prop("offset.storage.replication.factor")
    flush_interval_ms: int = prop("offset.flush.interval.ms")
    flush_timeout_ms: int = prop("offset.flush.timeout.ms")
    # Whether offset.flush.interval.ms was given: exactly-once mode does not take the one-minute default.
    flush_interval_set: bool = False


_HISTORY_ALIASES = {
    "kafkaschemahistory": HISTORY_KAFKA,
    "fileschemahistory": HISTORY_FILE,
    "memoryschemahistory": HISTORY_MEMORY,
}


def history_store(r: PropertyReader) -> str:
    text = r.get("schema.history.internal") or HISTORY_KAFKA
    short = text.rsplit(".", 1)[-1].lower()
    if short in _HISTORY_ALIASES:
        return _HISTORY_ALIASES[short]
    r.problems.append(f"schema.history.internal={text!r} is not supported; use {HISTORY_KAFKA} or {HISTORY_FILE}")
    return HISTORY_MEMORY


_OFFSET_ALIASES = {
    "fileoffsetbackingstore": OFFSETS_FILE,
    "kafkaoffsetbackingstore": OFFSETS_KAFKA,
    "memoryoffsetbackingstore": OFFSETS_MEMORY,
}


def offset_settings(r: PropertyReader, default_file: str | None) -> OffsetSettings:
    cls = r.get("offset.storage")
    filename = r.get("offset.storage.file.filename")
    topic = r.get("offset.storage.topic")
    if cls:
        store = _OFFSET_ALIASES.get(cls.rsplit(".", 1)[-1].lower())
        if store is None:
            r.problems.append(f"offset.storage={cls!r} is not supported; use {OFFSETS_FILE} or {OFFSETS_KAFKA}")
            store = OFFSETS_MEMORY
    elif filename:
        store = OFFSETS_FILE
    elif topic:
        store = OFFSETS_KAFKA
    elif default_file:
        store = OFFSETS_FILE
    else:
        store = OFFSETS_KAFKA
    settings = read_declared(
        OffsetSettings, r, store=store,
        file_filename=filename or (default_file if store == OFFSETS_FILE else None),
        topic=topic or ("connect-offsets" if store == OFFSETS_KAFKA else None),
        flush_interval_set=r.raw.get("offset.flush.interval.ms") not in (None, ""))
    if store == OFFSETS_FILE and not settings.file_filename:
        r.problems.append("offset.storage.file.filename is required with FileOffsetBackingStore")
    return settings
