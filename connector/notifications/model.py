"""A notification as Debezium 3.6 builds it (`io.debezium.pipeline.notification.Notification`), and its log line.

Debezium puts `additional_data` in a `java.util.HashMap` copied from a `Map.of(...)` with `connector_name`
added last, so the sink record's JSON and the log line iterate the keys in that HashMap's order: bucket
order at the capacity the copy constructor picks for the `Map.of` size, insertion order within a bucket.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from connector.java.hashmap import hashmap_order

__all__ = ["Notification", "java_additional_data", "log_line", "new_id"]

CONNECTOR_NAME = "connector_name"


def _copy_capacity(size: int) -> int:
    """Table size of `new HashMap<>(m)` for a map of `size` entries (16 when empty: no table yet)."""
    if size == 0:
        return 16
    wanted = int(size / 0.75 + 1.0)
    capacity = 1
    while capacity < wanted:
        capacity *= 2
    return capacity


def java_additional_data(pairs: Sequence[tuple[str, str]], connector_name: str) -> dict[str, str]:
    """`pairs` (in Debezium's `Map.of` argument order) plus `connector_name`, in Java HashMap order."""
    items = dict(pairs)
    items[CONNECTOR_NAME] = connector_name
    order = hashmap_order(items, _copy_capacity(len(pairs)))
    return {k: items[k] for k in order}


def new_id() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Notification:
    id: str
    aggregate_type: str  # "Initial Snapshot", "Incremental Snapshot"
    type: str  # STARTED, IN_PROGRESS, TABLE_SCAN_COMPLETED, COMPLETED, ABORTED, PAUSED, RESUMED, ...
    additional_data: Mapping[str, str] = field(default_factory=dict)
    timestamp: int = 0  # epoch ms


def log_line(n: Notification) -> str:
    """The log channel's message: LogNotificationChannel logs "{} {}" with a prefix ending in a space."""
    data = ", ".join(f"{k}={v}" for k, v in n.additional_data.items())
    return (f"[Notification Service]  {{id='{n.id}', aggregateType='{n.aggregate_type}', type='{n.type}', "
            f"additionalData={{{data}}}, timestamp={n.timestamp}}}")
