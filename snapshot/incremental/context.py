"""What an incremental snapshot has to remember, and its offset keys (Debezium's
AbstractIncrementalSnapshotContext): the queue of tables still to read, where the current table's reading
got to, its maximum key, the id of the signal that asked for it and of the current chunk.

Stored while the snapshot runs, in every streaming record's offset, under Debezium's four keys:
`incremental_snapshot_primary_key` (the last key sent, a Java-serialized Object[] in hex),
`incremental_snapshot_maximum_key` (the same for the table's maximum key), `incremental_snapshot_collections`
(JSON list of the tables left: id, additional condition, surrogate key) and
`incremental_snapshot_correlation_id`. A restart, or a takeover of a Debezium offset, continues the current
table after the stored key.
"""

from __future__ import annotations

import json
import uuid
from collections import deque
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from connector.java.object_array import INTEGER, LONG, STRING, JavaKey, deserialize_keys, serialize_keys
from connector.offsets.parts import IncrementalSnapshotSlot
from schema_history.model import Column, TableId

__all__ = ["Collection", "IncrementalContext", "java_key_type"]

PRIMARY_KEY = "incremental_snapshot_primary_key"
MAXIMUM_KEY = "incremental_snapshot_maximum_key"
COLLECTIONS = "incremental_snapshot_collections"
CORRELATION_ID = "incremental_snapshot_correlation_id"
_ID, _CONDITION, _SURROGATE = (f"{COLLECTIONS}_id", f"{COLLECTIONS}_additional_condition",
                               f"{COLLECTIONS}_surrogate_key")
_INT_TYPES = ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER")


def java_key_type(column: Column) -> JavaKey:
    """The box MySQL Connector/J gives a key column's values; TypeError for a type without an encoding."""
    name = column.type_name.upper().replace(" UNSIGNED", "")
    unsigned = "UNSIGNED" in column.type_name.upper() or "UNSIGNED" in column.type_expression.upper()
    if name in _INT_TYPES:
        return LONG if unsigned and name in ("INT", "INTEGER") else INTEGER
    if name == "BIGINT" and not unsigned:
        return LONG
    if name in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM"):
        return STRING
    raise TypeError(f"column {column.name} of type {column.type_name} has no incremental snapshot key encoding")


def _types_of(values: Sequence[Any]) -> tuple[JavaKey, ...]:
    """Boxes guessed from the values (a loaded context, before its table was looked at again)."""
    return tuple(STRING if isinstance(v, str) else INTEGER if -2**31 <= v < 2**31 else LONG for v in values)


@dataclass(frozen=True)
class Collection:
    table: TableId
    filter: str | None = None
    surrogate_key: str | None = None


class IncrementalContext:
    """Mutable; owned by the streaming thread (signals are processed there, as Debezium does)."""

    def __init__(self) -> None:
        self.collections: deque[Collection] = deque()
        self.correlation_id: str | None = None
        self.chunk_id: str | None = None
        self.window_open = False
        self.paused = False
        self.maximum_key: tuple | None = None
        self.chunk_end: tuple | None = None  # the next chunk starts after this key
        self.last_sent: tuple | None = None
        self.key_types: tuple[JavaKey, ...] = ()
        self.stop_requested: list[str] = []
        # incremental.snapshot.allow.schema.changes: the current table's result columns as last read, and whether
        # two windows in a row saw the same (Debezium's context schema and schemaVerificationPassed; not stored)
        self.result_shape: tuple | None = None
        self.schema_verified = False

    @property
    def running(self) -> bool:
        return bool(self.collections)

    @property
    def current(self) -> Collection | None:
        return self.collections[0] if self.collections else None

    def add(self, correlation_id: str, collections: Sequence[Collection]) -> None:
        self.collections.extend(collections)
        self.correlation_id = correlation_id

    def start_chunk(self) -> str:
        self.chunk_id = str(uuid.uuid4())
        return self.chunk_id

    def expects(self, signal_id: str) -> bool:
        return self.chunk_id is not None and signal_id.startswith(self.chunk_id)

    def next_collection(self) -> None:
        self.collections.popleft()
        self.maximum_key = self.chunk_end = self.last_sent = None
        self.key_types = ()
        self.result_shape, self.schema_verified = None, False
        if not self.collections:
            self.correlation_id = None

    def revert_chunk(self) -> None:
        self.chunk_end = self.last_sent
        self.window_open = False

    # ------------------------------------------------------------ offsets
    def slot(self) -> IncrementalSnapshotSlot | None:
        """The offset part while running (None once done), keys in AbstractIncrementalSnapshotContext.store's
        order."""
        if not self.running:
            return None
        types = self.key_types or _types_of(self.maximum_key or self.last_sent or ())
        collections = [{_ID: c.table.dotted(), _CONDITION: c.filter or None, _SURROGATE: c.surrogate_key or None}
                       for c in self.collections]
        return IncrementalSnapshotSlot((
            (PRIMARY_KEY, serialize_keys(self.last_sent, types)),
            (MAXIMUM_KEY, serialize_keys(self.maximum_key, types)),
            (COLLECTIONS, json.dumps(collections, separators=(",", ":"))),
            (CORRELATION_ID, self.correlation_id),
        ))

    @staticmethod
    def load(offset: Mapping[str, Any]) -> "IncrementalContext":
        """The context a stored offset describes (as Debezium's `init`: the stored last key becomes the end of
        the chunk to continue after); ValueError for keys it cannot read."""
        context = IncrementalContext()
        raw = offset.get(COLLECTIONS)
        if not raw:
            return context
        for entry in json.loads(str(raw)):
            context.collections.append(Collection(TableId.parse_identifier(entry[_ID]),
                                                  entry.get(_CONDITION) or None, entry.get(_SURROGATE) or None))
        primary, maximum = offset.get(PRIMARY_KEY), offset.get(MAXIMUM_KEY)
        context.chunk_end = deserialize_keys(str(primary)) if primary else None
        # Also the last key sent (Debezium resets it to null): until the next chunk is emitted, records stored
        # and a chunk read again after DDL must still continue after it, not from the table's start.
        context.last_sent = context.chunk_end
        context.maximum_key = deserialize_keys(str(maximum)) if maximum else None
        context.correlation_id = offset.get(CORRELATION_ID)
        return context
