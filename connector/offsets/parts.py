"""Composed offsets: each piece of state stores, and loads, its own offset keys.

Debezium's `BinlogOffsetContext.getOffset()` puts the binlog position into a HashMap, then hands the map to
each context that owns more keys: `incrementalSnapshotContext.store(transactionContext.store(offset))`.
Here every such state is an `OffsetPart`; `compose_offset` is the one function that renders parts into
the offset map, in Java HashMap iteration order (connector/java/hashmap.py), which is what Debezium writes.

Parts (debezium-contract.md §d10):
* the binlog position (`connector.offsets.position.SourceOffset`): server_id, gtids, file, pos, event, row, ts_sec;
* the snapshot marker (`SnapshotMarker`): `snapshot` while a snapshot runs (`snapshot_completed` read back);
* the transaction context (`connector.offsets.position.TransactionState`): transaction_id + per-table orders;
* the incremental snapshot (`IncrementalSnapshotSlot`): the four `incremental_snapshot_*` keys, kept as
  stored until the incremental snapshot itself is implemented;
* beyond Debezium, where an interrupted initial snapshot got to (`snapshot.resume.SnapshotResume`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from connector.java.hashmap import as_hashmap

__all__ = [
    "OWN_KEYS",
    "debezium_entries",
    "INCREMENTAL_SNAPSHOT_KEYS",
    "IncrementalSnapshotSlot",
    "OffsetPart",
    "SnapshotMarker",
    "compose_offset",
]

SNAPSHOT_KEY = "snapshot"
SNAPSHOT_COMPLETED_KEY = "snapshot_completed"
# Keys binlog-cdc adds to Debezium's offsets (snapshot/resume.py, snapshot/new_tables.py): not counted where
# Debezium's own offset is meant (debezium_entries)
OWN_KEYS = frozenset({"snapshot_resume_table", "snapshot_resume_key", "captured_table_filters"})


def debezium_entries(offset: Mapping[str, Any]) -> int:
    """How many entries Debezium's offset for the same record has (the EnforceRecordSize estimate counts them)."""
    return len(offset) - sum(1 for k in OWN_KEYS if k in offset)
# In the order AbstractIncrementalSnapshotContext.store puts them (insertion order decides within a bucket).
INCREMENTAL_SNAPSHOT_KEYS = (
    "incremental_snapshot_primary_key",
    "incremental_snapshot_maximum_key",
    "incremental_snapshot_collections",
    "incremental_snapshot_correlation_id",
)


class OffsetPart(Protocol):
    """A piece of state that owns some offset keys.

    `store` puts its keys (only those that are meaningful now) into `offset`, in the order Debezium puts
    them, and returns it; the class's `load(offset)` reads them back, None when the offset has none.
    """

    def store(self, offset: dict[str, Any]) -> dict[str, Any]: ...


def compose_offset(*parts: OffsetPart | None) -> dict[str, Any]:
    """The offset map of `parts` (None entries skipped), keys in Java HashMap iteration order."""
    offset: dict[str, Any] = {}
    for part in parts:
        if part is not None:
            offset = part.store(offset)
    return as_hashmap(offset)


def is_true(value: Any) -> bool:
    """Debezium's `Loader.isTrue`: Boolean.TRUE or the string "true"."""
    return value is True or value == "true"


@dataclass(frozen=True)
class SnapshotMarker:
    """`snapshot`: which snapshot is running (`INITIAL`, `BLOCKING`, `INCREMENTAL`); absent once it completed."""

    kind: str

    def store(self, offset: dict[str, Any]) -> dict[str, Any]:
        offset[SNAPSHOT_KEY] = self.kind
        return offset

    @staticmethod
    def load(offset: Mapping[str, Any], default_kind: str = "INITIAL") -> "SnapshotMarker | None":
        """Read 3.x strings, 1.x/2.x booleans (`true` means an initial snapshot) and `snapshot_completed`."""
        if is_true(offset.get(SNAPSHOT_COMPLETED_KEY)):
            return None
        value = offset.get(SNAPSHOT_KEY)
        if value is None or value is False or (isinstance(value, str) and value.lower() in ("false", "")):
            return None
        if value is True or (isinstance(value, str) and value.lower() == "true"):
            return SnapshotMarker(default_kind)
        return SnapshotMarker(str(value))


@dataclass(frozen=True)
class IncrementalSnapshotSlot:
    """The incremental snapshot's keys, carried through unchanged (values as Debezium serialized them)."""

    values: tuple[tuple[str, Any], ...]

    def store(self, offset: dict[str, Any]) -> dict[str, Any]:
        for key, value in self.values:
            offset[key] = value
        return offset

    @staticmethod
    def load(offset: Mapping[str, Any]) -> "IncrementalSnapshotSlot | None":
        values = tuple((k, offset[k]) for k in INCREMENTAL_SNAPSHOT_KEYS if k in offset)
        return IncrementalSnapshotSlot(values) if values else None
