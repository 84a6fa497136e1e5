"""The one place where a record of any kind becomes a Kafka record: transforms, then key/value converters.

    logical record ──(no transform for its kind, both sides JSON text)──► record.json() ──────────┐
         └──► record.connect() ─► transform chain of its kind ─► key converter, value converter ──┴─► OutRecord

Callers (dispatcher, heartbeat) only build the logical record (connector/events/kinds.py) and call
`RecordEncoder.encode`. A chain of `RecordTransform`s (Kafka Connect SMTs, declared in
connector/transforms/chain.py) is configured per `RecordKind`; a kind without one, when both converters are
JSON text, takes the fast path: the record joins its pre-rendered schema JSON with its payload, and no Connect
values are built for it.
Converters run key first, then value, as Connect's `WorkerSourceTask` does (a fresh schema registry
then hands out ids in AvroConverter's order).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from connector.errors import TransformError, Where
from connector.events.kinds import ConnectRecord, DataChange, Headers, LogicalRecord, RecordKind
from connector.kafka.writer import OutRecord
from connector.serde.avro import JsonSide, RecordSerializer

if TYPE_CHECKING:  # the transforms' seam is declared on their side, below the dispatcher
    from connector.transforms.chain import RecordTransform, Transforms

__all__ = ["ErrorTolerance", "RecordEncoder"]

log = logging.getLogger(__name__)


@dataclass
class ErrorTolerance:
    """Kafka Connect's `errors.tolerance=all` for a source task: a record that a transform or a converter refuses
    is skipped (its offset still commits), and with `errors.log.enable` logged as Connect's LogReporter does,
    with the record itself only under `errors.log.include.messages`."""

    log_errors: bool = False
    include_messages: bool = False
    skipped_records: int = 0

    def skipped(self, stage: str, stage_class: str, record: LogicalRecord, exc: ValueError) -> None:
        self.skipped_records += 1
        if not self.log_errors:
            return
        shown = f"', where source record is = {record.connect()}" if self.include_messages else "'"
        log.error("Error encountered in task 0. Executing stage '%s' with class '%s%s.: %s", stage, stage_class,
                  shown, exc)


class RecordEncoder:
    """Logical records → `OutRecord`s (topic, partition, key bytes, value bytes, headers).

    `converters` None means JsonConverter on both sides (with the given `schemas.enable` flags), the only
    case with a fast path; `transforms` maps a record kind to its chain, applied in order.
    """

    def __init__(self, converters: RecordSerializer | None = None, *, key_schemas_enable: bool = True,
                 value_schemas_enable: bool = True, transforms: Transforms | None = None,
                 tolerance: ErrorTolerance | None = None) -> None:
        self._tolerance = tolerance  # errors.tolerance=all; None: a failing record stops the connector
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
        transform: RecordTransform | None = None
        try:
            for transform in self._chains.get(record.kind, ()):
                connect = transform.apply(connect)
                if connect is None:
                    return None
        except ValueError as exc:  # a transform refusing this record: Debezium's task stops there too
            if self._tolerance is not None:
                self._tolerance.skipped("TRANSFORMATION", type(transform).__name__, record, exc)
                return None
            raise TransformError(str(exc), where=_where(record),
                                 fix="change the transforms (or their predicates) so that this record is handled; "
                                     "it and the ones after it are read again at the next start") from exc
        assert connect is not None
        if self._tolerance is None:
            return self.serialize(connect)
        try:
            return self.serialize(connect)
        except ValueError as exc:  # Connect's DataException from a converter, tolerated as well
            self._tolerance.skipped("VALUE_CONVERTER", type(self._converters).__name__, record, exc)
            return None

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
