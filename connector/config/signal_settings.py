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
    # read.only=true: nothing is ever written to the database, so execute-snapshot signals (which need
    # watermark rows; the GTID-based read-only variant is not implemented yet) are refused with a message.
    read_only: bool = False


# What Debezium offers and binlog-cdc does not (yet): refused by name rather than accepted and ignored.
_UNSUPPORTED_SIGNALS = {
    "kafka": "the kafka signal channel is not implemented yet",
    "file": "the file signal channel is not implemented yet",
    "jmx": "JMX has no Python equivalent",
    "in-process": "the in-process channel belongs to the embedded Java engine",
}


def signal_settings(r: PropertyReader) -> SignalSettings:
    channels = tuple(c.strip().lower() for c in (r.get("signal.enabled.channels") or ()) if c.strip())
    for channel in channels:
        if channel in _UNSUPPORTED_SIGNALS:
            r.problems.append(f"signal.enabled.channels={channel} refused: {_UNSUPPORTED_SIGNALS[channel]}")
        elif channel != "source":
            r.problems.append(f"signal.enabled.channels: unknown channel {channel!r}")
    strategy = (r.get("incremental.snapshot.watermarking.strategy") or "insert_insert").lower()
    if strategy != "insert_insert":
        r.problems.append(f"incremental.snapshot.watermarking.strategy={strategy} refused: only insert_insert "
                          f"is implemented")
    collection = r.get("signal.data.collection")
    if collection and collection.count(".") != 1:
        r.problems.append(f"signal.data.collection={collection!r}: expected `database.table`")
    return SignalSettings(collection or None, channels, r.get("incremental.snapshot.chunk.size") or 1024,
                          bool(r.get("read.only")))
