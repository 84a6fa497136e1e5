"""Change-event envelope pieces: the operation, the `transaction` block, and the primary-key-change rule.

`split_update` implements `RelationalChangeRecordEmitter`: an UPDATE whose key changed is emitted as a
DELETE of the old key (header `__debezium.newkey`), its tombstone (same headers), then a CREATE of the
new key (header `__debezium.oldkey`). Header values are the key structs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from connector.config.modes import Operation
from connector.serde.connect_schema import ConnectSchema, Type, struct

__all__ = [
    "Operation",
    "TxBlock",
    "TX_BLOCK_SCHEMA",
    "PlannedEvent",
    "split_update",
    "NEWKEY_HEADER",
    "OLDKEY_HEADER",
]

NEWKEY_HEADER = "__debezium.newkey"
OLDKEY_HEADER = "__debezium.oldkey"

TX_BLOCK_SCHEMA = struct(
    "event.block",
    [
        ("id", ConnectSchema(Type.STRING)),
        ("total_order", ConnectSchema(Type.INT64)),
        ("data_collection_order", ConnectSchema(Type.INT64)),
    ],
    optional=True,
    version=1,
)


@dataclass(frozen=True)
class TxBlock:
    """The envelope's `transaction` field (only with provide.transaction.metadata=true)."""

    id: str
    total_order: int
    data_collection_order: int

    def values(self) -> tuple[str, int, int]:
        return (self.id, self.total_order, self.data_collection_order)


# Not frozen: one is built per row change, and a frozen dataclass sets each field through object.__setattr__.
@dataclass(slots=True)
class PlannedEvent:
    """One data record to emit: op, row images, whether a tombstone follows, and key headers.

    `headers` holds (header name, key values) pairs; render them with `records.key_header`.
    """

    op: Operation
    before: Sequence[Any] | None
    after: Sequence[Any] | None
    key_of: Sequence[Any] | None  # the row whose key is the record key
    tombstone: bool = False
    headers: tuple[tuple[str, tuple], ...] = ()


def split_update(
    before: Sequence[Any],
    after: Sequence[Any],
    old_key: tuple | None,
    new_key: tuple | None,
    tombstones_on_delete: bool = True,
) -> list[PlannedEvent]:
    """Events for one UPDATE row: a plain `u`, or d (+tombstone) + c when the key changed."""
    if old_key is None or old_key == new_key:
        return [PlannedEvent(Operation.UPDATE, before, after, after)]
    new_h = ((NEWKEY_HEADER, new_key),)
    old_h = ((OLDKEY_HEADER, old_key),)
    return [
        PlannedEvent(Operation.DELETE, before, None, before, tombstone=tombstones_on_delete, headers=new_h),
        PlannedEvent(Operation.CREATE, None, after, after, headers=old_h),
    ]


def plan_row(
    op: Operation,
    before: Sequence[Any] | None,
    after: Sequence[Any] | None,
    old_key: tuple | None = None,
    new_key: tuple | None = None,
    tombstones_on_delete: bool = True,
) -> list[PlannedEvent]:
    """Events for one row change of any kind."""
    if op is Operation.UPDATE:
        assert before is not None and after is not None
        return split_update(before, after, old_key, new_key, tombstones_on_delete)
    if op is Operation.DELETE:
        return [PlannedEvent(op, before, None, before, tombstone=tombstones_on_delete)]
    return [PlannedEvent(op, None, after, after)]
