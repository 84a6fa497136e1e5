"""Settings of signals and the incremental snapshots they start (connector/signals/, snapshot/incremental/)."""

from __future__ import annotations

from dataclasses import dataclass

from connector.config.reader import PropertyReader

__all__ = ["SignalSettings", "signal_settings"]


@dataclass(frozen=True)
class SignalSettings:
    """Signals and the incremental snapshots they start (connector/signals/, snapshot/incremental/)."""

    data_collection: str | None = None  # `db.table`; None: no source channel, no incremental snapshot
    channels: tuple[str, ...] = ("source",)
    chunk_size: int = 1024
    # read.only=true: nothing is ever written to the database; incremental snapshots use GTID watermarks
    # (snapshot/incremental/read_only.py), MySQL with GTIDs only.
    read_only: bool = False
    poll_interval_ms: int = 5000
    file: str = "file-signals.txt"
    kafka_topic: str | None = None  # None: `<topic.prefix>-signal`
    kafka_bootstrap_servers: str | None = None
    kafka_group_id: str = "kafka-signal"
    kafka_poll_timeout_ms: int = 0
    consumer: tuple[tuple[str, str], ...] = ()  # signal.consumer.* for the kafka channel's consumer
    # notification.enabled.channels (log, sink) and the sink channel's topic (connector/notifications/)
    notification_channels: tuple[str, ...] = ()
    notification_topic: str | None = None

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
    collection = r.get("signal.data.collection")
    if collection and collection.count(".") != 1:
        r.problems.append(f"signal.data.collection={collection!r}: expected `database.table`")
    bootstrap = r.get("signal.kafka.bootstrap.servers")
    if "kafka" in channels and not bootstrap:
        r.problems.append("signal.enabled.channels=kafka needs signal.kafka.bootstrap.servers (the brokers holding "
                          "the signal topic)")
    consumer = tuple(sorted((k[len("signal.consumer."):], v) for k, v in r.raw.items()
                            if k.startswith("signal.consumer.") and v))
    notifications = tuple(c.strip().lower() for c in (r.get("notification.enabled.channels") or ()) if c.strip())
    for channel in notifications:
        if channel == "jmx":
            r.problems.append("notification.enabled.channels=jmx refused: JMX has no Python equivalent; use the log "
                              "or sink channel")
        elif channel not in ("log", "sink"):
            r.problems.append(f"notification.enabled.channels: unknown channel {channel!r} (log, sink)")
    notification_topic = r.get("notification.sink.topic.name") or None
    if "sink" in notifications and not notification_topic:
        # Debezium's validation message, with what to do
        r.problems.append("notification.enabled.channels=sink: Notification topic name must be provided when kafka "
                          "notification channel is enabled; set notification.sink.topic.name")
    return SignalSettings(collection or None, channels, r.get("incremental.snapshot.chunk.size") or 1024,
                          bool(r.get("read.only")), r.get("signal.poll.interval.ms"), r.get("signal.file"),
                          r.get("signal.kafka.topic") or None, bootstrap or None, r.get("signal.kafka.groupId"),
                          r.get("signal.kafka.poll.timeout.ms"), consumer, notifications, notification_topic)


def new_tables_problems(signals: SignalSettings, store_only_captured_tables_ddl: bool) -> list[str]:
    """Why `snapshot.new.tables=incremental` cannot work with this configuration (snapshot/new_tables.py)."""
    problems = []
    if signals.data_collection is None:
        problems.append("snapshot.new.tables=incremental reads newly matched tables as an incremental snapshot, "
                        "whose watermarks need a signal table: set signal.data.collection (with read.only=true, "
                        "MySQL with gtid_mode=ON and no writes)")
    if store_only_captured_tables_ddl:
        problems.append("snapshot.new.tables=incremental needs the schemas of tables not captured yet: set "
                        "schema.history.internal.store.only.captured.tables.ddl=false (Debezium's default)")
    return problems
