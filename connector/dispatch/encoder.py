"""The one place where a record of any kind becomes a Kafka record: transforms, then key/value converters.

    logical record ──(no transform for its kind, both sides JSON text)──► record.json() ──────────┐
         └──► record.connect() ─► transform chain of its kind ─► key converter, value converter ──┴─► OutRecord

Callers (dispatcher, heartbeat) only build the logical record (connector/events/kinds.py) and call
`RecordEncoder.encode`. A chain of `RecordTransform`s (Kafka Connect SMTs) is configured per
`RecordKind`; a kind without one, when both converters are JSON text, takes the fast path: the record
joins its pre-rendered schema JSON with its payload, and no Connect values are built for it.
Converters run key first, then value, as Connect's `WorkerSourceTask` does (a fresh schema registry
then hands out ids in AvroConverter's order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

from connector.errors import TransformError, Where
from connector.events.kinds import ConnectRecord, DataChange, Headers, LogicalRecord, RecordKind
from connector.kafka.writer import OutRecord
from connector.serde.avro import JsonSide, RecordSerializer

__all__ = ["IdentityTransform", "RecordEncoder", "RecordTransform", "Transforms"]


class RecordTransform(Protocol):
    """A single message transform: the record, changed or not, or None to drop it (as an SMT returning null)."""

    def apply(self, record: ConnectRecord) -> ConnectRecord | None: ...


@dataclass(frozen=True)
class IdentityTransform:
    """Returns every record unchanged (the transform slot's neutral element)."""

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return record


Transforms = Mapping[RecordKind, Sequence[RecordTransform]]


class RecordEncoder:
    """Logical records → `OutRecord`s (topic, partition, key bytes, value bytes, headers).

    `converters` None means JsonConverter on both sides (with the given `schemas.enable` flags), the only
    case with a fast path; `transforms` maps a record kind to its chain, applied in order.
    """

    def __init__(self, converters: RecordSerializer | None = None, *, key_schemas_enable: bool = True,
                 value_schemas_enable: bool = True, transforms: Transforms | None = None) -> None:
        self._key_schemas = key_schemas_enable
        self._value_schemas = value_schemas_enable
        self._chains: dict[RecordKind, tuple[RecordTransform, ...]] = {
            kind: tuple(chain) for kind, chain in (transforms or {}).items() if chain}
        self._converters = converters if converters is not None else RecordSerializer(
            JsonSide(key_schemas_enable), JsonSide(value_schemas_enable))
        # Decided once: the kinds whose records go straight from pre-rendered JSON text to bytes.
        self._direct = frozenset(kind for kind in RecordKind if converters is None and kind not in self._chains)

    def direct(self, kind: RecordKind) -> bool:
        """Whether records of `kind` take the JSON fast path (no transform, JSON text on both sides)."""
        return kind in self._direct

    def encode(self, record: LogicalRecord) -> OutRecord | None:
        """The Kafka record for `record`, or None when a transform dropped it."""
        if record.kind in self._direct:
            key, value = record.json(self._key_schemas, self._value_schemas)
            return OutRecord(record.topic, key, value, record.headers, record.partition)
        connect: ConnectRecord | None = record.connect()
        try:
            for transform in self._chains.get(record.kind, ()):
                connect = transform.apply(connect)
                if connect is None:
                    return None
        except ValueError as exc:  # a transform refusing this record: Debezium's task stops there too
            raise TransformError(str(exc), where=_where(record),
                                 fix="change the transforms (or their predicates) so that this record is handled; "
                                     "it and the ones after it are read again at the next start") from exc
        return self.serialize(connect)

    def serialize(self, record: ConnectRecord) -> OutRecord:
        """A Connect record through the key converter, then the value converter."""
        key = self._converters.key.serialize(record.topic, record.key_schema, record.key)
        value = self._converters.value.serialize(record.topic, record.value_schema, record.value)
        return OutRecord(record.topic, key, value, list(record.headers), record.partition)

    def rendered(self, kind: RecordKind, topic: str,
                 headers: Headers) -> Callable[[bytes | None, bytes | None], OutRecord] | None:
        """For a caller that renders JSON text itself (the snapshot's raw-text rows, compiled per table read):
        key and value bytes → the record, or None when records of `kind` must go through `encode`
        (a transform is configured for the kind, or a converter is not JSON text)."""
        if kind not in self._direct:
            return None
        return lambda key, value: OutRecord(topic, key, value, headers)


def _where(record: LogicalRecord) -> Where:
    """The binlog position and table of a change event; the topic of any other record."""
    if isinstance(record, DataChange):
        source = record.source
        table = f"{source.db}.{source.table}" if source.db and source.table else None
        return Where(file=source.file or None, pos=source.pos if source.file else None, table=table, topic=record.topic)
    return Where(topic=record.topic)
