"""Source offsets: what they hold (parts), which are safe to commit (tracker), when to commit (committer), where
(stores).

`SourceOffset` (position.py) is Debezium's offset context: where the connector is in the binlog, ready to store.
An offset is composed of parts, each storing its own keys (parts.py): the binlog position, the snapshot marker,
the transaction context, the incremental snapshot; `compose_offset` renders them in Debezium's key order.

Flow: every record handed to the KafkaWriter is `track`ed with the offset it carries; its delivery callback
`ack`s it; the committer saves `committable()` (newest offset with all earlier records acked) to a store.
Exactly-once mode instead writes the newest tracked offset inside the records' Kafka transaction
(`TransactionalCommitter`).
"""

from connector.offsets.committer import Flushable, OffsetCommitter
from connector.offsets.file_store import FileOffsetStore, read_offsets_file, write_offsets_file
from connector.offsets.kafka_store import CONNECT_DEFAULT_PARTITIONS, KafkaOffsetStore
from connector.offsets.memory_store import MemoryOffsetStore
from connector.offsets.parts import IncrementalSnapshotSlot, OffsetPart, SnapshotMarker, compose_offset
from connector.offsets.store import (
    OffsetFlushTimeout,
    OffsetStore,
    OffsetStoreError,
    parse_offset,
    partition_key,
    render_offset,
)
from connector.offsets.tracker import OffsetTracker
from connector.offsets.transactional import TransactionalCommitter

__all__ = [
    "CONNECT_DEFAULT_PARTITIONS",
    "FileOffsetStore",
    "IncrementalSnapshotSlot",
    "Flushable",
    "KafkaOffsetStore",
    "MemoryOffsetStore",
    "OffsetCommitter",
    "OffsetFlushTimeout",
    "OffsetPart",
    "OffsetStore",
    "OffsetStoreError",
    "OffsetTracker",
    "SnapshotMarker",
    "TransactionalCommitter",
    "compose_offset",
    "parse_offset",
    "partition_key",
    "read_offsets_file",
    "render_offset",
    "write_offsets_file",
]
