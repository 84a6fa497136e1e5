"""Settings of the initial snapshot (snapshot/)."""

from __future__ import annotations

from dataclasses import dataclass, field

from connector.config import modes
from connector.config.declared import prop

__all__ = ["ConfigurationBasedSettings", "SnapshotSettings"]


@dataclass(frozen=True)
class ConfigurationBasedSettings:
    """`snapshot.mode.configuration.based.*` (Debezium's ConfigurationBasedSnapshotter; all default false)."""

    snapshot_data: bool = prop("snapshot.mode.configuration.based.snapshot.data")
    snapshot_schema: bool = prop("snapshot.mode.configuration.based.snapshot.schema")
    start_stream: bool = prop("snapshot.mode.configuration.based.start.stream")
    snapshot_on_schema_error: bool = prop("snapshot.mode.configuration.based.snapshot.on.schema.error")
    snapshot_on_data_error: bool = prop("snapshot.mode.configuration.based.snapshot.on.data.error")


@dataclass(frozen=True)
class SnapshotSettings:
    mode: modes.SnapshotMode = prop("snapshot.mode")
    locking_mode: modes.SnapshotLockingMode = prop("snapshot.locking.mode")
    lock_timeout_ms: int = prop("snapshot.lock.timeout.ms")
    fetch_size: int | None = prop("snapshot.fetch.size")
    min_row_count_to_stream_results: int = prop("min.row.count.to.stream.results")
    include_collection_list: tuple[str, ...] = prop("snapshot.include.collection.list", empty=())
    # db.table -> SELECT, for the tables listed in snapshot.select.statement.overrides
    select_overrides: dict[str, str] = field(default_factory=dict)
    delay_ms: int = prop("snapshot.delay.ms")
    streaming_delay_ms: int = prop("streaming.delay.ms")  # after a snapshot that was taken, before streaming
    max_threads: int = prop("snapshot.max.threads")
    tables_order_by_row_count: str = prop("snapshot.tables.order.by.row.count")  # lower case, stripped
    resume_enabled: bool = prop("snapshot.resume.enabled")
    new_tables: modes.NewTablesMode = prop("snapshot.new.tables")  # beyond Debezium: snapshot/new_tables.py
    configuration_based: ConfigurationBasedSettings = field(default_factory=ConfigurationBasedSettings)
