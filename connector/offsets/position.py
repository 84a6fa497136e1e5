"""Where the connector is in the binlog, and the offset map Debezium stores for it.

The resume contract (Debezium's, debezium-contract.md §d10): an offset names the event to reconnect
at (`file`/`pos`: the start of the current transaction, or the next event between transactions),
plus how many events (`event`) and rows (`row`) of that transaction were already emitted, so a restart
skips exactly those. `gtids` is the set of *completed* transactions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence, TypeVar

from connector.offsets.parts import IncrementalSnapshotSlot, OffsetPart, SnapshotMarker, compose_offset

SNAPSHOT_INITIAL = "INITIAL"
TRANSACTION_ID_KEY = "transaction_id"
TRANSACTION_ORDER_PREFIX = "transaction_data_collection_order_"


def binlog_file_key(name: str) -> tuple[str, int]:
    """A binlog file name as an orderable key: (base name, number). The number is compared as a number:
    after `mysql-bin.999999` the server writes `mysql-bin.1000000`, which sorts before it as text."""
    base, dot, number = name.rpartition(".")
    if not dot or not number.isdigit():
        return name, -1  # not a binlog name: equal only to itself, before any numbered file of that base
    return base, int(number)


@dataclass(frozen=True)
class BinlogPosition:
    """A place in the binlog. Ordered by file number, then position (never by the file name's text)."""

    file: str
    pos: int

    def __str__(self) -> str:
        return f"{self.file}:{self.pos}"

    def key(self) -> tuple[str, int, int]:
        return (*binlog_file_key(self.file), self.pos)

    def __lt__(self, other: "BinlogPosition") -> bool:
        return self.key() < other.key()

    def __le__(self, other: "BinlogPosition") -> bool:
        return self.key() <= other.key()

    def __gt__(self, other: "BinlogPosition") -> bool:
        return self.key() > other.key()

    def __ge__(self, other: "BinlogPosition") -> bool:
        return self.key() >= other.key()


@dataclass(frozen=True)
class TransactionState:
    """Debezium's TransactionContext: id plus per-table and total event counters; an `OffsetPart`."""

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

    def store(self, offset: dict[str, Any]) -> dict[str, Any]:
        """`TransactionContext.store`: the id, then one order per table in the order tables were first seen."""
        offset[TRANSACTION_ID_KEY] = self.id
        for table, count in self.per_table:
            offset[TRANSACTION_ORDER_PREFIX + table] = count
        return offset

    @staticmethod
    def load(offset: Mapping[str, Any]) -> "TransactionState | None":
        if not offset.get(TRANSACTION_ID_KEY):
            return None
        prefix = TRANSACTION_ORDER_PREFIX
        per_table = tuple((k[len(prefix):], int(v)) for k, v in offset.items() if k.startswith(prefix))
        return TransactionState(str(offset[TRANSACTION_ID_KEY]), sum(v for _, v in per_table), per_table)


def _first_seen(existing: tuple[tuple[str, int], ...], new_key: str) -> list[str]:
    keys = [k for k, _ in existing]
    if new_key not in keys:
        keys.append(new_key)
    return keys


PartLoader = Callable[[Mapping[str, Any]], "OffsetPart | None"]
# The parts every stored offset may hold besides the position, snapshot marker and transaction.
DEFAULT_PART_LOADERS: tuple[PartLoader, ...] = (IncrementalSnapshotSlot.load,)
P = TypeVar("P")
INCREMENTAL = "INCREMENTAL"  # the `snapshot` offset value of an incremental snapshot's records
BLOCKING = "BLOCKING"  # ... and of a blocking snapshot's records (all but its last)


# Not frozen, like the other per-row objects: one is built per row change (`at_row`) and per snapshot row
# (`with_parts`), and a frozen dataclass sets each field through object.__setattr__ (three times slower). Never
# changed once built, but for its cached maps.
@dataclass(slots=True, unsafe_hash=True)
class SourceOffset:
    """An immutable snapshot of Debezium's BinlogOffsetContext, ready to be stored.

    It is the binlog position part itself (`store` writes server_id, gtids, file, pos, event, row, ts_sec, in
    `offsetUsingPosition`'s order) and holds the other parts: the snapshot marker, the transaction context, and
    `parts` (incremental snapshot, snapshot resume). `to_map` composes them as `getOffset()` does: while a
    snapshot runs only the marker follows the position; otherwise the transaction, then the other parts.
    """

    file: str
    pos: int
    server_id: int = 0
    gtids: str | None = None
    event: int = 0
    row: int = 0
    ts_sec: int = 0
    snapshot: str | None = None
    transaction: TransactionState | None = None
    parts: tuple[OffsetPart, ...] = field(default=())
    # `_own_keys` (the position, marker and transaction keys in HashMap order), once asked for, with and without
    # the transaction keys.
    _keys_tx: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    _keys: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def position(self) -> BinlogPosition:
        return BinlogPosition(self.file, self.pos)

    def with_(self, **changes: Any) -> "SourceOffset":
        return replace(self, **changes)

    def with_parts(self, *parts: OffsetPart) -> "SourceOffset":
        """This offset with `parts` instead of its own; cheap, as the snapshot does it once per row."""
        copy = SourceOffset(self.file, self.pos, self.server_id, self.gtids, self.event, self.row, self.ts_sec,
                            self.snapshot, self.transaction, parts)
        copy._keys_tx, copy._keys = self._keys_tx, self._keys  # they hold no part's keys (see to_map)
        return copy

    def at_row(self, row: int) -> "SourceOffset":
        """This offset with another `row` (> 0, as this one's): the next row of the same rows event, built per
        row change. Its cached maps are this one's with `row` replaced (the key set, hence the HashMap order,
        is the same)."""
        copy = SourceOffset(self.file, self.pos, self.server_id, self.gtids, self.event, row, self.ts_sec,
                            self.snapshot, self.transaction, self.parts)
        cached = self._keys_tx
        if cached is not None and "row" in cached:  # without `row` (row 0), the key set differs: built afresh
            copy._keys_tx = {**cached, "row": row}
        cached = self._keys
        if cached is not None and "row" in cached:
            copy._keys = {**cached, "row": row}
        return copy

    def part(self, kind: type[P]) -> P | None:
        """The part of type `kind` in `parts`, if any."""
        for part in self.parts:
            if isinstance(part, kind):
                return part
        return None

    def store(self, offset: dict[str, Any]) -> dict[str, Any]:
        if self.server_id:
            offset["server_id"] = self.server_id
        if self.gtids:
            offset["gtids"] = self.gtids
        offset["file"] = self.file
        offset["pos"] = self.pos
        if self.event:
            offset["event"] = self.event
        if self.row:
            offset["row"] = self.row
        offset["ts_sec"] = self.ts_sec
        return offset

    def to_map(self, include_transaction: bool = True) -> dict[str, Any]:
        """The offset map in Debezium's key order (a Java HashMap built in Debezium's insertion order)."""
        if self.parts or not include_transaction:
            return compose_offset(_Stored(self._own_keys(include_transaction)), *self.parts)
        return dict(self._own_keys(True))

    def _own_keys(self, include_transaction: bool) -> dict[str, Any]:
        """The position, marker and transaction keys in HashMap order; cached, for the snapshot's per-row offsets."""
        cached = self._keys_tx if include_transaction else self._keys
        if cached is None:
            # An incremental snapshot's rows are streaming records (BinlogOffsetContext.getOffset: only a
            # blocking/initial snapshot drops the transaction keys).
            in_snapshot = self.snapshot is not None and self.snapshot != INCREMENTAL
            transaction = self.transaction if include_transaction and not in_snapshot else None
            marker = SnapshotMarker(self.snapshot) if self.snapshot else None
            cached = compose_offset(self, marker, transaction)
            if include_transaction:
                self._keys_tx = cached
            else:
                self._keys = cached
        return cached

    @staticmethod
    def from_map(data: Mapping[str, Any],
                 loaders: Sequence[PartLoader] = DEFAULT_PART_LOADERS) -> "SourceOffset":
        """Read an offset map written by this connector or by Debezium (1.x–3.x spellings), with every part
        `loaders` find in it."""
        marker = SnapshotMarker.load(data)
        parts = tuple(p for p in (load(data) for load in loaders) if p is not None)
        return SourceOffset(
            file=str(data.get("file", "")),
            pos=int(data.get("pos", 4)),
            server_id=int(data.get("server_id", 0) or 0),
            gtids=data.get("gtids") or None,
            event=int(data.get("event", 0) or 0),
            row=int(data.get("row", 0) or 0),
            ts_sec=int(data.get("ts_sec", 0) or 0),
            snapshot=marker.kind if marker is not None else None,
            transaction=TransactionState.load(data),
            parts=parts,
        )

    @property
    def snapshot_in_progress(self) -> bool:
        """An initial snapshot did not complete. An incremental one resumes while streaming; an interrupted
        blocking one is not resumed (Debezium's isInitialSnapshotRunning): streaming goes on from its position."""
        return self.snapshot is not None and self.snapshot not in (INCREMENTAL, BLOCKING)


@dataclass(frozen=True)
class _Stored:
    """Keys already composed (and ordered) by other parts, stored as they are."""

    keys: dict[str, Any]

    def store(self, offset: dict[str, Any]) -> dict[str, Any]:
        offset.update(self.keys)
        return offset
