"""Settings of signals and the incremental snapshots they start (connector/signals/, snapshot/incremental/)."""

from __future__ import annotations

from dataclasses import dataclass

from connector.config.declared import prop, read_declared
from connector.config.reader import PropertyReader

__all__ = ["SignalSettings", "signal_settings"]


@dataclass(frozen=True)
class SignalSettings:
    """Signals and the incremental snapshots they start (connector/signals/, snapshot/incremental/)."""

    # `db.table`; None: no source channel, no incremental snapshot
    data_collection: str | None = prop("signal.data.collection", empty=None)
    channels: tuple[str, ...] = prop("signal.enabled.channels")  # lower case
    chunk_size: int = prop("incremental.snapshot.chunk.size")
    allow_schema_changes: bool = prop("incremental.snapshot.allow.schema.changes")
    # read.only=true: nothing is ever written to the database; incremental snapshots use GTID watermarks on MySQL
    # (snapshot/incremental/read_only.py, gtid_mode=ON only), the chunk view's binlog position on MariaDB
    # (snapshot/incremental/view_position.py).
    read_only: bool = prop("read.only", empty=False)
    poll_interval_ms: int = prop("signal.poll.interval.ms")
    file: str = prop("signal.file")
    kafka_topic: str | None = prop("signal.kafka.topic", empty=None)  # None: `<topic.prefix>-signal`
    kafka_bootstrap_servers: str | None = prop("signal.kafka.bootstrap.servers", empty=None)
    kafka_group_id: str = prop("signal.kafka.groupId")
    kafka_poll_timeout_ms: int = prop("signal.kafka.poll.timeout.ms")
    consumer: tuple[tuple[str, str], ...] = ()  # signal.consumer.* for the kafka channel's consumer
    # notification.enabled.channels (log, sink) and the sink channel's topic (connector/notifications/)
    notification_channels: tuple[str, ...] = prop("notification.enabled.channels", empty=())  # lower case
    notification_topic: str | None = prop("notification.sink.topic.name", empty=None)

    @property
    def external(self) -> tuple[str, ...]:
        """The channels read by the poller thread (connector/signals/channels.py)."""
        return tuple(c for c in self.channels if c in ("kafka", "file"))


# What Debezium offers and binlog-cdc does not (yet): refused by name rather than accepted and ignored.
_UNSUPPORTED_SIGNALS = {
    "jmx": "JMX has no Python equivalent; use the kafka or file channel",
    "in-process": "the in-process channel belongs to the embedded Java engine",
}


def signal_settings(r: PropertyReader) -> SignalSettings:
    channels = tuple(c.strip().lower() for c in (r.get("signal.enabled.channels") or ()) if c.strip())
    for channel in channels:
        if channel in _UNSUPPORTED_SIGNALS:
            r.problems.append(f"signal.enabled.channels={channel} refused: {_UNSUPPORTED_SIGNALS[channel]}")
        elif channel not in ("source", "kafka", "file"):
            r.problems.append(f"signal.enabled.channels: unknown channel {channel!r}")
    strategy = (r.get("incremental.snapshot.watermarking.strategy") or "insert_insert").lower()
    if strategy != "insert_insert":
        r.problems.append(f"incremental.snapshot.watermarking.strategy={strategy} refused: only insert_insert "
                          f"is implemented")
    notifications = tuple(c.strip().lower() for c in (r.get("notification.enabled.channels") or ()) if c.strip())
    for channel in notifications:
        if channel == "jmx":
            r.problems.append("notification.enabled.channels=jmx refused: JMX has no Python equivalent; use the log "
                              "or sink channel")
        elif channel not in ("log", "sink"):
            r.problems.append(f"notification.enabled.channels: unknown channel {channel!r} (log, sink)")
    consumer = tuple(sorted((k[len("signal.consumer."):], v) for k, v in r.raw.items()
                            if k.startswith("signal.consumer.") and v))
    settings = read_declared(SignalSettings, r, channels=channels, notification_channels=notifications,
                             consumer=consumer)
    if settings.data_collection and settings.data_collection.count(".") != 1:
        r.problems.append(f"signal.data.collection={settings.data_collection!r}: expected `database.table`")
    if "kafka" in channels and not settings.kafka_bootstrap_servers:
        r.problems.append("signal.enabled.channels=kafka needs signal.kafka.bootstrap.servers (the brokers holding "
                          "the signal topic)")
    if "sink" in notifications and not settings.notification_topic:
        # Debezium's validation message, with what to do
        r.problems.append("notification.enabled.channels=sink: Notification topic name must be provided when kafka "
                          "notification channel is enabled; set notification.sink.topic.name")
    return settings


def new_tables_problems(signals: SignalSettings, store_only_captured_tables_ddl: bool) -> list[str]:
    """Why `snapshot.new.tables=incremental` cannot work with this configuration (snapshot/new_tables.py)."""
    problems = []
    if signals.data_collection is None:
        problems.append("snapshot.new.tables=incremental reads newly matched tables as an incremental snapshot, "
                        "whose watermarks need a signal table: set signal.data.collection (with read.only=true, "
                        "nothing is written: MariaDB, or MySQL with gtid_mode=ON)")
    if store_only_captured_tables_ddl:
        problems.append("snapshot.new.tables=incremental needs the schemas of tables not captured yet: set "
                        "schema.history.internal.store.only.captured.tables.ddl=false (Debezium's default)")
    return problems
