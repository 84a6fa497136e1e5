"""Which source offset is safe to commit: the newest one whose record, and every record before it, is acked.

Kafka acknowledges records per partition, so acks arrive out of order across partitions. Committing the
offset of an acknowledged record while an earlier one is still in flight would, after a crash, skip the
earlier record for ever. The tracker therefore numbers records in the order they are handed to the
producer and only advances over an unbroken prefix of acknowledged sequence numbers, as Kafka Connect's
`SubmittedRecords` does. A record that failed is never acknowledged, so nothing past it is ever committable.

Resume contract: a committed offset is the position *after* the record that carried it (Debezium's
`file`/`pos` + `event`/`row` skip counts), so restarting from it re-reads nothing that was acknowledged.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Mapping, Protocol

__all__ = ["OffsetSource", "OffsetTracker"]


class OffsetSource(Protocol):
    """An offset that renders its map only when asked (`SourceOffset`): a rows event's group is tracked with its
    offset as it is, and the map is built only for the offsets a commit or a status read takes."""

    def to_map(self) -> dict[str, Any]: ...


def _as_map(offset: "Mapping[str, Any] | OffsetSource") -> dict[str, Any]:
    return dict(offset) if isinstance(offset, Mapping) else offset.to_map()


class OffsetTracker:
    """Sequence numbers for produced records; `committable()` is the newest fully-acked offset.

    `track()` and `ack()` may be called from different threads (confluent-kafka runs delivery callbacks
    inside `poll()`/`flush()`, usually on the producing thread); all state is behind one lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next_seq = 0
        # First sequence number still pending; entries are [offset or None, acked] for seq >= _base.
        self._base = 0
        self._pending: deque[list[Any]] = deque()
        # a copied map, or an `OffsetSource` (immutable) whose map is built when read
        self._committable: dict[str, Any] | OffsetSource | None = None
        self._version = 0  # bumped whenever _committable changes, so committers can skip re-saving
        self._newest: dict[str, Any] | OffsetSource | None = None  # last offset tracked or observed, acked or not

    def track(self, offset: Mapping[str, Any] | None) -> int:
        """Register the next record (before producing it) with the source offset it carries, if any."""
        return self.track_source(dict(offset) if offset is not None else None)

    def track_source(self, offset: "dict[str, Any] | OffsetSource | None") -> int:
        """`track` for an offset kept as it is: a map nobody changes afterwards, or an immutable `OffsetSource`."""
        with self._lock:
            seq = self._next_seq
            self._next_seq += 1
            self._pending.append([offset, False])
            if offset is not None:
                self._newest = offset
            return seq

    def ack(self, seq: int) -> None:
        """Mark record `seq` acknowledged by Kafka; advances the committable offset over the acked prefix."""
        with self._lock:
            index = seq - self._base
            if not 0 <= index < len(self._pending):
                raise ValueError(f"unknown or already committed sequence number {seq}")
            self._pending[index][1] = True
            self._advance()

    def observe(self, offset: Mapping[str, Any]) -> None:
        """An offset reached without producing a record (filtered event, heartbeat without a topic).

        It becomes committable as soon as every record tracked before it is acknowledged.
        """
        with self._lock:
            self._next_seq += 1
            copied = dict(offset)
            self._pending.append([copied, True])
            self._newest = copied
            self._advance()

    def _advance(self) -> None:
        pending = self._pending
        while pending and pending[0][1]:
            offset, _ = pending.popleft()
            self._base += 1
            if offset is not None:
                self._committable = offset
                self._version += 1

    def committable(self) -> dict[str, Any] | None:
        """The newest offset all of whose records (and all earlier ones) are acknowledged; None if none yet."""
        with self._lock:
            return None if self._committable is None else _as_map(self._committable)

    def committable_versioned(self) -> tuple[int, dict[str, Any] | None]:
        """`committable()` plus a counter that changes whenever it does (to skip saving the same offset twice)."""
        with self._lock:
            offset = None if self._committable is None else _as_map(self._committable)
            return self._version, offset

    def newest(self) -> dict[str, Any] | None:
        """The offset of the last record tracked, acknowledged or not.

        Only for exactly-once mode, where it is written inside the same Kafka transaction as those records:
        the commit makes the records and the offset visible together or not at all.
        """
        with self._lock:
            return None if self._newest is None else _as_map(self._newest)

    def in_flight(self) -> int:
        """Records tracked but not yet part of the acknowledged prefix."""
        with self._lock:
            return len(self._pending)
