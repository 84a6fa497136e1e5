"""The kinds of record the connector emits, as logical records: what a record is before it is bytes.

Streaming, the snapshot and the heartbeat build one of these per record and hand it to the dispatcher's
encoder (connector/dispatch/encoder.py), the one place records become bytes. Each kind renders itself
two ways, and both give the same record:

* `json(key_schemas, value_schemas)`: JsonConverter bytes joined from schema JSON rendered once per
  schema; no Connect values are built (the fast path, taken when nothing else needs the record);
* `connect()`: a `ConnectRecord`, Kafka Connect's `SourceRecord` (schemas and values), for transforms
  and for converters other than JSON text (Avro).

`JsonConverter` applied to `connect()` is `json()` byte for byte (tests/unit/events/test_record_kinds.py).
Data kinds take their key/value `schemas.enable` from their `TableSchema`, which was built with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Mapping, Protocol, Sequence

from connector.config.modes import Operation
from connector.events import records
from connector.events.envelope import TxBlock
from connector.events.source_info import SourceInfo
from connector.events.table_schema import TableSchema
from connector.serde.connect_schema import ConnectSchema

__all__ = [
    "ConnectRecord",
    "DataChange",
    "HeartbeatRecord",
    "LogicalRecord",
    "NotificationRecord",
    "RecordKind",
    "SchemaChangeRecord",
    "Tombstone",
    "TransactionRecord",
]

Headers = list[tuple[str, bytes]]


class RecordKind(str, Enum):
    """What a record is; transforms are configured per kind."""

    DATA = "data"  # op c/u/d/r
    TOMBSTONE = "tombstone"  # null value after a delete (tombstones.on.delete)
    TRUNCATE = "truncate"  # op t
    SCHEMA_CHANGE = "schema_change"
    TRANSACTION = "transaction"  # BEGIN / END (provide.transaction.metadata)
    HEARTBEAT = "heartbeat"
    NOTIFICATION = "notification"  # notification.enabled.channels=sink


@dataclass(frozen=True, slots=True)
class ConnectRecord:
    """A record as Kafka Connect's `SourceRecord` has it: what transforms see and converters serialise.
    A null value is a tombstone; `partition=None` lets the producer's partitioner choose. `timestamp` (epoch ms) is
    what Connect calls the record timestamp: Debezium leaves it null except where the outbox EventRouter sets it,
    and only transforms read it (TimestampRouter); the producer stamps what it sends."""

    topic: str
    partition: int | None
    key_schema: ConnectSchema | None
    key: Any
    value_schema: ConnectSchema | None
    value: Any
    headers: Headers = field(default_factory=list)
    timestamp: int | None = None
    # entries of the source offset Connect keeps beside the record (the EnforceRecordSize estimate counts them);
    # None where the record was built without it
    offset_entries: int | None = None


class LogicalRecord(Protocol):
    """One record of any kind, not yet encoded."""

    @property
    def kind(self) -> RecordKind: ...

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int | None: ...

    @property
    def headers(self) -> Headers: ...

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]: ...

    def connect(self) -> ConnectRecord: ...


# The two kinds built once per row are not frozen: a frozen dataclass sets each field through
# object.__setattr__, which made building one ~5x slower (2.8 µs against 0.5 µs for 10 fields), about 7% of
# the dispatcher's time per row. Nothing mutates them after construction.
@dataclass(slots=True)
class DataChange:
    """A change event of one table version: op c/u/d/r, or t (TRUNCATE: no key, no row images).

    Row images are in table column order (`TableSchema` projects and masks the value images);
    `key_row` is the image the key is taken from, None for no key.
    """

    table: TableSchema
    topic: str
    op: Operation
    before: Sequence[Any] | None
    after: Sequence[Any] | None
    key_row: Sequence[Any] | None
    source: SourceInfo
    transaction: TxBlock | None
    ts_ns: int  # the envelope's ts_ms/ts_us/ts_ns, one instant
    headers: Headers
    offset_entries: int | None = None  # of its source offset (ConnectRecord.offset_entries)
    partition: ClassVar[int | None] = None

    @property
    def kind(self) -> RecordKind:
        return RecordKind.TRUNCATE if self.op is Operation.TRUNCATE else RecordKind.DATA

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]:
        table = self.table
        key = table.key_bytes(self.key_row) if self.key_row is not None else None
        return key, table.value_bytes(self.op, self.before, self.after, self.source, self.transaction, self.ts_ns)

    def connect(self) -> ConnectRecord:
        table = self.table
        key = table.key_values(self.key_row) if self.key_row is not None else None
        value = table.envelope_values(self.op, self.before, self.after, self.source, self.transaction, self.ts_ns)
        return ConnectRecord(self.topic, None, table.key_schema if key is not None else None, key, table.envelope,
                             value, self.headers, None, self.offset_entries)


@dataclass(slots=True)
class Tombstone:
    """The null-value record that follows a delete, with the deleted row's key."""

    table: TableSchema
    topic: str
    key_row: Sequence[Any]
    headers: Headers
    kind: ClassVar[RecordKind] = RecordKind.TOMBSTONE
    partition: ClassVar[int | None] = None

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]:
        return self.table.key_bytes(self.key_row), None

    def connect(self) -> ConnectRecord:
        key = self.table.key_values(self.key_row)
        return ConnectRecord(self.topic, None, self.table.key_schema if key is not None else None, key, None, None,
                             self.headers)


@dataclass(frozen=True, slots=True)
class SchemaChangeRecord:
    """A schema change event on the `<topic.prefix>` topic; Debezium pins it to partition 0."""

    change: records.SchemaChange
    topic: str
    headers: Headers
    kind: ClassVar[RecordKind] = RecordKind.SCHEMA_CHANGE
    partition: ClassVar[int | None] = 0

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]:
        return (records.schema_change_key_bytes(self.change.database_name, key_schemas),
                records.schema_change_value_bytes(self.change, value_schemas))

    def connect(self) -> ConnectRecord:
        return ConnectRecord(self.topic, 0, records.SCHEMA_CHANGE_KEY_SCHEMA, (self.change.database_name,),
                             records.SCHEMA_CHANGE_VALUE_SCHEMA, records.schema_change_values(self.change),
                             self.headers)


@dataclass(frozen=True, slots=True)
class TransactionRecord:
    """A transaction's BEGIN (`per_collection` None) or END (`db.table` → event count) record; no headers."""

    tx_id: str
    ts_ms: int
    topic: str
    per_collection: Mapping[str, int] | None = None
    kind: ClassVar[RecordKind] = RecordKind.TRANSACTION
    partition: ClassVar[int | None] = None

    @property
    def headers(self) -> Headers:
        return []

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]:
        key = records.transaction_key_bytes(self.tx_id, key_schemas)
        if self.per_collection is None:
            return key, records.transaction_begin_bytes(self.tx_id, self.ts_ms, value_schemas)
        return key, records.transaction_end_bytes(self.tx_id, self.ts_ms, self.per_collection, value_schemas)

    def connect(self) -> ConnectRecord:
        value = (records.transaction_begin_values(self.tx_id, self.ts_ms) if self.per_collection is None
                 else records.transaction_end_values(self.tx_id, self.ts_ms, self.per_collection))
        return ConnectRecord(self.topic, None, records.TX_KEY_SCHEMA, (self.tx_id,), records.TX_VALUE_SCHEMA, value)


@dataclass(frozen=True, slots=True)
class HeartbeatRecord:
    """A heartbeat (`heartbeat.interval.ms`): key = the topic prefix, value = the time; partition 0, no headers."""

    server_name: str
    ts_ms: int
    topic: str
    kind: ClassVar[RecordKind] = RecordKind.HEARTBEAT
    partition: ClassVar[int | None] = 0

    @property
    def headers(self) -> Headers:
        return []

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]:
        return (records.heartbeat_key_bytes(self.server_name, key_schemas),
                records.heartbeat_value_bytes(self.ts_ms, value_schemas))

    def connect(self) -> ConnectRecord:
        return ConnectRecord(self.topic, 0, records.HEARTBEAT_KEY_SCHEMA, (self.server_name,),
                             records.HEARTBEAT_VALUE_SCHEMA, (self.ts_ms,))


@dataclass(frozen=True, slots=True)
class NotificationRecord:
    """A notification on the sink channel's topic: key = its id; no partition chosen (the producer's
    partitioner picks one, as for Debezium's record with a null partition), no headers.
    `additional_data` is already in the order Java's HashMap gives it (connector/notifications/model.py)."""

    id: str
    type: str
    aggregate_type: str
    additional_data: Mapping[str, str]
    timestamp: int
    topic: str
    kind: ClassVar[RecordKind] = RecordKind.NOTIFICATION
    partition: ClassVar[int | None] = None

    @property
    def headers(self) -> Headers:
        return []

    def _values(self) -> tuple:
        return (self.id, self.type, self.aggregate_type, dict(self.additional_data), self.timestamp)

    def json(self, key_schemas: bool, value_schemas: bool) -> tuple[bytes | None, bytes | None]:
        return (records.notification_key_bytes(self.id, key_schemas),
                records.notification_value_bytes(self._values(), value_schemas))

    def connect(self) -> ConnectRecord:
        return ConnectRecord(self.topic, None, records.NOTIFICATION_KEY_SCHEMA, (self.id,),
                             records.NOTIFICATION_VALUE_SCHEMA, self._values())
