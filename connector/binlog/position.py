"""Where the connector is in the binlog, and the offset map Debezium stores for it.

The resume contract (Debezium's, debezium-contract.md §d10): an offset names the event to reconnect
at (`file`/`pos`: the start of the current transaction, or the next event between transactions),
plus how many events (`event`) and rows (`row`) of that transaction were already emitted, so a restart
skips exactly those. `gtids` is the set of *completed* transactions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from connector.java.hashmap import as_hashmap

SNAPSHOT_INITIAL = "INITIAL"


@dataclass(frozen=True, order=True)
class BinlogPosition:
    file: str
    pos: int

    def __str__(self) -> str:
        return f"{self.file}:{self.pos}"


@dataclass(frozen=True)
class TransactionState:
    """Debezium's TransactionContext: id plus per-table and total event counters."""

    id: str
    total_order: int = 0
    per_table: tuple[tuple[str, int], ...] = ()

    def next_event(self, data_collection: str) -> tuple["TransactionState", int, int]:
        counts = dict(self.per_table)
        counts[data_collection] = counts.get(data_collection, 0) + 1
        # Keep first-seen order: Debezium's map is a HashMap fed in event order.
        ordered = tuple((k, counts[k]) for k in _first_seen(self.per_table, data_collection))
        state = TransactionState(self.id, self.total_order + 1, ordered)
        return state, state.total_order, counts[data_collection]

    def counts(self) -> dict[str, int]:
        return dict(self.per_table)


def _first_seen(existing: tuple[tuple[str, int], ...], new_key: str) -> list[str]:
    keys = [k for k, _ in existing]
    if new_key not in keys:
        keys.append(new_key)
    return keys


@dataclass(frozen=True)
class SourceOffset:
    """An immutable snapshot of Debezium's BinlogOffsetContext, ready to be stored."""

    file: str
    pos: int
    server_id: int = 0
    gtids: str | None = None
    event: int = 0
    row: int = 0
    ts_sec: int = 0
    snapshot: str | None = None
    transaction: TransactionState | None = None
    extra: tuple[tuple[str, Any], ...] = field(default=())

    def position(self) -> BinlogPosition:
        return BinlogPosition(self.file, self.pos)

    def with_(self, **changes: Any) -> "SourceOffset":
        return replace(self, **changes)

    def to_map(self, include_transaction: bool = True) -> dict[str, Any]:
        """The offset map in Debezium's key order (a Java HashMap built in Debezium's insertion order)."""
        raw: dict[str, Any] = {}
        if self.server_id:
            raw["server_id"] = self.server_id
        if self.gtids:
            raw["gtids"] = self.gtids
        raw["file"] = self.file
        raw["pos"] = self.pos
        if self.event:
            raw["event"] = self.event
        if self.row:
            raw["row"] = self.row
        raw["ts_sec"] = self.ts_sec
        if self.snapshot:
            raw["snapshot"] = self.snapshot
        if include_transaction and self.transaction is not None:
            raw["transaction_id"] = self.transaction.id
            for table, count in self.transaction.per_table:
                raw[f"transaction_data_collection_order_{table}"] = count
        for key, value in self.extra:
            raw[key] = value
        return as_hashmap(raw)

    @staticmethod
    def from_map(data: dict[str, Any]) -> "SourceOffset":
        """Read an offset map written by this connector or by Debezium (1.x–3.x spellings)."""
        snapshot = data.get("snapshot")
        if snapshot is True or (isinstance(snapshot, str) and snapshot.lower() == "true"):
            snapshot = SNAPSHOT_INITIAL
        elif snapshot in (False, None) or (isinstance(snapshot, str) and snapshot.lower() == "false"):
            snapshot = None
        if data.get("snapshot_completed") in (True, "true"):
            snapshot = None
        tx = None
        if data.get("transaction_id"):
            prefix = "transaction_data_collection_order_"
            per_table = tuple((k[len(prefix):], int(v)) for k, v in data.items() if k.startswith(prefix))
            tx = TransactionState(str(data["transaction_id"]), sum(v for _, v in per_table), per_table)
        return SourceOffset(
            file=str(data.get("file", "")),
            pos=int(data.get("pos", 4)),
            server_id=int(data.get("server_id", 0) or 0),
            gtids=data.get("gtids") or None,
            event=int(data.get("event", 0) or 0),
            row=int(data.get("row", 0) or 0),
            ts_sec=int(data.get("ts_sec", 0) or 0),
            snapshot=snapshot,
            transaction=tx,
        )

    @property
    def snapshot_in_progress(self) -> bool:
        return self.snapshot is not None
